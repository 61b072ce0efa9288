package config

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func writeFile(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestHooks(t *testing.T) {
	dir := t.TempDir()
	user := writeFile(t, filepath.Join(dir, "user.toml"), `max_stop_continues = 3

[[hooks.Stop]]
command = "check-done"

[[hooks.PreToolUse]]
matcher = "Bash"
command = "deny-rm"
timeout = 5

[[hooks.PreToolUse]]
command = "log-all"
`)
	c, err := Load(Paths{User: user})
	if err != nil {
		t.Fatal(err)
	}
	want := []Hook{
		{Event: "PreToolUse", Matcher: "Bash", Command: "deny-rm", Timeout: 5 * time.Second, Source: user + ":6"},
		{Event: "PreToolUse", Command: "log-all", Source: user + ":11"},
		{Event: "Stop", Command: "check-done", Source: user + ":3"},
	}
	if d := cmp.Diff(want, c.Hooks); d != "" {
		t.Errorf("hooks (-want +got):\n%s", d)
	}
	if c.MaxStopContinues != 3 {
		t.Errorf("max_stop_continues = %d, want 3", c.MaxStopContinues)
	}
	if c, err := Load(Paths{}); err != nil || c.MaxStopContinues != DefaultMaxStopContinues {
		t.Errorf("no file: max_stop_continues = %v, %v; want the default", c, err)
	}

	bad := []struct{ name, body, want string }{
		{"unknown event", "[[hooks.BeforeLunch]]\ncommand = \"x\"\n", ":1: there is no hook event \"BeforeLunch\"; the events are PreToolUse"},
		{"bad matcher", "\n[[hooks.PreToolUse]]\nmatcher = \"(\"\ncommand = \"x\"\n", ":2: the PreToolUse hook's matcher \"(\" is not a regular expression"},
		{"no command", "[[hooks.Stop]]\ntimeout = 3\n", ":1: a Stop hook needs a command"},
		{"too many continues", "max_stop_continues = 99\n", ":1: max_stop_continues is 99; want 0 to 10"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, filepath.Join(t.TempDir(), "c.toml"), tt.body)
			if _, err := Load(Paths{User: p}); err == nil || !strings.Contains(err.Error(), p+tt.want) {
				t.Errorf("Load = %v; want an error containing %q", err, p+tt.want)
			}
		})
	}
}

// A project's file may not run hooks or say what is trusted: its tables
// are ignored, with a warning.
func TestProjectMayNotSetHooksOrTrust(t *testing.T) {
	for name, tc := range map[string]struct{ body, warning string }{
		"hooks":   {"model = \"m\"\n[[hooks.PreToolUse]]\ncommand = \"curl evil\"\n", ":2: hooks are ignored: a project's file may not run commands on your behalf"},
		"trusted": {"[trusted]\n\"/x/.claude/settings.json\" = \"sha256:00\"\n", ":1: [trusted] is ignored: only your own config.toml says"},
	} {
		t.Run(name, func(t *testing.T) {
			p := writeFile(t, filepath.Join(t.TempDir(), ".rein", "config.toml"), tc.body)
			c, err := Load(Paths{Project: p})
			if err != nil {
				t.Fatalf("Load = %v; want the table ignored", err)
			}
			if len(c.Hooks) > 0 || len(c.Trusted) > 0 {
				t.Errorf("the project's table applied: hooks %v, trusted %v", c.Hooks, c.Trusted)
			}
			if len(c.Warnings) != 1 || !strings.HasPrefix(c.Warnings[0], p+tc.warning) {
				t.Errorf("warnings %q; want one starting %q", c.Warnings, p+tc.warning)
			}
		})
	}
}

func TestSaveTrust(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "rein", "config.toml")
	settings := filepath.Join(dir, "p", ".claude", "settings.json")
	h1, h2 := TrustHash([]byte("one")), TrustHash([]byte("two"))
	if err := SaveTrust(user, settings, h1); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(user); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the new file: %v, %v; want it 0600", fi, err)
	}
	c, err := Load(Paths{User: user})
	if err != nil {
		t.Fatal(err)
	}
	if !c.IsTrusted(settings, []byte("one")) || c.IsTrusted(settings, []byte("two")) || !c.TrustedBefore(settings) {
		t.Errorf("trusted = %v; want one's hash", c.Trusted)
	}

	// An existing file keeps its comments and other tables; the entry is
	// replaced, not added twice.
	writeFile(t, user, "# mine\nmodel = \"m\" # the model\n\n[trusted]\n"+tomlString(settings)+" = \"sha256:old\"\n\n[permissions]\nallow = [\"read_file\"]\n")
	if err := SaveTrust(user, settings, h2); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "q", ".claude", "settings.json")
	if err := SaveTrust(user, other, h1); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(user)
	want := "# mine\nmodel = \"m\" # the model\n\n[trusted]\n" + tomlString(other) + " = \"" + h1 + "\"\n" +
		tomlString(settings) + " = \"" + h2 + "\"\n\n[permissions]\nallow = [\"read_file\"]\n"
	if d := cmp.Diff(want, string(got)); d != "" {
		t.Errorf("the file (-want +got):\n%s", d)
	}

	// A broken file is left alone.
	writeFile(t, user, "model = \n")
	if err := SaveTrust(user, settings, h1); err == nil {
		t.Error("SaveTrust on a broken file = nil, want an error")
	}
	if got, _ := os.ReadFile(user); string(got) != "model = \n" {
		t.Errorf("the broken file became %q", got)
	}
}

// Concurrent saves leave a file that decodes (each write is atomic), with
// at least the last one's entry.
func TestSaveTrustConcurrent(t *testing.T) {
	user := filepath.Join(t.TempDir(), "config.toml")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if err := SaveTrust(user, "/p"+string(rune('a'+i))+"/.mcp.json", TrustHash([]byte{byte(i)})); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	c, err := Load(Paths{User: user})
	if err != nil {
		t.Fatalf("the file does not load after concurrent saves: %v", err)
	}
	if len(c.Trusted) == 0 {
		t.Error("no entry survived")
	}
}
