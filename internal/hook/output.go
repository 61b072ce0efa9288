package hook

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
)

// maxText bounds a Reason or a Context taken from a hook's output, as
// Claude Code bounds what a hook adds to the context.
const maxText = 10000

// output is a hook's JSON answer on stdout, as Claude Code documents it.
type output struct {
	// Continue false stops: the prompt is not sent, the call not run.
	Continue   *bool  `json:"continue"`
	StopReason string `json:"stopReason"`
	// Decision is "block" (PostToolUse, UserPromptSubmit, Stop), or for
	// PreToolUse the older "approve" and "block".
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	Specific struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
		// UpdatedInput is a changed input the hook would run instead;
		// rein never rewrites what the model proposed (see answer).
		UpdatedInput json.RawMessage `json:"updatedInput"`
	} `json:"hookSpecificOutput"`
}

// interpret is the HookRan of one run of h at event: what it decided,
// why, and what it adds for the model. A PreToolUse hook that failed
// denies; the others fail open.
func (r *Runner) interpret(event string, h compiled, res result) contract.HookRan {
	e := contract.HookRan{Event: event, Command: h.Command, Source: h.Source, Exit: res.exit, ExitCode: res.code,
		DurationMS: res.duration.Milliseconds()}
	if event == contract.HookPreToolUse || event == contract.HookPostToolUse {
		e.Matcher = h.Matcher
	}
	gate := event == contract.HookPreToolUse
	fail := func(why string) contract.HookRan {
		r.opts.Logger.Warn("hook: a hook failed", "event", event, "command", h.Command, "why", why)
		e.Reason = "the hook " + why
		if gate {
			e.Decision = contract.HookDeny
			e.Reason = "it failed (" + why + "), and a gate that fails denies"
		}
		return e
	}
	stderr := r.text(res.stderr)
	switch {
	case res.err != nil:
		return fail(res.err.Error())
	case res.code == 2:
		r.blocked(&e, stderr)
		return e
	case res.code != 0:
		why := "exited with " + strconv.Itoa(res.code)
		if stderr != "" {
			why += ": " + stderr
		}
		return fail(why)
	}
	stdout := strings.TrimSpace(res.stdout)
	if !strings.HasPrefix(stdout, "{") {
		if stdout != "" && (event == contract.HookUserPromptSubmit || event == contract.HookSessionStart) {
			e.Context = r.text(stdout)
		}
		return e
	}
	var out output
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		return fail("printed JSON that does not parse: " + err.Error())
	}
	if why := r.answer(&e, &out); why != "" {
		return fail(why)
	}
	return e
}

// blocked fills e for a hook that exited with 2, stderr its reason.
func (r *Runner) blocked(e *contract.HookRan, stderr string) {
	reason := stderr
	if reason == "" {
		reason = "(the hook exited with 2 and gave no reason)"
	}
	switch e.Event {
	case contract.HookPreToolUse:
		e.Decision, e.Reason = contract.HookDeny, reason
	case contract.HookUserPromptSubmit, contract.HookStop, contract.HookSubagentStop:
		e.Decision, e.Reason = contract.HookBlock, reason
	case contract.HookPostToolUse:
		// The call ran: Claude Code shows the model the hook's stderr.
		e.Context = stderr
	default:
		e.Reason = stderr
	}
}

// answer fills e from a hook's JSON answer; it returns why the answer is
// not one (an unknown permissionDecision), "" when it is.
func (r *Runner) answer(e *contract.HookRan, out *output) string {
	stop := out.Continue != nil && !*out.Continue
	e.Context = r.text(out.Specific.AdditionalContext)
	reason := r.text(out.Reason)
	switch e.Event {
	case contract.HookPreToolUse:
		d := out.Specific.PermissionDecision
		why := r.text(out.Specific.PermissionDecisionReason)
		if d == "" {
			d = map[string]string{"approve": contract.HookAllow, "block": contract.HookDeny}[out.Decision]
			why = reason
		}
		if d == contract.HookAllow && len(out.Specific.UpdatedInput) > 0 && string(out.Specific.UpdatedInput) != "null" {
			// The log records what the model proposed, and that is what
			// runs: an allow of another input is not an allow of this one.
			d, why = contract.HookAsk, strings.TrimSpace("it would allow the call with a changed input (updatedInput), which rein does not apply, so the call as proposed needs approval. "+why)
		}
		switch d {
		case contract.HookAllow, contract.HookDeny, contract.HookAsk:
			e.Decision, e.Reason = d, why
		case "", "defer":
		default:
			return "answered the permissionDecision " + strconv.Quote(d) + ", which is none of allow, deny and ask"
		}
		if stop {
			e.Decision, e.Reason = contract.HookDeny, r.text(out.StopReason)
		}
	case contract.HookUserPromptSubmit:
		if out.Decision == "block" {
			e.Decision, e.Reason = contract.HookBlock, reason
		}
		if stop {
			e.Decision, e.Reason = contract.HookBlock, r.text(out.StopReason)
		}
	case contract.HookStop, contract.HookSubagentStop:
		if out.Decision == "block" && !stop {
			e.Decision, e.Reason = contract.HookBlock, reason
		}
	case contract.HookPostToolUse:
		if out.Decision == "block" && reason != "" {
			e.Context = strings.TrimSpace(reason + "\n" + e.Context)
		}
	}
	return ""
}

// text is s as an event may hold it: trimmed, the secrets cut out, at
// most maxText bytes.
func (r *Runner) text(s string) string {
	s = strings.TrimSpace(s)
	for _, sec := range r.opts.Secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	if len(s) > maxText {
		cut := maxText
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "\n[... cut: the hook printed " + strconv.Itoa(len(s)) + " bytes]"
	}
	return s
}

// utf8Start says whether b may start a UTF-8 sequence.
func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
