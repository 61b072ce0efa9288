//go:build !linux

package checkpoint

import (
	"os"
	"syscall"
)

// lstat is what a Take needs of os.Lstat.
func lstat(path string) stat {
	fi, err := os.Lstat(path)
	if err != nil {
		return stat{}
	}
	s := stat{ok: true, mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.ino = uint64(st.Ino)
	}
	return s
}
