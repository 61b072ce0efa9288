//go:build linux

package eventlog

import (
	"errors"
	"os"
	"syscall"
)

// OpenReadOnly opens path for reading without updating its access time,
// so that reading a session (replay, log, sessions list) does not write to
// the disk. Linux allows O_NOATIME only to the owner of the file (or a
// privileged process); for anyone else the open fails with EPERM, and the
// file is opened plainly.
func OpenReadOnly(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOATIME, 0)
	if errors.Is(err, syscall.EPERM) {
		return os.Open(path)
	}
	return f, err
}
