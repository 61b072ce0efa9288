package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/tui/transcript"
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
//
// Everything it writes is [shown] text, whatever out and errw are: a file
// or a pipe is read on a terminal later (cat answer.txt). Deltas are made
// printable as they come, by a [printable.Stream] per kind of block, so a
// character split across two deltas is shown whole.
type terminal struct {
	out, errw io.Writer
	// color enables ANSI dim and bold on errw.
	color bool
	// outOpen and errOpen say a streamed line is unfinished on out or errw.
	outOpen, errOpen bool
	// thinking says a reasoning block is being streamed.
	thinking bool
	// answer and reasoning make the deltas of the block under way
	// printable.
	answer, reasoning printable.Stream
	// settle holds the text of the model call under way back from out
	// until the call finishes; pending is that text, printable.
	settle  bool
	pending strings.Builder
	// live is where text deltas stream as they come: out, errw, or
	// nowhere (nil).
	live io.Writer
	// stopped says the model call under way was stopped by the person.
	stopped bool
	// summarising says the model call under way is a compaction's
	// summary, whose text is not the answer.
	summarising bool
	// compacting says the command is rein compact, which shows the
	// summary as its answer.
	compacting bool
	// maxCost is the --max-cost flag, to say what a budget run passed; 0
	// means the configuration's, which the run's reason says.
	maxCost float64
	// inPlace says errw is a terminal, where a retry's status line is
	// rewritten by the next retry and erased before anything else is
	// written.
	inPlace bool
	// status says a retry's status line is up: on a terminal, the last
	// line of errw, unterminated; elsewhere, written once for a run of
	// retries, whose later retries are not written.
	status bool
	// cols is the width of the terminal errw is, for a status line that
	// must fit on one row to be erased whole; 0 means ask the terminal.
	cols int
	// workspace is the session's directory, which a tool call's path is
	// shown relative to: session.started's, or set by the caller of a
	// session that started before (a resumed one).
	workspace string
	// tasks are the task calls whose children started, by intent id,
	// until their observation; shownChild is the intent of the child
	// whose line was written last, "" when a line of this trace's own
	// came after it.
	tasks      map[string]*childTrace
	shownChild string
	// todos is the task list shown last (todosShown: one was), so that a
	// list is shown only when it changes.
	todos      []contract.Todo
	todosShown bool
}

func newTerminal(out, errw io.Writer) *terminal {
	t := &terminal{out: out, errw: errw, color: isTerminal(errw) && os.Getenv("NO_COLOR") == "", inPlace: isTerminal(errw)}
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

// text shows answer text made printable: streamed live, and held back
// for out when out only gets what stands.
func (t *terminal) text(s shown) error {
	if s == "" {
		return nil
	}
	if t.settle {
		t.pending.WriteString(string(s))
	}
	switch t.live {
	case t.out:
		if t.errOpen {
			say(t.errw, "\n")
			t.errOpen = false
		}
		err := say(t.out, s)
		t.outOpen = !strings.HasSuffix(string(s), "\n")
		return err
	case t.errw:
		say(t.errw, s)
		t.errOpen = !strings.HasSuffix(string(s), "\n")
	}
	return nil
}

// settled writes the text held back for out, once its model call has
// finished.
func (t *terminal) settled() error {
	if t.pending.Len() == 0 {
		return nil
	}
	s := shown(t.pending.String()) // printable when it was added
	t.pending.Reset()
	if t.errOpen && t.live == t.errw {
		say(t.errw, "\n")
		t.errOpen = false
	}
	err := say(t.out, s)
	t.outOpen = !strings.HasSuffix(string(s), "\n")
	return err
}

// style wraps s in the ANSI style code when colour is on: the only escape
// sequences rein writes, around text already printable.
func (t *terminal) style(code string, s shown) shown {
	if !t.color {
		return s
	}
	return "\x1b[" + shown(code) + "m" + s + "\x1b[0m"
}

// line ends any streamed line, then prints s on its own line of errw.
func (t *terminal) line(s shown) {
	t.end()
	t.shownChild = ""
	say(t.errw, s+"\n")
}

// blockEnds shows what the printable streams hold back when data ends
// their block: any event but a delta of the same block. The kernel ends a
// block (model.text, model.reasoning) before any other event.
func (t *terminal) blockEnds(data contract.Event) error {
	if _, ok := data.(*contract.TextDelta); !ok {
		if err := t.text(shown(t.answer.Flush())); err != nil {
			return err
		}
	}
	if _, ok := data.(*contract.ReasoningDelta); !ok {
		if rest := shown(t.reasoning.Flush()); rest != "" {
			say(t.errw, t.style("2", rest))
			t.errOpen = true
		}
		if t.thinking {
			t.thinking = false
			t.end()
		}
	}
	return nil
}

func (t *terminal) event(env contract.Envelope) error {
	if !quiet(env.Data) {
		t.clearStatus()
	}
	if err := t.blockEnds(env.Data); err != nil {
		return err
	}
	switch e := env.Data.(type) {
	case *contract.TextDelta:
		if t.summarising {
			return nil // a summary's text: not the answer
		}
		return t.text(shown(t.answer.Next(e.Text)))
	case *contract.ModelFinished:
		return t.settled()
	case *contract.ReasoningDelta:
		t.think(shown(t.reasoning.Next(e.Text)))
	case *contract.ProviderError:
		if e.Kind == contract.KindMalformedToolCall {
			// One call's arguments did not parse; the stream goes on, and
			// the model is told.
			t.line(t.style("31", "  ✗ a tool call could not be parsed: "+field(e.Message)))
			break
		}
		// The call failed: its text does not stand. What failed is said
		// once, by what comes of it: the retry, the switch to another
		// model, or the end of the run. A cancelled call (Ctrl-C) is no
		// failure at all: "stopped" says it.
		t.pending.Reset()
		t.stopped = e.Kind == contract.KindAborted
	case *contract.RetryScheduled:
		t.retry(e)
	case *contract.FallbackSelected:
		t.line(t.style("33", sayf("  switching from %s to %s: %s", e.From, e.To, e.Reason)))
	case *contract.ModelDiscarded:
		t.pending.Reset()
		if t.stopped {
			break // the person stopped the call: "stopped" follows
		}
		what := shown("the partial answer of the failed call")
		if t.live != nil {
			what = "the partial answer above"
		}
		t.line(t.style("33", "  ✗ "+what+" is discarded: "+field(e.Reason)))
	case *contract.RunFinished:
		t.finished(e)
	case *contract.SessionStarted:
		t.workspace = e.Cwd
	default:
		if !t.context(env.Data) && !t.extension(env.Data) && !t.taskEvent(env.Data) && !t.todoList(env.Data) {
			t.tool(env.Data)
		}
	}
	return nil
}

// retry shows a retry as one quiet status line: what failed in a few
// words, the wait, the attempt. On a terminal the next retry rewrites it
// and anything else erases it first; elsewhere the first retry of a run of
// them is written, and the others are not. The whole message is said
// once, by the run's end, if no retry helps (the log has every
// attempt's).
func (t *terminal) retry(e *contract.RetryScheduled) {
	status := "  " + e.Status()
	line := t.style("33", sayf("%s", status))
	switch {
	case t.inPlace:
		t.end() // a status line already up is erased
		if cols := t.columns(); cols > 2 && len(status) >= cols {
			// One row, or the erasure would leave the rows above it.
			line = t.style("33", sayf("%s", excerpt.Text(status, cols-2)))
		}
		say(t.errw, line)
	case !t.status:
		t.line(line)
	}
	t.status = true
}

// columns is the width of the terminal errw is, 0 when it cannot tell.
func (t *terminal) columns() int {
	if t.cols > 0 {
		return t.cols
	}
	w := t.errw
	if o, ok := w.(*output); ok {
		w = o.w
	}
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	cols, _, err := term.GetSize(f.Fd())
	if err != nil {
		return 0
	}
	return cols
}

// clearStatus takes a retry's status line down: erased from a terminal,
// so that what comes next takes its place.
func (t *terminal) clearStatus() {
	if t.status && t.inPlace {
		say(t.errw, "\r\x1b[K")
	}
	t.status = false
}

// quiet says whether data is an event between a retry and what comes of
// it that the renderer shows nothing of, so a retry's status line stays
// up: the failure (said by the retry), and the next attempt's start.
func quiet(data contract.Event) bool {
	switch e := data.(type) {
	case *contract.RetryScheduled, *contract.ContextProjected, *contract.ModelStarted:
		return true
	case *contract.ProviderError:
		return e.Kind != contract.KindMalformedToolCall
	case *contract.ModelRequested:
		return e.Purpose != contract.PurposeCompaction
	}
	return false
}

// finished shows how a run ended.
func (t *terminal) finished(e *contract.RunFinished) {
	t.pending.Reset() // a call that never finished: its text does not stand
	t.stopped, t.summarising = false, false
	switch e.Outcome {
	case contract.OutcomeCompleted:
		t.end()
	case contract.OutcomeCancelled:
		t.line(t.style("33", "stopped"))
	case contract.OutcomeBudget:
		if e.Usage != nil && t.maxCost > 0 {
			t.line(t.style("33", sayf("stopped: the run cost %s, past --max-cost %s", dollars(e.Usage.CostUSD), dollars(t.maxCost))))
			break
		}
		t.line(t.style("33", sayf("stopped: %s", e.Reason)))
	default:
		t.line(t.style("31", sayf("✗ run %s: %s", e.Outcome, e.Reason)))
	}
}

// context shows what the context engine did: a summary call under way,
// a compaction and a compaction that failed. It reports whether data was
// one of those.
func (t *terminal) context(data contract.Event) bool {
	switch e := data.(type) {
	case *contract.ModelRequested:
		if e.Purpose != contract.PurposeCompaction {
			return false
		}
		// Its answer is the summary, not part of the conversation: it is
		// said by context.compacted, never printed as the answer.
		t.summarising = true
		t.line(t.style("2", sayf("  summarising the conversation to compact it (%s, %d messages, ~%s tokens in)…",
			modelOf(e.Provider, e.Model), e.MessageCount, thousands(e.EstimatedInputTokens))))
	case *contract.ContextCompacted:
		t.summarising = false
		if t.compacting {
			// rein compact: the summary is the command's answer, and its
			// closing line says the numbers.
			return t.summary(e.Summary) == nil
		}
		t.line(t.style("2", sayf("rein: context compacted: %d messages → summary, %s → %s tokens (%s)",
			e.Replaced, thousands(e.TokensBefore), thousands(e.TokensAfter), e.By)))
	case *contract.CompactionFailed:
		t.summarising = false
		if t.compacting {
			break // rein compact's closing line says why
		}
		if e.Attempt == 0 {
			// None was tried: the reason says why there was nothing to do,
			// which the person who asked is told; the context policy's own
			// look finding nothing is no news (the request goes as it is).
			if e.By != contract.CompactAuto {
				t.line(t.style("2", sayf("rein: %s", e.Reason)))
			}
			break
		}
		t.line(t.style("33", sayf("rein: context compaction failed (%s, attempt %d): %s; the conversation is unchanged", e.By, e.Attempt, e.Reason)))
	default:
		return false
	}
	return true
}

// summary writes the summary of a compaction on out.
func (t *terminal) summary(s string) error {
	t.end()
	return say(t.out, text(strings.TrimRight(s, "\n")+"\n"))
}

// modelOf names a model as "provider model", or the provider alone.
func modelOf(provider, model string) string {
	if model == "" {
		return provider
	}
	return provider + " " + model
}

// think shows a delta of reasoning, made printable, dim on errw.
func (t *terminal) think(s shown) {
	if t.outOpen {
		say(t.out, "\n")
		t.outOpen = false
	}
	if !t.thinking {
		// Mark where reasoning starts, so it reads apart from the
		// answer even without colour.
		t.end()
		s = "thinking: " + s
		t.thinking = true
	}
	if s != "" {
		say(t.errw, t.style("2", s))
		t.errOpen = !strings.HasSuffix(string(s), "\n")
	}
}

// tool shows the stages of a tool call: the intent, a refusal, the
// decision, the end of the invocation and what the model is shown.
func (t *terminal) tool(data contract.Event) {
	switch e := data.(type) {
	case *contract.IntentProposed:
		t.line(t.title(e))
	case *contract.ToolValidation:
		if !e.OK {
			t.line(t.style("31", sayf("  ✗ refused (%s): %s", e.Code, strings.Join(e.Errors, "; "))))
		}
	case *contract.ToolPermission:
		t.line(t.permission(e))
	case *contract.InvocationCompleted:
		if c := t.tasks[e.IntentID]; c != nil && c.finished && e.Exit != contract.ExitInterrupted {
			break // its child's end said how it ended
		}
		if e.Exit == contract.ExitInterrupted {
			t.line(t.style("33", "  interrupted: rein stopped while this tool ran; it is not run again"))
			break
		}
		status := sayf("exit %d", e.ExitCode)
		if e.Exit != contract.ExitOK && e.Exit != contract.ExitError {
			status = field(string(e.Exit)) + ", " + status
		}
		t.line(t.style("2", sayf("  %s · %s · %s", status, duration(e.DurationMS), size(e.OutputBytes))))
	case *contract.ToolObservation:
		c := t.tasks[e.IntentID]
		delete(t.tasks, e.IntentID)
		if f := footer(e.Text); c != nil && c.answered && f != "" && e.Phase == contract.PhaseExecution {
			// The child's answer (or last words) is shown above, as it
			// said it: the model's observation adds the footer.
			t.line(t.style("2", preview(f, 1)))
			break
		}
		if e.Phase == contract.PhaseExecution {
			lines := 10
			if e.ToolName == "edit_file" || e.ToolName == "write_file" {
				lines = 40 // the diff is the point
			}
			t.line(t.style("2", preview(e.Text, lines)))
			if changed := t.changed(e.Files); changed != "" {
				t.line(t.style("2", changed))
			}
		} else if e.Phase == contract.PhaseKernel {
			t.line(t.style("2", "  "+text(e.Text)))
		}
	}
}

// title is the line that names a tool call, as the UI's card does:
// "● bash go test ./...", "● edit_file stats.go", and "! ls" for the
// person's own command; never its input's JSON (rein log has that).
func (t *terminal) title(e *contract.IntentProposed) shown {
	subject := field(excerpt.Text(transcript.Subject(e.ToolName, e.Input, t.workspace), maxSubject))
	if e.Origin == contract.OriginUser {
		return t.style("1", "!") + " " + subject
	}
	line := t.style("1", "● "+field(e.ToolName))
	if subject != "" {
		line += " " + subject
	}
	return line
}

// maxSubject is the most of a call's subject (a long script on one
// line) its title shows.
const maxSubject = 200

// permission is the line of a decision: who allowed it, or who refused it
// and why.
func (t *terminal) permission(e *contract.ToolPermission) shown {
	who := e.By
	if e.Rule != "" {
		who += " " + e.Rule
	}
	if e.Decision == contract.Allow {
		if e.By != "rule" && e.Reason != "" {
			who += ": " + e.Reason
		}
		return t.style("2", "  allowed by "+field(who))
	}
	line := t.style("31", sayf("  ✗ %s by %s: %s", e.Decision, who, e.Reason))
	if e.Message != "" {
		line += "\n" + t.style("31", saidLine(e.Message))
	}
	return line
}

// saidLine shows what a person said with a denial (tool.permission's
// message), a line of its own under the decision, indented as the
// message's other lines are.
func saidLine(message string) shown {
	return "    said: " + shown(strings.ReplaceAll(string(text(message)), "\n", "\n          "))
}

func (t *terminal) end() {
	if t.inPlace {
		t.clearStatus()
	}
	if t.outOpen {
		say(t.out, "\n")
		t.outOpen = false
	}
	if t.errOpen {
		say(t.errw, "\n")
		t.errOpen = false
	}
}

// preview indents the first lines of an observation, and says how many
// more there are. A line keeps its tabs (a diff of Go code has them).
func preview(s string, lines int) shown {
	s = strings.TrimRight(s, "\n")
	all := strings.Split(s, "\n")
	var b strings.Builder
	row := func(l string) { b.WriteString(string("  │ " + text(excerpt.Text(l, 160)) + "\n")) }
	if len(all) <= lines+previewTail {
		for _, l := range all {
			row(l)
		}
		return shown(strings.TrimSuffix(b.String(), "\n"))
	}
	// The head, then what was cut, then the tail: where a command's
	// output says how it ended (the exit code, what the sandbox refused),
	// and rein's own marker of what the observation left out.
	for _, l := range all[:lines] {
		row(l)
	}
	hidden, tail := all[lines:len(all)-previewTail], all[len(all)-previewTail:]
	var markers []string
	for _, l := range hidden {
		if strings.HasPrefix(l, "[... ") && strings.HasSuffix(l, " ...]") {
			markers = append(markers, l)
		}
	}
	b.WriteString(string(sayf("  │ … %d more lines\n", len(hidden)-len(markers))))
	for _, l := range append(markers, tail...) {
		row(l)
	}
	return shown(strings.TrimSuffix(b.String(), "\n"))
}

// previewTail is how many of an output's last lines a cut preview shows.
const previewTail = 3

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

// compact shows a JSON value (a tool's input) on one line, shortened for
// display: whitespace between its tokens is dropped, and what its strings
// hold is made printable for the line.
func compact(raw json.RawMessage) shown {
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		raw = b.Bytes()
	}
	return field(excerpt.Text(string(raw), 200))
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

// changed says in a line which files a call's checkpoints say it
// created, changed or deleted, the first few by name; "" when none.
func (t *terminal) changed(files []contract.FileStamp) shown {
	var names []string
	n := 0
	for _, f := range files {
		if f.Op.Seen() {
			continue
		}
		n++
		if len(names) < 5 {
			names = append(names, string(f.Op)+" "+relTo(t.workspace, f.Path))
		}
	}
	if n == 0 {
		return ""
	}
	more := ""
	if n > len(names) {
		more = fmt.Sprintf(" and %d more", n-len(names))
	}
	return sayf("  files: %s%s", text(strings.Join(names, ", ")), more)
}
