package kernel

import (
	"context"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/eventlog/memstore"
	"github.com/rein-agent/rein/internal/hook"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

// The session's own hooks: SessionStart adds context once, a
// UserPromptSubmit block keeps a prompt out of the session, and a Stop hook
// that always blocks makes a run go on twice, the limit, and no more.
func TestSessionHooks(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hooks := []hook.Hook{
		{Event: contract.HookSessionStart, Command: script("start", `cat >/dev/null; echo "the branch is main"`)},
		{Event: contract.HookUserPromptSubmit, Command: script("prompt", `case "$(cat)" in *password*) echo "no passwords, please" >&2; exit 2;; esac`)},
		{Event: contract.HookStop, Command: script("stop", `cat >/dev/null; echo '{"decision":"block","reason":"run the tests first"}'`)},
	}
	runner := hook.New(&hook.Options{Hooks: hooks, Dir: dir, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	var mu sync.Mutex
	var requests [][]string
	prov := providertest.Func(func(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
		mu.Lock()
		var texts []string
		for _, m := range req.Messages {
			texts = append(texts, m.Text)
		}
		requests = append(requests, texts)
		mu.Unlock()
		return func(yield func(contract.ModelEvent, error) bool) {
			if yield(&contract.TextDelta{Text: "done"}, nil) {
				yield(&contract.ModelFinished{Reason: contract.FinishStop}, nil)
			}
		}
	})
	log := eventlog.New(memstore.New(), nil)
	t.Cleanup(func() { log.Close() })
	k, err := New(prov, log, &Options{ProviderName: "p", Hooks: runner,
		Capabilities: provider.Capabilities{Streaming: true}, Retry: RetryPolicy{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	collect(t, k.Send(context.Background(), Input{Text: "my password is hunter2"}))
	collect(t, k.Send(context.Background(), Input{Text: "fix the bug"}))

	var got []string
	for _, e := range durable(t, log) {
		line := e.Data.EventType()
		switch d := e.Data.(type) {
		case *contract.HookRan:
			line += " " + d.Event + ":" + d.Decision
		case *contract.UserMessage:
			line += " " + d.Text
		case *contract.RunFinished:
			line += " " + string(d.Outcome)
		}
		if strings.HasPrefix(line, "model.") && line != contract.TypeModelRequested || strings.HasPrefix(line, "assistant.") || strings.HasPrefix(line, "context.") {
			continue
		}
		got = append(got, line)
	}
	want := []string{
		"session.started",
		"hook.ran SessionStart:",
		"hook.ran UserPromptSubmit:block",
		"hook.ran UserPromptSubmit:",
		"user.message fix the bug",
		"run.started",
		"model.requested",
		"hook.ran Stop:block",
		"model.requested",
		"hook.ran Stop:block",
		"model.requested",
		"hook.ran Stop:",
		"run.finished completed",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the log mismatch (-want +got):\n%s", d)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(requests) != 3 {
		t.Fatalf("%d model requests, want 3", len(requests))
	}
	all := strings.Join(requests[0], "\n")
	if strings.Contains(all, "hunter2") {
		t.Errorf("the blocked prompt reached the model: %q", all)
	}
	if !strings.Contains(all, "the branch is main") {
		t.Errorf("the first request lacks the SessionStart context: %q", all)
	}
	if last := strings.Join(requests[2], "\n"); !strings.Contains(last, "asks you to go on before you finish: run the tests first") {
		t.Errorf("the third request lacks the Stop hook's note: %q", last)
	}
}

// A Stop hook that always blocks makes a run go on, but not past the
// run's budget: the run over it completes after one model call.
func TestStopHooksKeepToTheBudget(t *testing.T) {
	dir := t.TempDir()
	stop := filepath.Join(dir, "stop")
	if err := os.WriteFile(stop, []byte("#!/bin/sh\ncat >/dev/null; echo '{\"decision\":\"block\",\"reason\":\"go on\"}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	runner := hook.New(&hook.Options{Hooks: []hook.Hook{{Event: contract.HookStop, Command: stop}}, Dir: dir,
		Environ: []string{"PATH=" + os.Getenv("PATH")}, MaxStopContinues: 5})
	calls := 0
	prov := providertest.Func(func(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
		calls++
		return func(yield func(contract.ModelEvent, error) bool) {
			_ = yield(&contract.TextDelta{Text: "done"}, nil) &&
				yield(&contract.ModelUsage{InputTokens: 100_000, OutputTokens: 10}, nil) &&
				yield(&contract.ModelFinished{Reason: contract.FinishStop}, nil)
		}
	})
	log := eventlog.New(memstore.New(), nil)
	t.Cleanup(func() { log.Close() })
	k, err := New(prov, log, &Options{ProviderName: "p", Model: "m", Hooks: runner, SessionDir: dir,
		Capabilities: provider.Capabilities{Streaming: true}, Retry: RetryPolicy{Attempts: 1},
		Info:    &contract.ModelInfo{ContextWindow: 200_000, MaxOutput: 2000, Source: contract.InfoConfig, Prices: &contract.Prices{Input: 3, Output: 15}},
		Context: ContextOptions{MaxCost: 0.01}})
	if err != nil {
		t.Fatal(err)
	}
	f := finished(t, collect(t, k.Send(t.Context(), Input{Text: "work"})))
	if calls != 1 || f.Outcome != contract.OutcomeCompleted {
		t.Errorf("%d model calls, outcome %s; want 1 and completed (the budget, $0.30 spent of $0.01, stops the Stop hook's continues)", calls, f.Outcome)
	}
}
