//go:build unix

package builtin

import (
	"errors"
	"syscall"
)

// ownSession puts a command in a new session, which makes it the leader of
// a new process group (pgid = its pid) with no controlling terminal. The
// group is what a timeout, a cancel or the end of the call kills, so
// `sleep 1000 &` cannot outlive the call. The missing terminal is why it is
// a session and not only a group: a program that opens /dev/tty to prompt
// (ssh, sudo, gpg) fails at once instead of stopping on SIGTTIN or reading
// the keys the user types at rein.
func ownSession() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// signalGroup sends sig to every process of the group pgid. A group that
// no longer exists is not an error.
//
// The pgid is the shell's pid, which the kernel does not hand out again
// while any process of the group lives; once the group is empty a new
// process could in theory take the pid and lead a group of its own, but
// only in the moment between the shell's end and this call.
func signalGroup(pgid int, sig syscall.Signal) error {
	err := syscall.Kill(-pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
