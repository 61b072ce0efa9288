package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/workspace"
)

// sink records what the runtime emits, as the kernel would append it.
type sink struct {
	mu     sync.Mutex
	events []contract.Event
	causes []string // the cause of each event, as given
	syncs  int
	synced int // how many events the last Sync covered
	fail   error
	// failOn, when set, makes the sink fail (errBroken) from the first
	// event it matches on.
	failOn func(contract.Event) bool
}

var errBroken = errors.New("the log is broken")

func (s *sink) Emit(e contract.Event, cause string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failOn != nil && s.failOn(e) {
		s.fail = errBroken
	}
	if s.fail != nil {
		return "", s.fail
	}
	s.events = append(s.events, e)
	s.causes = append(s.causes, cause)
	return fmt.Sprintf("evt_%d", len(s.events)), nil
}

func (s *sink) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.syncs++
	s.synced = len(s.events)
	return nil
}

// unsynced returns how many emitted events the last Sync did not cover.
func (s *sink) unsynced() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.events) - s.synced
}

// types returns the event types emitted for intent id, in order.
func (s *sink) types(id string) []string {
	var out []string
	invocations := map[string]bool{}
	for _, e := range s.events {
		switch e := e.(type) {
		case *contract.ToolValidation:
			if e.IntentID == id {
				out = append(out, e.EventType())
			}
		case *contract.ToolPermission:
			if e.IntentID == id {
				out = append(out, e.EventType())
			}
		case *contract.InvocationStarted:
			if e.IntentID == id {
				invocations[e.InvocationID] = true
				out = append(out, e.EventType())
			}
		case *contract.InvocationCompleted:
			if invocations[e.InvocationID] {
				out = append(out, e.EventType())
			}
		case *contract.ToolObservation:
			if e.IntentID == id {
				out = append(out, e.EventType())
			}
		}
	}
	return out
}

func (s *sink) observation(t *testing.T, id string) contract.Observation {
	t.Helper()
	for _, e := range s.events {
		if o, ok := e.(*contract.ToolObservation); ok && o.IntentID == id {
			return o.Observation
		}
	}
	t.Fatalf("no observation for %s in %d events", id, len(s.events))
	return contract.Observation{}
}

func (s *sink) permission(id string) *contract.ToolPermission {
	for _, e := range s.events {
		if p, ok := e.(*contract.ToolPermission); ok && p.IntentID == id {
			return p
		}
	}
	return nil
}

const anyObject = `{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer"}},"additionalProperties":false}`

func echo(name string, risk registry.Risk, conc registry.Concurrency, exec registry.Executor) registry.Tool {
	if exec == nil {
		exec = func(_ context.Context, c *registry.Call) (registry.Result, error) {
			var in struct{ Text string }
			if err := json.Unmarshal(c.Input, &in); err != nil {
				return registry.Result{}, err
			}
			_, err := io.WriteString(c.Output, in.Text)
			return registry.Result{}, err
		}
	}
	return registry.Tool{
		Name: name, Description: name, InputSchema: json.RawMessage(anyObject),
		Risk: risk, ReadOnly: risk == registry.RiskRead, Concurrency: conc, Execute: exec,
	}
}

type fixture struct {
	rt   *Runtime
	dir  string
	sink *sink
}

func newFixture(t *testing.T, mode permission.Mode, rules []string, opts *Options, tools ...registry.Tool) *fixture {
	t.Helper()
	dir := t.TempDir()
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := permission.ParseRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	policy, err := permission.New(mode, permission.Rules{Allow: parsed}, ws)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.New(tools...)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := New(reg, policy, opts)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{rt: rt, dir: dir, sink: &sink{}}
}

func intent(id, tool, input string) Proposal {
	return Proposal{Intent: contract.ToolIntent{ID: id, ToolName: tool, Input: json.RawMessage(input)}, EventID: "evt_" + id}
}

func (f *fixture) run(t *testing.T, ctx context.Context, ps ...Proposal) {
	t.Helper()
	if err := f.rt.Run(ctx, &state.State{}, ps, f.sink); err != nil {
		t.Fatalf("Run() = %v", err)
	}
}

func TestEveryStageIsAnEventInOrder(t *testing.T) {
	var f *fixture
	unsynced := -1
	say := echo("say", registry.RiskRead, registry.Safe, func(_ context.Context, c *registry.Call) (registry.Result, error) {
		// The durable point: everything emitted so far is synced.
		unsynced = f.sink.unsynced()
		io.WriteString(c.Output, "hello")
		return registry.Result{}, nil
	})
	f = newFixture(t, permission.Default, nil, nil, say)
	f.run(t, t.Context(), intent("int_1", "say", `{"text":"hello"}`))
	if unsynced != 0 {
		t.Errorf("%d events were not synced when the tool ran, want 0", unsynced)
	}
	want := []string{contract.TypeToolValidation, contract.TypeToolPermission, contract.TypeInvocationStarted,
		contract.TypeInvocationCompleted, contract.TypeToolObservation}
	if d := cmp.Diff(want, f.sink.types("int_1")); d != "" {
		t.Errorf("events mismatch (-want +got):\n%s", d)
	}
	o := f.sink.observation(t, "int_1")
	if !o.OK || o.Text != "hello" || !o.Untrusted || o.Phase != contract.PhaseExecution {
		t.Errorf("observation = %+v", o)
	}
}

func TestRefusedIntentsAreObservationsAndRunNothing(t *testing.T) {
	ran := false
	run := func(context.Context, *registry.Call) (registry.Result, error) {
		ran = true
		return registry.Result{}, nil
	}
	hidden := echo("secret", registry.RiskRead, registry.Safe, run)
	hidden.Visible = func(*state.State) bool { return false }
	failing := echo("checked", registry.RiskRead, registry.Safe, run)
	failing.Check = func(json.RawMessage, state.Ledger) error {
		return &registry.CheckError{Code: contract.CodeStaleFile, Message: "main.go changed since it was read"}
	}
	f := newFixture(t, permission.Default, nil, nil,
		echo("say", registry.RiskRead, registry.Safe, run), hidden, failing,
		echo("shell", registry.RiskExecute, registry.Exclusive, run))
	for _, c := range []struct {
		name, tool, input string
		code              contract.Code
		phase, text       string
	}{
		{"unknown tool", "nope", `{}`, contract.CodeUnknownTool, contract.PhaseValidation, "Unknown tool"},
		{"not visible", "secret", `{}`, contract.CodeNotVisible, contract.PhaseValidation, "not available"},
		{"schema", "say", `{"text":3}`, contract.CodeSchemaInvalid, contract.PhaseValidation, "does not match"},
		{"extra property", "say", `{"txt":"x"}`, contract.CodeSchemaInvalid, contract.PhaseValidation, "txt"},
		{"not an object", "say", `[1]`, contract.CodeSchemaInvalid, contract.PhaseValidation, "object"},
		{"precondition", "checked", `{}`, contract.CodeStaleFile, contract.PhaseValidation, "changed since it was read"},
		{"headless ask", "shell", `{"text":"x"}`, contract.CodeDenied, contract.PhasePermission, "Blocked"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f.sink.events = nil
			f.run(t, t.Context(), intent("int_x", c.tool, c.input))
			o := f.sink.observation(t, "int_x")
			if o.OK || o.Code != c.code || o.Phase != c.phase || !strings.Contains(o.Text, c.text) {
				t.Errorf("observation = %+v, want code %s phase %s text containing %q", o, c.code, c.phase, c.text)
			}
			if ran {
				t.Fatal("a refused intent ran")
			}
		})
	}
	if p := f.sink.permission("int_x"); p == nil || p.Decision != contract.Deny || p.By != permission.ByHeadless {
		t.Errorf("headless permission = %+v, want deny by headless", p)
	}
}

func TestPlanModeHidesWriters(t *testing.T) {
	f := newFixture(t, permission.Plan, nil, nil,
		echo("say", registry.RiskRead, registry.Safe, nil), echo("write", registry.RiskWrite, registry.Exclusive, nil))
	w, _ := f.rt.reg.Lookup("write")
	r, _ := f.rt.reg.Lookup("say")
	if !f.rt.Hidden(w) || f.rt.Hidden(r) {
		t.Errorf("Hidden(write) = %v, Hidden(say) = %v; want true, false", f.rt.Hidden(w), f.rt.Hidden(r))
	}
	f.run(t, t.Context(), intent("int_1", "write", `{"text":"x"}`))
	if o := f.sink.observation(t, "int_1"); o.Code != contract.CodeNotVisible {
		t.Errorf("observation = %+v, want tool_not_visible", o)
	}
}

// Concurrency-safe intents of a turn overlap: each waits for the other at
// a barrier, which only a concurrent run can pass. Exclusive ones run
// alone: the counter of running tools never exceeds one while they run.
func TestSafeIntentsOverlapExclusiveOnesRunAlone(t *testing.T) {
	var arrived sync.WaitGroup
	arrived.Add(2)
	barrier := func(ctx context.Context, c *registry.Call) (registry.Result, error) {
		arrived.Done()
		wait := make(chan struct{})
		go func() { arrived.Wait(); close(wait) }()
		select {
		case <-wait:
			io.WriteString(c.Output, "met")
			return registry.Result{}, nil
		case <-ctx.Done():
			return registry.Result{}, errors.New("the other read never started: reads did not overlap")
		}
	}
	var mu sync.Mutex
	running, most := 0, 0
	var order []string
	exclusive := func(_ context.Context, c *registry.Call) (registry.Result, error) {
		mu.Lock()
		running++
		most = max(most, running)
		order = append(order, c.IntentID)
		mu.Unlock()
		time.Sleep(time.Millisecond)
		mu.Lock()
		running--
		mu.Unlock()
		return registry.Result{}, nil
	}
	read := echo("read", registry.RiskRead, registry.Safe, barrier)
	read.Timeout = func(json.RawMessage) time.Duration { return 10 * time.Second } // only catches a hang
	f := newFixture(t, permission.Yolo, nil, nil, read, echo("edit", registry.RiskWrite, registry.Exclusive, exclusive))
	f.run(t, t.Context(),
		intent("int_1", "read", `{}`), intent("int_2", "read", `{}`),
		intent("int_3", "edit", `{}`), intent("int_4", "edit", `{}`), intent("int_5", "edit", `{}`))
	for _, id := range []string{"int_1", "int_2"} {
		if o := f.sink.observation(t, id); !o.OK {
			t.Errorf("%s: %+v", id, o)
		}
	}
	if most != 1 {
		t.Errorf("%d exclusive tools ran at once, want 1", most)
	}
	if d := cmp.Diff([]string{"int_3", "int_4", "int_5"}, order); d != "" {
		t.Errorf("exclusive order mismatch (-want +got):\n%s", d)
	}
}

func TestTimeoutAndCancel(t *testing.T) {
	block := func(ctx context.Context, c *registry.Call) (registry.Result, error) {
		io.WriteString(c.Output, "started\n")
		<-ctx.Done()
		return registry.Result{ExitCode: 137}, ctx.Err()
	}
	slow := echo("slow", registry.RiskRead, registry.Exclusive, block)
	slow.Timeout = func(json.RawMessage) time.Duration { return 20 * time.Millisecond }
	f := newFixture(t, permission.Yolo, nil, nil, slow, echo("wait", registry.RiskRead, registry.Exclusive, block))
	f.run(t, t.Context(), intent("int_1", "slow", `{}`))
	o := f.sink.observation(t, "int_1")
	if o.OK || o.Code != contract.CodeTimeout || !strings.Contains(o.Text, "started") || !strings.Contains(o.Text, "timeout") {
		t.Errorf("timeout observation = %+v", o)
	}
	completed := f.sink.events[len(f.sink.events)-2].(*contract.InvocationCompleted)
	if completed.Exit != contract.ExitTimeout || completed.ExitCode != 137 {
		t.Errorf("completed = %+v, want exit timeout, code 137", completed)
	}

	f.sink.events = nil
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(20*time.Millisecond, cancel)
	f.run(t, ctx, intent("int_2", "wait", `{}`), intent("int_3", "wait", `{}`))
	if o := f.sink.observation(t, "int_2"); o.Code != contract.CodeCancelled || o.Phase != contract.PhaseExecution {
		t.Errorf("cancelled observation = %+v", o)
	}
	if o := f.sink.observation(t, "int_3"); o.Code != contract.CodeCancelled || o.Phase != contract.PhaseKernel {
		t.Errorf("not-run observation = %+v", o)
	}
}

func TestToolFailuresAreObservations(t *testing.T) {
	f := newFixture(t, permission.Yolo, nil, nil,
		echo("fail", registry.RiskRead, registry.Safe, func(_ context.Context, c *registry.Call) (registry.Result, error) {
			io.WriteString(c.Output, "partial")
			return registry.Result{}, errors.New("old_string was not found in main.go")
		}),
		echo("exit", registry.RiskExecute, registry.Exclusive, func(_ context.Context, c *registry.Call) (registry.Result, error) {
			io.WriteString(c.Output, "FAIL\nexit code: 2\n")
			return registry.Result{ExitCode: 2}, nil
		}),
		echo("panic", registry.RiskRead, registry.Safe, func(context.Context, *registry.Call) (registry.Result, error) {
			panic("boom")
		}))
	f.run(t, t.Context(), intent("int_1", "fail", `{}`), intent("int_2", "exit", `{}`), intent("int_3", "panic", `{}`))
	for id, want := range map[string]string{"int_1": "partial\nold_string was not found", "int_2": "FAIL\nexit code: 2", "int_3": "boom"} {
		if o := f.sink.observation(t, id); o.OK || o.Code != contract.CodeToolError || !strings.Contains(o.Text, want) {
			t.Errorf("%s: observation = %+v, want a tool error containing %q", id, o, want)
		}
	}
}

func TestApprover(t *testing.T) {
	shell := echo("bash", registry.RiskExecute, registry.Exclusive, nil)
	shell.InputSchema = json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)
	var asked []Question
	answers := []Answer{No, Yes, Always}
	file := filepath.Join(t.TempDir(), "rein", config.AnswersFile)
	opts := &Options{Approver: ApproverFunc(func(_ context.Context, q Question) (Answer, error) {
		asked = append(asked, q)
		a := answers[0]
		answers = answers[1:]
		return a, nil
	})}
	opts.Answers.File = file
	f := newFixture(t, permission.Default, nil, opts, shell)
	f.rt.opts.Answers.Project = f.dir
	cmd := `{"command":"go test ./..."}`
	f.run(t, t.Context(), intent("int_1", "bash", cmd))
	f.run(t, t.Context(), intent("int_2", "bash", cmd))
	f.run(t, t.Context(), intent("int_3", "bash", cmd))
	f.run(t, t.Context(), intent("int_4", "bash", cmd)) // allowed by the saved rule: not asked
	if len(asked) != 3 {
		t.Fatalf("asked %d times, want 3", len(asked))
	}
	if q := asked[0]; q.Tool != "bash" || q.Subject != "go test ./..." || len(q.Rules) == 0 || q.SaveTo != config.Shorten(file) ||
		!slices.Equal(q.DenyRules, q.Rules) {
		t.Errorf("question = %+v", q)
	}
	for id, want := range map[string]contract.Decision{"int_1": contract.Deny, "int_2": contract.Allow, "int_3": contract.Allow, "int_4": contract.Allow} {
		if p := f.sink.permission(id); p == nil || p.Decision != want {
			t.Errorf("%s: permission = %+v, want %s", id, p, want)
		}
	}
	if p := f.sink.permission("int_4"); p.By != permission.ByRule || p.Rule != "bash(go test:*)" {
		t.Errorf("after always: %+v, want by rule bash(go test:*)", p)
	}
	// The answer's verdict names the rule and the file.
	if p := f.sink.permission("int_3"); p.By != permission.ByUser || !strings.Contains(p.Reason, "saved bash(go test:*) in "+config.Shorten(file)) {
		t.Errorf("always: %+v", p)
	}
	// The rule is the person's, in their answers file, for this project;
	// nothing went into the project.
	rules, err := config.Answers{File: file, Project: f.dir}.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(rules.Allow) != 1 || rules.Allow[0].String() != "bash(go test:*)" || len(rules.Ask)+len(rules.Deny) != 0 {
		t.Errorf("saved rules = %+v", rules)
	}
	if _, err := os.Stat(filepath.Join(f.dir, ".rein")); err == nil {
		t.Errorf("the answer wrote into the project's .rein")
	}
	if r := f.rt.Policy().Rules().Allow; len(r) != 1 || r[0].Origin().Kind != permission.FromAnswers || r[0].Origin().File != file {
		t.Errorf("rules in force = %+v", r)
	}
}

// An answers file rein cannot write into (it does not parse) keeps its
// text; the answer holds for this session only, and the verdict says so
// and why.
func TestAlwaysIntoABrokenAnswersFile(t *testing.T) {
	shell := echo("bash", registry.RiskExecute, registry.Exclusive, nil)
	shell.InputSchema = json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)
	file := filepath.Join(t.TempDir(), config.AnswersFile)
	broken := "[projects\n"
	if err := os.WriteFile(file, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	asked := 0
	opts := &Options{Approver: ApproverFunc(func(context.Context, Question) (Answer, error) {
		asked++
		return Always, nil
	})}
	opts.Answers.File = file
	f := newFixture(t, permission.Default, nil, opts, shell)
	f.rt.opts.Answers.Project = f.dir
	cmd := `{"command":"go test ./..."}`
	f.run(t, t.Context(), intent("int_1", "bash", cmd))
	f.run(t, t.Context(), intent("int_2", "bash", cmd))
	if asked != 1 {
		t.Errorf("asked %d times, want once", asked)
	}
	p := f.sink.permission("int_1")
	if p == nil || p.Decision != contract.Allow || p.Rule != "bash(go test:*)" ||
		!strings.HasPrefix(p.Reason, "The user allowed it for this session only: bash(go test:*) was not saved: "+file+":") {
		t.Errorf("always: %+v", p)
	}
	if p := f.sink.permission("int_2"); p == nil || p.By != permission.ByRule {
		t.Errorf("after always: %+v, want by rule", p)
	}
	if r := f.rt.Policy().Rules().Allow; len(r) != 1 || r[0].Origin().Kind != permission.FromAnswers || r[0].Origin().File != "" {
		t.Errorf("rules in force = %+v, want the answer's, in no file", r)
	}
	if after, _ := os.ReadFile(file); string(after) != broken {
		t.Errorf("the answers file changed: %q", after)
	}
}

// Never on a compound command denies the part that was the reason to ask:
// the read-only command beside it still runs; without an answers file the
// rule holds for the session, and the verdict says so.
func TestNeverOnACompound(t *testing.T) {
	shell := echo("bash", registry.RiskExecute, registry.Exclusive, nil)
	shell.InputSchema = json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)
	var asked []Question
	opts := &Options{Approver: ApproverFunc(func(_ context.Context, q Question) (Answer, error) {
		asked = append(asked, q)
		return Never, nil
	})}
	f := newFixture(t, permission.Default, []string{"bash(echo cleaned)"}, opts, shell)
	f.run(t, t.Context(), intent("int_1", "bash", `{"command":"rm -rf build && echo cleaned"}`))
	if len(asked) != 1 || !slices.Equal(asked[0].DenyRules, []string{"bash(rm -rf build)"}) || asked[0].SaveTo != "" {
		t.Fatalf("asked %+v", asked)
	}
	p := f.sink.permission("int_1")
	if p.Decision != contract.Deny || p.Rule != "bash(rm -rf build)" || !strings.Contains(p.Reason, "saved bash(rm -rf build) for this session only") {
		t.Errorf("never: %+v", p)
	}
	f.run(t, t.Context(), intent("int_2", "bash", `{"command":"echo cleaned"}`), intent("int_3", "bash", `{"command":"rm -rf build"}`))
	if p := f.sink.permission("int_2"); p.Decision != contract.Allow {
		t.Errorf("echo cleaned after never: %+v", p)
	}
	if p := f.sink.permission("int_3"); p.Decision != contract.Deny || p.By != permission.ByRule {
		t.Errorf("rm -rf build after never: %+v", p)
	}
}

func TestBoundedOutputAndArtifact(t *testing.T) {
	dir := t.TempDir()
	var lines strings.Builder
	for i := 1; i <= 10000; i++ {
		fmt.Fprintf(&lines, "line %d\n", i)
	}
	big := lines.String()
	write := func(s string) registry.Executor {
		return func(_ context.Context, c *registry.Call) (registry.Result, error) {
			for len(s) > 0 { // in uneven writes
				n := min(len(s), 777)
				io.WriteString(c.Output, s[:n])
				s = s[n:]
			}
			return registry.Result{}, nil
		}
	}
	f := newFixture(t, permission.Yolo, nil,
		&Options{ArtifactDir: filepath.Join(dir, "artifacts"), Limits: Limits{HeadBytes: 100, TailBytes: 200}, Secrets: []string{"sk-SECRET-123"}},
		echo("big", registry.RiskRead, registry.Safe, write(big)),
		echo("small", registry.RiskRead, registry.Safe, write("key=sk-SECRET-123\n")))
	f.run(t, t.Context(), intent("int_1", "big", `{}`), intent("int_2", "small", `{}`))
	o := f.sink.observation(t, "int_1")
	if !o.Truncated || !strings.HasPrefix(o.Text, "line 1\n") || !strings.HasSuffix(o.Text, "line 10000\n") {
		t.Errorf("text = %q", o.Text)
	}
	if !strings.Contains(o.Text, "lines omitted") || o.ArtifactRef == "" {
		t.Errorf("no marker or artifact: %+v", o)
	}
	// The marker's count is exact: shown lines + omitted = all lines.
	var shown, omitted int
	for _, l := range strings.Split(strings.TrimSuffix(o.Text, "\n"), "\n") {
		if strings.HasPrefix(l, "line ") {
			shown++
		} else if _, err := fmt.Sscanf(l, "[... %d lines omitted", &omitted); err != nil {
			t.Errorf("unexpected line %q", l)
		}
	}
	if shown+omitted != 10000 {
		t.Errorf("shown %d + omitted %d != 10000", shown, omitted)
	}
	data, err := os.ReadFile(filepath.Join(dir, o.ArtifactRef))
	if err != nil || string(data) != big {
		t.Errorf("artifact: %d bytes, err %v; want the whole output (%d bytes)", len(data), err, len(big))
	}
	if o := f.sink.observation(t, "int_2"); o.Text != "key=[REDACTED]\n" || o.Truncated {
		t.Errorf("small observation = %+v", o)
	}
}

// Ends are recorded in the order proposed, whatever order tools finish in;
// a tool that finished its work is recorded as done even if the run was
// cancelled just then; a stale file found at execution keeps its code.
func TestEndsAreRecordedHonestlyAndInOrder(t *testing.T) {
	firstMayEnd := make(chan struct{})
	slowFirst := func(_ context.Context, c *registry.Call) (registry.Result, error) {
		<-firstMayEnd
		io.WriteString(c.Output, "first")
		return registry.Result{}, nil
	}
	fastSecond := func(_ context.Context, c *registry.Call) (registry.Result, error) {
		defer close(firstMayEnd)
		io.WriteString(c.Output, "second")
		return registry.Result{}, nil
	}
	ctx, cancel := context.WithCancel(t.Context())
	finishThenCancel := func(_ context.Context, c *registry.Call) (registry.Result, error) {
		io.WriteString(c.Output, "written")
		cancel() // Ctrl-C lands just as the tool returns
		return registry.Result{}, nil
	}
	stale := func(context.Context, *registry.Call) (registry.Result, error) {
		return registry.Result{}, &registry.CheckError{Code: contract.CodeStaleFile, Message: "main.go changed since it was read"}
	}
	f := newFixture(t, permission.Yolo, nil, nil,
		echo("slow", registry.RiskRead, registry.Safe, slowFirst), echo("fast", registry.RiskRead, registry.Safe, fastSecond),
		echo("stale", registry.RiskWrite, registry.Exclusive, stale), echo("finish", registry.RiskWrite, registry.Exclusive, finishThenCancel))
	f.run(t, t.Context(), intent("int_1", "slow", `{}`), intent("int_2", "fast", `{}`), intent("int_3", "stale", `{}`))
	var order []string
	for _, e := range f.sink.events {
		if o, ok := e.(*contract.ToolObservation); ok {
			order = append(order, o.IntentID)
		}
	}
	if d := cmp.Diff([]string{"int_1", "int_2", "int_3"}, order); d != "" {
		t.Errorf("observation order (-want +got):\n%s", d)
	}
	if o := f.sink.observation(t, "int_3"); o.Code != contract.CodeStaleFile {
		t.Errorf("stale at execution: %+v", o)
	}
	f.sink.events = nil
	f.run(t, ctx, intent("int_4", "finish", `{}`))
	if o := f.sink.observation(t, "int_4"); !o.OK || o.Text != "written" {
		t.Errorf("a tool that finished is recorded as %+v", o)
	}
}

// An approval that gets no answer: a cancelled run records no decision,
// only that the call never ran; an ended input is a headless denial with
// its hint.
func TestUnansweredApproval(t *testing.T) {
	shell := echo("bash", registry.RiskExecute, registry.Exclusive, nil)
	shell.InputSchema = json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)
	ctx, cancel := context.WithCancel(t.Context())
	f := newFixture(t, permission.Default, nil, &Options{Approver: ApproverFunc(func(ctx context.Context, q Question) (Answer, error) {
		if q.Subject == "cancel" {
			cancel()
			return No, ctx.Err()
		}
		return No, io.EOF
	})}, shell)
	f.run(t, t.Context(), intent("int_1", "bash", `{"command":"make"}`))
	if p := f.sink.permission("int_1"); p == nil || p.Decision != contract.Deny || p.By != permission.ByHeadless || !strings.Contains(p.Reason, "--allow") {
		t.Errorf("input ended: permission %+v", p)
	}
	f.run(t, ctx, intent("int_2", "bash", `{"command":"cancel"}`))
	if p := f.sink.permission("int_2"); p != nil {
		t.Errorf("cancelled while asking: permission %+v recorded", p)
	}
	if o := f.sink.observation(t, "int_2"); o.Code != contract.CodeCancelled {
		t.Errorf("cancelled while asking: %+v", o)
	}
}

// A call allowed by a rule when the turn began is decided again after an
// earlier call of the turn changed the world: here a command turns docs/
// into a link to src/, and the write allowed by write(docs/**) would land
// in src/.
func TestDecisionsAreTakenAgainAfterAnEarlierCall(t *testing.T) {
	var root string
	relink := func(context.Context, *registry.Call) (registry.Result, error) {
		os.RemoveAll(filepath.Join(root, "docs"))
		return registry.Result{}, os.Symlink(filepath.Join(root, "src"), filepath.Join(root, "docs"))
	}
	wrote := false
	write := func(context.Context, *registry.Call) (registry.Result, error) {
		wrote = true
		return registry.Result{}, nil
	}
	w := echo("write", registry.RiskWrite, registry.Exclusive, write)
	w.InputSchema = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)
	f := newFixture(t, permission.Default, []string{"relink", "write(docs/**)"}, nil,
		echo("relink", registry.RiskExecute, registry.Exclusive, relink), w)
	root = f.dir
	os.MkdirAll(filepath.Join(root, "docs"), 0o755)
	os.MkdirAll(filepath.Join(root, "src"), 0o755)
	f.run(t, t.Context(), intent("int_1", "relink", `{}`), intent("int_2", "write", `{"path":"docs/x.md"}`))
	if o := f.sink.observation(t, "int_2"); o.Code != contract.CodeDenied || !strings.Contains(o.Text, "earlier call of the same turn") || wrote {
		t.Errorf("observation %+v, wrote %v", o, wrote)
	}
}

// TestInvocationRecordsTheSandbox checks that tool.invocation.started
// holds the sandbox the tool says an input runs in, and none for a tool
// that says nothing.
func TestInvocationRecordsTheSandbox(t *testing.T) {
	spec := &contract.SandboxSpec{Mode: "workspace-write", Writable: []string{"/w"}, ReadOnly: []string{"/w/.git/hooks/"}}
	boxed := echo("boxed", registry.RiskRead, registry.Safe, nil)
	var asked json.RawMessage
	boxed.Sandbox = func(input json.RawMessage) *contract.SandboxSpec { asked = input; return spec }
	f := newFixture(t, permission.Default, nil, nil, boxed, echo("plain", registry.RiskRead, registry.Safe, nil))
	f.run(t, t.Context(), intent("int_1", "boxed", `{"text":"a"}`), intent("int_2", "plain", `{"text":"b"}`))
	got := map[string]*contract.SandboxSpec{}
	for _, e := range f.sink.events {
		if s, ok := e.(*contract.InvocationStarted); ok {
			got[s.IntentID] = s.Sandbox
		}
	}
	if d := cmp.Diff(map[string]*contract.SandboxSpec{"int_1": spec, "int_2": nil}, got); d != "" {
		t.Errorf("tool.invocation.started sandboxes mismatch (-want +got):\n%s", d)
	}
	if string(asked) != `{"text":"a"}` {
		t.Errorf("the tool was asked about input %s, want the intent's", asked)
	}
}

// ArtifactPath turns an observation's ArtifactRef into the absolute path
// read_file is told to read, and refuses what does not name a file of the
// artifacts directory.
func TestArtifactPath(t *testing.T) {
	session := t.TempDir()
	dir := filepath.Join(session, "artifacts")
	f := newFixture(t, permission.Yolo, nil, &Options{ArtifactDir: dir}, output("out", registry.Exclusive))
	f.run(t, t.Context(), intent("int_1", "out", `{"n":3000}`))
	o := f.sink.observation(t, "int_1")
	got := f.rt.ArtifactPath(o.ArtifactRef)
	if data, err := os.ReadFile(got); err != nil || string(data) != lines(3000) || !filepath.IsAbs(got) {
		t.Errorf("ArtifactPath(%q) = %q, holding %d bytes (%v); want the absolute path of the whole output", o.ArtifactRef, got, len(data), err)
	}
	for _, ref := range []string{"", "artifacts", "artifacts/", "artifacts/../events.jsonl", "artifacts/a/b.txt", "other/inv.txt", "/etc/passwd", "artifacts/.."} {
		if got := f.rt.ArtifactPath(ref); got != "" {
			t.Errorf("ArtifactPath(%q) = %q; want none", ref, got)
		}
	}
	none := newFixture(t, permission.Yolo, nil, nil)
	if got := none.rt.ArtifactPath("artifacts/inv_1.txt"); got != "" {
		t.Errorf("without an artifacts directory ArtifactPath = %q; want none", got)
	}
}
