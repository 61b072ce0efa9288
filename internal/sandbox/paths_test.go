package sandbox_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/sandbox"
	"github.com/rein-agent/rein/internal/session"
)

// writeFile writes text to path, making its directory.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestParseMode(t *testing.T) {
	tests := []struct {
		in      string
		want    sandbox.Mode
		wantErr bool
	}{
		{"", sandbox.ModeWorkspaceWrite, false},
		{"workspace-write", sandbox.ModeWorkspaceWrite, false},
		{" read-only ", sandbox.ModeReadOnly, false},
		{"off", sandbox.ModeOff, false},
		{"none", "", true},
		{"Off", "", true},
	}
	for _, tt := range tests {
		got, err := sandbox.ParseMode(tt.in)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ParseMode(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestExpand(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	got := sandbox.Expand([]string{"~", "~/.cache", "~/x/../y/", "/abs//p/", "relative", "", "~other", "/abs/p/", "/"})
	want := []string{"/home/u", "/home/u/.cache", "/home/u/y/", "/abs/p/", "/"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Expand() mismatch (-want +got):\n%s", d)
	}
}

func TestDefaultWritable(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"defaults", nil, []string{"~/.cache/go-build", "~/go/pkg/mod", "~/.cache", "~/.npm", "~/.cargo/registry", "~/.cargo/git"}},
		{"go variables", map[string]string{"GOCACHE": "/c/go", "GOMODCACHE": "/m", "XDG_CACHE_HOME": "/xdg"},
			[]string{"/c/go", "/m", "~/.cache", "/xdg", "~/.npm", "~/.cargo/registry", "~/.cargo/git"}},
		{"gopath list", map[string]string{"GOPATH": "/g1:/g2", "GOCACHE": "off"},
			[]string{"/g1/pkg/mod", "~/.cache", "~/.npm", "~/.cargo/registry", "~/.cargo/git"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", "/home/u")
			for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "XDG_CACHE_HOME"} {
				t.Setenv(k, tt.env[k])
			}
			if d := cmp.Diff(tt.want, sandbox.DefaultWritable()); d != "" {
				t.Errorf("DefaultWritable() mismatch (-want +got):\n%s", d)
			}
		})
	}
}

// TestDefaultDenyRead checks the credential stores, and that rein's own
// directories are where internal/config and internal/session keep them.
func TestDefaultDenyRead(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, xdg := range []string{"", "/xdg"} {
		t.Setenv("XDG_CONFIG_HOME", xdg)
		t.Setenv("XDG_STATE_HOME", xdg)
		t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
		t.Setenv("SSH_AUTH_SOCK", "/tmp/ssh-x/agent.1")
		t.Setenv("TMUX", "/var/tmux-sock/default,1234,0")
		t.Setenv("TMUX_TMPDIR", "")
		t.Setenv("SCREENDIR", "")
		got := sandbox.Expand(sandbox.DefaultDenyRead())
		uid := strconv.Itoa(os.Getuid())
		for _, want := range []string{
			home + "/.ssh", home + "/.aws", home + "/.config/gcloud", home + "/.azure", home + "/.kube",
			home + "/.docker/config.json", home + "/.netrc", home + "/.gnupg", home + "/.git-credentials",
			home + "/.config/gh/hosts.yml", home + "/.config/git/credentials", home + "/.npmrc",
			home + "/.cargo/credentials.toml", home + "/.cargo/credentials", home + "/.pypirc", home + "/.config/hub",
			home + "/.terraform.d/credentials.tfrc.json",
			"/run/user/1000", "/tmp/ssh-x/agent.1", "/run/dbus/system_bus_socket", "/var/run/docker.sock",
			"/tmp/tmux-" + uid, "/var/tmux-sock", "/tmp/.X11-unix", "/tmp/.ICE-unix", "/run/screen", "/var/run/screen",
		} {
			if !slices.Contains(got, want) {
				t.Errorf("XDG %q: DefaultDenyRead() = %q, want it to hold %s", xdg, got, want)
			}
		}
		userConfig := filepath.Dir(config.DefaultPaths(t.TempDir()).User)
		sessions, err := session.DefaultRoot()
		if err != nil {
			t.Fatal(err)
		}
		for _, dir := range []string{userConfig, sessions} {
			if !slices.ContainsFunc(got, func(h string) bool { return dir == h || filepath.Dir(dir) == h }) {
				t.Errorf("XDG %q: DefaultDenyRead() = %q, want it to hide %s", xdg, got, dir)
			}
		}
	}
}

func TestProtected(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	tests := []struct {
		name  string
		setup func(t *testing.T, root string)
		want  func(root string) []string
	}{
		{"no repository", func(*testing.T, string) {}, func(r string) []string { return []string{r + "/.rein/"} }},
		{"repository", func(t *testing.T, r string) {
			writeFile(t, r+"/.git/config", "[core]\n\tbare = false\n")
		}, func(r string) []string {
			g := r + "/.git"
			return []string{g + "/config", g + "/config.worktree", g + "/commondir", g + "/hooks/", r + "/.rein/"}
		}},
		{"submodules and a relative hooksPath", func(t *testing.T, r string) {
			writeFile(t, r+"/.git/config", "[core]\n\thooksPath = .husky/_\n")
			writeFile(t, r+"/.git/modules/lib/config", "")
			writeFile(t, r+"/.git/modules/lib/modules/deep/config", "")
			writeFile(t, r+"/.git/modules/a/b/config", "") // a name with a slash
		}, func(r string) []string {
			g := r + "/.git"
			return []string{g + "/config", g + "/config.worktree", g + "/commondir", g + "/hooks/",
				g + "/modules/a/b/config", g + "/modules/a/b/config.worktree", g + "/modules/a/b/commondir", g + "/modules/a/b/hooks/",
				g + "/modules/lib/config", g + "/modules/lib/config.worktree", g + "/modules/lib/commondir", g + "/modules/lib/hooks/",
				g + "/modules/lib/modules/deep/config", g + "/modules/lib/modules/deep/config.worktree", g + "/modules/lib/modules/deep/commondir", g + "/modules/lib/modules/deep/hooks/",
				r + "/.husky/_/", r + "/.husky/", r + "/.rein/"}
		}},
		{"linked worktree, worktree config wins", func(t *testing.T, r string) {
			main := filepath.Dir(r) + "/main"
			writeFile(t, main+"/.git/config", "[core]\n\thooksPath = ~/hooks\n")
			writeFile(t, main+"/.git/worktrees/wt/commondir", "../..\n")
			writeFile(t, main+"/.git/worktrees/wt/config.worktree", "[core]\n\thooksPath = /abs/hooks\n")
			writeFile(t, r+"/.git", "gitdir: ../main/.git/worktrees/wt\n")
		}, func(r string) []string {
			main := filepath.Dir(r) + "/main/.git"
			wt := main + "/worktrees/wt"
			return []string{r + "/.git", main + "/config", wt + "/config.worktree", main + "/config.worktree", wt + "/commondir",
				main + "/hooks/", "/abs/hooks/", r + "/.rein/"}
		}},
		{"submodules' gitfiles", func(t *testing.T, r string) {
			writeFile(t, r+"/.git/config", "")
			writeFile(t, r+"/.gitmodules", "[submodule \"lib\"]\n\tpath = sub\n[submodule \"old\"]\n\tpath = \"vendor/old\"\n[submodule \"x\"]\n\tpath = ../escape\n")
			writeFile(t, r+"/vendor/old/.git/config", "")
		}, func(r string) []string {
			g := r + "/.git"
			return []string{r + "/sub/.git", r + "/vendor/old/.git/config", r + "/vendor/old/.git/config.worktree", r + "/vendor/old/.git/commondir", r + "/vendor/old/.git/hooks/",
				g + "/config", g + "/config.worktree", g + "/commondir", g + "/hooks/", r + "/.rein/"}
		}},
		{"global hooksPath", func(t *testing.T, r string) {
			writeFile(t, r+"/.git/config", "")
			writeFile(t, home+"/.gitconfig", "[core]\nhooksPath = ~/.githooks\n")
			t.Cleanup(func() { os.Remove(home + "/.gitconfig") })
		}, func(r string) []string {
			g := r + "/.git"
			return []string{g + "/config", g + "/config.worktree", g + "/commondir", g + "/hooks/", home + "/.githooks/", r + "/.rein/"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "ws")
			if err := os.MkdirAll(root, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, root)
			if d := cmp.Diff(tt.want(root), sandbox.Protected([]string{root})); d != "" {
				t.Errorf("Protected() mismatch (-want +got):\n%s", d)
			}
		})
	}
}

// TestHooksDirs checks where core.hooksPath is read from, in git's order,
// and that Husky's .husky/_ brings its parent.
func TestHooksDirs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	tests := []struct {
		name  string
		files map[string]string // under the root
		want  func(root string) []string
	}{
		{"no repository", nil, func(string) []string { return nil }},
		{"not set", map[string]string{".git/config": "[core]\n\tbare = false\n"}, func(string) []string { return nil }},
		{"husky", map[string]string{".git/config": "[core]\n\thooksPath = .husky/_\n"},
			func(r string) []string { return []string{r + "/.husky/_", r + "/.husky"} }},
		{"worktree config wins", map[string]string{
			".git/config":          "[core]\n\thooksPath = .husky/_\n",
			".git/config.worktree": "[core]\n\thooksPath = \"hooks\" # mine\n",
		}, func(r string) []string { return []string{r + "/hooks"} }},
		{"a gitfile", map[string]string{
			".git":                  "gitdir: elsewhere/.git\n",
			"elsewhere/.git/config": "[core]\n\thooksPath = ~/h\n",
		}, func(string) []string { return []string{home + "/h"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range tt.files {
				writeFile(t, filepath.Join(root, name), text)
			}
			if d := cmp.Diff(tt.want(root), sandbox.HooksDirs(root)); d != "" {
				t.Errorf("HooksDirs() mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestRecord(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	ww := &sandbox.Policy{Writable: []string{"/w", "~/.cache"}, ReadOnly: []string{"/w/.git/hooks/"}, DenyRead: []string{"~/.ssh"}, TempDir: "/tmp/t"}
	ro := *ww
	ro.Mode, ro.Network = sandbox.ModeReadOnly, true
	tests := []struct {
		name string
		p    *sandbox.Policy
		want *contract.SandboxSpec
	}{
		{"none", nil, nil},
		{"off", &sandbox.Policy{Mode: sandbox.ModeOff, Writable: []string{"/w"}}, &contract.SandboxSpec{Mode: "off"}},
		{"workspace-write", ww, &contract.SandboxSpec{Mode: "workspace-write", Writable: []string{"/w", "/home/u/.cache", "/tmp/t"},
			ReadOnly: []string{"/w/.git/hooks/"}, DenyRead: []string{"/home/u/.ssh"}}},
		{"read-only", &ro, &contract.SandboxSpec{Mode: "read-only", Writable: []string{"/tmp/t"}, DenyRead: []string{"/home/u/.ssh"}, Network: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.p.Record()
			if got != nil {
				// The sockets under this machine's /tmp are added to every policy.
				got.DenyRead = slices.DeleteFunc(got.DenyRead, func(p string) bool { return slices.Contains(sandbox.TmpSockets(), p) })
				if len(got.DenyRead) == 0 {
					got.DenyRead = nil
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Record() mismatch (-want +got):\n%s", d)
			}
		})
	}
	st := sandbox.Status{Available: false, Reason: "no Landlock"}
	if d := cmp.Diff(&contract.SandboxStatus{Reason: "no Landlock"}, st.Record()); d != "" {
		t.Errorf("Status.Record() mismatch (-want +got):\n%s", d)
	}
}
