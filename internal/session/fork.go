package session

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/rein-agent/rein/internal/checkpoint"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/rein-agent/rein/internal/atomicfile"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/id"
)

// Fork makes a new session whose log is the parent's events 1 to at (0
// meaning all of them) followed by a session.forked event naming the
// parent and at, and returns its id. The copied events keep their ids and
// times; their session field names the new session. The artifacts they
// refer to are linked (or copied) into the new session. The new session
// appears whole or not at all: it is built under a temporary name and
// renamed into place. The parent's checkpoints are linked into it too. The parent is only read. Fork returns the new id and
// the last seq of the parent it kept.
func (s *Store) Fork(parent string, at uint64, now time.Time) (newID string, kept uint64, err error) {
	newID = id.At("ses", now)
	tmp := s.Dir(tmpPrefix + newID)
	if err := os.MkdirAll(s.root, 0o700); err != nil {
		return "", 0, fmt.Errorf("session: fork %s: %w", parent, err)
	}
	store, err := eventlog.OpenFile(tmp, &eventlog.FileOptions{Logger: s.logger})
	if err != nil {
		return "", 0, fmt.Errorf("session: fork %s: %w", parent, err)
	}
	kept, err = s.copyPrefix(parent, at, newID, tmp, store, now)
	if cerr := store.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// The snapshots the copied checkpoint.recorded events name, for
		// the fork's rewinds: objects never change, so links are copies.
		err = checkpoint.Link(filepath.Join(s.Dir(parent), CheckpointsDir), filepath.Join(tmp, CheckpointsDir))
	}
	if err == nil {
		err = os.Rename(tmp, s.Dir(newID))
	}
	if err == nil {
		err = atomicfile.SyncDir(s.root)
	}
	if err != nil {
		_ = os.RemoveAll(tmp) // half a fork is no fork; the error says why
		return "", 0, err
	}
	s.remember(newID)
	return newID, kept, nil
}

// errStop ends a read early without being an error.
var errStop = errors.New("stop")

// copyPrefix appends parent's events 1..at to store, then the fork event,
// and returns the last seq it copied.
func (s *Store) copyPrefix(parent string, at uint64, newID, dir string, store *eventlog.FileStore, now time.Time) (uint64, error) {
	var last contract.Envelope
	var copyErr error
	info, err := s.Read(parent, func(env contract.Envelope) error {
		if at > 0 && env.Seq > at {
			return errStop
		}
		if env.Seq != last.Seq+1 {
			return fmt.Errorf("session: fork %s: its log is damaged before seq %d (seq %d follows %d); fork at seq %d or before with --at",
				parent, env.Seq, env.Seq, last.Seq, last.Seq)
		}
		if o, ok := env.Data.(*contract.ToolObservation); ok && o.ArtifactRef != "" {
			if err := s.copyArtifact(parent, dir, o.ArtifactRef); err != nil {
				copyErr = err
				return err
			}
		}
		env.Session = newID
		last = env
		_, err := store.Append(env)
		return err
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	switch {
	case copyErr != nil:
		return 0, copyErr
	case err != nil:
		return 0, err
	case last.Seq == 0:
		return 0, fmt.Errorf("session: fork %s: its log holds no event", parent)
	case at > last.Seq:
		return 0, fmt.Errorf("%w: fork %s --at %d: the log ends at seq %d", ErrNotFound, parent, at, info.LastSeq)
	}
	_, err = store.Append(contract.Envelope{
		Seq: last.Seq + 1, ID: id.At("evt", now), Time: now.UTC(), Session: newID,
		Run: last.Run, Turn: last.Turn,
		Data: &contract.SessionForked{ParentSession: parent, ParentSeq: last.Seq},
	})
	return last.Seq, err
}

// copyArtifact links the parent's artifact ref into dir. A reference that
// leaves the artifacts directory is refused; a missing artifact is a
// warning (the resume gate of the new session names it).
func (s *Store) copyArtifact(parent, dir, ref string) error {
	clean := path.Clean(ref)
	if clean != ref || !strings.HasPrefix(clean, "artifacts/") || strings.Contains(clean, "..") {
		return fmt.Errorf("session: fork %s: artifact reference %q is not a file under artifacts/", parent, ref)
	}
	src := filepath.Join(s.Dir(parent), filepath.FromSlash(clean))
	dst := filepath.Join(dir, filepath.FromSlash(clean))
	if _, err := os.Stat(dst); err == nil {
		return nil // two observations of one artifact
	}
	if fi, err := os.Lstat(src); err != nil || !fi.Mode().IsRegular() {
		s.logger.Warn("session: fork: an artifact of the parent is missing (or not a regular file); the fork refers to it anyway",
			"session", parent, "artifact", ref)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return fmt.Errorf("session: fork %s: %w", parent, err)
	}
	if err := copyFile(src, dst); err != nil {
		return fmt.Errorf("session: fork %s: %w", parent, err)
	}
	return nil
}

// Forked returns the event that made session id a fork, with its
// envelope (its time is when the fork was made, and the events before
// it are its parent's, copied with their times); nil when id is no fork.
// A fork of a fork holds its parent's session.forked too: the last one is
// its own. It reads the log's lines for the event's marker, decoding
// only those lines, and writes nothing.
func (s *Store) Forked(id string) (*contract.Envelope, error) {
	if err := s.checkFiles(id); err != nil {
		return nil, err
	}
	f, err := openRead(s.LogPath(id))
	if err != nil {
		return nil, fmt.Errorf("session: read %s: %w", id, err)
	}
	defer f.Close()
	var forked *contract.Envelope
	for line, err := range shortLines(f) {
		switch {
		case err != nil:
			return nil, fmt.Errorf("session: read %s: %w", id, err)
		case !bytes.Contains(line, forkedType):
			continue // a session.forked line is short
		}
		if env, ok := decode(line); ok {
			if _, ok := env.Data.(*contract.SessionForked); ok {
				forked = &env
			}
		}
	}
	return forked, nil
}
