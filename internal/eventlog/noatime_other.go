//go:build !linux

package eventlog

import "os"

// OpenReadOnly opens path for reading. Only Linux has a portable way to
// leave the access time alone (see noatime_linux.go).
func OpenReadOnly(path string) (*os.File, error) { return os.Open(path) }
