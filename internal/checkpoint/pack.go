package checkpoint

import (
	sha256 "crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Packs hold the small objects (trees, links, files up to smallFile): a
// Take appends the ones it makes to one pack file, so that a first
// snapshot of ten thousand files makes one file, not ten thousand (a
// file's creation costs more than its bytes on many disks). Dir/packs/
// NAME.pack is the objects' bytes end to end, then its index, a record of
// 48 bytes an object (its sha256, its offset, its length), then a trailer
// of 24 bytes: the index's offset, and packMagic. The trailer is written
// last, so a pack whose trailer is not there (a Take that died, or one
// still running in another process) is not read, and Keep removes it once
// it is an hour old.

const (
	packMagic   = "rein-pack-1\n\x00\x00\x00\x00"
	trailerSize = 8 + len(packMagic)
)

// loc is where a packed object is.
type loc struct {
	pack   string // the pack's path
	off, n int64
}

// packWriter is the pack a Take is writing; f is made with the first
// object.
type packWriter struct {
	f       *os.File
	off     int64
	entries map[[32]byte]loc
	order   [][32]byte
}

// loadPacks reads the indexes of the complete packs not read yet. Called
// with o.mu held.
func (o *objects) loadPacks() error {
	names, err := readNames(o.packs)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	for _, name := range names {
		base, ok := strings.CutSuffix(name, ".pack")
		if !ok || o.loaded[base] {
			continue
		}
		path := filepath.Join(o.packs, name)
		entries, err := readPackIndex(path)
		if errors.Is(err, errIncomplete) {
			continue
		}
		if err != nil {
			return err
		}
		for h, l := range entries {
			o.index[h] = l
		}
		o.loaded[base] = true
	}
	return nil
}

var errIncomplete = errors.New("checkpoint: pack is incomplete")

// readPackIndex returns the objects of the pack at path.
func readPackIndex(path string) (map[[32]byte]loc, error) {
	f, err := openNoPoll(path, 0)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: pack %s: %w", filepath.Base(path), err)
	}
	defer f.Close() // read-only: a close error loses nothing
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("checkpoint: pack %s: %w", filepath.Base(path), err)
	}
	size := fi.Size()
	var trailer [trailerSize]byte
	if size < int64(trailerSize) {
		return nil, errIncomplete
	}
	if _, err := f.ReadAt(trailer[:], size-int64(trailerSize)); err != nil || string(trailer[8:]) != packMagic {
		return nil, errIncomplete
	}
	idxOff := int64(binary.BigEndian.Uint64(trailer[:8]))
	idxLen := size - int64(trailerSize) - idxOff
	if idxOff < 0 || idxLen < 0 || idxLen%48 != 0 || idxLen > 1<<30 {
		return nil, fmt.Errorf("checkpoint: pack %s is corrupt", filepath.Base(path))
	}
	idx := make([]byte, idxLen)
	if _, err := f.ReadAt(idx, idxOff); err != nil {
		return nil, fmt.Errorf("checkpoint: pack %s: %w", filepath.Base(path), err)
	}
	out := make(map[[32]byte]loc, idxLen/48)
	for ; len(idx) > 0; idx = idx[48:] {
		var h [32]byte
		copy(h[:], idx)
		off, n := int64(binary.BigEndian.Uint64(idx[32:])), int64(binary.BigEndian.Uint64(idx[40:]))
		if off < 0 || n < 0 || off > idxOff || n > idxOff-off {
			return nil, fmt.Errorf("checkpoint: pack %s is corrupt", filepath.Base(path))
		}
		out[h] = loc{pack: path, off: off, n: n}
	}
	return out, nil
}

// begin starts the pack a Take writes its small objects to.
func (o *objects) begin() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.loadPacks(); err != nil {
		return err
	}
	o.w = &packWriter{entries: map[[32]byte]loc{}}
	return nil
}

// end finishes the Take's pack: with keep set and objects in it, its index
// and trailer are written and its objects become readable; otherwise it is
// removed.
func (o *objects) end(keep bool) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	w := o.w
	o.w = nil
	if w == nil || w.f == nil {
		return nil
	}
	if !keep {
		// Ours and useless; litter at worst, which Keep clears.
		_ = w.f.Close()
		_ = os.Remove(w.f.Name())
		return nil
	}
	tail := make([]byte, 0, 48*len(w.order)+trailerSize)
	for _, h := range w.order {
		l := w.entries[h]
		tail = append(tail, h[:]...)
		tail = binary.BigEndian.AppendUint64(tail, uint64(l.off))
		tail = binary.BigEndian.AppendUint64(tail, uint64(l.n))
	}
	tail = binary.BigEndian.AppendUint64(tail, uint64(w.off))
	tail = append(tail, packMagic...)
	if _, err := w.f.Write(tail); err != nil {
		return o.discard(w.f, err)
	}
	if err := w.f.Close(); err != nil {
		return o.discard(w.f, err)
	}
	for _, h := range w.order {
		l := w.entries[h]
		l.pack = w.f.Name()
		o.index[h] = l
	}
	o.loaded[strings.TrimSuffix(filepath.Base(w.f.Name()), ".pack")] = true
	return nil
}

// append adds data, whose sha256 is sum, to the Take's pack unless the
// store has it already (or, with again set, the pack has it); it reports
// whether it added it. Called with o.mu held.
func (o *objects) append(sum [32]byte, data []byte, again bool) (bool, error) {
	if _, ok := o.index[sum]; ok && !again {
		return false, nil
	}
	w := o.w
	if _, ok := w.entries[sum]; ok {
		return false, nil
	}
	if w.f == nil {
		f, err := os.OpenFile(filepath.Join(o.packs, randomName()+".pack"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return false, fmt.Errorf("checkpoint: %w", err)
		}
		w.f = f
	}
	if _, err := w.f.Write(data); err != nil {
		return false, fmt.Errorf("checkpoint: write pack: %w", err)
	}
	w.entries[sum] = loc{off: w.off, n: int64(len(data))}
	w.order = append(w.order, sum)
	w.off += int64(len(data))
	return true, nil
}

// openPacked opens the packed object h, or returns ok false when no pack
// holds it.
func (o *objects) openPacked(h string) (io.ReadCloser, bool, error) {
	var sum [32]byte
	if _, err := hex.Decode(sum[:], []byte(h)); err != nil {
		return nil, false, fmt.Errorf("checkpoint: bad object name %q", h)
	}
	o.mu.Lock()
	l, ok := o.index[sum]
	if !ok {
		// Another Store on this directory may have written a pack since.
		if err := o.loadPacks(); err != nil {
			o.mu.Unlock()
			return nil, false, err
		}
		l, ok = o.index[sum]
	}
	o.mu.Unlock()
	if !ok {
		return nil, false, nil
	}
	f, err := openNoPoll(l.pack, 0)
	if err != nil {
		return nil, true, fmt.Errorf("checkpoint: object %s: %w", h, err)
	}
	r := io.NewSectionReader(f, l.off, l.n)
	return &verifier{r: r, c: f, h: h, hash: sha256.New(), want: l.n}, true, nil
}

// packed returns the objects of each pack, by the pack's base name.
func (o *objects) packed() map[string][][32]byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[string][][32]byte{}
	for h, l := range o.index {
		out[l.pack] = append(out[l.pack], h)
	}
	return out
}

func (o *objects) isLoaded(base string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.loaded[base]
}

// repack removes the packed objects live does not hold (by hash hex): a
// pack with none of them goes whole, a pack with some is written again
// with those only. It returns how many objects it removed.
func (o *objects) repack(live map[string]bool) (int, error) {
	o.mu.Lock()
	err := o.loadPacks()
	o.mu.Unlock()
	if err != nil {
		return 0, err
	}
	removed := 0
	for pack, hashes := range o.packed() {
		var keep [][32]byte
		for _, h := range hashes {
			if live[hex.EncodeToString(h[:])] {
				keep = append(keep, h)
			}
		}
		if len(keep) == len(hashes) {
			continue
		}
		if len(keep) > 0 {
			if err := o.copyPacked(keep); err != nil {
				return removed, err
			}
		}
		o.drop(pack)
		removed += len(hashes) - len(keep)
	}
	return removed, nil
}

// copyPacked writes the packed objects hashes into a new pack.
func (o *objects) copyPacked(hashes [][32]byte) error {
	if err := o.begin(); err != nil {
		return err
	}
	for _, h := range hashes {
		data, err := o.read(hex.EncodeToString(h[:]), 1<<30)
		if err == nil {
			o.mu.Lock()
			_, err = o.append(h, data, true)
			o.mu.Unlock()
		}
		if err != nil {
			_ = o.end(false) // the error that stopped the copy is the one to report
			return err
		}
	}
	return o.end(true)
}

// drop forgets the pack and removes it; the objects an index entry now
// places in another pack stay.
func (o *objects) drop(pack string) {
	base := strings.TrimSuffix(filepath.Base(pack), ".pack")
	o.mu.Lock()
	for h, l := range o.index {
		if l.pack == pack {
			delete(o.index, h)
		}
	}
	delete(o.loaded, base)
	o.mu.Unlock()
	// What cannot be removed is litter: its objects are not in the index.
	_ = os.Remove(pack)
}
