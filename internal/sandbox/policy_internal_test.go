package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/workspace/workspacetest"
)

func TestEncodePolicyRoundTrips(t *testing.T) {
	tests := []struct {
		name string
		p    *Policy
	}{
		{"read-only", &Policy{Mode: ModeReadOnly, TempDir: "/tmp/t"}},
		{"everything", &Policy{
			Mode:     ModeWorkspaceWrite,
			Writable: []string{"/w", "/w with spaces", "/a=b", "/new\nline", "/not\xffutf8"},
			ReadOnly: []string{"/w/.git/config", "/w/.git/hooks/"},
			DenyRead: []string{"/home/u/.ssh", "/run/user/1000"},
			Network:  true,
			TempDir:  "/tmp/rein-ses_1",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := encodePolicy(tt.p)
			got, err := decodePolicy(enc)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.p, got); d != "" {
				t.Errorf("decodePolicy(encodePolicy()) mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseHelperArgsRefuses(t *testing.T) {
	good := encodePolicy(&Policy{Mode: ModeReadOnly, TempDir: "/t"})
	tests := []struct {
		name string
		args []string
	}{
		{"nothing", nil},
		{"not base64", []string{"!!"}},
		{"no mode", []string{encodePolicy(&Policy{TempDir: "/t"})}},
		{"off", []string{encodePolicy(&Policy{Mode: ModeOff, TempDir: "/t"})}},
		{"no separator", []string{good, "bash"}},
		{"separator alone", []string{good, "--"}},
		{"lifeline not a number", []string{good, "x", "--", "bash"}},
		{"lifeline a standard descriptor", []string{good, "2", "--", "bash"}},
		{"lifeline twice", []string{good, "3", "3", "--", "bash"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := parseHelperArgs(tt.args); err == nil {
				t.Errorf("parseHelperArgs(%q) = nil error, want one", tt.args)
			}
		})
	}
	h, err := parseHelperArgs([]string{good, "--", "/bin/bash", "-c", "true"})
	if err != nil || !cmp.Equal(h.argv, []string{"/bin/bash", "-c", "true"}) || h.lifeline != -1 {
		t.Errorf("parseHelperArgs() = %+v, %v", h, err)
	}
	h, err = parseHelperArgs([]string{good, "4", "--", "/bin/bash", "-c", "true"})
	if err != nil || !cmp.Equal(h.argv, []string{"/bin/bash", "-c", "true"}) || h.lifeline != 4 {
		t.Errorf("parseHelperArgs() with a lifeline = %+v, %v", h, err)
	}
	if h, err := parseHelperArgs([]string{good, "3"}); err != nil || h.lifeline != 3 || h.argv != nil {
		t.Errorf("parseHelperArgs() of a probe with a lifeline = %+v, %v", h, err)
	}
}

// TestNormalize checks what Wrap hands the helper: paths expanded and
// resolved, missing writable roots made, missing hidden ones dropped,
// relative ones dropped, read-only ones kept
// only under a writable root (missing ones included), and the
// temporary directory made.
func TestNormalize(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	for _, d := range []string{ws + "/.git", base + "/real", base + "/secret"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(base+"/real", base+"/link"); err != nil {
		t.Fatal(err)
	}
	got, err := normalize(&Policy{
		Writable: []string{ws, base + "/link", base + "/missing", "relative"},
		ReadOnly: []string{ws + "/.git/config", ws + "/.git/hooks/", base + "/elsewhere/x", base + "/link/.rein/"},
		DenyRead: []string{base + "/secret", base + "/gone"},
		TempDir:  base + "/tmp/made",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := &Policy{
		Mode:     ModeWorkspaceWrite,
		Writable: []string{ws, base + "/real", base + "/missing"},
		ReadOnly: []string{ws + "/.git/config", ws + "/.git/hooks/", base + "/real/.rein/"},
		DenyRead: []string{base + "/secret"},
		TempDir:  base + "/tmp/made",
	}
	// The sockets under this machine's /tmp are added to every policy.
	got.DenyRead = slices.DeleteFunc(got.DenyRead, func(p string) bool { return slices.Contains(tmpSockets(), p) })
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("normalize() mismatch (-want +got):\n%s", d)
	}
	if fi, err := os.Stat(want.TempDir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("the temporary directory: %v, %v", fi, err)
	}
	if _, err := normalize(&Policy{}); err == nil {
		t.Error("normalize() of a policy without a temporary directory: nil error")
	}
}

// existing keeps the paths that exist, where they lead, once each: a
// path through a linked home directory, a link to a directory (with a
// trailing slash too), a file; not a dangling link, a missing path, one
// below a missing directory, nor a file named with a trailing slash
// (which names a directory).
func TestExisting(t *testing.T) {
	home, real := workspacetest.LinkedHome(t)
	got := existing([]string{home + "/.ssh", home + "/.ssh/", home + "/.gnupg/", home + "/.gnupg", home + "/.aws", home + "/.kube",
		home + "/.config/gh/hosts.yml", home + "/.netrc/", home + "/.netrc"})
	if d := cmp.Diff([]string{real + "/.ssh", real + "/gpg", real + "/.netrc"}, got); d != "" {
		t.Errorf("existing() mismatch (-want +got):\n%s", d)
	}
	if got := existing([]string{home + "/.netrc/", real + "/.netrc/"}); len(got) > 0 {
		t.Errorf("existing() of a file named with a trailing slash = %q, want none", got)
	}
}

// BenchmarkNormalize measures what every sandboxed command's Wrap spends
// making its policy: the default writable roots, protected and hidden
// paths of a workspace with a repository, resolved through their links,
// in a temporary home directory holding a few of the credential stores
// (most of the hidden paths are missing, as on most machines). Run with
// -benchmem for the allocations.
func BenchmarkNormalize(b *testing.B) {
	home := b.TempDir()
	for _, d := range []string{".ssh", ".gnupg", ".config/gh", ".config/rein", ".local/state/rein/sessions", ".cache", "go/pkg/mod", "project/.git/hooks"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for _, f := range []string{".ssh/id_ed25519", ".config/gh/hosts.yml", ".netrc", ".bash_history"} {
		if err := os.WriteFile(filepath.Join(home, f), nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	b.Setenv("HOME", home)
	for _, env := range []string{"XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "GH_CONFIG_DIR",
		"SSH_AUTH_SOCK", "TMUX", "SCREENDIR", "GOCACHE", "GOMODCACHE", "GOPATH"} {
		b.Setenv(env, "")
	}
	ws := filepath.Join(home, "project")
	p := &Policy{
		Writable: append([]string{ws}, DefaultWritable()...), ReadOnly: Protected([]string{ws}),
		DenyRead: DefaultDenyRead(), TempDir: b.TempDir(),
	}
	for b.Loop() {
		if _, err := normalize(p); err != nil {
			b.Fatal(err)
		}
	}
}

func TestGitConfigValue(t *testing.T) {
	tests := []struct {
		name, text, want string
		found            bool
	}{
		{"plain", "[core]\n\thooksPath = .husky/_\n", ".husky/_", true},
		{"case", "[Core]\nHOOKSPATH=hooks\n", "hooks", true},
		{"last wins", "[core]\nhooksPath = a\n[user]\nname = x\n[core]\nhooksPath = b\n", "b", true},
		{"quoted with comment", "[core]\nhooksPath = \"my hooks\" # why\n", "my hooks", true},
		{"escape", "[core]\nhooksPath = a\\\"b ; c\n", "a\"b", true},
		{"other section", "[foo]\nhooksPath = x\n", "", false},
		{"subsection", "[core \"x\"]\nhooksPath = x\n", "", false},
		{"boolean", "[core]\nhooksPath\n", "", false},
		{"header and key on a line", "[core] hooksPath = h\n", "h", true},
		{"commented", "[core]\n# hooksPath = x\n", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := gitConfigValue([]byte(tt.text), "core", "hookspath")
			if got != tt.want || found != tt.found {
				t.Errorf("gitConfigValue(%q) = %q, %v; want %q, %v", tt.text, got, found, tt.want, tt.found)
			}
		})
	}
}
