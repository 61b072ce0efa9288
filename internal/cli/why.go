package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/why"
)

// whySaidMax bounds, in bytes, what rein why shows of the model's words
// before an intent; --json gives them whole.
const whySaidMax = 500

// whyPreviewLines is how many lines of an observation rein why shows.
const whyPreviewLines = 10

// writeWhy prints the touches of target for a person: a summary line, then
// one block per intent, oldest first. Every text that came from a model, a
// tool or the log is [shown] printable. color enables ANSI bold, dim and
// red.
func writeWhy(w io.Writer, target string, touches []why.Touch, color bool) error {
	if len(touches) == 0 {
		return printf(w, "%s: no recorded intent read or changed it\n", target)
	}
	sessions := map[string]bool{}
	for _, t := range touches {
		sessions[t.Session] = true
	}
	var b strings.Builder
	b.WriteString(string(sayf("%s: %s in %s\n", target, plural(len(touches), "intent"), plural(len(sessions), "session"))))
	style := whyStyler(color)
	for _, t := range touches {
		b.WriteString("\n")
		writeWhyTouch(&b, t, style)
	}
	return say(w, shown(b.String())) // made of shown text only
}

// whyStyler returns a function that wraps shown text in an ANSI style when
// color is on.
func whyStyler(color bool) func(code string, s shown) shown {
	return func(code string, s shown) shown {
		if !color {
			return s
		}
		return "\x1b[" + shown(code) + "m" + s + "\x1b[0m"
	}
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// writeWhyTouch writes the block of one intent: when and where, what the
// model said, the intent, who decided what, what ran and what came of it.
// What it writes to b is shown text only.
func writeWhyTouch(b *strings.Builder, t why.Touch, style func(code string, s shown) shown) {
	put := func(s shown) { b.WriteString(string(s) + "\n") }
	head := sayf("%s  %s  session %s", t.Time.UTC().Format("2006-01-02 15:04:05 UTC"), t.Access, t.Session)
	if t.Run != "" {
		head += sayf("  run %s", t.Run)
	}
	put(head + sayf("  turn %d  (seq %d)", t.Turn, t.Seq))
	if p := t.Parent; p != nil {
		put(style("2", sayf("  in a child session: the task %q (agent %s) of session %s", p.Description, p.Agent, p.Session)))
	}

	if said := strings.TrimSpace(t.Said); said != "" {
		said := shown(strings.ReplaceAll(string(text(excerpt.Text(said, whySaidMax))), "\n", "\n    "))
		put(style("2", "  the model said: \""+said+"\""))
	} else {
		put(style("2", "  (the model said nothing before it)"))
	}
	put("  " + style("1", "● "+field(t.Intent.ToolName)) + " " + compact(t.Intent.Input))

	if line := whyDecision(t); line != "" {
		code := "2"
		if strings.HasPrefix(string(line), "✗") {
			code = "31"
		}
		put(style(code, "  "+line))
	}
	if line := whyRan(t); line != "" {
		put(style("2", "  "+line))
	}
	if o := t.Observation; o != nil {
		switch {
		case o.Phase == contract.PhaseExecution:
			put(style("2", preview(o.Text, whyPreviewLines)))
			if o.ArtifactRef != "" {
				put(style("2", "  full output: "+field(o.ArtifactRef)))
			}
		case t.Started != nil || o.Phase == contract.PhaseKernel:
			// Refusals and denials were said by the decision line.
			put(style("2", "  "+text(excerpt.Text(o.Text, 200))))
		}
	}
}

// whyDecision says what validation and permission made of the intent; ""
// when the log holds neither.
func whyDecision(t why.Touch) shown {
	if v := t.Validation; v != nil && !v.OK {
		return sayf("✗ refused (%s): %s", v.Code, strings.Join(v.Errors, "; "))
	}
	p := t.Permission
	if p == nil {
		if t.Validation == nil {
			return "no decision recorded"
		}
		return "valid; no permission decision recorded"
	}
	who := p.By
	if p.Rule != "" {
		who += " " + p.Rule
	}
	switch {
	case p.Decision == contract.Allow && (p.By == "rule" || p.Reason == ""):
		return "allowed by " + field(who)
	case p.Decision == contract.Allow:
		return "allowed by " + field(who+": "+p.Reason)
	}
	line := string(p.Decision) + " by " + who
	if p.Reason != "" {
		line += ": " + p.Reason
	}
	if p.Message != "" {
		return "✗ " + field(line) + "\n" + saidLine(p.Message)
	}
	return "✗ " + field(line)
}

// whyRan says what really ran, where, and how it ended; "" when nothing
// started.
func whyRan(t why.Touch) shown {
	var parts []shown
	if s := t.Started; s != nil {
		ran := shown("ran")
		if !sameJSON(s.Input, t.Intent.Input) {
			ran += ": " + compact(s.Input)
		}
		parts = append(parts, ran+" in "+field(s.Cwd))
	}
	if c := t.Completed; c != nil {
		status := sayf("exit %d", c.ExitCode)
		if c.Exit != contract.ExitOK && c.Exit != contract.ExitError {
			status = field(string(c.Exit)) + ", " + status
		}
		parts = append(parts, status, field(duration(c.DurationMS)), field(size(c.OutputBytes)))
	} else if t.Started != nil {
		parts = append(parts, "no end recorded")
	}
	var line shown
	for i, p := range parts {
		if i > 0 {
			line += " · "
		}
		line += p
	}
	return line
}

// sameJSON reports whether a and b are the same JSON text, whitespace
// apart.
func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// whyLine is the JSON shape of one touch in rein why --json.
type whyLine struct {
	Session string `json:"session"`
	// Parent names the session and task a child session worked for.
	Parent   *contract.ParentRef `json:"parent,omitempty"`
	Seq      uint64              `json:"seq"`
	Time     time.Time           `json:"time"`
	Run      string              `json:"run,omitempty"`
	Turn     int                 `json:"turn"`
	IntentID string              `json:"intent_id"`
	ToolName string              `json:"tool_name"`
	Input    json.RawMessage     `json:"input"`
	Access   why.Access          `json:"access"`
	Said     string              `json:"said,omitempty"`

	Validation *whyValidation `json:"validation,omitempty"`
	Permission *whyPermission `json:"permission,omitempty"`
	// EffectiveInput and Cwd are what ran and where; Cwd is the session's
	// workspace when the intent never started.
	EffectiveInput json.RawMessage `json:"effective_input,omitempty"`
	Cwd            string          `json:"cwd,omitempty"`
	Exit           contract.Exit   `json:"exit,omitempty"`
	ExitCode       *int            `json:"exit_code,omitempty"`
	DurationMS     *int64          `json:"duration_ms,omitempty"`

	Observation *whyObservation `json:"observation,omitempty"`
}

type whyValidation struct {
	OK     bool          `json:"ok"`
	Code   contract.Code `json:"code,omitempty"`
	Errors []string      `json:"errors,omitempty"`
}

type whyPermission struct {
	Decision contract.Decision `json:"decision"`
	By       string            `json:"by"`
	Rule     string            `json:"rule,omitempty"`
	Reason   string            `json:"reason,omitempty"`
	Message  string            `json:"message,omitempty"`
}

type whyObservation struct {
	OK          bool          `json:"ok"`
	Code        contract.Code `json:"code,omitempty"`
	Text        string        `json:"text"`
	Truncated   bool          `json:"truncated"`
	ArtifactRef string        `json:"artifact_ref,omitempty"`
}

// writeWhyJSON prints one JSON object per touch per line, in the order
// given, with the parts the log does not hold left out.
func writeWhyJSON(w io.Writer, touches []why.Touch) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, t := range touches {
		if err := enc.Encode(whyLineOf(t)); err != nil {
			return fmt.Errorf("why: write intent %s: %w", t.Intent.ID, err)
		}
	}
	return nil
}

func whyLineOf(t why.Touch) whyLine {
	l := whyLine{
		Session: t.Session, Parent: t.Parent, Seq: t.Seq, Time: t.Time, Run: t.Run, Turn: t.Turn,
		IntentID: t.Intent.ID, ToolName: t.Intent.ToolName, Input: t.Intent.Input,
		Access: t.Access, Said: t.Said, Cwd: t.Cwd,
	}
	if v := t.Validation; v != nil {
		l.Validation = &whyValidation{OK: v.OK, Code: v.Code, Errors: v.Errors}
	}
	if p := t.Permission; p != nil {
		l.Permission = &whyPermission{Decision: p.Decision, By: p.By, Rule: p.Rule, Reason: p.Reason, Message: p.Message}
	}
	if s := t.Started; s != nil {
		l.EffectiveInput, l.Cwd = s.Input, s.Cwd
	}
	if c := t.Completed; c != nil {
		l.Exit, l.ExitCode, l.DurationMS = c.Exit, &c.ExitCode, &c.DurationMS
	}
	if o := t.Observation; o != nil {
		l.Observation = &whyObservation{OK: o.OK, Code: o.Code, Text: o.Text, Truncated: o.Truncated, ArtifactRef: o.ArtifactRef}
	}
	return l
}
