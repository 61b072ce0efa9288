package session

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

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

// writeAtomic replaces path with b: a temporary file beside it, synced and
// renamed over it, and the directory synced, so a crash leaves the old
// contents or the new ones.
func writeAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp) // the write error is the one to report
		return err
	}
	return syncDir(dir)
}

// syncDir fsyncs a directory, making the entries created in it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
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
