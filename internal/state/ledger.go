package state

import (
	"iter"

	"github.com/rein-agent/rein/internal/contract"
)

// Ledger is the read-before-edit ledger of a session: by resolved path,
// the stamp of each file as the session last read it whole or wrote it
// (the last stamp of a path wins). It is folded from the files of
// tool.observation events, so a resumed session, a replay and a fork at
// SEQ know exactly the reads and writes recorded before. write_file and
// edit_file refuse to change a file that is not in it, or whose content
// differs from its stamp.
//
// The zero Ledger is empty. A Ledger is an immutable value, safe for
// concurrent use: [Ledger.With] returns a new one that shares what did
// not change with the old (a persistent hash trie), so a state's ledger
// never changes when a later state records more, and recording a stamp
// costs O(1) whatever the size of the session (a few small allocations;
// the trie is at most 16 levels deep and, for any real workspace, two or
// three). Memory is one stamp per path, not per read.
type Ledger struct {
	root *ledgerNode
	n    int
}

// The shape of the trie: each level takes ledgerBits bits of a path's
// hash; a leaf holds up to ledgerLeaf stamps before it splits, and a leaf
// at the last level, where the hash is used up, holds whatever collides.
const (
	ledgerBits   = 4
	ledgerFanout = 1 << ledgerBits
	ledgerLeaf   = 8
	ledgerDepth  = 64 / ledgerBits
)

// ledgerNode is a node of the trie: an inner node (kids set) or a leaf.
// Nodes are never changed once they are part of a Ledger.
type ledgerNode struct {
	kids   *[ledgerFanout]*ledgerNode
	stamps []contract.FileStamp
}

// Len returns how many paths the ledger holds.
func (l Ledger) Len() int { return l.n }

// Lookup returns the stamp recorded last for path, an absolute path with
// symbolic links resolved.
func (l Ledger) Lookup(path string) (contract.FileStamp, bool) {
	h := hashPath(path)
	n := l.root
	for depth := 0; n != nil; depth++ {
		if n.kids == nil {
			for _, s := range n.stamps {
				if s.Path == path {
					return s, true
				}
			}
			return contract.FileStamp{}, false
		}
		n = n.kids[slot(h, depth)]
	}
	return contract.FileStamp{}, false
}

// With returns the ledger with stamps recorded, in order: each replaces
// the stamp of its path. A stamp without a path is ignored, and so is one
// of what the model did not see (a command's changes: see
// contract.FileOp.Seen). l itself is left as it was.
func (l Ledger) With(stamps ...contract.FileStamp) Ledger {
	for _, s := range stamps {
		if s.Path == "" || !s.Op.Seen() {
			continue
		}
		var added bool
		l.root, added = insert(l.root, 0, hashPath(s.Path), s)
		if added {
			l.n++
		}
	}
	return l
}

// All yields every stamp of the ledger once, in an order that depends
// only on the paths it holds.
func (l Ledger) All() iter.Seq[contract.FileStamp] {
	return func(yield func(contract.FileStamp) bool) { walk(l.root, yield) }
}

// Equal reports whether l and o hold the same stamps, field for field
// (modification times as instants), however they were built.
func (l Ledger) Equal(o Ledger) bool {
	if l.n != o.n {
		return false
	}
	if l.root == o.root {
		return true
	}
	for s := range l.All() {
		t, ok := o.Lookup(s.Path)
		if !ok || s.Size != t.Size || s.SHA256 != t.SHA256 || s.Op != t.Op || !s.ModTime.Equal(t.ModTime) {
			return false
		}
	}
	return true
}

// insert returns a copy of the subtrie n at depth with s recorded, s's
// path having hash h, and whether the path is new to it. Only the nodes on
// the way to s are copied.
func insert(n *ledgerNode, depth int, h uint64, s contract.FileStamp) (*ledgerNode, bool) {
	switch {
	case n == nil:
		return &ledgerNode{stamps: []contract.FileStamp{s}}, true
	case n.kids != nil:
		kids := *n.kids
		var added bool
		kids[slot(h, depth)], added = insert(kids[slot(h, depth)], depth+1, h, s)
		return &ledgerNode{kids: &kids}, added
	}
	for i, old := range n.stamps {
		if old.Path == s.Path {
			stamps := append([]contract.FileStamp(nil), n.stamps...)
			stamps[i] = s
			return &ledgerNode{stamps: stamps}, false
		}
	}
	if len(n.stamps) < ledgerLeaf || depth == ledgerDepth {
		stamps := make([]contract.FileStamp, len(n.stamps), len(n.stamps)+1)
		copy(stamps, n.stamps)
		return &ledgerNode{stamps: append(stamps, s)}, true
	}
	// A full leaf splits into an inner node; its stamps move down a level.
	split := &ledgerNode{kids: new([ledgerFanout]*ledgerNode)}
	for _, old := range append(n.stamps[:len(n.stamps):len(n.stamps)], s) {
		oh := hashPath(old.Path)
		split.kids[slot(oh, depth)], _ = insert(split.kids[slot(oh, depth)], depth+1, oh, old)
	}
	return split, true
}

// walk yields the stamps of the subtrie n, reporting false once yield has.
func walk(n *ledgerNode, yield func(contract.FileStamp) bool) bool {
	if n == nil {
		return true
	}
	if n.kids == nil {
		for _, s := range n.stamps {
			if !yield(s) {
				return false
			}
		}
		return true
	}
	for _, k := range n.kids {
		if !walk(k, yield) {
			return false
		}
	}
	return true
}

// slot is the index of the kid that hash h goes to at depth.
func slot(h uint64, depth int) int { return int(h >> (depth * ledgerBits) & (ledgerFanout - 1)) }

// hashPath is the 64-bit FNV-1a hash of p: deterministic, so the shape of
// a trie depends only on the paths it holds.
func hashPath(p string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(p); i++ {
		h ^= uint64(p[i])
		h *= 1099511628211
	}
	return h
}
