package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/workspace/workspacetest"
)

func mustWorkspace(t testing.TB, root string, more ...string) *Workspace {
	t.Helper()
	ws, err := New(root, more...)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestResolve(t *testing.T) {
	base := workspacetest.RealTemp(t)
	root := workspacetest.Mkdir(t, filepath.Join(base, "ws"))
	outside := workspacetest.Mkdir(t, filepath.Join(base, "outside"))
	extra := workspacetest.Mkdir(t, filepath.Join(base, "extra"))
	workspacetest.Mkdir(t, filepath.Join(root, "src", "pkg"))
	if err := os.WriteFile(filepath.Join(root, "src", "main.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	workspacetest.Symlink(t, outside, filepath.Join(root, "escape"))
	workspacetest.Symlink(t, filepath.Join(root, "src"), filepath.Join(root, "alias"))
	workspacetest.Symlink(t, filepath.Join(outside, "missing"), filepath.Join(root, "dangling"))
	linkedRoot := filepath.Join(base, "linked")
	workspacetest.Symlink(t, root, linkedRoot)

	ws := mustWorkspace(t, root)
	viaLink := mustWorkspace(t, linkedRoot)
	withExtra := mustWorkspace(t, root, extra)

	for _, tc := range []struct {
		name    string
		ws      *Workspace
		path    string
		want    string // "" when an error is expected
		outside bool   // the error wraps ErrOutside
	}{
		{"relative file", ws, "src/main.go", filepath.Join(root, "src", "main.go"), false},
		{"root itself", ws, ".", root, false},
		{"absolute inside", ws, filepath.Join(root, "src"), filepath.Join(root, "src"), false},
		{"new file in existing dir", ws, "src/new.go", filepath.Join(root, "src", "new.go"), false},
		{"new file in new dirs", ws, "a/b/c.txt", filepath.Join(root, "a", "b", "c.txt"), false},
		{"dotdot back inside", ws, "src/pkg/../main.go", filepath.Join(root, "src", "main.go"), false},
		{"dotdot out and back", ws, "../ws/src", filepath.Join(root, "src"), false},
		{"link inside to inside", ws, "alias/main.go", filepath.Join(root, "src", "main.go"), false},
		{"new file through inside link", ws, "alias/new.go", filepath.Join(root, "src", "new.go"), false},
		{"parent", ws, "../x", "", true},
		{"absolute outside", ws, "/etc/passwd", "", true},
		{"dotdot past root", ws, "src/../../outside", "", true},
		{"new dirs then dotdot out", ws, "new/../../x", "", true},
		{"link pointing outside", ws, "escape", "", true},
		{"file through link pointing outside", ws, "escape/secret.txt", "", true},
		{"link then dotdot", ws, "escape/../ws/src", filepath.Join(root, "src"), false},
		{"dangling link", ws, "dangling", "", false},
		{"symlinked root relative", viaLink, "src/main.go", filepath.Join(root, "src", "main.go"), false},
		{"symlinked root absolute", viaLink, filepath.Join(linkedRoot, "src", "main.go"), filepath.Join(root, "src", "main.go"), false},
		{"added root", withExtra, filepath.Join(extra, "x.txt"), filepath.Join(extra, "x.txt"), false},
		{"added root relative", withExtra, "../extra/x.txt", filepath.Join(extra, "x.txt"), false},
		{"not added root", withExtra, "../outside/x.txt", "", true},
		{"empty", ws, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.ws.Resolve(tc.path)
			if tc.want != "" {
				if err != nil || got != tc.want {
					t.Errorf("Resolve(%q) = %q, %v; want %q", tc.path, got, err, tc.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Resolve(%q) = %q, want an error", tc.path, got)
			}
			if errors.Is(err, ErrOutside) != tc.outside {
				t.Errorf("Resolve(%q) error = %v; errors.Is(ErrOutside) = %v, want %v", tc.path, err, !tc.outside, tc.outside)
			}
			if tc.outside {
				for _, r := range tc.ws.Roots() {
					if !strings.Contains(err.Error(), r) {
						t.Errorf("Resolve(%q) error %q does not name root %s", tc.path, err, r)
					}
				}
				if !strings.Contains(err.Error(), tc.path) {
					t.Errorf("Resolve(%q) error %q does not name the path", tc.path, err)
				}
			}
		})
	}
}

func TestNew(t *testing.T) {
	base := workspacetest.RealTemp(t)
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	workspacetest.Symlink(t, base, link)
	ws, err := New(link, base)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{base, base}, ws.Roots()); d != "" {
		t.Errorf("Roots() (-want +got):\n%s", d)
	}
	for name, root := range map[string]string{"missing": filepath.Join(base, "nope"), "file": file, "empty": ""} {
		if _, err := New(root); err == nil {
			t.Errorf("New(%s) = nil error", name)
		}
	}
}
