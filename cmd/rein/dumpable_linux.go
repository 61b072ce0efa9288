package main

import "syscall"

// nonDumpable makes rein non-dumpable (prctl PR_SET_DUMPABLE 0): its
// /proc/<pid>/environ, mem and maps then belong to root and a tool's
// process, running as the same user, can neither read them nor ptrace rein
// to get at the keys in its environment and memory. A child inherits it
// until its exec, which makes the child's process dumpable as usual; so a
// child made in a new user namespace (every sandboxed command) would have
// a /proc/<pid>/uid_map of root's, which rein cannot write: sandbox.Start
// makes rein dumpable for just the start of such a command, and every
// sandboxed start must go through it. rein itself keeps reading its own
// /proc/self.
func nonDumpable() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0); errno != 0 {
		return errno
	}
	return nil
}
