package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/sandbox/sandboxtest"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/sandbox"
	"github.com/rein-agent/rein/internal/workspace"
)

// The sandbox is said at the start, recorded in session.started and in
// every command's invocation, and yolo does not turn it off: only
// --sandbox off does, and then the machine is not asked at all.
func TestSandboxIsSaidRecordedAndKeptInYolo(t *testing.T) {
	sandboxtest.Need(t)
	outside := filepath.Join(t.TempDir(), "outside")
	for _, tc := range []struct {
		name    string
		args    []string
		said    string
		mode    string
		written bool
	}{
		{name: "yolo", args: []string{"--permission-mode", "yolo"}, said: "rein: sandbox: workspace-write", mode: "workspace-write"},
		{name: "yolo, read-only", args: []string{"--permission-mode", "yolo", "--sandbox", "read-only"}, said: "rein: sandbox: read-only", mode: "read-only"},
		{name: "yolo, off", args: []string{"--permission-mode", "yolo", "--sandbox", "off"}, said: "rein: sandbox: off; commands run unsandboxed", mode: "off", written: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(outside)
			script := writeScript(t, `{"turns":[`+bashTurn("touch "+outside)+`,{"steps":[{"text":"done"},{"finish":"stop"}]}]}`)
			r := run(t, append(append([]string{"exec"}, tc.args...), "--provider", "scripted", "--script", script, "touch")...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.said) {
				t.Errorf("stderr does not say %q:\n%s", tc.said, r.stderr)
			}
			if _, err := os.Stat(outside); (err == nil) != tc.written {
				t.Errorf("the write outside: %v, want written %v", err, tc.written)
			}
			var status *contract.SandboxStatus
			var spec *contract.SandboxSpec
			for _, e := range events(t, r.state) {
				switch d := e.Data.(type) {
				case *contract.SessionStarted:
					status = d.Sandbox
				case *contract.InvocationStarted:
					spec = d.Sandbox
				}
			}
			switch {
			case tc.mode == "off" && status != nil:
				t.Errorf("session.started sandbox %+v: the machine was asked with the sandbox off", status)
			case tc.mode != "off" && (status == nil || !status.Available):
				t.Errorf("session.started sandbox %+v", status)
			}
			if spec == nil || spec.Mode != tc.mode {
				t.Errorf("tool.invocation.started sandbox %+v, want mode %s", spec, tc.mode)
			}
			if !tc.written && !strings.Contains(r.stderr, "the sandbox refused") {
				t.Errorf("the refusal is not said:\n%s", r.stderr)
			}
		})
	}
}

// A bad --sandbox is bad usage, and a project's file may not turn the
// sandbox off: it is ignored, with a warning.
func TestSandboxFlagAndProjectFile(t *testing.T) {
	r := run(t, "exec", "--sandbox", "loose", "--provider", "scripted", "--script", writeScript(t, `{"turns":[{"steps":[{"finish":"stop"}]}]}`), "x")
	if r.code != 2 || !strings.Contains(r.stderr, `rein: --sandbox "loose": want workspace-write, read-only or off`) {
		t.Errorf("--sandbox loose: exit %d\n%s", r.code, r.stderr)
	}
	work := t.TempDir()
	if err := os.MkdirAll(filepath.Join(work, ".rein"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, ".rein", "config.toml"), []byte("sandbox = \"off\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = reinIn(t, work, []string{"XDG_STATE_HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir()},
		"exec", "--provider", "scripted", "--script", writeScript(t, `{"turns":[{"steps":[{"finish":"stop"}]}]}`), "x")
	if r.code != 0 || !strings.Contains(r.stderr, `config.toml:1: sandbox mode "off" is ignored: a project's file may not take the sandbox away`) ||
		strings.Contains(r.stderr, "sandbox: off") {
		t.Errorf("project sandbox = off: exit %d; want it ignored with a warning, the sandbox kept\n%s", r.code, r.stderr)
	}
}

// A deny_read list of the user's own replaces the credential stores, but
// the sockets that reach outside and rein's own state stay hidden.
func TestOwnDenyReadKeepsTheSocketsHidden(t *testing.T) {
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sessionDir := filepath.Join(t.TempDir(), "sessions", "ses_x")
	box, err := contain(sandboxSetup{mode: sandbox.ModeWorkspaceWrite, denyRead: []string{"/srv/secrets"}}, ws, sessionDir, "/home/u/.config/rein/config.toml")
	if err != nil {
		t.Fatal(err)
	}
	defer box.close()
	want := append([]string{"/srv/secrets", "/home/u/.config/rein", filepath.Dir(sessionDir)}, sandbox.EscapeSockets()...)
	for _, p := range want {
		if !slices.Contains(box.policy.DenyRead, p) {
			t.Errorf("DenyRead %q lacks %s", box.policy.DenyRead, p)
		}
	}
	// rein's own directories are told apart among them: a write there
	// always asks.
	_, own := box.hidden()
	var got []string
	for _, pl := range own {
		got = append(got, pl.Path)
	}
	if d := cmp.Diff([]string{"/home/u/.config/rein", filepath.Dir(sessionDir)}, got); d != "" {
		t.Errorf("own (-want +got):\n%s", d)
	}
}
