package transcript

import (
	"errors"
	"iter"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
)

// events yields the envelopes of data, then err when it is not nil.
func events(err error, data ...contract.Event) iter.Seq2[contract.Envelope, error] {
	return func(yield func(contract.Envelope, error) bool) {
		for _, d := range data {
			if !yield(contract.Envelope{Data: d}, nil) {
				return
			}
		}
		if err != nil {
			yield(contract.Envelope{}, err)
		}
	}
}

func TestReadChanges(t *testing.T) {
	const edit = "--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n"
	all := []contract.Event{
		intent("i1", "edit_file", `{"path":"x.go"}`), observed("i1", "edit_file", true, "edited x.go: 1 replacement\n"+edit),
		intent("i2", "bash", `{"command":"make"}`), observed("i2", "bash", true, "ok"),
		intent("i3", "edit_file", `{"path":"y.go"}`), observed("i3", "edit_file", false, "stale_file"),
		intent("i4", "write_file", `{"path":"/w/new.txt","content":"hi\n"}`), observed("i4", "write_file", true, "created new.txt"),
		intent("i5", "read_file", `{"path":"x.go"}`), observed("i5", "read_file", true, "     1\ta"),
	}
	got, err := ReadChanges(events(nil, all...), "/w", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Changes{Diffs: []string{edit, "--- /dev/null\n+++ new.txt\n@@ -0,0 +1 @@\n+hi\n"}, Commands: 1}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ReadChanges() mismatch (-want +got):\n%s", d)
	}
	if s, w := got.Summary(), "2 edits shown; 1 command ran and may have changed files too (rein why FILE says which)"; s != w {
		t.Errorf("Summary() = %q, want %q", s, w)
	}

	broken := errors.New("log: torn line")
	got, err = ReadChanges(events(broken, all[:2]...), "/w", nil)
	if !errors.Is(err, broken) || len(got.Diffs) != 1 {
		t.Errorf("ReadChanges() of a log that fails = %+v, %v; want the edit before it and the error", got, err)
	}
	if s := got.Summary(); s != "" {
		t.Errorf("Summary() of edits alone = %q, want none", s)
	}
	if s, w := (Changes{}).Summary(), "this session changed nothing in the workspace"; s != w {
		t.Errorf("Summary() of nothing = %q, want %q", s, w)
	}
}

// A command a checkpoint followed shows the files it created, changed
// and deleted, whether or not it failed; one with no checkpoint is only
// counted.
func TestReadChangesOfCommands(t *testing.T) {
	ran := observed("i1", "bash", false, "exit 1")
	ran.Files = []contract.FileStamp{{Path: "/w/gen/out.go", Op: contract.FileChanged}, {Path: "/w/old.go", Op: contract.FileDeleted},
		{Path: "/w/new.txt", Op: contract.FileCreated}, {Path: "/w/read.go", Op: contract.FileRead}}
	got, err := ReadChanges(events(nil,
		intent("i1", "bash", `{"command":"./gen.sh"}`), &contract.CheckpointRecorded{ID: "a", IntentID: "i1", When: contract.CheckpointAfter}, ran,
		intent("i2", "bash", `{"command":"make"}`), observed("i2", "bash", true, "ok"),
	), "/w", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Changes{Diffs: []string{"bash ./gen.sh\n~ changed gen/out.go\n- deleted old.go\n+ created new.txt\n"}, Commands: 1}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ReadChanges() mismatch (-want +got):\n%s", d)
	}
}

// With the checkpoints' diff of a command, /diff shows it under the
// command's line.
func TestReadChangesWithTheirDiff(t *testing.T) {
	ran := observed("i1", "bash", true, "ok")
	ran.Files = []contract.FileStamp{{Path: "/w/a.txt", Op: contract.FileChanged}}
	const diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n"
	got, err := ReadChanges(events(nil,
		intent("i1", "bash", `{"command":"./gen.sh"}`), &contract.CheckpointRecorded{ID: "a", IntentID: "i1", When: contract.CheckpointAfter}, ran,
	), "/w", func(id string) string {
		if id == "i1" {
			return diff
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"bash ./gen.sh\n" + diff}; !slices.Equal(got.Diffs, want) {
		t.Errorf("Diffs = %q, want %q", got.Diffs, want)
	}
}
