package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
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
	// Strict JSON, as the log's writer makes each line (opaque provider
	// state may hold what strict parsers reject).
	b = append(contract.CleanJSON(b), '\n')
	_, err = j.w.Write(b)
	return err
}

func (j *jsonLines) end() {}

// terminal renders for a person: the answer text on out, everything else
// (reasoning, intents, errors) on errw.
//
// On a terminal, the answer streams to out as it comes. When out is not a
// terminal (a pipe, a file: a script reads it), out gets only text that
// stands: the text of a model call is written there once the call has
// finished, and the partial text of a call that failed (and is retried)
// never is. The stream is then shown live on errw if a person watches it.
type terminal struct {
	out, errw io.Writer
	// color enables ANSI dim and bold on errw.
	color bool
	// outOpen and errOpen say a streamed line is unfinished on out or errw.
	outOpen, errOpen bool
	// thinking says a reasoning block is being streamed.
	thinking bool
	// settle holds the text of the model call under way back from out
	// until the call finishes; pending is that text.
	settle  bool
	pending strings.Builder
	// live is where text deltas stream as they come: out, errw, or
	// nowhere (nil).
	live io.Writer
	// stopped says the model call under way was stopped by the person.
	stopped bool
}

func newTerminal(out, errw io.Writer) *terminal {
	t := &terminal{out: out, errw: errw, color: isTerminal(errw) && os.Getenv("NO_COLOR") == ""}
	switch {
	case isTerminal(out):
		t.live = out
	case isTerminal(errw):
		t.settle, t.live = true, errw
	default:
		t.settle = true
	}
	return t
}

// text shows a delta of answer text: streamed live, and held back for
// out when out only gets what stands.
func (t *terminal) text(s string) error {
	if t.settle {
		t.pending.WriteString(s)
	}
	switch t.live {
	case t.out:
		if t.errOpen {
			fmt.Fprintln(t.errw)
			t.errOpen = false
		}
		_, err := io.WriteString(t.out, s)
		t.outOpen = !strings.HasSuffix(s, "\n")
		return err
	case t.errw:
		fmt.Fprint(t.errw, s)
		t.errOpen = !strings.HasSuffix(s, "\n")
	}
	return nil
}

// settled writes the text held back for out, once its model call has
// finished.
func (t *terminal) settled() error {
	if t.pending.Len() == 0 {
		return nil
	}
	s := t.pending.String()
	t.pending.Reset()
	if t.errOpen && t.live == t.errw {
		fmt.Fprintln(t.errw)
		t.errOpen = false
	}
	_, err := io.WriteString(t.out, s)
	t.outOpen = !strings.HasSuffix(s, "\n")
	return err
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
		return t.text(e.Text)
	case *contract.ModelFinished:
		return t.settled()
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
	case *contract.ProviderError:
		if e.Kind == contract.KindMalformedToolCall {
			// One call's arguments did not parse; the stream goes on, and
			// the model is told.
			t.line(t.style("31", "  ✗ a tool call could not be parsed: "+printable(e.Message)))
			break
		}
		// The call failed: its text does not stand. What failed is said
		// once, by what comes of it: the retry, the switch to another
		// model, or the end of the run. A cancelled call (Ctrl-C) is no
		// failure at all: "stopped" says it.
		t.pending.Reset()
		t.stopped = e.Kind == contract.KindAborted
	case *contract.RetryScheduled:
		// The kind is enough to follow the retries; the whole message is
		// said once, by the run's end, if no retry helps (the log has
		// every attempt's).
		t.line(t.style("33", fmt.Sprintf("  ✗ the model call failed (%s); retrying in %.1fs (attempt %d)", e.Kind, float64(e.DelayMS)/1000, e.Attempt)))
	case *contract.FallbackSelected:
		t.line(t.style("33", fmt.Sprintf("  switching from %s to %s: %s", e.From, e.To, printable(e.Reason))))
	case *contract.ModelDiscarded:
		t.pending.Reset()
		if t.stopped {
			break // the person stopped the call: "stopped" follows
		}
		what := "the partial answer of the failed call"
		if t.live != nil {
			what = "the partial answer above"
		}
		t.line(t.style("33", "  ✗ "+what+" is discarded: "+printable(e.Reason)))
	case *contract.RunFinished:
		t.pending.Reset() // a call that never finished: its text does not stand
		t.stopped = false
		switch e.Outcome {
		case contract.OutcomeCompleted:
			t.end()
		case contract.OutcomeCancelled:
			t.line(t.style("33", "stopped"))
		default:
			t.line(t.style("31", fmt.Sprintf("✗ run %s: %s", e.Outcome, printable(e.Reason))))
		}
	default:
		t.tool(env.Data)
	}
	return nil
}

// tool shows the stages of a tool call: the intent, a refusal, the
// decision, the end of the invocation and what the model is shown.
func (t *terminal) tool(data contract.Event) {
	switch e := data.(type) {
	case *contract.IntentProposed:
		t.line(t.style("1", "● "+printable(e.ToolName)) + " " + compact(e.Input))
	case *contract.ToolValidation:
		if !e.OK {
			t.line(t.style("31", "  ✗ refused ("+string(e.Code)+"): "+printable(strings.Join(e.Errors, "; "))))
		}
	case *contract.ToolPermission:
		who := e.By
		if e.Rule != "" {
			who += " " + e.Rule
		}
		if e.Decision == contract.Allow {
			if e.By != "rule" && e.Reason != "" {
				who += ": " + e.Reason
			}
			t.line(t.style("2", "  allowed by "+printable(who)))
		} else {
			t.line(t.style("31", "  ✗ "+string(e.Decision)+" by "+who+": "+printable(e.Reason)))
		}
	case *contract.InvocationCompleted:
		if e.Exit == contract.ExitInterrupted {
			t.line(t.style("33", "  interrupted: rein stopped while this tool ran; it is not run again"))
			break
		}
		status := fmt.Sprintf("exit %d", e.ExitCode)
		if e.Exit != contract.ExitOK && e.Exit != contract.ExitError {
			status = string(e.Exit) + ", " + status
		}
		t.line(t.style("2", fmt.Sprintf("  %s · %s · %s", status, duration(e.DurationMS), size(e.OutputBytes))))
	case *contract.ToolObservation:
		if e.Phase == contract.PhaseExecution {
			lines := 10
			if e.ToolName == "edit_file" || e.ToolName == "write_file" {
				lines = 40 // the diff is the point
			}
			t.line(t.style("2", preview(e.Text, lines)))
		} else if e.Phase == contract.PhaseKernel {
			t.line(t.style("2", "  "+printable(e.Text)))
		}
	}
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

// preview indents the first lines of an observation, and says how many
// more there are.
func preview(text string, lines int) string {
	text = strings.TrimRight(text, "\n")
	all := strings.Split(text, "\n")
	shown := all[:min(len(all), lines)]
	var b strings.Builder
	for _, l := range shown {
		b.WriteString("  │ " + printable(excerpt.Text(l, 160)) + "\n")
	}
	if n := len(all) - len(shown); n > 0 {
		fmt.Fprintf(&b, "  │ … %d more lines\n", n)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func duration(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%dms", ms)
	}
	return fmt.Sprintf("%.1fs", float64(ms)/1000)
}

func size(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
}

// compact prints a JSON value on one line, shortened for display.
func compact(raw json.RawMessage) string {
	return printable(excerpt.Text(string(raw), 200))
}

// printable escapes the control characters of s, tabs and newlines apart,
// and the bytes that are not UTF-8, so that text from a model or a tool (a
// command to approve, a file's contents) cannot move the cursor, rewrite
// what the person reads, or set the terminal's title or clipboard (a lone
// 0x9b is a control sequence to some terminals). U+FFFD itself, which the
// log writes for what was not UTF-8, is shown as it is.
func printable(s string) string {
	clean := true
	for i := 0; i < len(s) && clean; {
		r, size := utf8.DecodeRuneInString(s[i:])
		clean = !isControl(r) && (r != utf8.RuneError || size > 1)
		i += size
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case isControl(r):
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func isControl(r rune) bool {
	return r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	if o, ok := w.(*output); ok {
		w = o.w
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
