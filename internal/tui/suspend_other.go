//go:build !unix

package tui

// canSuspend reports whether rein can be stopped as a shell's job: not
// here.
func canSuspend() bool { return false }
