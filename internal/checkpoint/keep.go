package checkpoint

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Keep removes every object that the snapshots ids (and the Store's base,
// which the next Take builds on) do not reach, and the records of the
// snapshots it does not keep; it returns how many objects it removed. An
// id the store does not hold, or a snapshot of them that cannot be read
// whole, is an error, and then nothing is removed. Temporary files over
// an hour old are removed too (a Take that died left them).
func (s *Store) Keep(ids []string) (removed int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	live := map[string]bool{}
	snaps := map[string]bool{}
	roots := append([]string(nil), ids...)
	if s.base != nil {
		roots = append(roots, s.base.hash)
	}
	for _, id := range roots {
		t, err := s.snapshot(id)
		if err != nil {
			return 0, err
		}
		snaps[id] = true
		if err := s.mark(t, live); err != nil {
			return 0, fmt.Errorf("checkpoint: keep %s: %w", short(id), err)
		}
	}
	fans, err := os.ReadDir(s.obj.dir)
	if errors.Is(err, fs.ErrNotExist) {
		fans, err = nil, nil
	}
	if err != nil {
		return 0, fmt.Errorf("checkpoint: %w", err)
	}
	for _, fan := range fans {
		dir := filepath.Join(s.obj.dir, fan.Name())
		names, err := readNames(dir)
		if err != nil {
			continue
		}
		for _, name := range names {
			if !fan.IsDir() || live[fan.Name()+name] {
				continue
			}
			if err := os.Remove(filepath.Join(dir, name)); err == nil {
				removed++
			}
		}
	}
	n, err := s.obj.repack(live)
	removed += n
	if err != nil {
		return removed, err
	}
	if err := s.keepTaken(snaps); err != nil {
		return removed, err
	}
	hourAgo := time.Now().Add(-time.Hour)
	s.sweep(s.obj.tmp, func(_ string, fi fs.FileInfo) bool { return fi.ModTime().Before(hourAgo) })
	s.sweep(s.obj.packs, func(name string, fi fs.FileInfo) bool {
		// A pack without its trailer: a Take that died writing it.
		base, ok := strings.CutSuffix(name, ".pack")
		return ok && !s.obj.isLoaded(base) && fi.ModTime().Before(hourAgo)
	})
	s.cacheMu.Lock()
	for h, t := range s.cache {
		if !live[h] {
			delete(s.cache, h)
			s.cached -= len(t.entries) + 1
		}
	}
	s.cacheMu.Unlock()
	return removed, nil
}

// keepTaken writes the taken file again with the snapshots of keep only.
func (s *Store) keepTaken(keep map[string]bool) error {
	var b strings.Builder
	for id, at := range s.takenTimes() {
		if keep[id] {
			b.WriteString(id + " " + strconv.FormatInt(at.UnixNano(), 10) + "\n")
		}
	}
	f, err := s.obj.temp()
	if err != nil {
		return err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		return s.obj.discard(f, err)
	}
	if err := f.Close(); err != nil {
		return s.obj.discard(f, err)
	}
	if err := os.Rename(f.Name(), filepath.Join(s.dir, takenFile)); err != nil {
		return s.obj.discard(f, err)
	}
	return nil
}

// mark adds the tree t and every object it reaches to live; a subtree
// already there is not walked again.
func (s *Store) mark(t *tree, live map[string]bool) error {
	live[t.hash] = true
	for i := range t.entries {
		e := &t.entries[i]
		if e.kind == kindLeft || live[e.hash] {
			continue // a tombstone's hash is a reason, no object
		}
		if e.kind != kindDir {
			live[e.hash] = true
			continue
		}
		sub, err := s.subtree(e)
		if err != nil {
			return err
		}
		if err := s.mark(sub, live); err != nil {
			return err
		}
	}
	return nil
}

// sweep removes the files of dir that drop says to; what cannot be
// removed stays.
func (s *Store) sweep(dir string, drop func(string, fs.FileInfo) bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		fi, err := e.Info()
		if err == nil && drop(e.Name(), fi) {
			// Litter that stays is removed by a later Keep.
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// Link makes toDir a store holding every snapshot of the store in fromDir
// (a fork's): each object and pack hard-linked (neither is written in
// place once complete, so sharing them is safe), or copied where linking
// fails (another file system); toDir and its directories are made as
// needed, and what toDir holds already is kept. fromDir is only read, its
// files' access times left as they were where they are ours.
func Link(fromDir, toDir string) error {
	for _, sub := range []string{"objects", "packs", "tmp"} {
		if err := os.MkdirAll(filepath.Join(toDir, sub), 0o700); err != nil {
			return fmt.Errorf("checkpoint: link: %w", err)
		}
	}
	tmp := filepath.Join(toDir, "tmp")
	if err := linkFiles(filepath.Join(fromDir, "packs"), filepath.Join(toDir, "packs"), tmp, true, ".pack"); err != nil {
		return err
	}
	fans, err := readNames(filepath.Join(fromDir, "objects"))
	if errors.Is(err, fs.ErrNotExist) {
		fans, err = nil, nil
	}
	if err != nil {
		return fmt.Errorf("checkpoint: link: %w", err)
	}
	for _, fan := range fans {
		src := filepath.Join(fromDir, "objects", fan)
		if fi, err := os.Lstat(src); err != nil || !fi.IsDir() {
			continue
		}
		dst := filepath.Join(toDir, "objects", fan)
		if err := os.MkdirAll(dst, 0o700); err != nil {
			return fmt.Errorf("checkpoint: link: %w", err)
		}
		if err := linkFiles(src, dst, tmp, true, ""); err != nil {
			return err
		}
	}
	// When each snapshot was taken: copied, as a later Take appends to it.
	if _, err := os.Lstat(filepath.Join(toDir, takenFile)); err == nil {
		return nil
	}
	if err := copyFile(filepath.Join(fromDir, takenFile), filepath.Join(toDir, takenFile), tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("checkpoint: link: %w", err)
	}
	return nil
}

// linkFiles puts each file of src (whose name ends in suffix) into dst
// that dst lacks: a hard link when hard is set and the file system allows
// it, a copy (through tmp) otherwise.
func linkFiles(src, dst, tmp string, hard bool, suffix string) error {
	names, err := readNames(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checkpoint: link: %w", err)
	}
	for _, name := range names {
		if !strings.HasSuffix(name, suffix) {
			continue
		}
		from, to := filepath.Join(src, name), filepath.Join(dst, name)
		if _, err := os.Lstat(to); err == nil {
			continue
		}
		if hard && os.Link(from, to) == nil {
			continue
		}
		if err := copyFile(from, to, tmp); err != nil {
			return fmt.Errorf("checkpoint: link: %w", err)
		}
	}
	return nil
}

func copyFile(from, to, tmp string) error {
	in, err := openNoPoll(from, 0)
	if err != nil {
		return err
	}
	defer in.Close() // read-only: a close error loses nothing
	out, err := os.CreateTemp(tmp, "copy-")
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(out.Name(), to)
	}
	if err != nil {
		// Ours and useless; litter at worst, which Keep clears.
		_ = os.Remove(out.Name())
	}
	return err
}
