package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/sandbox"
)

func TestExplain(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	ws, out, tmp := home+"/ws", home+"/outside", home+"/tmp"
	for _, d := range []string{ws + "/.git/hooks", out, tmp, home + "/.ssh"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, home+"/.ssh/id_ed25519", "key")
	p := &sandbox.Policy{
		Writable: []string{ws}, ReadOnly: sandbox.Protected([]string{ws}),
		DenyRead: []string{"~/.ssh"}, TempDir: tmp,
	}
	const (
		netOff   = "the sandbox refused a network connection: the network is off (set network = true in [sandbox] or pass --network)"
		loopback = "the sandbox refused a network connection to a server outside it: the network is off (set network = true in [sandbox] or pass --network); the sandbox's loopback (127.0.0.1) is its own"
	)
	outside := func(path string) string {
		return "the sandbox refused a write to " + path + ": outside the writable roots (add the directory to writable_roots in [sandbox], or pass --add-dir)"
	}
	tests := []struct {
		name   string
		policy *sandbox.Policy
		output string
		code   int
		want   string
	}{
		{"bash redirection outside", p, "bash: line 1: " + out + "/x: Permission denied\n", 1, outside("~/outside/x")},
		{"touch outside", p, "touch: cannot touch '" + out + "/x': Permission denied\n", 1, outside("~/outside/x")},
		{"go outside", p, "open " + out + "/cover.out: permission denied\n", 1, outside("~/outside/cover.out")},
		{"python outside", p, "PermissionError: [Errno 13] Permission denied: '" + out + "/x.py'\n", 1, outside("~/outside/x.py")},
		{"hook", p, "bash: line 1: .git/hooks/pre-commit: Read-only file system\n", 1,
			"the sandbox refused a write to .git/hooks/pre-commit: .git/hooks is read-only inside the sandbox"},
		{"config, absolute", p, "bash: " + ws + "/.git/config: Read-only file system\n", 1,
			"the sandbox refused a write to " + tildePath(home, ws) + "/.git/config: .git/config is read-only inside the sandbox"},
		{"config replaced", p, "sed: cannot rename ./.git/sedX1: Device or resource busy\n", 4,
			"the sandbox refused to replace a file in .git: .git/config is read-only inside the sandbox"},
		{"rein config", p, "mkdir: cannot create directory ‘.rein/x’: Read-only file system\n", 1,
			"the sandbox refused a write to .rein/x: .rein is read-only inside the sandbox"},
		{"ssh key", p, "cat: " + home + "/.ssh/id_ed25519: Permission denied\n", 1,
			"the sandbox refused a read of ~/.ssh/id_ed25519: credential stores and rein's own files are hidden (deny_read in [sandbox])"},
		{"loopback", p, "bash: connect: Connection refused\nbash: line 1: /dev/tcp/127.0.0.1/8080: Connection refused\n", 1, loopback},
		{"curl", p, "curl: (6) Could not resolve host: example.com\n", 6, netOff},
		{"go get", p, "dial tcp: lookup proxy.golang.org on 10.0.0.2:53: dial udp 10.0.0.2:53: connect: network is unreachable\n", 1, netOff},
		{"python dns", p, "socket.gaierror: [Errno -3] Temporary failure in name resolution\n", 1, netOff},
		{"unshare", p, "unshare: write failed /proc/self/uid_map: Operation not permitted\n", 1,
			"the sandbox refused access to /proc/self/uid_map: inside the sandbox the kernel's files (/proc, /sys, /dev) are not writable, nor other processes' readable"},
		{"sysfs", p, "bash: line 1: /sys/kernel/mm/transparent_hugepage/enabled: Permission denied\n", 1,
			"the sandbox refused access to /sys/kernel/mm/transparent_hugepage/enabled: inside the sandbox the kernel's files (/proc, /sys, /dev) are not writable, nor other processes' readable"},
		{"sudo", p, "sudo: The \"no new privileges\" flag is set, which prevents sudo from running as root.\n", 1,
			"the sandbox refused sudo: no program can gain privileges inside the sandbox"},
		{"read-only mode", &sandbox.Policy{Mode: sandbox.ModeReadOnly, Writable: []string{ws}, TempDir: tmp},
			"bash: line 1: notes.txt: Permission denied\nbash: " + ws + "/notes.txt: Permission denied\n", 1,
			"the sandbox refused a write to notes.txt: the sandbox is read-only; only the temporary directory ($TMPDIR) is writable (sandbox = \"workspace-write\" allows writes in the workspace)\n" +
				"the sandbox refused a write to " + tildePath(home, ws) + "/notes.txt: the sandbox is read-only; only the temporary directory ($TMPDIR) is writable (sandbox = \"workspace-write\" allows writes in the workspace)"},
		{"several, deduplicated", p, "x: " + out + "/a: Permission denied\nx: " + out + "/a: Permission denied\n" +
			"curl: (6) Could not resolve host: a\n", 1, outside("~/outside/a") + "\n" + netOff},
		{"succeeded", p, "bash: " + out + "/x: Permission denied\n", 0, ""},
		{"off", &sandbox.Policy{Mode: sandbox.ModeOff}, "bash: " + out + "/x: Permission denied\n", 1, ""},
		{"nil", nil, "bash: " + out + "/x: Permission denied\n", 1, ""},
		{"inside the writable roots", p, "bash: notes.txt: Permission denied\nrm: cannot remove '" + ws + "/x': Permission denied\n", 1, ""},
		{"network on", &sandbox.Policy{Writable: []string{ws}, TempDir: tmp, Network: true}, "curl: (6) Could not resolve host: example.com\n", 6, ""},
		{"no path", p, "error: permission denied\n", 1, ""},
		{"ordinary failure", p, "--- FAIL: TestMean (0.00s)\nFAIL\n", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, sandbox.Explain(tt.policy, tt.output, tt.code)); d != "" {
				t.Errorf("Explain(%q) mismatch (-want +got):\n%s", tt.output, d)
			}
		})
	}
}

// TestExplainBounded checks that a flood of denials gives a bounded
// answer.
func TestExplainBounded(t *testing.T) {
	dir := t.TempDir()
	var out strings.Builder
	for i := range 50 {
		out.WriteString("touch: cannot touch '" + dir + "/x" + strings.Repeat("y", i) + "': Permission denied\n")
	}
	got := sandbox.Explain(&sandbox.Policy{Writable: []string{t.TempDir()}, TempDir: t.TempDir()}, out.String(), 1)
	lines := strings.Split(got, "\n")
	if len(lines) != 6 || lines[5] != "the sandbox refused 45 more like these" {
		t.Errorf("Explain() = %d lines ending %q, want 5 sentences and a count of the rest", len(lines), lines[len(lines)-1])
	}
}

// TestExplainOwnPermissions checks that a permission error the user
// would get outside the sandbox too is not put on the sandbox.
func TestExplainOwnPermissions(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root may write any file: no permission error of its own to tell apart")
	}
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o555); err != nil {
		t.Fatal(err)
	}
	p := &sandbox.Policy{Writable: []string{t.TempDir()}, TempDir: t.TempDir()}
	if got := sandbox.Explain(p, "touch: cannot touch '"+locked+"/x': Permission denied\n", 1); got != "" {
		t.Errorf("Explain() = %q, want nothing for a directory the user cannot write anyway", got)
	}
}

// tildePath writes p, which lies in home, with ~.
func tildePath(home, p string) string { return "~" + strings.TrimPrefix(p, home) }
