//go:build !linux

package main

// nonDumpable does nothing where rein knows no way to keep a process of the
// same user out of its memory.
func nonDumpable() error { return nil }
