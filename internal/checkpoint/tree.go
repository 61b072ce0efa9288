package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// kind is what a tree entry is.
type kind byte

const (
	kindFile kind = 'f'
	kindLink kind = 'l'
	kindDir  kind = 'd'
	// kindLeft is a tombstone: a file or directory the snapshot left out
	// (see leftReasons). What it held is unknown to the snapshot, which is
	// not the same as absent: a Diff reports no change where either side
	// is a tombstone or under one, and a restore leaves such a path alone.
	kindLeft kind = 'x'
)

// leftReasons are the reasons a tombstone records, by the token its entry
// holds in place of a hash, with what Entry.Reason says.
var leftReasons = map[string]string{
	leftDependency: "dependency directory",
	leftSpecial:    "special file",
	leftUnreadable: "unreadable",
	leftBudget:     "over the budget for ignored files",
	leftSize:       "ignored file over the size limit",
	leftSecret:     "holds a credential of rein's environment",
}

// The tokens of leftReasons.
const (
	leftDependency = "dependency"
	leftSpecial    = "special"
	leftUnreadable = "unreadable"
	leftBudget     = "budget"
	leftSize       = "size"
	leftSecret     = "secret"
)

// tombstone is the entry of name left out for the reason token.
func tombstone(name, token string) entry {
	return entry{name: name, kind: kindLeft, hash: token}
}

func (k kind) String() string {
	switch k {
	case kindFile:
		return "file"
	case kindLink:
		return "symlink"
	case kindDir:
		return "dir"
	case kindLeft:
		return "left out"
	}
	return "unknown"
}

// entry is one name of a tree. For a directory, size, mtime and ino are
// zero (a directory's time changes with every temporary file made and
// removed in it, and would rewrite its tree for nothing) and hash is its
// tree's.
type entry struct {
	name  string
	kind  kind
	mode  fs.FileMode // permission bits only
	size  int64
	mtime int64 // ns since the epoch
	ino   uint64
	hash  string // sha256 hex of the content, the link's target, or the subtree; a tombstone's reason token

	sub *tree // a directory's tree, when loaded or built
}

// same reports whether e and o record the same thing (the subtree pointer
// aside).
func (e *entry) same(o *entry) bool {
	return e.name == o.name && e.kind == o.kind && e.mode == o.mode && e.size == o.size &&
		e.mtime == o.mtime && e.ino == o.ino && e.hash == o.hash
}

// tree is one directory of a snapshot, its entries sorted by name. A tree
// read from the store or finished by a Take is never modified again.
type tree struct {
	hash    string
	entries []entry

	prev *tree // while a Take builds it: the base's tree of the same directory
}

// find returns the entry named name, or nil.
func (t *tree) find(name string) *entry {
	if t == nil {
		return nil
	}
	lo, hi := 0, len(t.entries)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.entries[m].name < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(t.entries) && t.entries[lo].name == name {
		return &t.entries[lo]
	}
	return nil
}

const treeHeader = "rein-tree 1\n"

// encode returns the tree's bytes: the header, then an entry a record,
// "kind mode size mtime ino hash name\x00" (mode in octal). A name holds
// no NUL and no slash, so the record ends unambiguously.
func (t *tree) encode() []byte {
	b := make([]byte, 0, len(treeHeader)+len(t.entries)*120)
	b = append(b, treeHeader...)
	for i := range t.entries {
		e := &t.entries[i]
		b = append(b, byte(e.kind), ' ')
		b = strconv.AppendUint(b, uint64(e.mode.Perm()), 8)
		b = append(b, ' ')
		b = strconv.AppendInt(b, e.size, 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, e.mtime, 10)
		b = append(b, ' ')
		b = strconv.AppendUint(b, e.ino, 10)
		b = append(b, ' ')
		b = append(b, e.hash...)
		b = append(b, ' ')
		b = append(b, e.name...)
		b = append(b, 0)
	}
	return b
}

// decodeTree parses a tree's bytes, which must hash to h.
func decodeTree(h string, data []byte) (*tree, error) {
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != h {
		return nil, fmt.Errorf("checkpoint: object %s is corrupt: its bytes hash to %x", h, sum)
	}
	rest, ok := bytes.CutPrefix(data, []byte(treeHeader))
	if !ok {
		return nil, fmt.Errorf("checkpoint: object %s is not a tree", h)
	}
	t := &tree{hash: h}
	prev := ""
	for len(rest) > 0 {
		rec, after, ok := bytes.Cut(rest, []byte{0})
		if !ok {
			return nil, fmt.Errorf("checkpoint: tree %s: an entry without its end", h)
		}
		rest = after
		e, err := decodeEntry(string(rec))
		if err != nil {
			return nil, fmt.Errorf("checkpoint: tree %s: %w", h, err)
		}
		if len(t.entries) > 0 && e.name <= prev {
			return nil, fmt.Errorf("checkpoint: tree %s: %q is out of order", h, e.name)
		}
		prev = e.name
		t.entries = append(t.entries, e)
	}
	return t, nil
}

func decodeEntry(rec string) (entry, error) {
	f := strings.SplitN(rec, " ", 7)
	if len(f) != 7 || len(f[0]) != 1 {
		return entry{}, fmt.Errorf("malformed entry %q", rec)
	}
	e := entry{kind: kind(f[0][0]), name: f[6], hash: f[5]}
	mode, err1 := strconv.ParseUint(f[1], 8, 32)
	size, err2 := strconv.ParseInt(f[2], 10, 64)
	mtime, err3 := strconv.ParseInt(f[3], 10, 64)
	ino, err4 := strconv.ParseUint(f[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || size < 0 || mode > 0o777 {
		return entry{}, fmt.Errorf("malformed entry %q", rec)
	}
	e.mode, e.size, e.mtime, e.ino = fs.FileMode(mode), size, mtime, ino
	if e.kind != kindFile && e.kind != kindLink && e.kind != kindDir && e.kind != kindLeft {
		return entry{}, fmt.Errorf("entry %q of unknown kind", e.name)
	}
	if e.kind == kindLeft {
		if _, ok := leftReasons[e.hash]; !ok || !validName(e.name) {
			return entry{}, fmt.Errorf("malformed entry %q", rec)
		}
		return e, nil
	}
	if !validName(e.name) || !validHash(e.hash) {
		return entry{}, fmt.Errorf("malformed entry %q", rec)
	}
	return e, nil
}

// validName reports whether name can be one element of a path.
func validName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\x00")
}

// validHash reports whether h is a sha256 in lowercase hex.
func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
