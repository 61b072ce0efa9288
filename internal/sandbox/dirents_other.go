//go:build !linux

package sandbox

import (
	"io/fs"
	"os"
)

// dirReader reads directories for the look for sockets (socketsUnder)
// with os.ReadDir: here rein has no sandbox to hide the sockets in, and
// only Linux's reader saves the allocations per entry. The zero
// value is not ready for use: make one with newDirReader. It is not
// safe for concurrent use.
type dirReader struct{}

// newDirReader returns a dirReader.
func newDirReader() *dirReader { return &dirReader{} }

// each calls fn with the name and the type of each entry of dir, in the
// order of their names, until fn returns false. The type is fs.ModeDir,
// fs.ModeSocket, or 0 for any other (a symbolic link is not followed).
// name is valid only during the call. A directory that cannot be read
// gives fewer entries, and no error. Unless follow, dir itself is not
// read when it is a symbolic link (what Linux's reader does is checked
// here, beforehand).
func (*dirReader) each(dir string, follow bool, fn func(name []byte, typ fs.FileMode) bool) {
	if !follow {
		if fi, err := os.Lstat(dir); err != nil || fi.Mode()&fs.ModeSymlink != 0 {
			return
		}
	}
	entries, _ := os.ReadDir(dir) // what was read before an error is kept
	for _, e := range entries {
		if !fn([]byte(e.Name()), e.Type()&(fs.ModeDir|fs.ModeSocket)) {
			return
		}
	}
}
