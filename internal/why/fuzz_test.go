package why

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzFinder feeds arbitrary commands (seeds in testdata/fuzz/FuzzFinder)
// to a Finder, as a bash command and as a read_file path. Nothing may
// panic; an intent is found at most once, with a bash access; the result
// does not depend on the Finder; and a command without the letter s, which
// every path naming the target or a directory holding it needs, touches
// nothing.
func FuzzFinder(f *testing.F) {
	f.Fuzz(func(t *testing.T, command string) {
		r := newRecorder("ses_1", ws, t0)
		r.call("fuzzing")
		sh, _ := r.propose("int_sh", "bash", `{"command":`+jsonString(command)+`}`)
		r.runs(sh, ws)
		rd, _ := r.propose("int_rd", "read_file", `{"path":`+jsonString(command)+`}`)
		r.runs(rd, ws)

		got := find(target, r)
		if d := cmp.Diff(got, find(target, r)); d != "" {
			t.Fatalf("two Finders disagree (-first +second):\n%s", d)
		}
		seen := map[string]bool{}
		for _, tc := range got {
			if seen[tc.Intent.ID] {
				t.Fatalf("%q: intent %s found twice", command, tc.Intent.ID)
			}
			seen[tc.Intent.ID] = true
			if tc.Intent.ID == "int_sh" && tc.Access != Command && tc.Access != Write {
				t.Fatalf("%q: bash access %q", command, tc.Access)
			}
			if tc.Intent.ID == "int_rd" && tc.Access != Read {
				t.Fatalf("%q: read_file access %q", command, tc.Access)
			}
		}
		if len(got) > 0 && !strings.ContainsRune(command, 's') {
			t.Fatalf("%q has no s but touches %s: %+v", command, target, got)
		}
	})
}
