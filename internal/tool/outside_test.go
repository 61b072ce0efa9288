package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/state/statetest"
)

// refusedWrite is what the sandbox says of a write outside the writable
// roots (sandbox.Explain).
const refusedWrite = "the sandbox refused a write to /outside/x: outside the writable roots " +
	"(add the directory to writable_roots in [sandbox], or pass --add-dir)"

// boxedSpec is the sandbox the fake bash tool says it runs in.
var boxedSpec = &contract.SandboxSpec{Mode: "workspace-write", Writable: []string{"/w"}}

// boxedShell is a bash tool whose sandbox refuses every command: run in
// it, a command fails with refusedWrite (as `make install` would, writing
// to /outside); run outside it, it succeeds. It records the calls it
// gets. The tests allow it by the rule bash, so the policy asks nothing
// before it runs.
type boxedShell struct {
	calls []registry.Call
}

func (b *boxedShell) tool() registry.Tool {
	t := echo("bash", registry.RiskExecute, registry.Exclusive, b.execute)
	t.InputSchema = json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)
	t.Sandbox = func(json.RawMessage) *contract.SandboxSpec { return boxedSpec }
	return t
}

func (b *boxedShell) execute(_ context.Context, c *registry.Call) (registry.Result, error) {
	b.calls = append(b.calls, *c)
	if c.Unsandboxed {
		io.WriteString(c.Output, "done\nexit code: 0\n")
		return registry.Result{}, nil
	}
	io.WriteString(c.Output, "touch: cannot touch '/outside/x': Permission denied\n"+refusedWrite+"\nexit code: 1\n")
	return registry.Result{ExitCode: 1, SandboxDenied: refusedWrite}, nil
}

// TestSandboxRefusalAsksToRunAgainOutside checks what follows a call the
// sandbox refused something to, for each answer a person may give and in
// a run that cannot ask: the events, the one observation, what was asked
// and how the tool was called.
func TestSandboxRefusalAsksToRunAgainOutside(t *testing.T) {
	cmd := `{"command":"make install"}`
	first := []string{contract.TypeToolValidation, contract.TypeToolPermission, contract.TypeInvocationStarted, contract.TypeInvocationCompleted}
	again := append(append([]string{}, first...), contract.TypeToolPermission, contract.TypeInvocationStarted, contract.TypeInvocationCompleted,
		contract.TypeToolObservation)
	once := append(append([]string{}, first...), contract.TypeToolObservation)
	hint := "This run cannot ask to run the command outside the sandbox; to allow such commands, pass --sandbox off " +
		"(or widen it: writable_roots in the [sandbox] table of your config.toml, or --add-dir)."
	tests := []struct {
		name     string
		approver Approver // nil: headless
		events   []string
		ok       bool
		// text is what the observation ends with.
		text string
	}{
		{"yes", answering(Yes, nil), again, true, "done\nexit code: 0\n" + ranOutside + refusedWrite},
		{"always counts as yes, and saves nothing", answering(Always, nil), again, true, ranOutside + refusedWrite},
		{"no", answering(No, nil), once, false, refusedWrite + "\nexit code: 1\n" + declined},
		{"never counts as no, and saves nothing", answering(Never, nil), once, false, declined},
		{"no, and what to do instead", replying(Reply{Answer: No, Text: " write to ./build instead \n"}), once, false,
			declined + "\nThe user said: write to ./build instead"},
		{"yes says nothing more", replying(Reply{Answer: Yes, Text: "and hurry"}), again, true, ranOutside + refusedWrite},
		{"input ended", answering(No, io.EOF), once, false, "exit code: 1\n" + hint},
		{"headless", nil, once, false, refusedWrite + "\nexit code: 1\n" + hint},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var asked []Question
			opts := &Options{}
			if tc.approver != nil {
				opts.Approver = ReplyFunc(func(ctx context.Context, q Question) (Reply, error) {
					asked = append(asked, q)
					return tc.approver.Approve(ctx, q)
				})
			}
			shell := &boxedShell{}
			f := newFixture(t, permission.Default, []string{"bash"}, opts, shell.tool())
			f.run(t, t.Context(), intent("int_1", "bash", cmd))
			if d := cmp.Diff(tc.events, f.sink.types("int_1")); d != "" {
				t.Errorf("events mismatch (-want +got):\n%s", d)
			}
			o := f.sink.observation(t, "int_1")
			if o.OK != tc.ok || !strings.HasSuffix(o.Text, tc.text) {
				t.Errorf("observation ok %v, text %q; want ok %v, text ending %q", o.OK, o.Text, tc.ok, tc.text)
			}
			wantAsked := []Question(nil)
			if tc.approver != nil {
				wantAsked = []Question{{Kind: AskOutsideSandbox, IntentID: "int_1", Tool: "bash", Subject: "make install",
					Input: json.RawMessage(cmd), Reason: refusedWrite + "\nRun it again outside the sandbox?"}}
			}
			if d := cmp.Diff(wantAsked, asked); d != "" {
				t.Errorf("questions mismatch (-want +got):\n%s", d)
			}
			wantCalls := 1
			if tc.ok {
				wantCalls = 2
			}
			if len(shell.calls) != wantCalls || shell.calls[0].Unsandboxed || (wantCalls == 2 && !shell.calls[1].Unsandboxed) {
				t.Errorf("calls = %+v, want %d, the second (only) unsandboxed", shell.calls, wantCalls)
			}
			if _, err := os.Stat(filepath.Join(f.dir, config.ProjectFile)); err == nil {
				t.Errorf("an answer saved a rule in %s", config.ProjectFile)
			}
		})
	}
}

// replying is an approver that gives r to every question.
func replying(r Reply) Approver {
	return ReplyFunc(func(context.Context, Question) (Reply, error) { return r, nil })
}

// answering is an approver that gives answer and err to every question.
func answering(answer Answer, err error) Approver {
	return ApproverFunc(func(context.Context, Question) (Answer, error) { return answer, err })
}

// TestRunAgainOutsideIsRecorded checks the record of a yes: the
// decision by the user with what the sandbox refused, a new invocation
// whose start says it ran with no sandbox and follows the decision, the
// durable point before it runs, and the chain of causes to the one
// observation; and that the log folds to a state with nothing left
// open and the re-run's output in the conversation.
func TestRunAgainOutsideIsRecorded(t *testing.T) {
	var f *fixture
	unsynced := -1
	shell := &boxedShell{}
	tl := shell.tool()
	tl.Execute = func(ctx context.Context, c *registry.Call) (registry.Result, error) {
		if c.Unsandboxed {
			unsynced = f.sink.unsynced()
		}
		return shell.execute(ctx, c)
	}
	f = newFixture(t, permission.Default, []string{"bash"}, &Options{Approver: answering(Yes, nil)}, tl)
	f.run(t, t.Context(), intent("int_1", "bash", `{"command":"make install"}`))
	if unsynced != 0 {
		t.Errorf("%d events were not synced when the command ran again, want 0", unsynced)
	}
	ev := f.sink.events
	if len(ev) != 8 {
		t.Fatalf("%d events, want 8: %v", len(ev), f.sink.types("int_1"))
	}
	if d := cmp.Diff(&contract.ToolPermission{IntentID: "int_1", Decision: contract.Allow, By: permission.ByUser,
		Reason: "run again outside the sandbox: " + refusedWrite}, ev[4]); d != "" {
		t.Errorf("the second tool.permission mismatch (-want +got):\n%s", d)
	}
	s1, s2 := ev[2].(*contract.InvocationStarted), ev[5].(*contract.InvocationStarted)
	if d := cmp.Diff([]*contract.SandboxSpec{boxedSpec, {Mode: "off"}}, []*contract.SandboxSpec{s1.Sandbox, s2.Sandbox}); d != "" {
		t.Errorf("the sandboxes recorded mismatch (-want +got):\n%s", d)
	}
	c1, c2 := ev[3].(*contract.InvocationCompleted), ev[6].(*contract.InvocationCompleted)
	if s1.InvocationID == s2.InvocationID || c1.InvocationID != s1.InvocationID || c2.InvocationID != s2.InvocationID {
		t.Errorf("invocations: started %s, %s; completed %s, %s", s1.InvocationID, s2.InvocationID, c1.InvocationID, c2.InvocationID)
	}
	if c1.Exit != contract.ExitError || c2.Exit != contract.ExitOK || shell.calls[1].InvocationID != s2.InvocationID {
		t.Errorf("exits %s, %s; the re-run was called as %s", c1.Exit, c2.Exit, shell.calls[1].InvocationID)
	}
	// Each event follows the one before it: completed, decision, start,
	// completed, observation.
	if d := cmp.Diff([]string{"evt_3", "evt_4", "evt_5", "evt_6", "evt_7"}, f.sink.causes[3:]); d != "" {
		t.Errorf("causes mismatch (-want +got):\n%s", d)
	}

	st := statetest.Reduce(turnLog(t, contract.ToolIntent{ID: "int_1", ToolName: "bash", Input: json.RawMessage(`{"command":"make install"}`)}, ev))
	if len(st.Pending)+len(st.InFlight)+len(st.Ended) != 0 || st.Status != state.Running {
		t.Errorf("after the observation: status %s, pending %v, in flight %v, ended %v", st.Status, st.Pending, st.InFlight, st.Ended)
	}
	var results []string
	for _, m := range st.Messages {
		if m.Result != nil {
			results = append(results, m.Result.Text)
		}
	}
	if len(results) != 1 || !strings.HasPrefix(results[0], "done\n") {
		t.Errorf("tool results in the conversation = %q, want the re-run's only", results)
	}
	// Stopped before the observation, the log leaves the re-run as the
	// intent's end, as a resume reports it (output_lost, exit ok).
	cut := statetest.Reduce(turnLog(t, contract.ToolIntent{ID: "int_1", ToolName: "bash"}, ev[:7]))
	if d := cmp.Diff([]state.Invocation{{IntentID: "int_1", InvocationID: s2.InvocationID, ToolName: "bash", Exit: contract.ExitOK}}, cut.Ended); d != "" {
		t.Errorf("Ended before the observation mismatch (-want +got):\n%s", d)
	}
}

// turnLog is the log of a session whose model proposed in and whose
// tool runtime emitted events: the envelopes, numbered from 1.
func turnLog(t *testing.T, in contract.ToolIntent, events []contract.Event) []contract.Envelope {
	t.Helper()
	all := append([]contract.Event{
		&contract.SessionStarted{Cwd: "/w"}, &contract.UserMessage{Text: "touch it"}, &contract.RunStarted{},
		&contract.ModelRequested{}, &contract.IntentProposed{ToolIntent: in}, &contract.ModelFinished{Reason: "tool_use"},
	}, events...)
	envs := make([]contract.Envelope, len(all))
	for i, e := range all {
		envs[i] = contract.Envelope{Seq: uint64(i + 1), ID: fmt.Sprintf("evt_%d", i+1), Time: time.Unix(int64(i), 0),
			Session: "ses_1", Run: "run_1", Turn: 1, Data: e}
	}
	return envs
}

// TestCancelledWhileAskingToRunOutside checks that a run cancelled while
// the person is asked keeps the first run's observation as it is.
func TestCancelledWhileAskingToRunOutside(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	shell := &boxedShell{}
	f := newFixture(t, permission.Default, []string{"bash"}, &Options{Approver: ApproverFunc(func(ctx context.Context, q Question) (Answer, error) {
		cancel()
		return No, ctx.Err()
	})}, shell.tool())
	f.run(t, ctx, intent("int_1", "bash", `{"command":"make install"}`))
	o := f.sink.observation(t, "int_1")
	if o.OK || !strings.HasSuffix(o.Text, refusedWrite+"\nexit code: 1\n") || len(shell.calls) != 1 {
		t.Errorf("observation %+v after %d calls", o, len(shell.calls))
	}
}

// TestNoRunOutsideForToolsWithoutASandbox checks that a refusal reported
// by a tool with no Sandbox hook, which could not run outside, asks
// nothing and adds nothing.
func TestNoRunOutsideForToolsWithoutASandbox(t *testing.T) {
	shell := &boxedShell{}
	tl := shell.tool()
	tl.Sandbox = nil
	asked := false
	f := newFixture(t, permission.Default, []string{"bash"}, &Options{Approver: ApproverFunc(func(context.Context, Question) (Answer, error) {
		asked = true
		return Yes, nil
	})}, tl)
	f.run(t, t.Context(), intent("int_1", "bash", `{"command":"make install"}`))
	if o := f.sink.observation(t, "int_1"); asked || len(shell.calls) != 1 || !strings.HasSuffix(o.Text, "exit code: 1\n") {
		t.Errorf("asked %v, %d calls, observation %q", asked, len(shell.calls), o.Text)
	}
}

// TestHeadlessHintNamesWhatWouldAllowIt checks the line of a run that
// cannot ask, for each kind of refusal sandbox.Explain reports.
func TestHeadlessHintNamesWhatWouldAllowIt(t *testing.T) {
	const (
		off     = "This run cannot ask to run the command outside the sandbox; to allow such commands, pass --sandbox off"
		network = "the sandbox refused a network connection: the network is off (set network = true in [sandbox] or pass --network)"
	)
	tests := []struct{ name, denied, want string }{
		{"a write outside", refusedWrite, off + " (or widen it: writable_roots in the [sandbox] table of your config.toml, or --add-dir)."},
		{"the network", network, off + " (or widen it: --network, or network = true in the [sandbox] table of your config.toml)."},
		{"the host's loopback", "the sandbox refused a network connection to a server outside it: the network is off " +
			"(set network = true in [sandbox] or pass --network); the sandbox's loopback (127.0.0.1) is its own",
			off + " (or widen it: --network, or network = true in the [sandbox] table of your config.toml)."},
		{"both, in their order", network + "\n" + refusedWrite + "\nthe sandbox refused 3 more like these",
			off + " (or widen it: --network, or network = true in the [sandbox] table of your config.toml; " +
				"writable_roots in the [sandbox] table of your config.toml, or --add-dir)."},
		{"a read-only sandbox", `the sandbox refused a write to notes.txt: the sandbox is read-only; only the temporary directory ($TMPDIR) is writable (sandbox = "workspace-write" allows writes in the workspace)`,
			off + " (or widen it: --sandbox workspace-write)."},
		{"a hidden file", "the sandbox refused a read of ~/.ssh/id_ed25519: credential stores and rein's own files are hidden (deny_read in [sandbox])",
			off + " (or widen it: deny_read in the [sandbox] table of your config.toml)."},
		{"a protected path", "the sandbox refused a write to .git/hooks/pre-commit: .git/hooks is read-only inside the sandbox", off + "."},
		{"sudo", "the sandbox refused sudo: no program can gain privileges inside the sandbox", off + "."},
		{"proc", "the sandbox refused access to /proc/self/uid_map: inside the sandbox the kernel's files (/proc, /sys, /dev) are not writable, nor other processes' readable", off + "."},
		{"something else", "the sandbox refused something new",
			off + " (or widen it: writable_roots or network = true in the [sandbox] table of your config.toml, --add-dir, --network)."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := headlessHint(tc.denied); got != tc.want {
				t.Errorf("headlessHint(%q)\n got %q\nwant %q", tc.denied, got, tc.want)
			}
		})
	}
}
