package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rein-agent/rein/internal/cli"
	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/session"
	"github.com/rein-agent/rein/internal/workspace"
)

// BenchmarkToolRuntime measures what a session's start spends on its
// policy and tools (toolRuntime) once the sandbox is built: most of it is
// resolving the paths the sandbox hides (the default deny-read list and
// rein's own directories), which the policy and the file tools both need.
// The home directory is a temporary one holding a few of the credential
// stores, as a person's does; run with -benchmem for the allocations.
func BenchmarkToolRuntime(b *testing.B) {
	home := b.TempDir()
	for _, d := range []string{".ssh", ".gnupg", ".config/gh", ".config/rein", ".local/state/rein/sessions/s1", "project"} {
		mkdir(b, filepath.Join(home, d))
	}
	for _, f := range []string{".ssh/id_ed25519", ".config/gh/hosts.yml", ".netrc", ".bash_history"} {
		if err := os.WriteFile(filepath.Join(home, f), nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	b.Setenv("HOME", home)
	for _, env := range []string{"XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "GH_CONFIG_DIR", "SSH_AUTH_SOCK", "TMUX", "SCREENDIR"} {
		b.Setenv(env, "")
	}
	ws, err := workspace.New(filepath.Join(home, "project"))
	if err != nil {
		b.Fatal(err)
	}
	s, err := sandboxFrom(cli.Spec{Sandbox: "off"}, &config.Config{})
	if err != nil {
		b.Fatal(err)
	}
	sess := &session.Session{Dir: filepath.Join(home, ".local/state/rein/sessions/s1")}
	box, err := contain(s, ws, sess.Dir, filepath.Join(home, ".config/rein/config.toml"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := box.close(); err != nil {
			b.Error(err)
		}
	})
	set := setup{mode: permission.Default}
	for b.Loop() {
		if _, err := toolRuntime(sess, ws, box, set, nil, nil, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}
