package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
)

// renderer shows the events of a run as they come.
type renderer interface {
	event(env contract.Envelope) error
	// end finishes the output of a run (a pending newline, say).
	end()
}

// jsonLines prints envelopes as JSON lines, exactly as events.jsonl holds
// them; deltas only when asked.
type jsonLines struct {
	w      io.Writer
	deltas bool
}

func (j *jsonLines) event(env contract.Envelope) error {
	if !env.Durable() && !j.deltas {
		return nil
	}
	b, err := env.MarshalJSON()
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = j.w.Write(b)
	return err
}

func (j *jsonLines) end() {}

// terminal renders for a person: the answer text on out, everything else
// (reasoning, intents, errors) on errw.
type terminal struct {
	out, errw io.Writer
	// color enables ANSI dim and bold on errw.
	color bool
	// outOpen and errOpen say a streamed line is unfinished on out or errw.
	outOpen, errOpen bool
	// thinking says a reasoning block is being streamed.
	thinking bool
}

func newTerminal(out, errw io.Writer) *terminal {
	return &terminal{out: out, errw: errw, color: isTerminal(errw) && os.Getenv("NO_COLOR") == ""}
}

func (t *terminal) style(code, s string) string {
	if !t.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// line ends any streamed line, then prints s on its own line of errw.
func (t *terminal) line(s string) {
	t.end()
	fmt.Fprintln(t.errw, s)
}

func (t *terminal) event(env contract.Envelope) error {
	if _, ok := env.Data.(*contract.ReasoningDelta); !ok && t.thinking {
		t.thinking = false
		t.end()
	}
	switch e := env.Data.(type) {
	case *contract.TextDelta:
		if t.errOpen {
			fmt.Fprintln(t.errw)
			t.errOpen = false
		}
		_, err := io.WriteString(t.out, e.Text)
		t.outOpen = !strings.HasSuffix(e.Text, "\n")
		return err
	case *contract.ReasoningDelta:
		if t.outOpen {
			fmt.Fprintln(t.out)
			t.outOpen = false
		}
		text := e.Text
		if !t.thinking {
			// Mark where reasoning starts, so it reads apart from the
			// answer even without colour.
			t.end()
			text = "thinking: " + text
			t.thinking = true
		}
		fmt.Fprint(t.errw, t.style("2", text))
		t.errOpen = !strings.HasSuffix(e.Text, "\n")
	case *contract.IntentProposed:
		t.line(t.style("1", "● "+e.ToolName) + " " + compact(e.Input) +
			t.style("2", "  (proposed, pending: not executed)"))
	case *contract.ProviderError:
		t.line(t.style("31", "✗ model error: "+e.Error()))
	case *contract.RetryScheduled:
		t.line(t.style("33", fmt.Sprintf("  retrying in %.1fs (attempt %d, after %s)", float64(e.DelayMS)/1000, e.Attempt, e.Kind)))
	case *contract.FallbackSelected:
		t.line(t.style("33", fmt.Sprintf("  switching from %s to %s: %s", e.From, e.To, e.Reason)))
	case *contract.ModelDiscarded:
		t.line(t.style("2", "  (the partial answer above was discarded: "+e.Reason+")"))
	case *contract.ToolObservation:
		if !e.OK && e.Code == "not_executed" {
			t.line(t.style("2", "  ("+e.ToolName+" was never run: there is no tool runtime in this build yet)"))
		}
	case *contract.RunFinished:
		switch e.Outcome {
		case contract.OutcomeCompleted:
			t.end()
		case contract.OutcomeCancelled:
			t.line(t.style("33", "run cancelled"))
		default:
			t.line(t.style("31", fmt.Sprintf("run %s: %s", e.Outcome, e.Reason)))
		}
	}
	return nil
}

func (t *terminal) end() {
	if t.outOpen {
		fmt.Fprintln(t.out)
		t.outOpen = false
	}
	if t.errOpen {
		fmt.Fprintln(t.errw)
		t.errOpen = false
	}
}

// compact prints a JSON value on one line, shortened for display.
func compact(raw json.RawMessage) string {
	s := string(raw)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
