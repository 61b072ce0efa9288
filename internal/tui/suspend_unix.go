//go:build unix

package tui

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// canSuspend reports whether a shell with job control started rein, so
// that a stop (Ctrl-Z) has a shell to come back from with fg: rein's
// process group is then a job of its own, not the session's first. A
// stopped process with nobody to continue it would hang, keys echoed raw
// (tmux new-session "rein", sh -c, ssh host rein).
func canSuspend() bool {
	sid, err := unix.Getsid(0)
	return err == nil && syscall.Getpgrp() != sid
}
