package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/workspace/workspacetest"
)

// resolverTree makes, under a temporary directory, directories, files and
// links of every kind a path may meet on its way (to a directory, to a
// file, relative and absolute, to a link, dangling, in a loop, to the
// root, through ".."), and returns the directory and every path three
// names deep below it over those names, the missing ones and those
// through a file included.
func resolverTree(t *testing.T) (string, []string) {
	base := workspacetest.RealTemp(t)
	workspacetest.Mkdir(t, filepath.Join(base, "d", "sub"))
	workspacetest.Mkdir(t, filepath.Join(base, "e"))
	for _, f := range []string{"f", "d/f", "d/sub/f"} {
		if err := os.WriteFile(filepath.Join(base, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"ld":      filepath.Join(base, "d"), // absolute, to a directory
		"lf":      "f",                      // relative, to a file
		"lr":      "d/../e",                 // relative, through ".."
		"ll":      "ld",                     // to a link
		"dangle":  "missing/x",              // to nothing
		"loop":    "loop2",                  // in a loop
		"loop2":   "loop",
		"root":    "/",
		"d/up":    "..", // back to base
		"d/sub/l": "../../e",
	} {
		workspacetest.Symlink(t, target, filepath.Join(base, link))
	}
	names := []string{"d", "e", "f", "sub", "missing", "ld", "lf", "lr", "ll", "dangle", "loop", "root", "up", "l", "tmp"}
	paths := []string{base, "/"}
	level := []string{base}
	for range 3 {
		var next []string
		for _, dir := range level {
			for _, n := range names {
				next = append(next, filepath.Join(dir, n))
			}
		}
		paths = append(paths, next...)
		level = next
	}
	return base, paths
}

// A Resolver gives, for every path, the answer filepath.EvalSymlinks
// gives, links of every kind, missing names and names below a file
// included, whatever order the paths come in (what it remembers of one
// never changes the answer for another).
func TestResolverAnswersAsEvalSymlinks(t *testing.T) {
	base, paths := resolverTree(t)
	want := make([]string, len(paths))
	resolved := 0
	for i, p := range paths {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			want[i] = real
			resolved++
		}
	}
	if resolved == 0 || resolved == len(paths) {
		t.Fatalf("%d of %d paths resolve: the tree tests nothing", resolved, len(paths))
	}
	for _, order := range []string{"forward", "backward"} {
		var r Resolver
		got := make([]string, len(paths))
		for k := range paths {
			i := k
			if order == "backward" {
				i = len(paths) - 1 - k
			}
			got[i] = r.Real(paths[i])
		}
		for i, p := range paths {
			if got[i] != want[i] {
				t.Errorf("%s: Real(%s) = %q, want %q (EvalSymlinks)", order, p, got[i], want[i])
			}
		}
	}
	// A path that is not clean, or relative, is EvalSymlinks's: a ".."
	// after a link is taken after the link.
	t.Chdir(base)
	var r Resolver
	for _, p := range []string{base + "/d/sub/l/../f", base + "/ld/../f", base + "//d", "d/sub/l", "ld/../d", "missing"} {
		want, _ := filepath.EvalSymlinks(p)
		if got := r.Real(p); got != want {
			t.Errorf("Real(%s) = %q, want %q (EvalSymlinks)", p, got, want)
		}
	}
}

// Places gives each path cleaned, where it leads and where it would lead
// were it made (below a link, however many names are missing), in
// order; a relative one is kept, unresolved.
func TestPlaces(t *testing.T) {
	base, _ := resolverTree(t)
	got := Places([]string{
		base + "/ld/sub/", base + "/ld/new", base + "/missing/x", base + "/d/sub/l/../f", "rel/x", base + "/ld/sub/f",
		base + "/ld/m1/m2", base + "/dangle",
	})
	want := []Place{
		{Path: base + "/ld/sub", Real: base + "/d/sub", Reach: base + "/d/sub"},
		{Path: base + "/ld/new", Real: "", Reach: base + "/d/new"},
		{Path: base + "/missing/x", Real: "", Reach: base + "/missing/x"},
		{Path: base + "/d/sub/f", Real: base + "/d/sub/f", Reach: base + "/d/sub/f"},
		{Path: "rel/x"},
		{Path: base + "/ld/sub/f", Real: base + "/d/sub/f", Reach: base + "/d/sub/f"},
		{Path: base + "/ld/m1/m2", Real: "", Reach: base + "/d/m1/m2"}, // two levels missing, below a link
		{Path: base + "/dangle", Real: "", Reach: base + "/dangle"},    // a dangling link: where it stands
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Places() mismatch (-want +got):\n%s", d)
	}
}

// BenchmarkPlaces resolves the default hidden paths of a home directory
// holding a few credential stores, together (Places) and one by one with
// EvalSymlinks and EvalSymlinks of the directory, as each consumer did
// before: -benchmem shows the allocations.
func BenchmarkPlaces(b *testing.B) {
	home := b.TempDir()
	for _, d := range []string{".ssh", ".gnupg", ".config/gh", ".config/rein", ".local/state/rein/sessions"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			b.Fatal(err)
		}
	}
	var paths []string
	for _, p := range []string{".ssh", ".aws", ".config/gcloud", ".azure", ".kube", ".docker/config.json", ".netrc", ".gnupg",
		".git-credentials", ".config/gh/hosts.yml", ".config/git/credentials", ".npmrc", ".cargo/credentials.toml",
		".cargo/credentials", ".pypirc", ".config/hub", ".terraform.d/credentials.tfrc.json", ".password-store", ".vault-token",
		".claude/.credentials.json", ".config/containers/auth.json", ".bash_history", ".zsh_history", ".config/rein",
		".local/state/rein"} {
		paths = append(paths, filepath.Join(home, p))
	}
	paths = append(paths, "/tmp/tmux-0", "/tmp/.X11-unix", "/tmp/.ICE-unix", "/run/screen", "/var/run/screen",
		"/run/dbus/system_bus_socket", "/var/run/docker.sock", "/run/docker.sock")
	b.Run("Places", func(b *testing.B) {
		for b.Loop() {
			Places(paths)
		}
	})
	b.Run("EvalSymlinks", func(b *testing.B) {
		for b.Loop() {
			for _, p := range paths {
				if _, err := filepath.EvalSymlinks(p); err != nil {
					_, _ = filepath.EvalSymlinks(filepath.Dir(p)) // the result is not needed, only its cost
				}
			}
		}
	})
}

// Reach cleans what it is given: a trailing slash on a missing name does
// not repeat the name.
func TestReachCleans(t *testing.T) {
	base, _ := resolverTree(t)
	var r Resolver
	for in, want := range map[string]string{
		base + "/m/":        base + "/m",
		base + "/ld/m1/m2/": base + "/d/m1/m2",
		base + "/ld/./x/..": base + "/d",
		"/":                 "/",
	} {
		if got := r.Reach(in); got != want {
			t.Errorf("Reach(%q) = %q, want %q", in, got, want)
		}
	}
}
