package permission

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rein-agent/rein/internal/workspace/workspacetest"
)

// core.hooksPath is read as the sandbox reads it (sandbox.HooksDirs): from
// the worktree config, the shared config of a linked worktree and the
// user's global config too, not only .git/config; and Husky's .husky/_
// protects its parent, where the hook scripts are.
func TestHooksPathReadAsTheSandboxReadsIt(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // under base; ws is the workspace
	}{
		{"global config", map[string]string{
			"home/.gitconfig": "[core]\n\thooksPath = .husky/_\n",
			"ws/.git/config":  "[core]\n\tbare = false\n",
		}},
		{"worktree config", map[string]string{
			"ws/.git/config":          "[core]\n\tbare = false\n",
			"ws/.git/config.worktree": "[core]\n\thooksPath = .husky/_\n",
		}},
		{"linked worktree", map[string]string{
			"main/.git/config":                "[core]\n\thooksPath = .husky/_\n",
			"main/.git/worktrees/w/commondir": "../..\n",
			"ws/.git":                         "gitdir: ../main/.git/worktrees/w\n",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := workspacetest.RealTemp(t)
			t.Setenv("HOME", filepath.Join(base, "home"))
			t.Setenv("XDG_CONFIG_HOME", "")
			tt.files["ws/.husky/pre-commit"] = "npm test\n"
			tt.files["ws/src/main.go"] = "package main\n"
			for name, text := range tt.files {
				path := filepath.Join(base, name)
				workspacetest.Mkdir(t, filepath.Dir(path))
				if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			p, err := New(AcceptEdits, Rules{Allow: mustRules(t, "write_file(**)")}, mustWorkspace(t, filepath.Join(base, "ws")))
			if err != nil {
				t.Fatal(err)
			}
			for path, want := range map[string]string{".husky/pre-commit": askM, ".husky/_/h": askM, "src/main.go": allowR} {
				v := p.Decide(fileReq(t, "write_file", path))
				if got := string(v.Decision) + " " + v.By; got != want {
					t.Errorf("write_file %s: %s, want %s\nreason: %s", path, got, want, v.Reason)
				}
			}
		})
	}
}
