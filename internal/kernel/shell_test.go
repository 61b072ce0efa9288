package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/eventlog/memstore"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state/statetest"
	"github.com/rein-agent/rein/internal/tool"
	"github.com/rein-agent/rein/internal/tool/builtin"
	"github.com/rein-agent/rein/internal/workspace"
)

// fakeBash is a bash tool in a sandbox that prints what it was asked to
// run and fails with exit code 1; commands gets each command.
func fakeBash(commands *[]string) registry.Tool {
	return registry.Tool{
		Name: "bash", Description: "run a command", Risk: registry.RiskExecute, Concurrency: registry.Exclusive,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`),
		Sandbox:     func(json.RawMessage) *contract.SandboxSpec { return &contract.SandboxSpec{Mode: "workspace-write"} },
		Execute: func(_ context.Context, c *registry.Call) (registry.Result, error) {
			var in struct{ Command string }
			json.Unmarshal(c.Input, &in)
			*commands = append(*commands, in.Command)
			io.WriteString(c.Output, "--- FAIL: TestSum\nexit code: 1\n")
			return registry.Result{ExitCode: 1}, nil
		},
	}
}

// never is a person who must not be asked.
type never struct{ t *testing.T }

func (n never) Approve(context.Context, tool.Question) (tool.Reply, error) {
	n.t.Error("the person was asked about their own command")
	return tool.Reply{}, nil
}

// shellKernel returns a kernel whose tool runtime runs tools in mode,
// with nobody to ask: a question fails the test.
func shellKernel(t *testing.T, p provider.Provider, mode permission.Mode, opts *Options, tools ...registry.Tool) (*Kernel, *eventlog.Log) {
	t.Helper()
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
	rt, err := tool.New(reg, policy, &tool.Options{Approver: never{t}})
	if err != nil {
		t.Fatal(err)
	}
	log := eventlog.New(memstore.New(), nil)
	t.Cleanup(func() { log.Close() })
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.ProviderName, o.Model, o.Registry, o.Tools, o.Retry = "fake", "m", reg, rt, RetryPolicy{Attempts: 1}
	o.Capabilities = provider.Capabilities{Streaming: true, Tools: true}
	k, err := New(p, log, &o)
	if err != nil {
		t.Fatal(err)
	}
	return k, log
}

// A person's !command runs without a question, in plan mode too, is
// recorded as their own call, asks no model, and reaches the next request
// as their message, after the conversation as it was.
func TestShellRunsThePersonsCommand(t *testing.T) {
	var reqs []*contract.ModelRequest
	var commands []string
	p := stream(&reqs, nil, &contract.TextDelta{Text: "Hello."}, &contract.ModelFinished{Reason: contract.FinishStop})
	k, log := shellKernel(t, p, permission.Plan, nil, fakeBash(&commands))

	collect(t, k.Send(t.Context(), Input{Text: "hi"}))
	envs := collect(t, k.Shell(t.Context(), "go test ./..."))
	want := []string{contract.TypeIntentProposed, contract.TypeToolValidation, contract.TypeToolPermission,
		contract.TypeInvocationStarted, contract.TypeInvocationCompleted, contract.TypeToolObservation}
	if d := cmp.Diff(want, types(envs)); d != "" {
		t.Fatalf("Shell events mismatch (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"go test ./..."}, commands); d != "" {
		t.Errorf("commands run mismatch (-want +got):\n%s", d)
	}
	in := envs[0].Data.(*contract.IntentProposed)
	if in.Origin != contract.OriginUser || in.ToolName != "bash" || string(in.Input) != `{"command":"go test ./..."}` {
		t.Errorf("intent = %+v, want the user's bash call", in.ToolIntent)
	}
	if pe := envs[2].Data.(*contract.ToolPermission); pe.Decision != contract.Allow || pe.By != permission.ByUser {
		t.Errorf("permission = %+v, want allow by user", pe)
	}
	if sb := envs[3].Data.(*contract.InvocationStarted).Sandbox; sb == nil || sb.Mode != "workspace-write" {
		t.Errorf("the invocation records the sandbox %+v, want workspace-write", sb)
	}
	if len(reqs) != 1 {
		t.Errorf("%d model calls after Shell, want the one of Send", len(reqs))
	}
	if st := k.State(); len(st.Pending) != 0 || st.Status != "completed" {
		t.Errorf("after Shell: status %s, %d pending", st.Status, len(st.Pending))
	}

	folded := statetest.Reduce(durable(t, log))
	if d := cmp.Diff(k.State().Messages, folded.Messages); d != "" {
		t.Errorf("the fold of the log differs from the live state (-live +fold):\n%s", d)
	}

	collect(t, k.Send(t.Context(), Input{Text: "fix it"}))
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	first, next := reqs[0].Messages, reqs[1].Messages
	if d := cmp.Diff(first, next[:len(first)]); d != "" {
		t.Errorf("the next request changed the earlier messages (-before +after):\n%s", d)
	}
	wantTail := []contract.ModelMessage{
		{Role: contract.RoleAssistant, Text: "Hello."},
		{Role: contract.RoleUser, Text: "I ran `go test ./...` myself:\n--- FAIL: TestSum\nexit code: 1"},
		{Role: contract.RoleUser, Text: "fix it"},
	}
	if d := cmp.Diff(wantTail, next[len(first):]); d != "" {
		t.Errorf("the next request's new messages mismatch (-want +got):\n%s", d)
	}
	for _, env := range durable(t, log) {
		if env.Type() == contract.TypeToolOutputDelta {
			t.Errorf("a delta is in the log: %+v", env)
		}
	}
}

// Shell is refused while a run is in progress, for an empty command, and
// without a tool runtime; nothing is appended.
func TestShellRefusals(t *testing.T) {
	var commands []string
	k, log := shellKernel(t, stream(nil, nil, &contract.ModelFinished{Reason: contract.FinishStop}), permission.Default, nil, fakeBash(&commands))
	busy := false
	for _, err := range k.Shell(t.Context(), "true") {
		if err != nil {
			t.Fatal(err)
		}
		if !busy {
			busy = true
			for _, err := range k.Shell(t.Context(), "ls") {
				if !errors.Is(err, ErrBusy) {
					t.Errorf("Shell during Shell yielded %v, want ErrBusy", err)
				}
			}
		}
	}
	before := len(durable(t, log))
	for _, err := range k.Shell(t.Context(), "  ") {
		if err == nil || !strings.Contains(err.Error(), "empty") {
			t.Errorf("Shell of an empty command yielded %v, want an error", err)
		}
	}
	bare, _ := newKernel(t, stream(nil, nil))
	for _, err := range bare.Shell(t.Context(), "ls") {
		if err == nil || !strings.Contains(err.Error(), "no tool runtime") {
			t.Errorf("Shell without a tool runtime yielded %v, want an error", err)
		}
	}
	if after := len(durable(t, log)); after != before || len(commands) != 1 {
		t.Errorf("the refusals appended %d events and ran %d commands", after-before, len(commands)-1)
	}
}

// The output of a command that prints for about a second reaches the
// caller as several deltas, in order, between the invocation's start and
// end, with a secret cut out (split across two writes too), and none is
// stored.
func TestShellStreamsTheOutput(t *testing.T) {
	const secret = "sk-live-SECRET12345"
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bash := builtin.Bash(ws, &builtin.BashOptions{Environ: []string{"PATH=/usr/bin:/bin", "S1=sk-live-", "S2=SECRET12345"}})
	k, log := shellKernel(t, stream(nil, nil), permission.Default, &Options{Secrets: []string{secret}}, bash)
	cmd := `for i in 1 2 3 4; do echo "line $i"; sleep 0.25; done; printf '%s' "$S1"; sleep 0.2; echo "$S2 end"`
	var text strings.Builder
	deltas, started, ended := 0, -1, -1
	for i, env := range collect(t, k.Shell(t.Context(), cmd)) {
		switch e := env.Data.(type) {
		case *contract.InvocationStarted:
			started = i
		case *contract.InvocationCompleted:
			ended = i
		case *contract.ToolOutputDelta:
			deltas++
			text.WriteString(e.Text)
			if started < 0 || ended >= 0 {
				t.Errorf("delta %d outside the invocation", i)
			}
			if strings.Contains(e.Text, secret) || strings.Contains(e.Text, "sk-live-") {
				t.Errorf("delta %q shows the secret", e.Text)
			}
		}
	}
	if want := "line 1\nline 2\nline 3\nline 4\n[REDACTED] end\nexit code: 0\n"; text.String() != want {
		t.Errorf("the deltas say %q, want %q", text.String(), want)
	}
	if deltas < 2 {
		t.Errorf("%d deltas, want several for a second of output", deltas)
	}
	for _, env := range durable(t, log) {
		if env.Type() == contract.TypeToolOutputDelta {
			t.Errorf("a delta is in the log: %+v", env)
		}
	}
}

// A session may begin with a person's command.
func TestShellStartsTheSession(t *testing.T) {
	var commands []string
	k, _ := shellKernel(t, stream(nil, nil), permission.Default, nil, fakeBash(&commands))
	envs := collect(t, k.Shell(t.Context(), "ls"))
	if len(envs) == 0 || envs[0].Type() != contract.TypeSessionStarted || k.State().Session == "" {
		t.Fatalf("Shell's first event is %v, want session.started", types(envs))
	}
	if len(commands) != 1 {
		t.Errorf("%d commands ran, want 1", len(commands))
	}
}
