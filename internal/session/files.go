package session

import (
	"fmt"
	"io"
	"os"

	"github.com/rein-agent/rein/internal/eventlog"
)

// openRead opens path for reading without updating its access time where
// the system allows, so that looking at a session changes nothing at all.
func openRead(path string) (*os.File, error) { return eventlog.OpenReadOnly(path) }

// readDir lists dir, leaving its access time alone where the system
// allows (as openRead).
func readDir(dir string) ([]os.DirEntry, error) {
	d, err := openRead(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(-1)
}

// copyFile makes dst a copy of src: a hard link when the file system
// allows one (artifacts are never modified once written), else a copy,
// synced.
func copyFile(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := openRead(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return nil
}
