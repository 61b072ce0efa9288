package state

import (
	"slices"

	"github.com/rein-agent/rein/internal/contract"
)

// Task is a task call's child as the log tells it, from the call's
// task.started until its tool.observation: which session it is, and
// whether task.finished said how it ended. A resumed session finds here
// the child of a task call rein died in, and whether its end (and cost)
// was recorded already.
type Task struct {
	IntentID string `json:"intent_id"`
	Child    string `json:"child"`
	Finished bool   `json:"finished,omitempty"`
	// Outcome and Reason are task.finished's, once it came.
	Outcome string `json:"outcome,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// TaskOf returns the task of the call intent, if it started one and has
// no observation yet.
func (s *State) TaskOf(intent string) (Task, bool) {
	i := slices.IndexFunc(s.Tasks, func(t Task) bool { return t.IntentID == intent })
	if i < 0 {
		return Task{}, false
	}
	return s.Tasks[i], true
}

// applyTasks applies task.started, task.finished and the observation of
// a task call. A child's usage is the parent's cost, so that a budget
// bounds the tree: the first task.finished of a call adds it, a second
// (a call resumed after its end was recorded) adds nothing. Tasks is
// copied before an entry changes, so an earlier state keeps what it
// showed.
func (s *State) applyTasks(env contract.Envelope) {
	switch e := env.Data.(type) {
	case *contract.TaskStarted:
		if _, ok := s.TaskOf(e.IntentID); !ok {
			s.Tasks = append(slices.Clip(s.Tasks), Task{IntentID: e.IntentID, Child: e.Child})
		}
	case *contract.TaskFinished:
		i := slices.IndexFunc(s.Tasks, func(t Task) bool { return t.IntentID == e.IntentID })
		if i >= 0 && s.Tasks[i].Finished {
			return
		}
		if i >= 0 {
			s.Tasks = slices.Clone(s.Tasks)
			t := &s.Tasks[i]
			t.Finished, t.Outcome, t.Reason = true, e.Outcome, e.Reason
		}
		if e.Usage != nil {
			s.Usage.Merge(e.Usage)
			s.RunUsage.Merge(e.Usage)
		}
	case *contract.ToolObservation:
		if i := slices.IndexFunc(s.Tasks, func(t Task) bool { return t.IntentID == e.IntentID }); i >= 0 {
			s.Tasks = slices.Delete(slices.Clone(s.Tasks), i, i+1)
		}
	}
}
