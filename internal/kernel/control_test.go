package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/eventlog/memstore"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/providertest"
	"github.com/rein-agent/rein/internal/provider/scripted"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state/statetest"
	"github.com/rein-agent/rein/internal/tool"
	"github.com/rein-agent/rein/internal/workspace"
)

// act is a tool that changes something (so the default mode asks before
// it runs); it counts its runs.
func act(runs *atomic.Int32) registry.Tool {
	return registry.Tool{
		Name: "act", Description: "do something", Risk: registry.RiskExecute, Concurrency: registry.Exclusive,
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Execute: func(context.Context, *registry.Call) (registry.Result, error) {
			runs.Add(1)
			return registry.Result{}, nil
		},
	}
}

// approverFunc is a person as a function.
type approverFunc func(context.Context, tool.Question) (tool.Answer, error)

func (f approverFunc) Approve(ctx context.Context, q tool.Question) (tool.Reply, error) {
	a, err := f(ctx, q)
	return tool.Reply{Answer: a}, err
}

// controlKernel returns a kernel in the default mode with a tool runtime
// over act, asking approver (nil: headless), that plays script.
func controlKernel(t *testing.T, script string, approver tool.Approver, runs *atomic.Int32) (*Kernel, *eventlog.Log) {
	t.Helper()
	s, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.New(act(runs))
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
	rt, err := tool.New(reg, policy, &tool.Options{Approver: approver})
	if err != nil {
		t.Fatal(err)
	}
	log := eventlog.New(memstore.New(), nil)
	t.Cleanup(func() { log.Close() })
	k, err := New(scripted.New(s, nil), log, &Options{
		ProviderName: "scripted", Registry: reg, Tools: rt,
		Capabilities: provider.Capabilities{Streaming: true, Tools: true}, Retry: RetryPolicy{Attempts: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	return k, log
}

// ofType returns the events of log of type typ.
func ofType(t *testing.T, log *eventlog.Log, typ string) []contract.Envelope {
	t.Helper()
	var out []contract.Envelope
	for _, env := range durable(t, log) {
		if env.Type() == typ {
			out = append(out, env)
		}
	}
	return out
}

// twoActs is a script whose model calls act twice, a turn each, then stops.
var twoActs = `{"turns":[` + call("act", `{}`) + `,` + call("act", `{}`) + `,{"steps":[{"text":"done"},{"finish":"stop"}]}]}`

func TestSetModeRecordsAndFolds(t *testing.T) {
	var runs atomic.Int32
	k, log := controlKernel(t, twoActs, nil, &runs)
	if got := k.Mode(); got != "default" {
		t.Fatalf("Mode() = %q before any change, want default", got)
	}
	if err := k.SetMode("Plan "); err != nil {
		t.Fatal(err)
	}
	if err := k.SetMode("plan"); err != nil {
		t.Errorf("SetMode of the mode in force: %v, want nil", err)
	}
	// The refusal is a sentence for the person who typed /mode: no
	// package's prefix.
	if err := k.SetMode("reckless"); err == nil || err.Error() != `there is no permission mode "reckless"; the modes are default, accept-edits, plan, yolo` {
		t.Errorf("SetMode(reckless) = %v, want a plain error listing the modes", err)
	}
	if err := k.SetMode("accept-edits"); err != nil {
		t.Fatal(err)
	}
	var got []contract.ModeChanged
	for _, env := range ofType(t, log, contract.TypeModeChanged) {
		got = append(got, *env.Data.(*contract.ModeChanged))
	}
	want := []contract.ModeChanged{{From: "default", To: "plan", By: "user"}, {From: "plan", To: "accept-edits", By: "user"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mode_changed events mismatch (-want +got):\n%s", d)
	}
	// Before the first message: the session starts first, and only once.
	collect(t, k.Send(t.Context(), Input{Text: "go"}))
	all := durable(t, log)
	if all[0].Type() != contract.TypeSessionStarted || len(ofType(t, log, contract.TypeSessionStarted)) != 1 {
		t.Errorf("log = %v, want one session.started, first", types(all))
	}
	if st := k.State(); st.Mode != "accept-edits" || statetest.Reduce(all).Mode != "accept-edits" {
		t.Errorf("State().Mode = %q, folded %q; want accept-edits", st.Mode, statetest.Reduce(all).Mode)
	}
	if got := k.Mode(); got != "accept-edits" {
		t.Errorf("Mode() = %q, want accept-edits", got)
	}
}

// Without a tool runtime the mode is recorded and remembered all the same.
func TestSetModeWithoutTools(t *testing.T) {
	k, log := newKernel(t, stream(nil, nil, &contract.ModelFinished{Reason: contract.FinishStop}))
	if err := k.SetMode("yolo"); err != nil {
		t.Fatal(err)
	}
	if got := k.Mode(); got != "yolo" {
		t.Errorf("Mode() = %q, want yolo", got)
	}
	if n := len(ofType(t, log, contract.TypeModeChanged)); n != 1 {
		t.Errorf("%d mode_changed events, want 1", n)
	}
}

// The new mode decides the next permission decision: headless, the
// default mode refuses act; yolo lets it run.
func TestSetModeAppliesToTheNextDecision(t *testing.T) {
	var runs atomic.Int32
	k, _ := controlKernel(t, twoActs, nil, &runs)
	if err := k.SetMode("yolo"); err != nil {
		t.Fatal(err)
	}
	out := collect(t, k.Send(t.Context(), Input{Text: "go"}))
	if runs.Load() != 2 {
		t.Errorf("act ran %d times in yolo, want 2: %v", runs.Load(), observations(out))
	}
}

// A person changes the mode while the run waits for their answer: the
// change is recorded in the run, and the run's next decision uses it (yolo
// asks nothing more).
func TestSetModeDuringARun(t *testing.T) {
	var runs, asked atomic.Int32
	var k *Kernel
	setErr := make(chan error, 1)
	person := approverFunc(func(context.Context, tool.Question) (tool.Answer, error) {
		if asked.Add(1) == 1 {
			// Another goroutine, as the UI's, while the run waits here.
			go func() { setErr <- k.SetMode("yolo") }()
			if err := <-setErr; err != nil {
				t.Error(err)
			}
		}
		return tool.Yes, nil
	})
	k, log := controlKernel(t, twoActs, person, &runs)
	out := collect(t, k.Send(t.Context(), Input{Text: "go"}))
	if asked.Load() != 1 || runs.Load() != 2 {
		t.Errorf("asked %d times, act ran %d times; want 1 and 2", asked.Load(), runs.Load())
	}
	changed := ofType(t, log, contract.TypeModeChanged)
	if len(changed) != 1 || changed[0].Run != finishedRun(t, out) {
		t.Errorf("mode_changed = %+v, want one in the run", changed)
	}
}

func finishedRun(t *testing.T, out []contract.Envelope) string {
	t.Helper()
	return out[len(out)-1].Run
}

// SetMode races a run's own appends (run with -race): the log stays dense
// and the live state is its fold.
func TestSetModeRacesARun(t *testing.T) {
	var runs atomic.Int32
	var k *Kernel
	var wg sync.WaitGroup
	var once sync.Once
	person := approverFunc(func(context.Context, tool.Question) (tool.Answer, error) {
		once.Do(func() {
			wg.Go(func() {
				for _, m := range []string{"accept-edits", "plan", "default", "accept-edits", "plan", "default"} {
					if err := k.SetMode(m); err != nil {
						t.Error(err)
					}
					_ = k.Mode() // read as the status line does; the value races on purpose
					_ = k.Current()
				}
			})
		})
		return tool.Yes, nil
	})
	k, log := controlKernel(t, twoActs, person, &runs)
	collect(t, k.Send(t.Context(), Input{Text: "go"}))
	wg.Wait()
	all := durable(t, log)
	for i, env := range all {
		if env.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i, env.Seq)
		}
	}
	st, folded := k.State(), statetest.Reduce(all)
	if st.LastSeq != folded.LastSeq || st.Mode != folded.Mode || st.Status != folded.Status || len(st.Messages) != len(folded.Messages) {
		t.Errorf("live state (seq %d, mode %q, %s) differs from the fold (seq %d, mode %q, %s)",
			st.LastSeq, st.Mode, st.Status, folded.LastSeq, folded.Mode, folded.Status)
	}
	if n := len(ofType(t, log, contract.TypeModeChanged)); n != 6 {
		t.Errorf("%d mode_changed events, want 6", n)
	}
}

// switchable returns a kernel whose Switch builds, for "other:big" or
// "big", a model of provider other that p plays, with key secret and a
// window of 32000 tokens.
func switchable(t *testing.T, first, p provider.Provider, secret string, opts Options) (*Kernel, *eventlog.Log) {
	t.Helper()
	log := eventlog.New(memstore.New(), nil)
	t.Cleanup(func() { log.Close() })
	opts.ProviderName, opts.Model = "fake", "m"
	opts.Capabilities = provider.Capabilities{Streaming: true, Tools: true}
	opts.Retry = RetryPolicy{Attempts: 1}
	opts.Known = []string{"big", "m"}
	opts.Switch = func(spec string) (Model, error) {
		if spec != "other:big" && spec != "big" {
			return Model{}, errors.New("no such model")
		}
		return Model{Provider: p, Name: "other", Model: "big", Secret: secret, BaseURL: "http://127.0.0.1:9/v1",
			Capabilities: provider.Capabilities{Streaming: true},
			Info:         &contract.ModelInfo{ContextWindow: 32000, MaxOutput: 4000, Source: contract.InfoConfig}}, nil
	}
	k, err := New(first, log, &opts)
	if err != nil {
		t.Fatal(err)
	}
	return k, log
}

func TestSwitchModelIsUsedByTheNextRun(t *testing.T) {
	var firstReqs, otherReqs []*contract.ModelRequest
	done := &contract.ModelFinished{Reason: contract.FinishStop}
	k, log := switchable(t, stream(&firstReqs, nil, done), stream(&otherReqs, nil, done), "", Options{})
	collect(t, k.Send(t.Context(), Input{Text: "one"}))
	if err := k.SwitchModel(t.Context(), " other:big "); err != nil {
		t.Fatal(err)
	}
	collect(t, k.Send(t.Context(), Input{Text: "two"}))
	if len(firstReqs) != 1 || len(otherReqs) != 1 {
		t.Fatalf("the first model got %d requests, the new one %d; want 1 and 1", len(firstReqs), len(otherReqs))
	}
	switched := ofType(t, log, contract.TypeModelSwitched)
	if len(switched) != 1 {
		t.Fatalf("%d model.switched events, want 1", len(switched))
	}
	want := &contract.ModelSwitched{From: "fake:m", To: "other:big", By: "user",
		Info: &contract.ModelInfo{ContextWindow: 32000, MaxOutput: 4000, Source: contract.InfoConfig}}
	if d := cmp.Diff(want, switched[0].Data); d != "" {
		t.Errorf("model.switched mismatch (-want +got):\n%s", d)
	}
	requested := ofType(t, log, contract.TypeModelRequested)
	if r := requested[len(requested)-1].Data.(*contract.ModelRequested); r.Provider != "other" || r.Model != "big" {
		t.Errorf("the next run asked %s:%s, want other:big", r.Provider, r.Model)
	}
	projected := ofType(t, log, contract.TypeContextProjected)
	if p := projected[len(projected)-1].Data.(*contract.ContextProjected); p.Window != 32000 {
		t.Errorf("the next request's window = %d, want the new model's 32000", p.Window)
	}
	st := k.State()
	if st.Provider != "other" || st.Model != "big" || st.ModelInfo == nil || st.ModelInfo.ContextWindow != 32000 {
		t.Errorf("state: %s:%s %+v, want other:big with its window", st.Provider, st.Model, st.ModelInfo)
	}
	wantCur := Current{Provider: "other", Model: "big", BaseURL: "http://127.0.0.1:9/v1", Info: want.Info}
	if d := cmp.Diff(wantCur, k.Current()); d != "" {
		t.Errorf("Current() mismatch (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"big", "m"}, k.Known()); d != "" {
		t.Errorf("Known() mismatch (-want +got):\n%s", d)
	}
}

func TestSwitchModelRefusals(t *testing.T) {
	done := &contract.ModelFinished{Reason: contract.FinishStop}
	t.Run("no switch", func(t *testing.T) {
		k, _ := newKernel(t, stream(nil, nil, done))
		if err := k.SwitchModel(t.Context(), "big"); !errors.Is(err, ErrCannotSwitch) || err.Error() != "this session cannot switch models" {
			t.Errorf("SwitchModel = %v, want ErrCannotSwitch, said plainly", err)
		}
	})
	t.Run("unknown model", func(t *testing.T) {
		k, log := switchable(t, stream(nil, nil, done), stream(nil, nil, done), "", Options{})
		if err := k.SwitchModel(t.Context(), "small"); err == nil || !strings.HasPrefix(err.Error(), "cannot switch to small: ") ||
			!strings.Contains(err.Error(), "no such model") {
			t.Errorf("SwitchModel(small) = %v, want Switch's error, said plainly", err)
		}
		if n := len(durable(t, log)); n != 0 || k.Current().Model != "m" {
			t.Errorf("a refused switch appended %d events and left model %q", n, k.Current().Model)
		}
	})
	t.Run("busy", func(t *testing.T) {
		started, release := make(chan struct{}), make(chan struct{})
		blocked := providertest.Func(func(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
			return func(yield func(contract.ModelEvent, error) bool) {
				close(started)
				<-release
				yield(done, nil)
			}
		})
		k, _ := switchable(t, blocked, stream(nil, nil, done), "", Options{})
		finished := make(chan struct{})
		go func() {
			defer close(finished)
			for range k.Send(context.Background(), Input{Text: "one"}) {
			}
		}()
		<-started
		err := k.SwitchModel(t.Context(), "big")
		close(release)
		<-finished
		if !errors.Is(err, ErrBusy) || err.Error() != "a run is in progress; switch models once it has ended" {
			t.Errorf("SwitchModel during a run = %v, want ErrBusy, said plainly", err)
		}
	})
}

// The new model's key is cut out of what the kernel publishes, as the
// first model's is.
func TestSwitchedModelsSecretIsRedacted(t *testing.T) {
	const secret = "sk-switched-0123456789"
	echo := stream(nil, &contract.ProviderError{Kind: contract.KindAuth, Message: "bad key " + secret},
		&contract.TextDelta{Text: "my key is " + secret})
	k, _ := switchable(t, stream(nil, nil, &contract.ModelFinished{Reason: contract.FinishStop}), echo, secret, Options{})
	if err := k.SwitchModel(t.Context(), "big"); err != nil {
		t.Fatal(err)
	}
	for _, env := range collect(t, k.Send(t.Context(), Input{Text: "go"})) {
		b, err := json.Marshal(env.Data)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), secret) && env.Type() != contract.TypeModelText {
			// model.text is durable: the log's store cuts it (memstore
			// here cuts nothing); what the kernel itself publishes must not hold it.
			t.Errorf("%s holds the new model's key: %s", env.Type(), b)
		}
	}
}

// After a fallback, Current names the fallback; a switch then replaces the
// primary, keeps the fallbacks, and starts the next run with the new model.
func TestCurrentAfterAFallbackAndASwitch(t *testing.T) {
	done := &contract.ModelFinished{Reason: contract.FinishStop}
	broken := stream(nil, &contract.ProviderError{Kind: contract.KindServer, Message: "down"})
	k, log := switchable(t, broken, stream(nil, nil, done), "", Options{
		Fallback: []Model{{Provider: stream(nil, nil, done), Name: "backup", Model: "b"}}})
	collect(t, k.Send(t.Context(), Input{Text: "one"}))
	if c := k.Current(); c.Provider != "backup" {
		t.Fatalf("Current() after a fallback = %+v, want backup", c)
	}
	if err := k.SwitchModel(t.Context(), "big"); err != nil {
		t.Fatal(err)
	}
	if c := k.Current(); c.Provider != "other" {
		t.Errorf("Current() after the switch = %+v, want other", c)
	}
	switched := ofType(t, log, contract.TypeModelSwitched)
	if e := switched[0].Data.(*contract.ModelSwitched); e.From != "backup:b" {
		t.Errorf("model.switched from %q, want backup:b", e.From)
	}
	if len(k.models) != 2 || k.models[1].Name != "backup" {
		t.Errorf("models after the switch: %d, want the new one and the fallback", len(k.models))
	}
}
