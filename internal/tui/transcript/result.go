package transcript

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/printable"
)

// diffLines is how many lines of an edit's diff a card shows.
const diffLines = 20

// failedLines is how many lines of a failed command's output a card
// shows (its last, where errors are); shownLines how many of a call that
// succeeded (its first); userLines how many of a command the person ran
// themselves (!ls), which they ran to see.
const (
	failedLines = 3
	shownLines  = 5
	userLines   = 20
)

// finished renders the card once the call is over: its header and what
// came of it. obs is nil when the run ended before the observation.
func (c *card) finished(v view, obs *contract.Observation) string {
	out := []string{c.header(v)}
	if c.saved != "" {
		out = append(out, branchWrapped(v, v.th.Dim, printable.Line(c.saved)))
	}
	switch {
	case c.refusal != "":
		out = append(out, c.refusalLine(v))
	case c.task != nil:
		out = append(out, c.taskFinished(v, obs)...)
	case obs == nil && c.completed != nil:
		out = append(out, c.resultLine(v, nil)...)
	case obs == nil:
		out = append(out, branch(v, v.th.Warn, "interrupted"))
	case obs.Phase == contract.PhaseValidation || obs.Phase == contract.PhasePermission || obs.Phase == contract.PhaseKernel:
		// Refused or never run, and no event before said why: the
		// observation does.
		st := v.th.Warn
		if obs.Phase == contract.PhaseValidation {
			st = v.th.Error
		}
		out = append(out, branch(v, st, orCode(firstLine(obs.Text), obs.Code)))
	case c.tool == "bash" || c.user:
		out = append(out, c.resultLine(v, obs)...)
		text := withoutExitLine(printable.Text(lineEnds(obs.Text)))
		switch {
		case c.user:
			out = append(out, firstLines(v, text, userLines)...)
		case !c.ok(obs):
			for _, l := range lastLines(text, failedLines) {
				out = append(out, indentLine(v, v.th.Dim, l))
			}
		default:
			out = append(out, firstLines(v, text, shownLines)...)
		}
	default:
		out = append(out, c.summary(v, obs)...)
	}
	return strings.Join(out, "\n")
}

// ok reports whether the call succeeded.
func (c *card) ok(obs *contract.Observation) bool {
	if c.completed != nil && (c.completed.Exit != contract.ExitOK || c.completed.ExitCode != 0) {
		return false
	}
	return obs == nil || obs.OK
}

// resultLine renders how a command ended: "⎿ exit 1 · 2.3 s · 4.1 KiB",
// and where its full output is when the observation shortened it.
func (c *card) resultLine(v view, obs *contract.Observation) []string {
	th := v.th
	status, st := "done", th.OK
	if d := c.completed; d != nil {
		switch d.Exit {
		case contract.ExitOK, contract.ExitError:
			status = fmt.Sprintf("exit %d", d.ExitCode)
		case contract.ExitTimeout:
			status = "timed out"
		default:
			status = string(d.Exit)
		}
	} else if obs != nil && obs.Code != "" {
		status = string(obs.Code)
	}
	if !c.ok(obs) {
		st = th.Error
		if d := c.completed; d != nil && d.Exit != contract.ExitOK && d.Exit != contract.ExitError {
			st = th.Warn
		}
	}
	var meta []string
	if d := c.completed; d != nil {
		meta = append(meta, seconds(d.DurationMS))
		if d.OutputBytes > 0 {
			meta = append(meta, size(d.OutputBytes))
		}
	}
	if n := changedFiles(obs); n > 0 {
		meta = append(meta, plural(n, "file")+" changed")
	}
	line := "  " + paint(th, th.Dim, "⎿") + " " + paint(th, st, status)
	if len(meta) > 0 {
		line += paint(th, th.Dim, " · "+strings.Join(meta, " · "))
	}
	return c.withArtifact(v, line, obs)
}

// withArtifact appends where the full output is, when the observation
// shortened it, to line or, when it does not fit, under it.
func (c *card) withArtifact(v view, line string, obs *contract.Observation) []string {
	line = ansi.Truncate(line, max(v.width, 1), "…")
	if obs == nil || !obs.Truncated || obs.ArtifactRef == "" {
		return []string{line}
	}
	path := obs.ArtifactRef
	if v.sessionDir != "" {
		path = filepath.Join(v.sessionDir, obs.ArtifactRef)
	}
	full := "full output: " + printable.Line(path)
	if lipgloss.Width(line)+3+ansi.StringWidth(full) <= v.width {
		return []string{line + paint(v.th, v.th.Warn, " · "+full)}
	}
	// A path is never cut or wrapped by rein: it must stay whole to be
	// copied (the terminal folds a line too long for it).
	return []string{line, "    " + paint(v.th, v.th.Warn, full)}
}

// summary renders what a file or search tool's call came to: a line
// saying what it found or did (dim), or its error; for an edit or a
// write, its diff (a created file's, all added, from the call's input).
func (c *card) summary(v view, obs *contract.Observation) []string {
	th := v.th
	text := printable.Text(lineEnds(obs.Text))
	if !c.ok(obs) {
		return c.withArtifact(v, branch(v, th.Error, orCode(firstLine(text), obs.Code)), obs)
	}
	head, _, _ := strings.Cut(text, "\n")
	if c.tool == "read_file" {
		if n := numberedLines(text); n > 0 {
			head = "read " + plural(n, "line")
		}
	}
	out := c.withArtifact(v, branch(v, th.Dim, head), obs)
	if c.tool == "list_dir" || c.tool == "glob" || c.tool == "grep" {
		// What a search found: its first lines, as a command's.
		if _, rest, ok := strings.Cut(text, "\n"); ok {
			out = append(out, firstLines(v, rest, shownLines-1)...)
		}
		return out
	}
	if d := Change(c.tool, c.input, text, v.workspace); d != "" {
		for _, l := range strings.Split(Diff(d, v.width-4, diffLines, th), "\n") {
			out = append(out, "    "+l)
		}
	}
	return out
}

// Change is the diff an edit or a write made: the one its observation's
// text carries ("edited x: 1 replacement\n<diff>"), or, for a file
// write_file created, every line of the content its input held, added,
// its path shown relative to workspace; "" for any other call. The card
// and /diff both show it.
func Change(tool string, input json.RawMessage, text, workspace string) string {
	head, rest, _ := strings.Cut(text, "\n")
	switch {
	case tool != "edit_file" && tool != "write_file":
		return ""
	case strings.HasPrefix(rest, "--- "):
		return rest
	case tool == "write_file" && rest == "" && strings.HasPrefix(head, "created "):
		return createdDiff(input, workspace)
	}
	return ""
}

// createdDiff is the diff of a write_file that created its file: every
// line of the content its input held added, "" when it held none.
func createdDiff(input json.RawMessage, workspace string) string {
	var in struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if json.Unmarshal(input, &in) != nil || in.Content == "" {
		return ""
	}
	n := strings.Count(in.Content, "\n")
	if !strings.HasSuffix(in.Content, "\n") {
		n++
	}
	added := "+" + strings.ReplaceAll(strings.TrimSuffix(in.Content, "\n"), "\n", "\n+")
	lines := "+1"
	if n != 1 {
		lines = fmt.Sprintf("+1,%d", n)
	}
	path := printable.Line(relative(in.Path, workspace))
	return fmt.Sprintf("--- /dev/null\n+++ %s\n@@ -0,0 %s @@\n%s\n", path, lines, added)
}

// numberedLines counts the lines of a read_file observation that are
// lines of the file ("    12\t...").
func numberedLines(s string) int {
	n := 0
	for l := range strings.SplitSeq(s, "\n") {
		num, _, ok := strings.Cut(strings.TrimLeft(l, " "), "\t")
		if ok && num != "" && strings.Trim(num, "0123456789") == "" {
			n++
		}
	}
	return n
}

// firstLines renders the first n lines of text under a card and, when
// there are more, how many and the key that shows them whole. A text the
// tool shortened ("[... N lines omitted ...]" between its head and its
// tail) counts the lines it left out too.
func firstLines(v view, text string, n int) []string {
	text = strings.TrimRight(text, "\n")
	if strings.TrimSpace(text) == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	total := len(lines)
	for i, l := range lines {
		if omitted, ok := omittedLines(l); ok {
			total += omitted - 1
			if i < n {
				n = i // the head alone, then how many more
			}
		}
	}
	var out []string
	for _, l := range lines[:min(n, len(lines))] {
		out = append(out, indentLine(v, v.th.Dim, l))
	}
	if more := total - n; more > 0 {
		noun := "lines"
		if more == 1 {
			noun = "line"
		}
		hint := fmt.Sprintf("+%s %s (ctrl+o shows the whole output)", thousands(more), noun)
		out = append(out, "    "+paint(v.th, v.th.Dim, ansi.Truncate(hint, max(v.width-4, 1), "…")))
	}
	return out
}

// omittedMarker is the line the tool runtime puts where it shortened an
// output (internal/tool's capture).
var omittedMarker = regexp.MustCompile(`^\[\.\.\. (\d+) lines omitted \(`)

// omittedLines reads the number of lines an omission marker stands for.
func omittedLines(l string) (int, bool) {
	m := omittedMarker.FindStringSubmatch(l)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// withoutExitLine drops the "exit code: N" line the bash tool ends its
// output with: the result line says it.
func withoutExitLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); strings.HasPrefix(s[i+1:], "exit code: ") {
		return s[:max(i, 0)]
	}
	return s
}

// firstLine returns the first line of s that is not blank.
func firstLine(s string) string {
	for l := range strings.SplitSeq(s, "\n") {
		if strings.TrimSpace(l) != "" {
			return printable.Line(l)
		}
	}
	return ""
}

// orCode returns s, or the code when s is empty.
func orCode(s string, code contract.Code) string {
	if s == "" {
		return string(code)
	}
	return s
}

// changedFiles counts the files a call's checkpoints say it created,
// changed or deleted (what /diff and rein rewind know of it).
func changedFiles(obs *contract.Observation) int {
	n := 0
	if obs != nil {
		for _, f := range obs.Files {
			if !f.Op.Seen() {
				n++
			}
		}
	}
	return n
}
