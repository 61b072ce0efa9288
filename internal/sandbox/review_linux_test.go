//go:build linux

package sandbox_test

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/creack/pty"
	"github.com/rein-agent/rein/internal/sandbox"
)

// The user's terminals are not the command's: a pty opened outside (the
// terminal rein runs in) can be neither written (a title, a clipboard
// sequence) nor read (what the user types) from inside, while a pty the
// command opens itself still works.
func TestHostPtysUnreachable(t *testing.T) {
	needSandbox(t)
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("cannot open a pty here: %v", err)
	}
	defer master.Close()
	defer slave.Close()
	w := newWorld(t)
	name := slave.Name()
	for _, tc := range []struct{ name, command string }{
		{"write", "printf '\\033]0;pwned\\007' > " + name},
		{"read", ": < " + name},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if out, code := w.run(t, off(w.policy), tc.command); code != 0 {
				t.Fatalf("outside the sandbox: exit %d\n%s", code, out)
			}
			if out, code := w.run(t, w.policy, tc.command); code == 0 {
				t.Errorf("%q inside the sandbox succeeded\n%s", tc.command, out)
			}
		})
	}
	if out, code := w.run(t, w.policy, "command -v python3 >/dev/null || exit 0; python3 -c 'import os; m, s = os.openpty(); os.write(s, b\"ok\"); print(os.read(m, 2).decode())'"); code != 0 {
		t.Errorf("a pty of the command's own: exit %d\n%s", code, out)
	}
}

// A terminal multiplexer's or a display's socket, through which a
// command would have a program run outside the sandbox (tmux new-window,
// an X client), cannot be seen from inside.
func TestTerminalSocketsHidden(t *testing.T) {
	needSandbox(t)
	uid := strconv.Itoa(os.Getuid())
	for _, dir := range []string{"/tmp/tmux-" + uid, "/tmp/.X11-unix"} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Skipf("cannot make %s: %v", dir, err)
				}
				t.Cleanup(func() { os.Remove(dir) })
			}
			sock := filepath.Join(dir, "rein-test-"+strconv.Itoa(os.Getpid()))
			l, err := net.Listen("unix", sock)
			if err != nil {
				t.Skipf("cannot listen on %s: %v", sock, err)
			}
			defer l.Close()
			w := newWorld(t)
			if out, code := w.run(t, off(w.policy), "test -S "+sock); code != 0 {
				t.Fatalf("outside the sandbox: exit %d\n%s", code, out)
			}
			if out, code := w.run(t, w.policy, "test -S "+sock); code == 0 {
				t.Errorf("%s is there inside the sandbox\n%s", sock, out)
			}
		})
	}
}

// With Husky's core.hooksPath (.husky/_), the scripts its hooks run, in
// .husky, are read-only too.
func TestHuskyScriptsReadOnly(t *testing.T) {
	needSandbox(t)
	w := newWorld(t)
	writeFile(t, w.ws+"/.git/config", "[core]\n\thooksPath = .husky/_\n")
	writeFile(t, w.ws+"/.husky/_/pre-commit", ". \"$(dirname \"$0\")/../pre-commit\"\n")
	writeFile(t, w.ws+"/.husky/pre-commit", "npm test\n")
	w.policy.ReadOnly = sandbox.Protected([]string{w.ws})
	if out, code := w.run(t, w.policy, "echo 'touch $OUT/PWNED' >> .husky/pre-commit"); code == 0 {
		t.Errorf("the write to .husky/pre-commit succeeded\n%s", out)
	}
	if got := readFile(t, w.ws+"/.husky/pre-commit"); got != "npm test\n" {
		t.Errorf(".husky/pre-commit = %q", got)
	}
}

// A submodule's gitfile, and the root's when the workspace is a linked
// worktree, cannot be pointed at a crafted repository (whose
// core.fsmonitor the next git status outside would run), nor moved away
// and made again.
func TestGitfilesReadOnly(t *testing.T) {
	needSandbox(t)
	w := newWorld(t)
	writeFile(t, w.ws+"/.gitmodules", "[submodule \"lib\"]\n\tpath = sub\n\turl = ../lib\n")
	writeFile(t, w.ws+"/sub/.git", "gitdir: ../.git/modules/lib\n")
	writeFile(t, w.ws+"/.git/modules/lib/config", "[core]\n\tworktree = ../../../sub\n")
	linked := filepath.Join(filepath.Dir(w.ws), "linked")
	writeFile(t, linked+"/.git", "gitdir: "+w.ws+"/.git\n")
	for _, tc := range []struct{ name, root, file, command string }{
		{"submodule, write", w.ws, w.ws + "/sub/.git", "echo 'gitdir: /tmp/evil' > sub/.git"},
		{"submodule, move", w.ws, w.ws + "/sub/.git", "mv sub elsewhere || mv sub/.git sub/old; mkdir -p sub; echo 'gitdir: /tmp/evil' > sub/.git"},
		{"linked worktree", linked, linked + "/.git", "echo 'gitdir: /tmp/evil' > .git"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := "gitdir: ../.git/modules/lib\n"
			os.RemoveAll(tc.root + "/elsewhere")
			if err := os.MkdirAll(filepath.Dir(tc.file), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, tc.file, before)
			p := *w.policy
			p.Writable = append([]string{tc.root}, sandbox.DefaultWritable()...)
			p.ReadOnly = sandbox.Protected([]string{tc.root})
			cmd := exec.Command("bash", "-c", tc.command)
			cmd.Dir = tc.root
			cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
			if err := sandbox.Wrap(cmd, &p); err != nil {
				t.Fatal(err)
			}
			out, _ := cmd.CombinedOutput()
			if got := readFile(t, tc.file); got != before {
				t.Errorf("%s = %q after %q\n%s", tc.file, got, tc.command, out)
			}
		})
	}
}

// A server's socket at a path of its own under /tmp (tmux -S /tmp/x)
// that was there when the process first made a policy is hidden too.
func TestCustomSocketUnderTmpHidden(t *testing.T) {
	needSandbox(t)
	sock := fmt.Sprintf("/tmp/rein-sock-%d", os.Getpid())
	t.Cleanup(func() { os.Remove(sock) })
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", sock, err)
	}
	defer l.Close()
	found := sandbox.SocketsUnder([]string{"/tmp"}, 2, 4096)
	if !slices.Contains(found, sock) {
		t.Fatalf("the scan of /tmp found %q, not %s", found, sock)
	}
	w := newWorld(t)
	w.policy.DenyRead = append(w.policy.DenyRead, found...)
	if out, code := w.run(t, off(w.policy), "test -S "+sock); code != 0 {
		t.Fatalf("outside the sandbox: exit %d\n%s", code, out)
	}
	if out, code := w.run(t, w.policy, "test -S "+sock); code == 0 {
		t.Errorf("%s is a socket inside the sandbox\n%s", sock, out)
	}
}
