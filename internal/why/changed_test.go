package why

import (
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// A command that changes a file without naming it (a script it runs) is
// found by its observation, which names the files the checkpoints around
// it show it created, changed or deleted; a command whose observation
// names other files is not.
func TestChangedByObservation(t *testing.T) {
	r := newRecorder("ses_1", "/w", t0)
	r.call("regenerating")
	script, _ := r.propose("int_1", "bash", `{"command":"./gen.sh"}`)
	o := r.runs(script, "/w")
	o.observation.Files = []contract.FileStamp{{Path: "/w/gen/out.go", Size: 3, SHA256: "ab", Op: contract.FileChanged},
		{Path: "/w/old.go", Op: contract.FileDeleted}}
	other, _ := r.propose("int_2", "bash", `{"command":"./other.sh"}`)
	o2 := r.runs(other, "/w")
	o2.observation.Files = []contract.FileStamp{{Path: "/w/elsewhere.go", Op: contract.FileCreated}}
	// A read of the file is no change of it.
	read, _ := r.propose("int_3", "mcp__fs__read", `{"p":"x"}`)
	o3 := r.runs(read, "/w")
	o3.observation.Files = []contract.FileStamp{{Path: "/w/gen/out.go", Op: contract.FileRead}}

	for _, target := range []string{"/w/gen/out.go", "/w/old.go"} {
		got := find(target, r)
		if len(got) != 1 || got[0].Intent.ID != "int_1" || got[0].Access != Write || got[0].Observation == nil ||
			got[0].Started == nil || got[0].Completed == nil {
			t.Errorf("%s: touches %+v, want int_1 as a write with its start, end and observation", target, got)
		}
	}
	if got := find("/w/untouched.go", r); len(got) != 0 {
		t.Errorf("untouched.go: %d touches, want none", len(got))
	}
}
