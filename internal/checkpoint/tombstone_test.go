package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// ops summarises changes as "path op".
func ops(changes []Change) []string {
	var out []string
	for _, c := range changes {
		out = append(out, c.Path+" "+string(c.Op))
	}
	return out
}

// A path a snapshot left out is unknown, not absent: a Diff reports no
// change where either side left it out, and a rewind to a snapshot that
// left it out neither removes nor writes it, whatever the reason it was
// left out. Each case: a point that left a path out, what the agent did
// after (which made the path recorded), and what must hold.
func TestLeftOutIsNotAbsent(t *testing.T) {
	secret := "sk-live-abcdefgh12345678"
	tests := []struct {
		name    string
		opts    Options
		setup   func(t *testing.T, root string)
		agent   func(t *testing.T, root string)
		kept    []string // paths the rewind must leave as the agent left them
		restore []string // what the rewind does: "path op"
	}{
		{
			name: "ignored file over the size cap, then tracked",
			opts: Options{IgnoredMaxFile: 1000},
			setup: func(t *testing.T, root string) {
				git(t, root, "init", "-q")
				write(t, root, ".gitignore", "data/\n", 0o644)
				write(t, root, "data/model.bin", strings.Repeat("m", 6000), 0o644)
			},
			agent: func(t *testing.T, root string) { git(t, root, "add", "-f", "data/model.bin") },
			kept:  []string{"data/model.bin"},
		},
		{
			name: "ignored files over the budget, one removed",
			opts: Options{IgnoredBudget: 1000},
			setup: func(t *testing.T, root string) {
				write(t, root, ".gitignore", "data/\n", 0o644)
				for _, n := range []string{"a", "b", "c"} {
					write(t, root, "data/"+n+".bin", strings.Repeat(n, 400), 0o644)
				}
			},
			agent:   func(t *testing.T, root string) { rm(t, root, "data/a.bin") },
			kept:    []string{"data/c.bin"},
			restore: []string{"data/a.bin created"},
		},
		{
			name:  "a file holding a secret, edited so it holds it no more",
			opts:  Options{Secrets: []string{secret}},
			setup: func(t *testing.T, root string) { write(t, root, ".env", "KEY="+secret+"\n", 0o600) },
			agent: func(t *testing.T, root string) { write(t, root, ".env", "KEY=\n", 0o600) },
			kept:  []string{".env"},
		},
		{
			name: "an unreadable file, made readable and edited",
			setup: func(t *testing.T, root string) {
				if os.Geteuid() == 0 {
					t.Skip("root reads every file")
				}
				write(t, root, "locked.txt", "locked", 0o000)
			},
			agent: func(t *testing.T, root string) {
				chmod(t, root, "locked.txt", 0o644)
				write(t, root, "locked.txt", "opened", 0o644)
			},
			kept: []string{"locked.txt"},
		},
		{
			name: "a dependency directory, then tracked",
			setup: func(t *testing.T, root string) {
				git(t, root, "init", "-q")
				write(t, root, ".gitignore", "node_modules/\n", 0o644)
				write(t, root, "node_modules/x/index.js", "x", 0o644)
			},
			agent: func(t *testing.T, root string) { git(t, root, "add", "-f", "node_modules/x/index.js") },
			kept:  []string{"node_modules/x/index.js"},
		},
		{
			name: "a special file, replaced by a file",
			setup: func(t *testing.T, root string) {
				if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			agent: func(t *testing.T, root string) {
				rm(t, root, "pipe")
				write(t, root, "pipe", "a file now", 0o644)
			},
			kept: []string{"pipe"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := workspaceDir(t)
			write(t, root, "main.go", "package main", 0o644)
			tt.setup(t, root)
			s := newStore(t, root, tt.opts)
			point := take(t, s)
			if point.LeftCount == 0 {
				t.Fatalf("the point left nothing out: %+v", point)
			}
			tt.agent(t, root)
			last := take(t, s)
			changes, err := s.Diff(point.ID, last.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got := ops(changes); !slices.Equal(got, deleted(tt.restore)) {
				t.Errorf("Diff = %v, want %v", got, deleted(tt.restore))
			}
			for _, p := range tt.kept {
				if _, _, err := s.Open(point.ID, p); !errors.Is(err, ErrLeftOut) {
					t.Errorf("Open(point, %s) = %v, want ErrLeftOut", p, err)
				}
			}
			before := manifest(t, root)
			plan, err := s.Plan(point.ID, last.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got := ops(plan.Changes); !slices.Equal(got, tt.restore) || len(plan.Conflicts) != 0 {
				t.Errorf("Plan = %v, conflicts %v; want %v and none", got, plan.Conflicts, tt.restore)
			}
			if err := s.Restore(point.ID, plan.Changes); err != nil {
				t.Fatal(err)
			}
			after := manifest(t, root)
			for _, p := range tt.kept {
				if after[p] != before[p] {
					t.Errorf("the rewind changed %s: a %q of %d bytes, was a %q of %d", p, after[p].Kind, len(after[p].Data), before[p].Kind, len(before[p].Data))
				}
			}
		})
	}
}

// deleted turns what a restore does ("p created") into what the Diff
// towards the later snapshot says ("p deleted").
func deleted(restore []string) []string {
	var out []string
	for _, r := range restore {
		out = append(out, strings.Replace(r, " created", " deleted", 1))
	}
	return out
}

// A path the point recorded but the last snapshot left out can be
// restored, but what is on disk there is unknown to rein: a conflict
// (unless it is as the point has it already).
func TestRecordedThenLeftOutIsAConflict(t *testing.T) {
	secret := "sk-live-abcdefgh12345678"
	root := workspaceDir(t)
	write(t, root, ".env", "KEY=\n", 0o600)
	write(t, root, "dist/app.js", "built", 0o644)
	s := newStore(t, root, Options{Secrets: []string{secret}})
	point := take(t, s)
	write(t, root, ".env", "KEY="+secret+"\n", 0o600)
	last := take(t, s)
	if last.LeftCount != 2 { // .env, and dist: a dependency directory outside a repository
		t.Fatalf("last = %+v, want .env and dist left out", last)
	}
	if d, err := s.Diff(point.ID, last.ID); err != nil || len(d) != 0 {
		t.Errorf("Diff = %v, %v; want nothing (unknown is no change)", ops(d), err)
	}
	plan, err := s.Plan(point.ID, last.ID)
	if err != nil {
		t.Fatal(err)
	}
	// dist/app.js is on disk as the point has it: nothing to do.
	if got := ops(plan.Changes); !slices.Equal(got, []string{".env changed"}) || !slices.Equal(plan.Conflicts, []string{".env"}) {
		t.Errorf("Plan = %v, conflicts %v; want .env changed, a conflict", got, plan.Conflicts)
	}
	if plan.Changes[0].From.Kind != "left out" || plan.Changes[0].From.Reason == "" {
		t.Errorf("From = %+v, want left out with its reason", plan.Changes[0].From)
	}
}

// An incremental Take reads a left-out file again each time, as a new
// one: a file that holds a secret stays left out, and one that holds it
// no more is recorded.
func TestLeftOutReadAgain(t *testing.T) {
	secret := "sk-live-abcdefgh12345678"
	root := workspaceDir(t)
	write(t, root, ".env", "KEY="+secret+"\n", 0o600)
	age(t, root)
	s := newStore(t, root, Options{Secrets: []string{secret}})
	first := take(t, s)
	second := take(t, s)
	if second.ID != first.ID || second.LeftCount != 1 || s.reads.Load() != 2 {
		t.Errorf("second Take = %+v after %d reads, want .env read again and left out", second, s.reads.Load())
	}
	write(t, root, ".env", "KEY="+strings.Repeat("x", len(secret))+"\n", 0o600)
	age(t, root)
	third := take(t, s)
	if third.Files != 1 || third.LeftCount != 0 {
		t.Errorf("third Take = %+v, want .env recorded", third)
	}
}
