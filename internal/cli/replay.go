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
	usage    contract.ModelUsage
	unknown  map[string]int
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
	switch e := env.Data.(type) {
	case *contract.SessionStarted:
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
	case *contract.ModelRequested:
		r.calls++
		r.line(r.t.style("2", sayf("%s model %s %s · turn %d · %d messages · %d tools · ~%d tokens in",
			r.at(env), e.Provider, e.Model, env.Turn, e.MessageCount, len(e.ToolNames), e.EstimatedInputTokens)))
	case *contract.ModelText:
		r.line(text(strings.TrimRight(e.Text, "\n")))
	case *contract.ModelReasoning:
		r.line(r.t.style("2", "thinking: "+text(strings.TrimRight(e.Text, "\n"))))
	case *contract.ModelUsage:
		r.usage.InputTokens += e.InputTokens
		r.usage.OutputTokens += e.OutputTokens
		r.usage.CacheReadTokens += e.CacheReadTokens
		r.line(r.t.style("2", sayf("  usage: %d in (%d cached) · %d out", e.InputTokens, e.CacheReadTokens, e.OutputTokens)))
	case *contract.IntentProposed:
		r.tools++
		r.proposed[e.ID] = e.Input
		r.line(r.t.style("2", r.at(env)) + " " + r.t.style("1", "● "+field(e.ToolName)) + " " + compact(e.Input))
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
			return err
		}
		if e.ArtifactRef != "" {
			r.line(r.t.style("2", "  full output: "+field(e.ArtifactRef)))
		}
	case *contract.ProviderError:
		// The trace keeps every failed call; a cancelled one was a person
		// stopping it.
		if e.Kind == contract.KindAborted {
			r.line(r.t.style("33", sayf("%s model call stopped: %s", r.at(env), e.Message)))
			break
		}
		r.line(r.t.style("31", sayf("%s ✗ model error: %s", r.at(env), e.Error())))
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
		return r.t.event(env)
	}
	return nil
}

// end closes the rendering with the session's totals.
func (r *replayer) end() {
	if r.start.IsZero() {
		return
	}
	r.line(sayf("\n— %d run(s) · %d model call(s) · %d tool call(s), %d failed or refused · %d tokens in (%d cached), %d out · %s",
		r.runs, r.calls, r.tools, r.failed, r.usage.InputTokens, r.usage.CacheReadTokens, r.usage.OutputTokens,
		r.last.Sub(r.start).Round(time.Millisecond)))
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
