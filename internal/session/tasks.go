package session

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// tasksName is the directory, in a session's directory, that holds the
// sessions its task calls started: each child is a session of its own,
// tasks/<child id>/, with its log and artifacts, and its own tasks/.
const tasksName = "tasks"

// Tasks returns the store of session id's children, the directory
// tasks/ in id's directory: a child is created, opened, read and
// summarised through it as a person's session is through the root
// (Create, Open, Read, Dir...), and a grandchild through the child's
// Tasks. The directory need not exist yet (Create makes it). A child's
// Close keeps an index of that store's sessions in tasks/index.json, as
// the root's keeps its own.
func (s *Store) Tasks(id string) *Store {
	return &Store{root: filepath.Join(s.Dir(id), tasksName), logger: s.logger}
}

// Place is where a session is: the store that holds it and its id. A
// person's session is in the root's store; a child is in its parent's
// [Store.Tasks].
type Place struct {
	// Store holds the session: its Read, Dir, LogPath... are the
	// session's.
	Store *Store
	ID    string
	// Parents are the ids of the sessions above a child, the person's
	// session first and the child's parent last; empty for a person's
	// session.
	Parents []string
}

// Locate returns where the session ref names is: its full id, or a
// prefix of exactly one session's id, a person's session or a child at
// any depth. The sessions of the root are looked at first; a ref none of
// them matches is looked for in every session's tasks directory, which
// costs one failed open for a session that ran no task (3.6 ms for 1,000
// sessions here: less than reading the index, whose entries do record
// the children, would). It fails with an
// error wrapping ErrNotFound when none matches, and names the
// candidates when several do. Locate writes nothing.
func (s *Store) Locate(ref string) (Place, error) {
	if !validID(ref) || strings.HasPrefix(ref, tmpPrefix) {
		return Place{}, fmt.Errorf("%w: %q is not a session id (ids look like ses_01K...; `rein sessions` lists them)", ErrNotFound, ref)
	}
	if isLog(s.LogPath(ref)) {
		return Place{Store: s, ID: ref}, nil
	}
	ids, err := s.ids()
	if err != nil {
		return Place{}, err
	}
	var match []Place
	for _, id := range ids {
		if strings.HasPrefix(id, ref) {
			match = append(match, Place{Store: s, ID: id})
		}
	}
	if len(match) == 0 {
		for _, id := range ids {
			match = s.Tasks(id).childrenNamed(ref, []string{id}, match)
		}
	}
	if i := slices.IndexFunc(match, func(p Place) bool { return p.ID == ref }); i >= 0 {
		return match[i], nil // a whole id, which may be a prefix of its child's
	}
	switch len(match) {
	case 0:
		return Place{}, fmt.Errorf("%w: no session %s in %s (`rein sessions --all` lists them)", ErrNotFound, ref, s.root)
	case 1:
		return match[0], nil
	}
	names := make([]string, 0, 6)
	for _, p := range match[:min(len(match), 5)] {
		names = append(names, p.ID)
	}
	if len(match) > 5 {
		names = append(names, "...")
	}
	return Place{}, fmt.Errorf("%w: %q names %d sessions (%s); give more of the id", ErrNotFound, ref, len(match), strings.Join(names, ", "))
}

// isLog reports whether path is a regular file.
func isLog(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular()
}

// childrenNamed appends to match the places of the sessions of s (a
// tasks store) and of their children, at any depth, whose ids start with
// ref; parents are the ids above s's sessions.
func (s *Store) childrenNamed(ref string, parents []string, match []Place) []Place {
	ids, err := s.ids()
	if err != nil {
		return match
	}
	for _, id := range ids {
		if strings.HasPrefix(id, ref) && isLog(s.LogPath(id)) {
			match = append(match, Place{Store: s, ID: id, Parents: slices.Clone(parents)})
		}
		match = s.Tasks(id).childrenNamed(ref, append(parents, id), match)
	}
	return match
}

// children returns the summaries of session id's children, in the order
// they started; a child whose log cannot be read is left out with a
// warning (its parent's log still says what its task did).
func (s *Store) children(id string) []Summary {
	ts := s.Tasks(id)
	ids, err := ts.ids()
	if err != nil {
		s.logger.Warn("session: cannot list the children of a session", "session", id, "err", err)
		return nil
	}
	var out []Summary
	for _, c := range ids {
		sum, err := ts.summarize(c)
		if err != nil {
			s.logger.Warn("session: skipping a child session without a readable log", "session", id, "child", c, "err", err)
			continue
		}
		out = append(out, sum)
	}
	slices.SortFunc(out, func(a, b Summary) int { return cmp.Or(a.Started.Compare(b.Started), cmp.Compare(a.ID, b.ID)) })
	return out
}

// fresh reports whether the summary, made earlier, is still true of the
// session in dir: its log, and each child's, has the size and the
// modification time it had. A child's log changes without its parent's
// while it runs. (A new child's does not go unseen: its task.started is
// appended to its parent's log before it starts, and a parent's entry is
// written when it closes, after its children.)
func (sum *Summary) fresh(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, logName))
	if err != nil || sum.Usage == nil || fi.Size() != sum.Size || fi.ModTime().UnixNano() != sum.ModTime {
		return false
	}
	for i := range sum.Children {
		if !sum.Children[i].fresh(filepath.Join(dir, tasksName, sum.Children[i].ID)) {
			return false
		}
	}
	return true
}

// ChildOf returns an error wrapping ErrChild when the session at p is a
// child, which command what (resume, fork) works on only through the
// person's session it belongs to; nil for a person's session.
func (p Place) ChildOf(what string) error {
	if len(p.Parents) == 0 {
		return nil
	}
	return fmt.Errorf("%w: session %s was run by a task of session %s, and rein %s works on the session it belongs to: rein %s %s (`rein replay %s` shows the child alone)",
		ErrChild, p.ID, p.Parents[len(p.Parents)-1], what, what, p.Parents[0], p.ID)
}
