package builtin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/workspace"
	"github.com/rein-agent/rein/internal/workspace/workspacetest"
)

// With the home directory as the workspace, grep and glob do not walk
// into the hidden paths (the credential stores, rein's own directories),
// nor read a link that leads there; they do when the walk starts there or
// in a read root inside (the skills). list_dir does not descend: it names
// them, and only with all (they start with a dot).
func TestWalkersSkipHiddenPaths(t *testing.T) {
	home := t.TempDir()
	files := map[string]string{
		".ssh/id_ed25519":                       "NEEDLE ssh key\n",
		".aws/credentials":                      "NEEDLE aws\n",
		".netrc":                                "NEEDLE netrc\n",
		".config/rein/config.toml":              "NEEDLE rein\n",
		".config/rein/skills/review/SKILL.md":   "NEEDLE skill\n",
		".config/other/settings":                "NEEDLE other\n",
		"src/main.go":                           "NEEDLE main\n",
		".local/state/rein/sessions/x/events.j": "NEEDLE log\n",
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(home, ".ssh", "id_ed25519"), filepath.Join(home, "src", "key")); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(home)
	if err != nil {
		t.Fatal(err)
	}
	skills := filepath.Join(home, ".config", "rein", "skills")
	tools := Tools(ws, &Options{ReadRoots: []string{skills}, Hidden: workspace.Places([]string{
		filepath.Join(home, ".ssh"), filepath.Join(home, ".aws"), filepath.Join(home, ".netrc"),
		filepath.Join(home, ".config", "rein"), filepath.Join(home, ".local", "state", "rein"),
	})})
	byName := map[string]registry.Tool{}
	for _, tool := range tools {
		byName[tool.Name] = tool
	}
	run := func(name, input string) string {
		t.Helper()
		if err := byName[name].Check(json.RawMessage(input), state.Ledger{}); err != nil {
			t.Fatalf("%s %s: %v", name, input, err)
		}
		var out strings.Builder
		if _, err := byName[name].Execute(t.Context(), &registry.Call{Input: json.RawMessage(input), Output: &out}); err != nil {
			t.Fatalf("%s %s: %v", name, input, err)
		}
		return out.String()
	}
	for _, tc := range []struct {
		name, input string
		want, not   []string
	}{
		{"grep", `{"pattern":"NEEDLE","output_mode":"files"}`, []string{"src/main.go", ".config/other/settings"},
			[]string{"id_ed25519", "credentials", ".netrc", "config.toml", "SKILL.md", "events", "src/key"}},
		{"glob", `{"pattern":"**/*"}`, []string{"src/main.go", ".config/other/settings"},
			[]string{"id_ed25519", "credentials", ".netrc", "config.toml", "SKILL.md", "events", "src/key"}},
		{"grep", `{"pattern":"NEEDLE","output_mode":"files","path":` + quote(skills) + `}`, []string{"SKILL.md"}, nil},
		{"grep", `{"pattern":"NEEDLE","output_mode":"files","path":".ssh"}`, []string{"id_ed25519"}, nil},
		{"list_dir", `{"path":".","all":true}`, []string{".ssh/", ".aws/", ".netrc", "src/"}, []string{"id_ed25519", "credentials"}},
	} {
		got := run(tc.name, tc.input)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %s: the output lacks %q:\n%s", tc.name, tc.input, w, got)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(got, n) {
				t.Errorf("%s %s: the output holds %q:\n%s", tc.name, tc.input, n, got)
			}
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The scope keeps each hidden path where it leads; a missing one where
// it would lead were it made, however many of its names are missing; a
// relative one not at all. Its read roots are where
// they lead, the artifacts directory first, even before it is made; one
// below a missing directory is left out.
func TestScopeForms(t *testing.T) {
	home, real := workspacetest.LinkedHome(t)
	workspacetest.Mkdir(t, filepath.Join(real, "state"))
	ws, err := workspace.New(real)
	if err != nil {
		t.Fatal(err)
	}
	s := newScope(ws, home+"/state/artifacts", home+"/.gnupg", home+"/skills/x", home+"/.ssh/")
	s.hide(workspace.Places([]string{home + "/.ssh", home + "/.ssh/", home + "/x/../.ssh", home + "/.gnupg", home + "/.aws",
		home + "/.kube", home + "/.config/gh/hosts.yml", real + "/.netrc", "relative"}))
	want := []string{real + "/.ssh", real + "/.ssh", real + "/.ssh", real + "/gpg", real + "/.aws", real + "/.kube",
		real + "/.config/gh/hosts.yml", real + "/.netrc"}
	if d := cmp.Diff(want, s.hidden); d != "" {
		t.Errorf("hidden mismatch (-want +got):\n%s", d)
	}
	reads := []readRoot{{dir: real + "/state/artifacts", artifacts: true}, {dir: real + "/gpg"}, {dir: real + "/.ssh"}}
	if d := cmp.Diff(reads, s.reads, cmp.AllowUnexported(readRoot{})); d != "" {
		t.Errorf("reads mismatch (-want +got):\n%s", d)
	}
}
