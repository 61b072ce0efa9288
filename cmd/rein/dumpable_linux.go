package main

import "syscall"

// nonDumpable makes rein non-dumpable (prctl PR_SET_DUMPABLE 0): its
// /proc/<pid>/environ, mem and maps then belong to root and a tool's
// process, running as the same user, can neither read them nor ptrace rein
// to get at the keys in its environment and memory. It does not reach
// across exec: a tool's own process is dumpable as usual. rein itself keeps
// reading its own /proc/self.
func nonDumpable() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0); errno != 0 {
		return errno
	}
	return nil
}
