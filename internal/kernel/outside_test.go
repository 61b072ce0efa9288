package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"

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

// touchOutside proposes a command the sandbox refuses (make install writing
// outside the writable roots), then answers.
const touchOutside = `{"turns":[
	{"steps":[{"tool":{"index":0,"id":"c1","name":"bash","input":{"command":"make install"}}},{"finish":"tool_use"}]},
	{"steps":[{"text":"Done."},{"finish":"stop"}]}]}`

// boxedBash is a bash tool whose sandbox refuses every command, which
// succeeds outside it; runs counts its runs by where they ran.
func boxedBash(runs map[string]int) registry.Tool {
	return registry.Tool{
		Name: "bash", Description: "run a command", Risk: registry.RiskExecute, Concurrency: registry.Exclusive,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`),
		Sandbox:     func(json.RawMessage) *contract.SandboxSpec { return &contract.SandboxSpec{Mode: "workspace-write"} },
		Execute: func(_ context.Context, c *registry.Call) (registry.Result, error) {
			if c.Unsandboxed {
				runs["outside"]++
				io.WriteString(c.Output, "done\n")
				return registry.Result{}, nil
			}
			runs["inside"]++
			why := "the sandbox refused a write to /outside/x: outside the writable roots"
			io.WriteString(c.Output, why+"\n")
			return registry.Result{ExitCode: 1, SandboxDenied: why}, nil
		},
	}
}

// outsideKernel returns a kernel over a log holding prefix, with the
// boxed bash allowed by a rule and a person who says yes.
func outsideKernel(t *testing.T, prefix []contract.Envelope, runs map[string]int) (*Kernel, *eventlog.Log) {
	t.Helper()
	store := memstore.New()
	for _, env := range prefix {
		if _, err := store.Append(env); err != nil {
			t.Fatal(err)
		}
	}
	s, err := scripted.Parse([]byte(touchOutside))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.New(boxedBash(runs))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rules, err := permission.ParseRules([]string{"bash"})
	if err != nil {
		t.Fatal(err)
	}
	policy, err := permission.New(permission.Default, permission.Rules{Allow: rules}, ws)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := tool.New(reg, policy, &tool.Options{Approver: yes{}})
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

// yes is a person who says yes to every question.
type yes struct{}

func (yes) Approve(context.Context, tool.Question) (tool.Reply, error) {
	return tool.Reply{Answer: tool.Yes}, nil
}

// A session cut anywhere in a call that ran again outside the sandbox
// resumes without running the command again, inside or outside, and
// tells the model how the last run that started ended.
func TestResumeAfterACutInARunOutsideTheSandbox(t *testing.T) {
	runs := map[string]int{}
	k, log := outsideKernel(t, nil, runs)
	collect(t, k.Send(t.Context(), Input{Text: "touch it"}))
	whole := durable(t, log)
	if runs["inside"] != 1 || runs["outside"] != 1 {
		t.Fatalf("the uncut session ran %v, want once inside and once outside", runs)
	}
	for cut := 3; cut < len(whole); cut++ { // from run.started on
		prefix := whole[:cut]
		// told is what the model must be told of the call: how the last
		// invocation that started before the cut ended.
		started, told := false, ""
		for _, env := range prefix {
			switch env.Data.(type) {
			case *contract.InvocationStarted:
				started, told = true, "interrupted"
			case *contract.InvocationCompleted:
				told = "output_lost"
			case *contract.ToolObservation:
				told = ""
			}
		}
		t.Run(fmt.Sprintf("after %d %s", cut, prefix[cut-1].Type()), func(t *testing.T) {
			runs := map[string]int{}
			k, log := outsideKernel(t, prefix, runs)
			out := collect(t, k.Resume(t.Context(), Resume{}))
			if started && runs["inside"]+runs["outside"] > 0 {
				t.Errorf("the command started before the cut, and ran again after it: %v", runs)
			}
			if obs := observations(out); told != "" && (len(obs) == 0 || string(obs[0].Code) != told) {
				t.Errorf("the model is told %+v, want %s", obs, told)
			}
			after := statetest.Reduce(durable(t, log))
			if after.Status != state.Completed || len(after.Pending)+len(after.InFlight)+len(after.Ended) != 0 {
				t.Errorf("after resume: %s, pending %v, in flight %v, ended %v", after.Status, after.Pending, after.InFlight, after.Ended)
			}
			results := 0
			for _, m := range after.Messages {
				if m.Result != nil {
					results++
				}
			}
			if results != 1 {
				t.Errorf("%d tool results in the conversation, want 1", results)
			}
		})
	}
}
