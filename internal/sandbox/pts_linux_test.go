//go:build linux

package sandbox_test

import (
	"testing"

	"github.com/creack/pty"
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
