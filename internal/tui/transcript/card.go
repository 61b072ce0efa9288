package transcript

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/tui/style"
)

// card is one tool call as it goes: proposed, judged, running, done.
type card struct {
	tool    string
	input   json.RawMessage
	user    bool   // the person's own command (!ls)
	refusal string // why validation or permission refused it, "" if not
	denied  bool   // refused by permission (a warning), not validation (an error)
	asking  bool   // waiting for a person's approval
	saved   string // what an "always" answer saved, and where
	started time.Time
	running bool
	// tail holds the end of the output streamed so far (made printable).
	tail      []byte
	clean     printable.Stream
	cr        bool // the output so far ends with a carriage return
	completed *contract.InvocationCompleted
	// task is the child session of a task call, from its task.started
	// on; nil for any other call.
	task *task
}

// view is what rendering a card needs of the transcript's options.
type view struct {
	width      int
	th         style.Theme
	workspace  string
	sessionDir string
}

func (t *Transcript) view() view {
	o := t.opts
	return view{width: o.Width, th: o.Theme, workspace: o.Workspace, sessionDir: o.SessionDir}
}

// tool folds the events of a tool call into its card; the observation
// finishes it.
func (t *Transcript) tool(env contract.Envelope) []string {
	switch e := env.Data.(type) {
	case *contract.IntentProposed:
		c := t.card(e.ID)
		c.tool, c.input, c.user = e.ToolName, e.Input, e.Origin == contract.OriginUser
	case *contract.ToolValidation:
		if !e.OK {
			c := t.card(e.IntentID)
			c.refusal = validationReason(e)
		}
	case *contract.ToolPermission:
		c := t.card(e.IntentID)
		c.asking = e.Decision == contract.Ask
		if e.Decision == contract.Deny {
			c.refusal, c.denied = denialReason(e), true
		}
		if e.Decision == contract.Allow && e.By == "user" && e.Rule != "" {
			c.saved = answerNote(e)
		}
	case *contract.InvocationStarted:
		c := t.card(e.IntentID)
		c.tool, c.input = e.ToolName, e.Input // what really runs
		c.started, c.running, c.asking = env.Time, true, false
	case *contract.ToolOutputDelta:
		t.card(e.IntentID).output(e.Text)
	case *contract.InvocationCompleted:
		c := t.card(e.IntentID)
		c.completed, c.running = e, false
	case *contract.TaskStarted, *contract.TaskEvent, *contract.TaskFinished:
		t.taskEvent(env)
	case *contract.ToolObservation:
		c := t.card(e.IntentID)
		if c.tool == "" {
			c.tool = e.ToolName
		}
		t.remove(e.IntentID)
		if e.Phase == contract.PhaseExecution {
			// What ran and printed something: what Ctrl-O shows.
			out := Output{Call: ansi.Strip(c.header(view{width: 1 << 16})), Text: e.Text}
			if c.tool == "bash" || c.user {
				out.Text = withoutExitLine(lineEnds(e.Text))
			}
			if e.Truncated && e.ArtifactRef != "" {
				out.Artifact = e.ArtifactRef
				if t.opts.SessionDir != "" {
					out.Artifact = filepath.Join(t.opts.SessionDir, e.ArtifactRef)
				}
			}
			t.lastOutput = out
		}
		return []string{c.finished(t.view(), &e.Observation)}
	}
	return nil
}

// card returns the card of intent id, made when it is new.
func (t *Transcript) card(id string) *card {
	c, ok := t.cards[id]
	if !ok {
		c = &card{}
		t.cards[id] = c
		t.order = append(t.order, id)
	}
	return c
}

// remove forgets the card of intent id.
func (t *Transcript) remove(id string) {
	delete(t.cards, id)
	for i, o := range t.order {
		if o == id {
			t.order = append(t.order[:i], t.order[i+1:]...)
			break
		}
	}
}

// tailKeep bounds the output a running card keeps: enough for its last
// lines.
const tailKeep = 4096

// output appends a piece of the running output.
func (c *card) output(s string) {
	if c.cr && strings.HasPrefix(s, "\n") {
		s = s[1:] // the LF of a CR LF split across two pieces
	}
	c.cr = strings.HasSuffix(s, "\r")
	c.tail = append(c.tail, c.clean.Next(lineEnds(s))...)
	if len(c.tail) > 2*tailKeep {
		cut := len(c.tail) - tailKeep
		for cut < len(c.tail) && c.tail[cut]&0xc0 == 0x80 {
			cut++ // not inside a character
		}
		c.tail = append(c.tail[:0], c.tail[cut:]...)
	}
}

// lineEnds turns the carriage returns of a command's output (a
// terminal's CR LF, a progress bar's lone CR) into line ends: shown as
// lines rather than as escapes, and never rewriting what a line showed.
func lineEnds(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

func validationReason(e *contract.ToolValidation) string {
	if len(e.Errors) > 0 {
		return strings.Join(e.Errors, "; ")
	}
	return string(e.Code)
}

func denialReason(e *contract.ToolPermission) string {
	r := e.Reason
	if r == "" {
		r = "not allowed"
	}
	switch {
	case e.By == "user" && e.Rule != "":
		return answerNote(e)
	case e.Rule != "":
		return r + " (by rule " + e.Rule + ")"
	case e.By == "user" && e.Rule == "" && e.Message != "":
		return "you said no: " + e.Message
	case e.By == "user" && e.Rule == "":
		// The reason the kernel records is written for the model ("do
		// not retry"); the person only needs to know it was theirs.
		return "you said no"
	case e.By != "":
		return r + " (by " + e.By + ")"
	}
	return r
}

// answerNote says to the person what their "always" or "never" answer
// did: which rules it saved, and where (the reason the runtime records
// says it to the model, in its words).
func answerNote(e *contract.ToolPermission) string {
	r, _, _ := strings.Cut(e.Reason, " Do not try")
	r = strings.TrimSuffix(strings.TrimSpace(r), ".")
	for _, p := range [][2]string{
		{"The user allowed it and saved ", "always: saved "},
		{"The user denied it and saved ", "never: saved "},
		{"The user allowed it", "always"},
		{"The user denied it", "never"},
	} {
		if rest, ok := strings.CutPrefix(r, p[0]); ok {
			return p[1] + rest
		}
	}
	return r
}

// header renders the card's first line: "● bash go test ./..." or, for
// the person's own command, "! go test ./...", cut to the width.
func (c *card) header(v view) string {
	th := v.th
	subject := subjectOf(c.tool, c.input, v.workspace)
	if c.task != nil && c.task.agent != "" {
		// The agent that runs, which the input may have left to the
		// tool's default.
		subject = taskSubject(c.task.agent, c.task.description)
	}
	var line string
	if c.user {
		line = paint(th, th.Prompt, "!") + " " + subject
	} else {
		line = paint(th, th.Accent, "●") + " " + paint(th, th.Bold, printable.Line(c.tool))
		if subject != "" {
			line += " " + subject
		}
	}
	return ansi.Truncate(line, max(v.width, 1), "…")
}

// subjectKeys are the input fields that name what a tool works on, by
// tool; a tool not listed shows the first of the common ones it has.
var subjectKeys = map[string][]string{
	"bash": {"command"}, "read_file": {"path"}, "write_file": {"path"}, "edit_file": {"path"},
	"list_dir": {"path"}, "grep": {"pattern"}, "glob": {"pattern"},
}

var commonKeys = []string{"command", "path", "pattern", "query", "url", "name"}

// subjectOf is what a call works on, one printable line: the command,
// the path (relative to the workspace), the pattern.
func subjectOf(tool string, input json.RawMessage, workspace string) string {
	switch tool {
	case "task":
		return taskInputSubject(input)
	case "todo_write":
		return todoSubject(input)
	}
	var in map[string]any
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	keys, ok := subjectKeys[tool]
	if !ok {
		keys = commonKeys
	}
	for _, k := range keys {
		s, ok := in[k].(string)
		if !ok || s == "" {
			continue
		}
		if k == "path" {
			s = relative(s, workspace)
		}
		return printable.Line(strings.Join(strings.Fields(s), " "))
	}
	return ""
}

// relative returns p relative to the workspace when it is under it.
func relative(p, workspace string) string {
	if workspace == "" || !filepath.IsAbs(p) {
		return p
	}
	if r, err := filepath.Rel(workspace, p); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
		return r
	}
	return p
}

// liveLines is how many lines of a running command's output show.
const liveLines = 5

// live renders the card while it is not finished: its header, then the
// refusal, the wait for approval, or the last lines of its output and
// its timer.
func (c *card) live(v view, now time.Time) string {
	th := v.th
	out := []string{c.header(v)}
	switch {
	case c.refusal != "":
		out = append(out, c.refusalLine(v))
	case c.asking:
		out = append(out, branch(v, th.Dim, "waiting for approval"))
	case c.task != nil && c.completed == nil:
		out = append(out, c.taskLive(v, now)...)
	case c.completed != nil:
		out = append(out, c.resultLine(v, nil)...)
	case c.running:
		if !c.started.IsZero() {
			out = append(out, branch(v, th.Dim, "running · "+seconds(max(now.Sub(c.started).Milliseconds(), 0))))
		}
		for _, l := range lastLines(string(c.tail), liveLines) {
			out = append(out, indentLine(v, th.Dim, l))
		}
	}
	return strings.Join(out, "\n")
}

// branch renders a line under a card's header: "  ⎿ text", cut to the
// width, text in st.
func branch(v view, st lipgloss.Style, text string) string {
	return "  " + paint(v.th, v.th.Dim, "⎿") + " " + paint(v.th, st, ansi.Truncate(text, max(v.width-4, 1), "…"))
}

// branchWrapped is branch for a text that must be read whole (which rules
// an answer saved, and where): wrapped under itself, never cut.
func branchWrapped(v view, st lipgloss.Style, text string) string {
	rows := strings.Split(Wrap(text, max(v.width-4, 10)), "\n")
	out := "  " + paint(v.th, v.th.Dim, "⎿") + " " + paint(v.th, st, rows[0])
	for _, r := range rows[1:] {
		out += "\n    " + paint(v.th, st, r)
	}
	return out
}

// indentLine renders a line of output under a card, indented past the
// branch, cut to the width.
func indentLine(v view, st lipgloss.Style, l string) string {
	return "    " + paint(v.th, st, ansi.Truncate(strings.ReplaceAll(l, "\t", "    "), max(v.width-4, 1), "…"))
}

// refusalLine renders why the call was refused.
func (c *card) refusalLine(v view) string {
	st, word := v.th.Error, "invalid: "
	if c.denied {
		st, word = v.th.Warn, "denied: "
	}
	return branch(v, st, word+printable.Line(c.refusal))
}

// lastLines returns the last n lines of s, without empty lines at its
// end.
func lastLines(s string, n int) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	return lines[max(len(lines)-n, 0):]
}

// todoSubject says how far the task list a todo_write call writes is:
// "3 of 5 done"; "" for an input that holds no list.
func todoSubject(input json.RawMessage) string {
	var in struct {
		Todos []struct {
			Status string `json:"status"`
		} `json:"todos"`
	}
	if json.Unmarshal(input, &in) != nil || in.Todos == nil {
		return ""
	}
	if len(in.Todos) == 0 {
		return "cleared"
	}
	done := 0
	for _, td := range in.Todos {
		if td.Status == "completed" {
			done++
		}
	}
	return fmt.Sprintf("%d of %d done", done, len(in.Todos))
}
