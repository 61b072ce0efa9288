package checkpoint

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// What is in the way of a write and rein did not record is found by Plan
// (a conflict, the change's InTheWay), and a Restore not told it may go
// refuses before writing anything; told, it removes it and restores.
func TestObstacles(t *testing.T) {
	tests := []struct {
		name     string
		agent    func(t *testing.T, root string) // after the point, recorded
		person   func(t *testing.T, root string) // after the last snapshot
		inTheWay string
	}{
		{"a directory in place of a file, with a file added", func(t *testing.T, root string) {
			rm(t, root, "a")
			write(t, root, "a/f", "f", 0o644)
		}, func(t *testing.T, root string) { write(t, root, "a/g", "the person's", 0o644) }, "a"},
		{"a file where a directory must be made", func(t *testing.T, root string) {
			rmAll(t, root, "d")
		}, func(t *testing.T, root string) { write(t, root, "d", "the person's", 0o644) }, "d"},
		{"a link where a directory must be made", func(t *testing.T, root string) {
			rmAll(t, root, "d")
		}, func(t *testing.T, root string) { symlink(t, root, "d", "a") }, "d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := workspaceDir(t)
			write(t, root, "a", "alpha", 0o644)
			write(t, root, "b", "beta", 0o644)
			write(t, root, "d/e", "e", 0o644)
			s := newStore(t, root, Options{})
			point := take(t, s)
			want := manifest(t, root)
			write(t, root, "b", "agent's beta", 0o644)
			tt.agent(t, root)
			last := take(t, s)
			tt.person(t, root)
			plan, err := s.Plan(point.ID, last.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(plan.Conflicts, tt.inTheWay) {
				t.Errorf("Conflicts = %v, want %s among them", plan.Conflicts, tt.inTheWay)
			}
			var found bool
			unlisted := slices.Clone(plan.Changes)
			for i := range unlisted {
				found = found || unlisted[i].InTheWay == tt.inTheWay
				unlisted[i].InTheWay = ""
			}
			if !found {
				t.Errorf("Changes = %+v, want one with %s in the way", plan.Changes, tt.inTheWay)
			}
			before := manifest(t, root)
			if err := s.Restore(point.ID, unlisted); err == nil {
				t.Errorf("Restore with nothing listed in the way succeeded")
			}
			sameTree(t, before, manifest(t, root)) // nothing written, b included
			if err := s.Restore(point.ID, plan.Changes); err != nil {
				t.Fatalf("Restore of the plan (forced): %v", err)
			}
			sameTree(t, want, manifest(t, root))
		})
	}
}

// A file put back by hand as the point has it is neither a conflict nor a
// change, and neither is a file the point does not have that is gone.
func TestRevertedByHand(t *testing.T) {
	root := workspaceDir(t)
	write(t, root, "a.txt", "alpha", 0o644)
	write(t, root, "b.txt", "beta", 0o644)
	s := newStore(t, root, Options{})
	point := take(t, s)
	write(t, root, "a.txt", "agent's", 0o644)
	write(t, root, "b.txt", "agent's", 0o644)
	write(t, root, "new.txt", "agent's", 0o644)
	last := take(t, s)
	write(t, root, "a.txt", "alpha", 0o644) // the person puts a.txt back
	if err := os.Remove(filepath.Join(root, "new.txt")); err != nil {
		t.Fatal(err)
	}
	plan, err := s.Plan(point.ID, last.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := ops(plan.Changes); !slices.Equal(got, []string{"b.txt changed"}) || len(plan.Conflicts) != 0 {
		t.Errorf("Plan = %v, conflicts %v; want b.txt changed alone, no conflict", got, plan.Conflicts)
	}
	// A mode put back is not enough: the mode is the point's too.
	chmod(t, root, "b.txt", 0o755)
	write(t, root, "b.txt", "beta", 0o755)
	plan, err = s.Plan(point.ID, last.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := ops(plan.Changes); !slices.Equal(got, []string{"b.txt changed"}) {
		t.Errorf("Plan = %v, want b.txt changed (its mode)", got)
	}
}
