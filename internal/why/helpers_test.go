package why

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

// t0 is when the sessions of the tests begin.
var t0 = time.Date(2026, 11, 30, 7, 41, 0, 0, time.UTC)

// recorder writes the events of one session as the kernel would: dense
// seqs, one second apart.
type recorder struct {
	session string
	run     string
	turn    int
	seq     uint64
	clock   time.Time
	out     []contract.Envelope
}

func newRecorder(session, cwd string, start time.Time) *recorder {
	r := &recorder{session: session, clock: start}
	r.add(&contract.SessionStarted{Cwd: cwd, Version: "test", Provider: "scripted"})
	r.run = "run_" + session
	r.add(&contract.RunStarted{Goal: "fix it"})
	return r
}

func (r *recorder) add(d contract.Event) contract.Envelope {
	r.seq++
	r.clock = r.clock.Add(time.Second)
	env := contract.Envelope{
		Seq: r.seq, ID: fmt.Sprintf("evt_%s_%d", r.session, r.seq), Time: r.clock,
		Session: r.session, Run: r.run, Turn: r.turn, Data: d,
	}
	r.out = append(r.out, env)
	return env
}

// call begins a model call in a new turn, with the given text blocks.
func (r *recorder) call(texts ...string) {
	r.turn++
	r.add(&contract.ModelRequested{Provider: "scripted"})
	r.add(&contract.ModelStarted{Provider: "scripted"})
	for _, s := range texts {
		r.add(&contract.ModelText{Text: s})
	}
}

// propose records an intent and returns it with the seq and time of its
// event.
func (r *recorder) propose(id, tool, input string) (contract.ToolIntent, contract.Envelope) {
	in := contract.ToolIntent{
		ID: id, ProviderCallID: "call_" + id, ToolName: tool, Input: json.RawMessage(input),
		Provider: contract.ProviderRef{Name: "scripted"},
	}
	return in, r.add(&contract.IntentProposed{ToolIntent: in})
}

// event records d and returns it, for a want Touch to point at.
func event[T contract.Event](r *recorder, d T) T {
	r.add(d)
	return d
}

// outcome is what the log holds for one intent after its proposal.
type outcome struct {
	validation  *contract.ToolValidation
	permission  *contract.ToolPermission
	started     *contract.InvocationStarted
	completed   *contract.InvocationCompleted
	observation *contract.ToolObservation
}

// runs records the usual life of an intent that ran: valid, allowed by
// mode, started in cwd with its proposed input, completed ok, observed.
func (r *recorder) runs(in contract.ToolIntent, cwd string) outcome {
	inv := "inv_" + in.ID
	return outcome{
		validation: event(r, &contract.ToolValidation{IntentID: in.ID, OK: true}),
		permission: event(r, &contract.ToolPermission{IntentID: in.ID, Decision: contract.Allow, By: "mode"}),
		started: event(r, &contract.InvocationStarted{
			IntentID: in.ID, InvocationID: inv, ToolName: in.ToolName, Input: in.Input, Cwd: cwd, TimeoutMS: 1000,
		}),
		completed: event(r, &contract.InvocationCompleted{
			IntentID: in.ID, InvocationID: inv, Exit: contract.ExitOK, DurationMS: 12, OutputBytes: 3,
		}),
		observation: event(r, &contract.ToolObservation{Observation: contract.Observation{
			IntentID: in.ID, ToolName: in.ToolName, OK: true, Phase: contract.PhaseExecution, Text: "ok\n",
		}}),
	}
}

// touch is the Touch the log of r holds for in, proposed by env, touched
// with a, after the model said said.
func (r *recorder) touch(in contract.ToolIntent, env contract.Envelope, cwd string, a Access, said string, o outcome) Touch {
	return Touch{
		Session: r.session, Cwd: cwd, Seq: env.Seq, Time: env.Time, Run: env.Run, Turn: env.Turn,
		Intent: in, Access: a, Said: said,
		Validation: o.validation, Permission: o.permission, Started: o.started,
		Completed: o.completed, Observation: o.observation,
	}
}

// find runs a Finder of target over the logs, one after another.
func find(target string, logs ...*recorder) []Touch {
	f := New(target)
	for _, r := range logs {
		for _, env := range r.out {
			f.Add(env)
		}
	}
	return f.Touches()
}

// jsonString quotes s as a JSON string.
func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
