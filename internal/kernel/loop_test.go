package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
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

// loopKernel returns a kernel with a tool runtime over tools, in mode, that
// plays script.
func loopKernel(t *testing.T, script string, mode permission.Mode, maxTurns int, tools ...registry.Tool) (*Kernel, *eventlog.Log) {
	t.Helper()
	s, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.New(tools...)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	policy, err := permission.New(mode, permission.Rules{}, ws)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := tool.New(reg, policy, nil)
	if err != nil {
		t.Fatal(err)
	}
	log := eventlog.New(memstore.New(), nil)
	t.Cleanup(func() { log.Close() })
	k, err := New(scripted.New(s, nil), log, &Options{
		ProviderName: "scripted", Registry: reg, Tools: rt, MaxTurns: maxTurns,
		Capabilities: provider.Capabilities{Streaming: true, Tools: true}, Retry: RetryPolicy{Attempts: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	return k, log
}

// say is a read-only tool that writes its "text" input.
func say(runs *int) registry.Tool {
	return registry.Tool{
		Name: "say", Description: "say text", Risk: registry.RiskRead, ReadOnly: true, Concurrency: registry.Safe,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Execute: func(_ context.Context, c *registry.Call) (registry.Result, error) {
			*runs++
			var in struct{ Text string }
			json.Unmarshal(c.Input, &in)
			io.WriteString(c.Output, in.Text)
			return registry.Result{}, nil
		},
	}
}

// call is a scripted turn proposing one call of name with input.
func call(name, input string) string {
	return fmt.Sprintf(`{"steps":[{"tool":{"index":0,"id":"c","name":%q,"input":%s}},{"finish":"tool_use"}]}`, name, input)
}

func observations(envs []contract.Envelope) []contract.Observation {
	var out []contract.Observation
	for _, e := range envs {
		if o, ok := e.Data.(*contract.ToolObservation); ok {
			out = append(out, o.Observation)
		}
	}
	return out
}

func finished(t *testing.T, envs []contract.Envelope) *contract.RunFinished {
	t.Helper()
	f, ok := envs[len(envs)-1].Data.(*contract.RunFinished)
	if !ok {
		t.Fatalf("last event is %s, want run.finished", envs[len(envs)-1].Type())
	}
	return f
}

func TestLoopContinuesAfterAToolCall(t *testing.T) {
	runs := 0
	script := `{"turns":[` + call("say", `{"text":"hello"}`) + `,
		{"expect":[{"tool":"say","ok":true,"contains":["hello"]}],"steps":[{"text":"It said hello."},{"finish":"stop"}]}]}`
	k, log := loopKernel(t, script, permission.Default, 0, say(&runs))
	out := collect(t, k.Send(t.Context(), Input{Text: "say hello"}))
	if f := finished(t, out); f.Outcome != contract.OutcomeCompleted {
		t.Fatalf("run finished %+v, want completed", f)
	}
	if runs != 1 {
		t.Errorf("the tool ran %d times, want 1", runs)
	}
	st := k.State()
	if st.Status != state.Completed || len(st.Pending) != 0 || st.Turn != 2 {
		t.Errorf("state: %s, %d pending, turn %d; want completed, none, 2", st.Status, len(st.Pending), st.Turn)
	}
	// The live state is the fold of the log.
	if folded := statetest.Reduce(durable(t, log)); folded.Status != st.Status || len(folded.Messages) != len(st.Messages) {
		t.Errorf("fold differs from the live state")
	}
}

func TestUnknownToolIsObservedAndTheModelGoesOn(t *testing.T) {
	runs := 0
	script := `{"turns":[` + call("run_tests", `{}`) + `,
		{"expect":[{"ok":false,"contains":["Unknown tool","say"]}],"steps":[{"text":"No such tool."},{"finish":"stop"}]}]}`
	k, _ := loopKernel(t, script, permission.Default, 0, say(&runs))
	out := collect(t, k.Send(t.Context(), Input{Text: "run the tests"}))
	if f := finished(t, out); f.Outcome != contract.OutcomeCompleted {
		t.Fatalf("run finished %+v, want completed (the model saw the observation)", f)
	}
	if obs := observations(out); len(obs) != 1 || obs[0].Code != contract.CodeUnknownTool {
		t.Errorf("observations = %+v", obs)
	}
}

func TestDeniedIntentIsBlockedAndRunsNothing(t *testing.T) {
	ran := false
	shell := registry.Tool{
		Name: "bash", Description: "run", Risk: registry.RiskExecute, Concurrency: registry.Exclusive,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`),
		Execute: func(context.Context, *registry.Call) (registry.Result, error) {
			ran = true
			return registry.Result{}, nil
		},
	}
	script := `{"turns":[` + call("bash", `{"command":"rm -rf build"}`) + `,
		{"expect":[{"ok":false,"contains":["Blocked","--allow"]}],"steps":[{"text":"I was not allowed."},{"finish":"stop"}]}]}`
	k, _ := loopKernel(t, script, permission.Default, 0, shell)
	out := collect(t, k.Send(t.Context(), Input{Text: "clean"}))
	if f := finished(t, out); f.Outcome != contract.OutcomeCompleted {
		t.Fatalf("run finished %+v, want completed: a denial is not a failure", f)
	}
	if ran {
		t.Error("a denied intent ran")
	}
}

func TestMaxTurnsEndsTheRun(t *testing.T) {
	runs := 0
	turn := call("say", `{"text":"again"}`)
	script := `{"turns":[` + strings.Repeat(turn+",", 4) + turn + `]}`
	k, _ := loopKernel(t, script, permission.Default, 3, say(&runs))
	out := collect(t, k.Send(t.Context(), Input{Text: "loop"}))
	f := finished(t, out)
	if f.Outcome != contract.OutcomeMaxTurns || !strings.Contains(f.Reason, "3 model turns") || !strings.Contains(f.Reason, "say 3") {
		t.Errorf("run finished %+v, want max_turns with a summary", f)
	}
	if runs != 3 {
		t.Errorf("the tool ran %d times, want 3", runs)
	}
	if st := k.State(); len(st.Pending) != 0 {
		t.Errorf("%d intents left pending", len(st.Pending))
	}
}

func TestCancelStopsTheRunningToolAndLeavesNothingPending(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{})
	block := registry.Tool{
		Name: "wait", Description: "wait", Risk: registry.RiskRead, ReadOnly: true, Concurrency: registry.Exclusive,
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Execute: func(ctx context.Context, c *registry.Call) (registry.Result, error) {
			close(started)
			<-ctx.Done()
			return registry.Result{}, ctx.Err()
		},
	}
	script := `{"turns":[{"steps":[{"tool":{"index":0,"id":"a","name":"wait","input":{}}},{"tool":{"index":1,"id":"b","name":"wait","input":{}}},{"finish":"tool_use"}]},{"steps":[{"finish":"stop"}]}]}`
	k, _ := loopKernel(t, script, permission.Default, 0, block)
	go func() { <-started; cancel() }()
	out := collect(t, k.Send(ctx, Input{Text: "wait"}))
	if f := finished(t, out); f.Outcome != contract.OutcomeCancelled {
		t.Errorf("run finished %+v, want cancelled", f)
	}
	obs := observations(out)
	if len(obs) != 2 || obs[0].Code != contract.CodeCancelled || obs[1].Code != contract.CodeCancelled {
		t.Errorf("observations = %+v, want both cancelled", obs)
	}
	if st := k.State(); len(st.Pending) != 0 || st.Status != state.Failed {
		t.Errorf("state %s with %d pending; want failed (cancelled) with none: resumable", st.Status, len(st.Pending))
	}
}

func TestPlanModeOffersOnlyReads(t *testing.T) {
	var reqs []*contract.ModelRequest
	runs := 0
	writer := say(&runs)
	writer.Name, writer.Risk, writer.ReadOnly, writer.Concurrency = "write", registry.RiskWrite, false, registry.Exclusive
	reg, _ := registry.New(say(&runs), writer)
	ws, _ := workspace.New(t.TempDir())
	policy, _ := permission.New(permission.Plan, permission.Rules{}, ws)
	rt, err := tool.New(reg, policy, nil)
	if err != nil {
		t.Fatal(err)
	}
	log := eventlog.New(memstore.New(), nil)
	defer log.Close()
	k, err := New(stream(&reqs, nil, &contract.ModelFinished{Reason: contract.FinishStop}), log, &Options{
		Registry: reg, Tools: rt, Capabilities: provider.Capabilities{Tools: true}})
	if err != nil {
		t.Fatal(err)
	}
	collect(t, k.Send(t.Context(), Input{Text: "plan"}))
	if len(reqs) != 1 || len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Name != "say" {
		t.Errorf("tools offered in plan mode: %+v, want only say", reqs[0].Tools)
	}
}

func TestSystemPrompt(t *testing.T) {
	p := SystemPrompt(Environment{Workspace: "/src/stats", OS: "linux/amd64", Date: "2026-11-30", Git: "branch main, clean",
		Instructions: []InstructionFile{{Path: "AGENTS.md", Text: "Run make check before finishing."}}})
	for _, want := range []string{"/src/stats", "linux/amd64", "2026-11-30", "branch main, clean", "Run make check", "AGENTS.md"} {
		if !strings.Contains(p, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	if p := SystemPrompt(Environment{}); strings.Contains(p, "# Instructions") || !strings.Contains(p, "not a git repository") {
		t.Errorf("prompt without instructions or git:\n%s", p)
	}
}

// A caller that stops reading while a tool runs stops the tool, and the
// run is still completed in the log, with nothing left pending.
func TestStoppingReadingStopsTheTool(t *testing.T) {
	stopped := make(chan struct{})
	block := registry.Tool{
		Name: "wait", Description: "wait", Risk: registry.RiskRead, ReadOnly: true, Concurrency: registry.Exclusive,
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Execute: func(ctx context.Context, c *registry.Call) (registry.Result, error) {
			<-ctx.Done()
			close(stopped)
			return registry.Result{}, ctx.Err()
		},
	}
	k, log := loopKernel(t, `{"turns":[`+call("wait", `{}`)+`,{"steps":[{"finish":"stop"}]}]}`, permission.Default, 0, block)
	for env, err := range k.Send(t.Context(), Input{Text: "wait"}) {
		if err != nil {
			t.Fatal(err)
		}
		if env.Type() == contract.TypeInvocationStarted {
			break // the caller goes away while the tool runs
		}
	}
	select {
	case <-stopped:
	default:
		t.Fatal("the tool was not stopped")
	}
	envs := durable(t, log)
	if f, ok := envs[len(envs)-1].Data.(*contract.RunFinished); !ok || f.Outcome != contract.OutcomeCancelled {
		t.Errorf("last event %s, want run.finished cancelled", envs[len(envs)-1].Type())
	}
	if st := k.State(); len(st.Pending) != 0 {
		t.Errorf("%d intents pending", len(st.Pending))
	}
}
