package state

import (
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// A task's child counts in its parent's cost once: a call resumed after
// its task.finished was recorded may record it again, and that adds
// nothing; the task leaves Tasks with its observation, and an earlier
// state keeps what it showed.
func TestTaskUsageCountsOnce(t *testing.T) {
	usage := &contract.Totals{InputTokens: 1000, OutputTokens: 100, Calls: 2, CostUSD: 0.5}
	log := envs(
		&contract.SessionStarted{Cwd: "/w"},
		&contract.TaskStarted{IntentID: "i1", Agent: "explore", Child: "c1"},
		&contract.TaskFinished{IntentID: "i1", Agent: "explore", Child: "c1", Outcome: contract.TaskCompleted, Usage: usage},
		&contract.TaskStarted{IntentID: "i1", Agent: "explore", Child: "c1", Resumed: true},
		&contract.TaskFinished{IntentID: "i1", Agent: "explore", Child: "c1", Outcome: contract.TaskCompleted, Usage: usage},
		&contract.ToolObservation{Observation: contract.Observation{IntentID: "i1", ToolName: "task", OK: true}},
	)
	var s State
	var states []State
	for _, e := range log {
		s.Apply(e)
		states = append(states, s)
	}
	if s.Usage.InputTokens != 1000 || s.RunUsage.CostUSD != 0.5 || s.Usage.Calls != 2 {
		t.Errorf("usage %+v, want the child's once", s.Usage)
	}
	if len(s.Tasks) != 0 {
		t.Errorf("tasks %+v after the observation", s.Tasks)
	}
	if task, ok := states[2].TaskOf("i1"); !ok || !task.Finished || task.Child != "c1" {
		t.Errorf("after task.finished: %+v %v", task, ok)
	}
	if task, ok := states[1].TaskOf("i1"); !ok || task.Finished {
		t.Errorf("an earlier state changed: %+v %v", task, ok)
	}
}
