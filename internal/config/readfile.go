package config

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// maxFile bounds a configuration file rein reads: far more than any real
// one, and a cloned repository's .rein/config.toml linked to /dev/zero or
// a pipe must neither hang rein nor fill its memory.
const maxFile = 4 << 20

// readFile reads the configuration file at path: a regular file (opened
// without waiting on a FIFO, its kind checked once open), at most maxFile
// bytes. A missing file is the os error, for errors.Is(err,
// fs.ErrNotExist).
func readFile(path string) ([]byte, error) { return ReadBounded(path, maxFile) }

// ReadBounded reads the file at path, which a cloned repository may have
// made anything: only a regular file (opened without waiting on a FIFO,
// its kind checked once open), of at most limit bytes; an empty one is
// non-nil empty data. A missing file is the os error, for
// errors.Is(err, fs.ErrNotExist).
func ReadBounded(path string, limit int) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file; rein does not read it", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > limit {
		return nil, fmt.Errorf("%s is larger than %d KiB; rein does not read it", path, limit>>10)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}
