package transcript

import (
	"fmt"
	"strconv"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/tui/style"
)

// note renders the line an event of the session shows, "" for one that
// shows nothing.
func (t *Transcript) note(env contract.Envelope) string {
	w, th := t.opts.Width, t.opts.Theme
	switch e := env.Data.(type) {
	case *contract.SessionResumed:
		return Note("info", "resumed session "+env.Session, w, th)
	case *contract.SessionForked:
		return Note("info", fmt.Sprintf("forked from session %s at event %d", e.ParentSession, e.ParentSeq), w, th)
	case *contract.ProviderError:
		// A failed call is retried, or falls back, or ends the run, whose
		// own line says why: only a malformed tool call, which the model
		// is told of, is worth a line of its own. A retry is the working
		// line's ("retrying in 2.0s ..."), never the scrollback's.
		if e.Kind == contract.KindMalformedToolCall {
			return Note("warn", providerError(e), w, th)
		}
		return ""
	case *contract.FallbackSelected:
		return Note("info", fmt.Sprintf("falling back from %s to %s (%s)", e.From, e.To, e.Reason), w, th)
	case *contract.ModelSwitched:
		return Note("info", fmt.Sprintf("model: %s → %s", e.From, e.To), w, th)
	case *contract.ModeChanged:
		return Note("info", fmt.Sprintf("permission mode: %s → %s", e.From, e.To), w, th)
	case *contract.ContextCompacted:
		return Note("info", fmt.Sprintf("context compacted: %s → %s tokens", thousands(e.TokensBefore), thousands(e.TokensAfter)), w, th)
	case *contract.CompactionFailed:
		if e.Attempt == 0 && e.By == contract.CompactAuto {
			return "" // the context policy found nothing to compact: no news
		}
		return Note("warn", "context compaction failed: "+e.Reason, w, th)
	case *contract.ToolsChanged:
		return toolsChanged(e, w, th)
	case *contract.HookRan:
		return hookRan(e, w, th)
	}
	return ""
}

// toolsChanged is the note of an MCP server's tools joining or leaving.
func toolsChanged(e *contract.ToolsChanged, w int, th style.Theme) string {
	switch {
	case len(e.Removed) > 0 && len(e.Added) > 0:
		return Note("info", fmt.Sprintf("mcp %s: %d tools joined, %d left: %s", e.Server, len(e.Added), len(e.Removed), e.Reason), w, th)
	case len(e.Removed) > 0:
		return Note("warn", fmt.Sprintf("mcp %s: its %d tools left: %s", e.Server, len(e.Removed), e.Reason), w, th)
	}
	return Note("info", fmt.Sprintf("mcp %s: %d tools joined: %s", e.Server, len(e.Added), e.Reason), w, th)
}

// hookRan is the note of a hook that decided something, failed or added
// context; "" for one that only ran.
func hookRan(e *contract.HookRan, w int, th style.Theme) string {
	what := "hook " + e.Event + " " + e.Command
	reason := ""
	if e.Reason != "" {
		reason = ": " + e.Reason
	}
	switch {
	case e.Decision == contract.HookDeny:
		return Note("warn", what+" denied the call"+reason, w, th)
	case e.Decision == contract.HookBlock && e.Event == contract.HookStop:
		return Note("info", what+" asks the model to go on"+reason, w, th)
	case e.Decision == contract.HookBlock:
		return Note("warn", what+" blocked the message (it was not sent)"+reason, w, th)
	case e.Decision == contract.HookAsk:
		return Note("info", what+" asks you"+reason, w, th)
	case e.Decision == contract.HookAllow:
		return Note("info", what+" allowed the call"+reason, w, th)
	case e.Exit != contract.ExitOK && e.Exit != "":
		return Note("warn", fmt.Sprintf("%s failed (%s, exit code %d)%s", what, e.Exit, e.ExitCode, reason), w, th)
	case e.Context != "":
		return Note("info", fmt.Sprintf("%s added context (%d bytes)", what, len(e.Context)), w, th)
	}
	return ""
}

// providerError is the message of a provider's error, with its provider
// and status when known.
func providerError(e *contract.ProviderError) string {
	msg := e.Message
	if msg == "" {
		msg = string(e.Kind)
	}
	if e.Provider != "" {
		msg = e.Provider + ": " + msg
	}
	if e.HTTPStatus != 0 {
		msg += fmt.Sprintf(" (HTTP %d)", e.HTTPStatus)
	}
	return msg
}

// outcomeNote is the line a run that did not complete ends with, "" for
// one that did.
func outcomeNote(e *contract.RunFinished, width int, th style.Theme) string {
	why := ""
	if e.Reason != "" {
		why = ": " + e.Reason
	}
	switch e.Outcome {
	case contract.OutcomeCompleted, "":
		return ""
	case contract.OutcomeCancelled:
		return Note("warn", "interrupted", width, th)
	case contract.OutcomeFailed:
		return Note("error", "the run failed"+why, width, th)
	case contract.OutcomeBudget:
		return Note("warn", "the run reached its budget"+why, width, th)
	case contract.OutcomeMaxTurns:
		return Note("warn", "the run reached its turn limit"+why, width, th)
	case contract.OutcomeNeedsUser:
		return Note("info", "the run needs you"+why, width, th)
	}
	return Note("warn", "the run ended: "+string(e.Outcome)+why, width, th)
}

// seconds renders a duration in milliseconds: "40 ms", "0.3 s", "2 s",
// "12 s", "2 min 5 s".
func seconds(ms int64) string {
	switch {
	case ms < 100:
		return strconv.FormatInt(ms, 10) + " ms"
	case ms < 10_000 && ms%1000 != 0:
		return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + " s"
	case ms < 60_000:
		return strconv.FormatInt(ms/1000, 10) + " s"
	}
	return fmt.Sprintf("%d min %d s", ms/60_000, ms%60_000/1000)
}

// thousands renders n with commas between its thousands: "120,000".
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return neg + s
}

// plural renders n and a noun, with an "s" when n is not one.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// size renders a byte count: "512 B", "4.1 KiB", "2.0 MiB".
func size(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	f, unit := float64(n)/1024, "KiB"
	if f >= 1024 {
		f, unit = f/1024, "MiB"
	}
	return fmt.Sprintf("%.1f %s", f, unit)
}
