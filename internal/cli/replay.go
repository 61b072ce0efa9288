package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
)

// replay runs rein replay: the transcript and the trace of a session from
// its log alone. It asks no model, runs no tool and writes no file.
func (a *app) replay(ref string) error {
	s, id, err := a.find(ref)
	if err != nil {
		return err
	}
	var r renderer = &jsonLines{w: a.deps.Stdout}
	if !a.flags.json {
		r = newReplayer(a.deps.Stdout)
	}
	info, err := s.Read(id, r.event)
	r.end()
	a.damage(s.LogPath(id), info)
	if err == nil && info.Events == 0 {
		printf(a.deps.Stderr, "rein: the log of session %s holds no event\n", id)
	}
	return err
}

// replayer renders durable events for reading afterwards: the
// conversation as it was, and the trace around it (what was asked of the
// model, every decision and execution with timings, usage), with the time
// since the session started. Everything goes to one writer.
type replayer struct {
	t *terminal
	w io.Writer

	start, last time.Time
	// proposed holds each intent's input, to show an effective input that
	// differs from it.
	proposed map[string]json.RawMessage
	runs     int
	calls    int
	tools    int
	failed   int
	// compactions counts context.compacted; usage sums every call's.
	compactions int
	usage       contract.Totals
	unknown     map[string]int
}

func newReplayer(w io.Writer) *replayer {
	return &replayer{t: newTerminal(w, w), w: w, proposed: map[string]json.RawMessage{}, unknown: map[string]int{}}
}

// at is the time of env since the session started.
func (r *replayer) at(env contract.Envelope) shown {
	return sayf("[+%s]", env.Time.Sub(r.start).Round(time.Millisecond))
}

func (r *replayer) line(s shown) { r.t.line(s) }

func (r *replayer) event(env contract.Envelope) error {
	if r.start.IsZero() {
		r.start = env.Time
	}
	r.last = env.Time
	for _, show := range []func(contract.Envelope) (bool, error){r.session, r.model, r.toolEvent, r.context} {
		if done, err := show(env); done || err != nil {
			return err
		}
	}
	return r.t.event(env)
}

// session shows the events of the session and its runs; it reports
// whether env was one.
func (r *replayer) session(env contract.Envelope) (bool, error) {
	switch e := env.Data.(type) {
	case *contract.SessionStarted:
		r.t.workspace = e.Cwd
		r.line(sayf("session %s · %s · rein %s · %s %s · started %s", env.Session, e.Cwd, e.Version,
			e.Provider, e.Model, env.Time.Local().Format("2006-01-02 15:04:05 MST")))
		if sb := e.Sandbox; sb != nil && !sb.Available {
			r.line(sayf("  no sandbox on that machine (%s): its commands ran unsandboxed", field(sb.Reason)))
		}
	case *contract.SessionResumed:
		gates := make([]string, 0, len(e.Gates))
		for _, k := range slices.Sorted(maps.Keys(e.Gates)) {
			gates = append(gates, k+": "+e.Gates[k])
		}
		r.line(sayf("\n%s resumed after seq %d by rein %s (%s)", r.at(env), e.FromSeq, e.Version, strings.Join(gates, "; ")))
	case *contract.SessionForked:
		r.line(sayf("%s forked from session %s at seq %d", r.at(env), e.ParentSession, e.ParentSeq))
	case *contract.UserMessage:
		r.line(sayf("\n%s › %s", r.at(env), text(e.Text)))
	case *contract.RunStarted:
		r.runs++
	case *contract.RunFinished:
		r.line(r.t.style("2", sayf("%s run %s", r.at(env), e.Outcome)))
		if e.Outcome != contract.OutcomeCompleted && e.Reason != "" {
			r.line("  " + field(e.Reason))
		}
	case *contract.Unknown:
		r.unknown[e.Type]++
		r.line(r.t.style("33", sayf("%s ? %s: an event this rein does not know (a newer rein wrote it): %s",
			r.at(env), e.Type, excerpt.Text(string(e.Data), 200))))
	default:
		return false, nil
	}
	return true, nil
}

// model shows the trace of the model calls: what was asked, the text
// and reasoning, the usage and cost of each, and the failed calls; it
// reports whether env was one of those.
func (r *replayer) model(env contract.Envelope) (bool, error) {
	switch e := env.Data.(type) {
	case *contract.ModelRequested:
		r.calls++
		what := sayf("turn %d", env.Turn)
		if e.Purpose == contract.PurposeCompaction {
			what = "summary for a compaction"
		}
		r.line(r.t.style("2", sayf("%s model %s %s · %s · %d messages · %d tools · ~%s tokens in",
			r.at(env), e.Provider, e.Model, what, e.MessageCount, len(e.ToolNames), thousands(e.EstimatedInputTokens))))
	case *contract.ModelText:
		r.line(text(strings.TrimRight(e.Text, "\n")))
	case *contract.ModelReasoning:
		r.line(r.t.style("2", "thinking: "+text(strings.TrimRight(e.Text, "\n"))))
	case *contract.ModelUsage:
		r.usage.Add(e)
		r.line(r.t.style("2", sayf("  usage: %s · %s", tokens(e.InputTokens, e.OutputTokens, e.CacheReadTokens, e.CacheWriteTokens), callCost(e))))
	case *contract.ProviderError:
		// The trace keeps every failed call; a cancelled one was a person
		// stopping it.
		if e.Kind == contract.KindAborted {
			r.line(r.t.style("33", sayf("%s model call stopped: %s", r.at(env), e.Message)))
			break
		}
		r.line(r.t.style("31", sayf("%s ✗ model error: %s", r.at(env), e.Error())))
	default:
		return false, nil
	}
	return true, nil
}

// toolEvent shows the stages of a tool call as the trace has them; it
// reports whether env was one.
func (r *replayer) toolEvent(env contract.Envelope) (bool, error) {
	switch e := env.Data.(type) {
	case *contract.IntentProposed:
		r.tools++
		r.proposed[e.ID] = e.Input
		r.line(r.t.style("2", r.at(env)) + " " + r.t.title(e))
	case *contract.InvocationStarted:
		where := sayf(" in %s, timeout %s", e.Cwd, time.Duration(e.TimeoutMS)*time.Millisecond)
		what := "  ran" + where
		if in, ok := r.proposed[e.IntentID]; ok && !jsonEqual(in, e.Input) {
			what = "  ran " + compact(e.Input) + " (the effective input)" + where
		}
		r.line(r.t.style("2", what+sandboxed(e.Sandbox)))
	case *contract.ToolObservation:
		if !e.OK {
			r.failed++
		}
		if err := r.t.event(env); err != nil {
			return true, err
		}
		if e.ArtifactRef != "" {
			r.line(r.t.style("2", "  full output: "+field(e.ArtifactRef)))
		}
	default:
		return false, nil
	}
	return true, nil
}

// context shows where the context engine changed what the requests
// held: compactions, failed compactions, and observations elided to
// stubs; it reports whether env was one of its events.
func (r *replayer) context(env contract.Envelope) (bool, error) {
	switch e := env.Data.(type) {
	case *contract.ContextProjected:
		if len(e.Elided) == 0 {
			break // the ledger of every request is in rein log --type 'context.*'
		}
		count, tok := elided(e)
		r.line(r.t.style("2", sayf("%s ── elided: %d more observation(s) sent as stubs that point at their artifacts; %d elided in all (~%s tokens as stubs); request ~%s of %s tokens ──",
			r.at(env), len(e.Elided), count, thousands(tok), thousands(e.EstimatedTokens), budgetOf(e))))
	case *contract.ContextCompacted:
		r.compactions++
		r.line(sayf("%s ── compacted: seq %d–%d (%d messages) → summary; %s → %s tokens; by %s%s ──",
			r.at(env), e.FromSeq, e.ToSeq, e.Replaced, thousands(e.TokensBefore), thousands(e.TokensAfter), e.By, focusOf(e.Focus)))
		r.line(r.t.style("2", preview(e.Summary, 10)))
	case *contract.CompactionFailed:
		if e.Attempt == 0 {
			r.line(r.t.style("2", sayf("%s not compacted (by %s): %s", r.at(env), e.By, e.Reason)))
			break
		}
		r.line(r.t.style("33", sayf("%s ✗ compaction failed (by %s, attempt %d): %s; nothing changed", r.at(env), e.By, e.Attempt, e.Reason)))
	default:
		return false, nil
	}
	return true, nil
}

// elided sums the observations a request sent as stubs.
func elided(e *contract.ContextProjected) (count, tokens int) {
	for _, s := range e.Sources {
		if s.Kind == contract.SourceObservations && s.Decision == contract.DecidedElided {
			count += s.Count
			tokens += s.Tokens
		}
	}
	return count, tokens
}

// budgetOf shows a request's input budget, or that none was known.
func budgetOf(e *contract.ContextProjected) string {
	if e.Budget <= 0 {
		return "an unknown budget"
	}
	return thousands(e.Budget)
}

// focusOf shows what a compaction was asked to keep, if anything.
func focusOf(focus string) shown {
	if focus == "" {
		return ""
	}
	return sayf(", focus %q", focus)
}

// end closes the rendering with the session's totals.
func (r *replayer) end() {
	if r.start.IsZero() {
		return
	}
	compactions := shown("")
	if r.compactions > 0 {
		compactions = sayf(" · %d compaction(s)", r.compactions)
	}
	r.line(sayf("\n— %d run(s) · %d model call(s) · %d tool call(s), %d failed or refused%s · %s · %s",
		r.runs, r.calls, r.tools, r.failed, compactions, totals(&r.usage), r.last.Sub(r.start).Round(time.Millisecond)))
	if len(r.unknown) > 0 {
		r.line(sayf("  %d event type(s) unknown to this rein: %s", len(r.unknown), strings.Join(slices.Sorted(maps.Keys(r.unknown)), ", ")))
	}
	r.t.end()
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x) // values that decoded always encode
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// sandboxed says, after "ran in DIR, timeout T", how an invocation was
// contained; nothing for a tool that started no process.
func sandboxed(sb *contract.SandboxSpec) shown {
	switch {
	case sb == nil:
		return ""
	case sb.Mode == "off":
		return ", no sandbox"
	case sb.Network:
		return sayf(", sandbox %s, network on", field(sb.Mode))
	}
	return sayf(", sandbox %s, network off", field(sb.Mode))
}
