//go:build linux

package checkpoint

import (
	"io/fs"
	"syscall"
)

// lstat is os.Lstat without its FileInfo: a Take makes ten thousand.
func lstat(path string) stat {
	var st syscall.Stat_t
	for {
		err := syscall.Lstat(path, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return stat{}
		}
		break
	}
	mode := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		mode |= fs.ModeDir
	case syscall.S_IFREG:
	case syscall.S_IFLNK:
		mode |= fs.ModeSymlink
	default:
		mode |= fs.ModeIrregular
	}
	return stat{ok: true, mode: mode, size: st.Size, mtime: st.Mtim.Nano(), ino: st.Ino}
}
