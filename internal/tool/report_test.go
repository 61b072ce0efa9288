package tool

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

// batchOf puts concurrency-safe calls together, at most MaxParallel of
// one tool, and a call whose ConcurrencyOf says exclusive alone.
func TestBatchOf(t *testing.T) {
	task := echo("task", registry.RiskRead, registry.Exclusive, nil)
	task.MaxParallel = 2
	task.ConcurrencyOf = func(in json.RawMessage) registry.Concurrency {
		if string(in) == `{"writes":true}` {
			return registry.Exclusive
		}
		return registry.Safe
	}
	read := echo("read", registry.RiskRead, registry.Safe, nil)
	f := newFixture(t, permission.Yolo, nil, nil, task, read)
	of := func(t registry.Tool, in string) job {
		return job{Proposal: Proposal{Intent: contract.ToolIntent{ToolName: t.Name, Input: json.RawMessage(in)}}, tool: t}
	}
	for _, tc := range []struct {
		jobs []job
		want int
	}{
		{[]job{of(task, `{}`), of(task, `{}`), of(task, `{}`)}, 2},
		{[]job{of(task, `{}`), of(read, `{}`), of(task, `{}`), of(read, `{}`)}, 4},
		{[]job{of(task, `{}`), of(task, `{"writes":true}`), of(task, `{}`)}, 1},
		{[]job{of(task, `{"writes":true}`), of(task, `{}`)}, 1},
	} {
		if got := f.rt.batchOf(tc.jobs); got != tc.want {
			t.Errorf("batchOf(%d jobs) = %d, want %d", len(tc.jobs), got, tc.want)
		}
	}
}

// What a running tool reports is appended, caused by its invocation's
// start, and synced before Report returns; a delta reaches a live sink
// and is not stored; when the log fails, the tool's Report says so and
// the batch ends.
func TestReport(t *testing.T) {
	var seqs []uint64
	var mu sync.Mutex
	reporter := echo("reporter", registry.RiskRead, registry.Safe, func(_ context.Context, c *registry.Call) (registry.Result, error) {
		seq, err := c.Report(&contract.JobStarted{JobID: "job_1", IntentID: c.IntentID})
		if err != nil {
			return registry.Result{}, err
		}
		if _, err := c.Report(&contract.TaskEvent{IntentID: c.IntentID}); err != nil {
			return registry.Result{}, err
		}
		mu.Lock()
		seqs = append(seqs, seq)
		mu.Unlock()
		return registry.Result{}, nil
	})
	f := newFixture(t, permission.Yolo, nil, nil, reporter)
	f.run(t, t.Context(), intent("int_1", "reporter", `{}`))
	var types []string
	for _, e := range f.sink.events {
		types = append(types, e.EventType())
	}
	if !slices.Contains(types, contract.TypeJobStarted) || slices.Contains(types, contract.TypeTaskEvent) {
		t.Errorf("events %v, want job.started and no task.event", types)
	}
	for i, e := range f.sink.events {
		if _, ok := e.(*contract.JobStarted); ok {
			if start, ok := f.sink.events[i-1].(*contract.InvocationStarted); !ok || f.sink.causes[i] == "" || start == nil {
				t.Errorf("job.started follows %T, caused by %q", f.sink.events[i-1], f.sink.causes[i])
			}
			if f.sink.synced < i+1 {
				t.Error("job.started was not synced before Report returned")
			}
		}
	}

	broken := newFixture(t, permission.Yolo, nil, nil, reporter)
	broken.sink.failOn = func(e contract.Event) bool { _, ok := e.(*contract.JobStarted); return ok }
	err := broken.rt.Run(t.Context(), &state.State{}, []Proposal{intent("int_1", "reporter", `{}`), intent("int_2", "reporter", `{}`)}, broken.sink)
	if !errors.Is(err, errBroken) {
		t.Errorf("Run() = %v, want the log's failure", err)
	}
}
