package sandbox

import (
	"encoding/binary"
	"errors"
	"io/fs"

	"golang.org/x/sys/unix"
)

// dirReader reads directories for the look for sockets (socketsUnder)
// with getdents64 into one buffer, which every directory it reads
// reuses: it allocates nothing per entry, where os.ReadDir allocates a
// DirEntry and its name for each and sorts them, a few hundred
// kilobytes of garbage for a crowded /tmp. The zero value is not ready
// for use: make one with newDirReader. It is not safe for concurrent
// use.
type dirReader struct {
	buf []byte
}

// newDirReader returns a dirReader with a buffer the size os.ReadDir
// reads with: a crowded /tmp takes a few calls.
func newDirReader() *dirReader {
	return &dirReader{buf: make([]byte, 8<<10)}
}

// each calls fn with the name and the type of each entry of dir but .
// and .., in the order the directory keeps them, until fn returns false.
// Unless follow, dir itself is not followed when it is a symbolic link
// (it gives no entries).
// The type is fs.ModeDir, fs.ModeSocket, or 0 for any other (a symbolic
// link is not followed). name points into the reader's buffer: it is
// valid only during the call, and fn copies what it keeps. A directory
// that cannot be opened or read, wholly or from some entry on, gives
// fewer entries, and no error: a look that cannot see a directory finds
// no socket there.
func (r *dirReader) each(dir string, follow bool, fn func(name []byte, typ fs.FileMode) bool) {
	flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(dir, flags, 0)
	for errors.Is(err, unix.EINTR) {
		fd, err = unix.Open(dir, flags, 0)
	}
	if err != nil {
		return
	}
	defer func() { _ = unix.Close(fd) }() // read only
	for {
		n, err := unix.Getdents(fd, r.buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n <= 0 || !eachDirent(fd, r.buf[:n], fn) {
			return
		}
	}
}

// The layout of the kernel's struct linux_dirent64, the same on every
// architecture: d_ino (8 bytes), d_off (8), d_reclen (2, the record's
// length, padding included), d_type (1), then d_name, ended by a NUL.
const (
	direntReclen = 16
	direntType   = 18
	direntName   = 19
)

// eachDirent calls fn, as [dirReader.each] does, for each record in buf
// (what getdents64 read from the directory dirfd), and reports whether
// fn asked for more. A record whose d_type is DT_UNKNOWN (a file system
// that does not keep the type in the directory) is typed by an lstat of
// its name; one that can no longer be looked at (removed since) is left
// out, as os.ReadDir leaves it out. What is not a whole record ends it.
func eachDirent(dirfd int, buf []byte, fn func(name []byte, typ fs.FileMode) bool) bool {
	for len(buf) > 0 {
		reclen := 0
		if len(buf) > direntName {
			reclen = int(binary.NativeEndian.Uint16(buf[direntReclen:]))
		}
		if reclen <= direntName || reclen > len(buf) {
			return false // not a record: the kernel wrote none such
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		name := rec[direntName:]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if string(name) == "." || string(name) == ".." {
			continue
		}
		var typ fs.FileMode
		switch rec[direntType] {
		case unix.DT_DIR:
			typ = fs.ModeDir
		case unix.DT_SOCK:
			typ = fs.ModeSocket
		case unix.DT_UNKNOWN:
			var st unix.Stat_t
			if err := unix.Fstatat(dirfd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				continue
			}
			switch st.Mode & unix.S_IFMT {
			case unix.S_IFDIR:
				typ = fs.ModeDir
			case unix.S_IFSOCK:
				typ = fs.ModeSocket
			}
		}
		if !fn(name, typ) {
			return false
		}
	}
	return true
}
