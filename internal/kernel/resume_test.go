package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/eventlog/memstore"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/scripted"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/state/statetest"
	"github.com/rein-agent/rein/internal/tool"
	"github.com/rein-agent/rein/internal/workspace"
)

// threeTurns says hello, then world, then answers.
const threeTurns = `{"turns":[
	{"steps":[{"text":"First hello."},{"tool":{"index":0,"id":"c1","name":"say","input":{"text":"hello"}}},{"finish":"tool_use"}]},
	{"steps":[{"text":"Then world."},{"tool":{"index":0,"id":"c2","name":"say","input":{"text":"world"}}},{"finish":"tool_use"}]},
	{"steps":[{"text":"Said both."},{"finish":"stop"}]}]}`

// counting is the say tool counting its runs by text.
func counting(runs map[string]int) registry.Tool {
	t := say(new(int))
	inner := t.Execute
	t.Execute = func(ctx context.Context, c *registry.Call) (registry.Result, error) {
		var in struct{ Text string }
		json.Unmarshal(c.Input, &in)
		runs[in.Text]++
		return inner(ctx, c)
	}
	return t
}

// kernelOver returns a kernel with the say tool over a log holding prefix,
// as a reopened session would have it.
func kernelOver(t *testing.T, prefix []contract.Envelope, script string, runs map[string]int) (*Kernel, *eventlog.Log) {
	t.Helper()
	store := memstore.New()
	for _, env := range prefix {
		if _, err := store.Append(env); err != nil {
			t.Fatal(err)
		}
	}
	s, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.New(counting(runs))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	policy, err := permission.New(permission.Default, permission.Rules{}, ws)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := tool.New(reg, policy, nil)
	if err != nil {
		t.Fatal(err)
	}
	log := eventlog.New(store, nil)
	t.Cleanup(func() { log.Close() })
	st := statetest.Reduce(prefix)
	k, err := New(scripted.New(s, nil), log, &Options{
		ProviderName: "scripted", Registry: reg, Tools: rt, State: &st, Version: "test",
		Capabilities: provider.Capabilities{Streaming: true, Tools: true}, Retry: RetryPolicy{Attempts: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	return k, log
}

// The crash test of the kernel: a session cut after any of its events
// resumes to the end of its run, and no tool that started before the cut
// runs again.
func TestResumeAfterACutAtEveryEvent(t *testing.T) {
	whole := func() []contract.Envelope {
		k, log := kernelOver(t, nil, threeTurns, map[string]int{})
		collect(t, k.Send(t.Context(), Input{Text: "say hello, then world"}))
		return durable(t, log)
	}()
	if f := whole[len(whole)-1].Data.(*contract.RunFinished); f.Outcome != contract.OutcomeCompleted {
		t.Fatalf("the uncut session ended %+v", f)
	}
	for cut := 1; cut < len(whole); cut++ {
		prefix := whole[:cut]
		t.Run(fmt.Sprintf("after %d %s", cut, prefix[cut-1].Type()), func(t *testing.T) {
			before := map[string]int{}   // tools that started before the cut
			started := map[string]bool{} // by intent
			for _, env := range prefix {
				if s, ok := env.Data.(*contract.InvocationStarted); ok {
					var in struct{ Text string }
					json.Unmarshal(s.Input, &in)
					before[in.Text]++
					started[s.IntentID] = true
				}
			}
			runs := map[string]int{}
			k, log := kernelOver(t, prefix, threeTurns, runs)
			st := k.State()
			out := collect(t, k.Resume(t.Context(), Resume{Gates: map[string]string{"workspace": "ok"}}))
			if r, ok := out[0].Data.(*contract.SessionResumed); !ok || r.FromSeq != uint64(cut) || r.Version != "test" {
				t.Fatalf("first event = %s %+v, want session.resumed from %d", out[0].Type(), out[0].Data, cut)
			}
			for text, n := range runs {
				if before[text]+n > 1 {
					t.Errorf("say %q ran %d time(s) after the cut and %d before", text, n, before[text])
				}
			}
			for _, o := range observations(out) {
				if started[o.IntentID] && (o.Code == "not_executed" || o.OK) {
					t.Errorf("intent %s started before the cut; the model is told %s: %s", o.IntentID, o.Code, o.Text)
				}
			}
			after := k.State()
			if !st.Unfinished() {
				if len(out) != 1 {
					t.Errorf("nothing was unfinished, yet the resume appended %v", types(out))
				}
				return
			}
			if after.Status != state.Completed || len(after.Pending) != 0 || len(after.InFlight) != 0 {
				t.Errorf("after resume: %s, %d pending, %d in flight; want completed", after.Status, len(after.Pending), len(after.InFlight))
			}
			for _, inv := range st.InFlight {
				if !hasInterrupted(out, inv.InvocationID) {
					t.Errorf("invocation %s was running at the cut; no interrupted completion and observation: %v", inv.InvocationID, types(out))
				}
			}
			if folded := statetest.Reduce(durable(t, log)); folded.Status != after.Status || len(folded.Messages) != len(after.Messages) {
				t.Errorf("fold of the log differs from the live state")
			}
		})
	}
}

// hasInterrupted reports whether out records invocation inv as
// interrupted, and the model is told.
func hasInterrupted(out []contract.Envelope, inv string) bool {
	completed, observed := false, false
	intent := ""
	for _, env := range out {
		switch e := env.Data.(type) {
		case *contract.InvocationCompleted:
			if e.InvocationID == inv && e.Exit == contract.ExitInterrupted {
				completed, intent = true, e.IntentID
			}
		case *contract.ToolObservation:
			if completed && e.IntentID == intent && e.Code == "interrupted" && !e.OK && strings.Contains(e.Text, "not run again") {
				observed = true
			}
		}
	}
	return completed && observed
}

func TestResumeAfterTheFinalAnswerOnlyFinishesTheRun(t *testing.T) {
	k, log := kernelOver(t, nil, threeTurns, map[string]int{})
	collect(t, k.Send(t.Context(), Input{Text: "go"}))
	whole := durable(t, log)
	prefix := whole[:len(whole)-1]                                                                                       // the crash came just before run.finished
	k2, _ := kernelOver(t, prefix, `{"turns":[{"steps":[{"text":"asked again"},{"finish":"stop"}]}]}`, map[string]int{}) // a model call would show
	out := collect(t, k2.Resume(t.Context(), Resume{}))
	if got := types(out); strings.Join(got, " ") != "session.resumed run.finished" {
		t.Fatalf("resume appended %v, want session.resumed run.finished", got)
	}
	if f := out[1].Data.(*contract.RunFinished); f.Outcome != contract.OutcomeCompleted || !strings.Contains(f.Reason, "final answer was recorded") {
		t.Errorf("run.finished = %+v", f)
	}
}

func TestResumeWithAPromptClosesTheOldRunAndStartsANewOne(t *testing.T) {
	k, log := kernelOver(t, nil, threeTurns, map[string]int{})
	collect(t, k.Send(t.Context(), Input{Text: "go"}))
	whole := durable(t, log)
	var cut int
	for i, env := range whole {
		if _, ok := env.Data.(*contract.InvocationStarted); ok {
			cut = i + 1 // inside the first tool call
			break
		}
	}
	runs := map[string]int{}
	script := `{"turns":[{"steps":[{"text":"x"},{"finish":"stop"}]},{"steps":[{"text":"Fine, stopping."},{"finish":"stop"}]}]}`
	k2, _ := kernelOver(t, whole[:cut], script, runs)
	out := collect(t, k2.Resume(t.Context(), Resume{Text: "never mind, stop"}))
	want := "session.resumed tool.invocation.completed tool.observation run.finished user.message run.started"
	if got := strings.Join(types(out), " "); !strings.HasPrefix(got, want) {
		t.Fatalf("resume appended %s, want it to start with %s", got, want)
	}
	if f := out[3].Data.(*contract.RunFinished); f.Outcome != contract.OutcomeFailed || !strings.Contains(f.Reason, "ended (killed or crashed)") {
		t.Errorf("old run finished %+v", f)
	}
	if len(runs) != 0 {
		t.Errorf("tools ran: %v", runs)
	}
	if st := k2.State(); st.Status != state.Completed {
		t.Errorf("new run: %s, want completed", st.Status)
	}
}

// A resume that is itself cut after recording an invocation interrupted,
// before telling the model, tells it on the next resume: still
// interrupted, never "not run", never run again.
func TestResumeOfAResumeCutWhileSettling(t *testing.T) {
	k, log := kernelOver(t, nil, threeTurns, map[string]int{})
	collect(t, k.Send(t.Context(), Input{Text: "go"}))
	whole := durable(t, log)
	cut := 0
	for i, env := range whole {
		if _, ok := env.Data.(*contract.InvocationStarted); ok {
			cut = i + 1
			break
		}
	}
	k2, log2 := kernelOver(t, whole[:cut], threeTurns, map[string]int{})
	collect(t, k2.Resume(t.Context(), Resume{}))
	second := durable(t, log2)
	var settled int // just after the interrupted completion
	for i, env := range second {
		if c, ok := env.Data.(*contract.InvocationCompleted); ok && c.Exit == contract.ExitInterrupted {
			settled = i + 1
		}
	}
	runs := map[string]int{}
	k3, _ := kernelOver(t, second[:settled], threeTurns, runs)
	out := collect(t, k3.Resume(t.Context(), Resume{}))
	obs := observations(out)
	if len(obs) == 0 || obs[0].Code != "interrupted" || obs[0].OK {
		t.Fatalf("observations after the second resume = %+v, want the first one interrupted", obs)
	}
	if runs["hello"] != 0 {
		t.Errorf("say hello ran again")
	}
	if st := k3.State(); st.Status != state.Completed {
		t.Errorf("status %s, want completed", st.Status)
	}
}

// A session whose log last changed the mode resumes in the mode the kernel
// runs in (the configuration's), and the log says so when they differ, so
// that the next change follows from what the log shows.
func TestResumeRecordsTheModeItRunsIn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		modes []string // what the person chose before the stop
		want  []contract.ModeChanged
	}{
		{name: "plan", modes: []string{"plan"}, want: []contract.ModeChanged{{From: "plan", To: "default", By: "resume"}}},
		{name: "yolo is not inherited", modes: []string{"yolo"}, want: []contract.ModeChanged{{From: "yolo", To: "default", By: "resume"}}},
		{name: "back to default", modes: []string{"plan", "default"}},
		{name: "never changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, log := kernelOver(t, nil, threeTurns, map[string]int{})
			for _, m := range tc.modes {
				if err := k.SetMode(m); err != nil {
					t.Fatal(err)
				}
			}
			collect(t, k.Send(t.Context(), Input{Text: "go"}))
			script := `{"turns":[{"steps":[{"text":"ok"},{"finish":"stop"}]}]}`
			k2, _ := kernelOver(t, durable(t, log), script, map[string]int{})
			out := collect(t, k2.Resume(t.Context(), Resume{Text: "again"}))
			var got []contract.ModeChanged
			for i, env := range out {
				if e, ok := env.Data.(*contract.ModeChanged); ok {
					got = append(got, *e)
					if i != 1 {
						t.Errorf("mode_changed at %d of %v, want just after session.resumed", i, types(out))
					}
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("mode_changed on resume mismatch (-want +got):\n%s", d)
			}
			if st := k2.State(); k2.Mode() != "default" || st.Mode != "" && st.Mode != "default" {
				t.Errorf("after resume Mode() = %q, State().Mode = %q; want default", k2.Mode(), st.Mode)
			}
		})
	}
}
