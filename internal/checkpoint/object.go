package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// smallFile is the size up to which a file is read whole into a buffer
// and hashed before anything is written, so that content the store holds
// already costs no write. A larger file is hashed while it is copied into
// a temporary object. Each hashing goroutine holds one such buffer.
const smallFile = 1 << 20

// objects is the object store of a Store: small objects in packs (see
// pack.go), larger ones loose, as content-addressed files under
// objects/ab/cdef…; both made through temporary files in tmp/.
type objects struct {
	dir   string // Dir/objects
	packs string // Dir/packs
	tmp   string // Dir/tmp
	// secrets are the values no object may hold (Options.Secrets).
	secrets [][]byte

	mu     sync.Mutex
	made   [256]bool        // fan-out directories known to exist
	index  map[[32]byte]loc // the packed objects
	loaded map[string]bool  // the packs whose index is read, by name
	w      *packWriter      // the pack of the Take running, if any
}

func newObjects(dir string, secrets [][]byte) *objects {
	return &objects{
		dir: filepath.Join(dir, "objects"), packs: filepath.Join(dir, "packs"), tmp: filepath.Join(dir, "tmp"),
		secrets: secrets,
		index:   map[[32]byte]loc{}, loaded: map[string]bool{},
	}
}

func (o *objects) path(h string) string {
	return filepath.Join(o.dir, h[:2], h[2:])
}

// has reports whether the object h is there, packed or loose.
func (o *objects) has(h string) bool {
	var sum [32]byte
	if _, err := hex.Decode(sum[:], []byte(h)); err != nil {
		return false
	}
	o.mu.Lock()
	_, ok := o.index[sum]
	if !ok && o.w == nil {
		// Another Store on this directory may have written a pack since
		// (a Take loaded them as it began).
		if o.loadPacks() == nil {
			_, ok = o.index[sum]
		}
	}
	o.mu.Unlock()
	if ok {
		return true
	}
	_, err := os.Lstat(o.path(h))
	return err == nil
}

// fanout makes the directory object h goes in.
func (o *objects) fanout(h string) error {
	b, err := hex.DecodeString(h[:2])
	if err != nil {
		return fmt.Errorf("checkpoint: bad object name %s", h)
	}
	o.mu.Lock()
	made := o.made[b[0]]
	o.mu.Unlock()
	if made {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(o.dir, h[:2]), 0o700); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	o.mu.Lock()
	o.made[b[0]] = true
	o.mu.Unlock()
	return nil
}

// put stores data as an object unless there is one of its hash already:
// into the Take's pack while one runs, loose otherwise. It returns the
// hash and whether it wrote the object.
func (o *objects) put(data []byte) (string, bool, error) {
	sum := sha256.Sum256(data)
	h := hex.EncodeToString(sum[:])
	o.mu.Lock()
	if o.w != nil {
		// Small objects are only ever packed: no loose one to look for.
		created, err := o.append(sum, data, false)
		o.mu.Unlock()
		return h, created, err
	}
	o.mu.Unlock()
	if o.has(h) {
		return h, false, nil
	}
	f, err := o.temp()
	if err != nil {
		return "", false, err
	}
	if _, err := f.Write(data); err != nil {
		return "", false, o.discard(f, err)
	}
	if err := o.commit(f, h); err != nil {
		return "", false, err
	}
	return h, true, nil
}

func (o *objects) temp() (*os.File, error) {
	f, err := os.CreateTemp(o.tmp, "obj-")
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(o.tmp, 0o700); err == nil {
			f, err = os.CreateTemp(o.tmp, "obj-")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return f, nil
}

// discard closes and removes the temporary file f after err.
func (o *objects) discard(f *os.File, err error) error {
	// The temporary file is useless now; failing to close or remove it
	// leaves litter in tmp/, which the next Keep clears.
	_ = f.Close()
	_ = os.Remove(f.Name())
	return fmt.Errorf("checkpoint: write object: %w", err)
}

// commit closes the temporary file f and renames it to object h.
func (o *objects) commit(f *os.File, h string) error {
	if err := f.Close(); err != nil {
		return o.discard(f, err)
	}
	if err := o.fanout(h); err != nil {
		return o.discard(f, err)
	}
	if err := os.Rename(f.Name(), o.path(h)); err != nil {
		return o.discard(f, err)
	}
	return nil
}

// putFile stores the content of the regular file abs, read once, with
// buf (smallFile bytes) to read through. It returns the hash, the size
// read, and whether it wrote the object. A file that is no longer a regular file
// (replaced since it was listed) is an error wrapping errNotRegular.
func (o *objects) putFile(abs string, buf []byte) (h string, size int64, created bool, err error) {
	// O_NONBLOCK: a file swapped for a fifo since it was listed must not
	// block the open; O_NOFOLLOW: nor lead elsewhere through a link.
	f, err := openNoPoll(abs, syscall.O_NOFOLLOW|syscall.O_NONBLOCK)
	if err != nil {
		return "", 0, false, err
	}
	defer f.Close() // read-only: a close error loses nothing
	if fi, err := f.Stat(); err != nil {
		return "", 0, false, err
	} else if !fi.Mode().IsRegular() {
		return "", 0, false, errNotRegular
	}
	n, err := io.ReadFull(f, buf)
	scan := newScanner(o.secrets)
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		if scan.Write(buf[:n]); scan.found {
			return "", 0, false, errSecret
		}
		h, created, err := o.put(buf[:n])
		return h, int64(n), created, err
	case err != nil:
		return "", 0, false, err
	}
	// Larger than the buffer: hash while copying into a temporary object.
	t, err := o.temp()
	if err != nil {
		return "", 0, false, err
	}
	hasher := sha256.New()
	hasher.Write(buf[:n]) // a hash.Hash never fails
	scan.Write(buf[:n])
	if _, err := t.Write(buf[:n]); err != nil {
		return "", 0, false, o.discard(t, err)
	}
	m, err := io.CopyBuffer(io.MultiWriter(t, hasher, scan), onlyReader{f}, buf)
	if err == nil && scan.found {
		err = errSecret
	}
	if err != nil {
		return "", 0, false, o.discard(t, err)
	}
	h = hex.EncodeToString(hasher.Sum(nil))
	size = int64(n) + m
	if o.has(h) {
		// Known content: the copy was for nothing (a file is not hashed
		// twice to spare a write).
		// The temporary file is ours and useless; failing to remove it
		// leaves litter in tmp/, which the next Keep clears.
		_ = t.Close()
		_ = os.Remove(t.Name())
		return h, size, false, nil
	}
	if err := o.commit(t, h); err != nil {
		return "", 0, false, err
	}
	return h, size, true, nil
}

var errNotRegular = errors.New("not a regular file")

// onlyReader hides a file's other methods (WriterTo), so that io.CopyBuffer
// reads into the buffer given.
type onlyReader struct{ r io.Reader }

func (r onlyReader) Read(p []byte) (int, error) { return r.r.Read(p) }

// open opens the object h for reading; the reader fails at its end when
// the bytes do not hash to h.
func (o *objects) open(h string) (io.ReadCloser, error) {
	if !validHash(h) {
		return nil, fmt.Errorf("checkpoint: bad object name %q", h)
	}
	if r, ok, err := o.openPacked(h); ok || err != nil {
		return r, err
	}
	f, err := openNoPoll(o.path(h), 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("checkpoint: object %s is missing", h)
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: object %s: %w", h, err)
	}
	return &verifier{r: f, c: f, h: h, hash: sha256.New(), want: -1}, nil
}

// read returns the bytes of the object h, verified, up to limit bytes.
func (o *objects) read(h string, limit int64) ([]byte, error) {
	r, err := o.open(h)
	if err != nil {
		return nil, err
	}
	defer r.Close() // read-only: a close error loses nothing
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("checkpoint: object %s is larger than %d bytes", h, limit)
	}
	return data, nil
}

// verifier reads an object and checks its hash (and, packed, its length)
// at the end.
type verifier struct {
	r    io.Reader
	c    io.Closer
	h    string
	hash hash.Hash
	want int64 // the length the pack's index gives; -1 for a loose object
	got  int64
}

func (v *verifier) Read(p []byte) (int, error) {
	n, err := v.r.Read(p)
	v.hash.Write(p[:n]) // a hash.Hash never fails
	v.got += int64(n)
	if errors.Is(err, io.EOF) && (hex.EncodeToString(v.hash.Sum(nil)) != v.h || v.want >= 0 && v.got != v.want) {
		return n, fmt.Errorf("checkpoint: object %s is corrupt: its bytes do not hash to its name", v.h)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return n, fmt.Errorf("checkpoint: read object %s: %w", v.h, err)
	}
	return n, err
}

func (v *verifier) Close() error { return v.c.Close() }
