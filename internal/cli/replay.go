package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
)

// replay runs rein replay: the transcript and the trace of a session from
// its log alone, each child's (read from its own log) nested under its
// task, and the totals of the tree. It asks no model, runs no tool and
// writes no file. With --json it prints the session's own log, line for
// line (rein log --children --json adds the children's).
func (a *app) replay(ref string) error {
	top, _, err := a.store()
	if err != nil {
		return err
	}
	p, err := top.Locate(ref)
	if err != nil {
		return err
	}
	s, id := p.Store, p.ID
	var r renderer = &jsonLines{w: a.deps.Stdout}
	if !a.flags.json {
		rp := newReplayer(a.deps.Stdout)
		// A fork's first events are its parent's, with their times: the
		// header says so before them. (A log this cannot read is said by
		// the reading itself.)
		rp.fork, _ = s.Forked(id)
		rp.logs = &childLogs{tasks: s.Tasks(id), root: top, damage: a.damage}
		r = rp
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

	// proposed holds each intent's input, to show an effective input that
	// differs from it.
	proposed map[string]json.RawMessage
	// own sums the session's own events: since it started, or, for a
	// fork, since it was made; copied sums a fork's events before that,
	// its parent's, copied with their times.
	own, copied replayTotals
	// fork is the session.forked that made the session a fork, when it
	// is one (read ahead, for the header); nil when not known.
	fork    *contract.Envelope
	unknown map[string]int
	// logs finds the logs of the session's children, shown nested under
	// their tasks; nil shows none. kids sums the children's trees, as
	// own sums the session's events (copiedKids those before a fork's
	// start); replayed holds the children whose logs were read.
	logs             *childLogs
	kids, copiedKids replayTotals
	replayed         map[string]bool
	// nested says the session is shown inside its parent's replay.
	nested bool
	// messages holds the text of each user.message by seq, for a
	// rewind to name the message it went back to.
	messages map[uint64]string
}

// rewound shows a rewind: the message it went back to, what it left out
// of the conversation (still shown above, as the log keeps it), and the
// files it restored.
func (r *replayer) rewound(env contract.Envelope, e *contract.SessionRewound) {
	first, _, _ := strings.Cut(strings.TrimSpace(r.messages[e.To]), "\n")
	switch e.Scope {
	case contract.RewindCode:
		r.line(sayf("\n%s ⟲ rewound the files to before seq %d (%s); the conversation goes on as it was", r.at(env), e.To, text(excerpt.Text(first, 60))))
	default:
		r.line(sayf("\n%s ⟲ rewound to before seq %d (%s): seq %d to %d above are rewound, left out of the conversation from here on",
			r.at(env), e.To, text(excerpt.Text(first, 60)), e.To, env.Seq-1))
	}
	for _, f := range e.Files {
		r.line(sayf("  %s %s", rewindVerb(string(f.Op)), text(relTo(r.t.workspace, f.Path))))
	}
	for _, f := range e.Forced {
		r.line(r.t.style("33", sayf("  overwritten though changed since: %s", text(relTo(r.t.workspace, f)))))
	}
}

// replayTotals sums a stretch of a session's events: their runs, model
// calls, tool calls, failed or refused calls, compactions and usage, and
// the times of the first and the last; sessions counts the child
// sessions summed in, in a sum of children.
type replayTotals struct {
	start, last                                              time.Time
	runs, calls, tools, failed, compactions, count, sessions int
	usage                                                    contract.Totals
}

// add adds the events of o, which came after those of t.
func (t *replayTotals) add(o replayTotals) {
	if t.start.IsZero() {
		t.start = o.start
	}
	if !o.last.IsZero() {
		t.last = o.last
	}
	t.runs, t.calls, t.tools, t.failed = t.runs+o.runs, t.calls+o.calls, t.tools+o.tools, t.failed+o.failed
	t.compactions, t.count, t.sessions = t.compactions+o.compactions, t.count+o.count, t.sessions+o.sessions
	t.usage.Merge(&o.usage)
}

func newReplayer(w io.Writer) *replayer {
	return &replayer{t: newTerminal(w, w), w: w, proposed: map[string]json.RawMessage{}, unknown: map[string]int{}, replayed: map[string]bool{}}
}

// at is the time of env since the session started, or, past a fork's
// start, since it was made.
func (r *replayer) at(env contract.Envelope) shown {
	return sayf("[+%s]", env.Time.Sub(r.own.start).Round(time.Millisecond))
}

func (r *replayer) line(s shown) { r.t.line(s) }

func (r *replayer) event(env contract.Envelope) error {
	if _, ok := env.Data.(*contract.SessionForked); ok {
		// What came before is the parent's; the fork's own time starts
		// here.
		r.copied.add(r.own)
		r.copiedKids.add(r.kids)
		r.own, r.kids = replayTotals{start: env.Time}, replayTotals{}
	}
	if r.own.start.IsZero() {
		r.own.start = env.Time
	}
	r.own.last = env.Time
	r.own.count++
	for _, show := range []func(contract.Envelope) (bool, error){r.session, r.model, r.toolEvent, r.context, r.task} {
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
		if f, ok := r.forkData(); ok && env.Seq < r.fork.Seq {
			r.line(sayf("session %s · %s · rein %s · %s %s · forked from %s at seq %d on %s", env.Session, e.Cwd, e.Version,
				e.Provider, e.Model, f.ParentSession, f.ParentSeq, r.fork.Time.Local().Format("2006-01-02 15:04:05 MST")))
			r.line(r.t.style("2", sayf("  seq 1–%d are %s's events, copied with their times (it started %s); the fork's own begin at seq %d",
				f.ParentSeq, f.ParentSession, env.Time.Local().Format("2006-01-02 15:04:05 MST"), r.fork.Seq)))
			break
		}
		r.line(sayf("session %s · %s · rein %s · %s %s · started %s", env.Session, e.Cwd, e.Version,
			e.Provider, e.Model, env.Time.Local().Format("2006-01-02 15:04:05 MST")))
		if p := e.Parent; p != nil {
			r.line(r.childOf(p))
		}
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
		r.line(sayf("\n%s ── forked from session %s at seq %d on %s: the events above are that session's, copied; times from here are the fork's ──",
			r.at(env), e.ParentSession, e.ParentSeq, env.Time.Local().Format("2006-01-02 15:04:05 MST")))
	case *contract.UserMessage:
		r.line(sayf("\n%s › %s", r.at(env), text(e.Text)))
		if r.messages == nil {
			r.messages = map[uint64]string{}
		}
		r.messages[env.Seq] = e.Text
	case *contract.SessionRewound:
		r.rewound(env, e)
	case *contract.CheckpointRecorded:
		if e.Error != "" {
			r.line(r.t.style("33", sayf("%s checkpoint failed: %s (a rewind past here cannot restore the files)", r.at(env), field(e.Error))))
		}
	case *contract.RunStarted:
		r.own.runs++
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
		r.own.calls++
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
		r.own.usage.Add(e)
		r.line(r.t.style("2", sayf("  usage: %s · %s", tokens(e.InputTokens, e.OutputTokens, e.CacheReadTokens, e.CacheWriteTokens), callCost(e))))
	case *contract.ProviderError:
		// The trace keeps every failed call; a cancelled one was a person
		// stopping it.
		if e.Kind == contract.KindAborted {
			r.line(r.t.style("33", sayf("%s model call stopped: %s", r.at(env), e.Message)))
			break
		}
		r.line(r.t.style("31", sayf("%s ✗ model error: %s", r.at(env), e.Error())))
	case *contract.RetryScheduled:
		// The trace keeps every retry, each on its line.
		r.line(r.t.style("33", sayf("  %s", e.Status())))
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
		r.own.tools++
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
			r.own.failed++
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
		r.own.compactions++
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

// forkData returns the session.forked read ahead, if any.
func (r *replayer) forkData() (*contract.SessionForked, bool) {
	if r.fork == nil {
		return nil, false
	}
	f, ok := r.fork.Data.(*contract.SessionForked)
	return f, ok
}

// end closes the rendering with the session's totals: a fork's own, and
// apart those of the events it copied from its parent.
func (r *replayer) end() {
	if r.own.start.IsZero() {
		return
	}
	if r.copied.count == 0 {
		r.line("\n— " + r.own.line())
		r.treeLines("", &r.own, &r.kids)
	} else {
		r.line("\n— this fork, since it was made: " + r.own.line())
		r.treeLines("", &r.own, &r.kids)
		r.line("  copied from its parent: " + r.copied.line())
		r.treeLines("copied: ", &r.copied, &r.copiedKids)
	}
	if len(r.unknown) > 0 {
		r.line(sayf("  %d event type(s) unknown to this rein: %s", len(r.unknown), strings.Join(slices.Sorted(maps.Keys(r.unknown)), ", ")))
	}
	r.t.end()
}

// line says the totals on one line, ending with their wall time.
func (t *replayTotals) line() shown {
	compactions := shown("")
	if t.compactions > 0 {
		compactions = sayf(" · %d compaction(s)", t.compactions)
	}
	return sayf("%d run(s) · %d model call(s) · %d tool call(s), %d failed or refused%s · %s · %s",
		t.runs, t.calls, t.tools, t.failed, compactions, totals(&t.usage), t.last.Sub(t.start).Round(time.Millisecond))
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

// relTo is path relative to the workspace when it lies inside, else as it
// is.
func relTo(workspace, path string) string {
	if r, err := filepath.Rel(workspace, path); err == nil && filepath.IsLocal(r) {
		return filepath.ToSlash(r)
	}
	return path
}
