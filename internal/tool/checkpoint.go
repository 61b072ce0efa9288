package tool

import (
	"context"
	"path/filepath"
	"time"

	"github.com/rein-agent/rein/internal/checkpoint"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
)

// Checkpointer takes the snapshots of the workspace around the calls
// that may change it: internal/checkpoint's Store, which a session and
// its tasks' children share.
type Checkpointer interface {
	// Root is the workspace the snapshots are of.
	Root() string
	Take(ctx context.Context) (checkpoint.Snapshot, error)
	Diff(from, to string) ([]checkpoint.Change, error)
}

// maxChangedFiles bounds the files a call's observation names as
// changed (a checkout of another branch may change thousands): the
// snapshots around it still hold them all.
const maxChangedFiles = 10000

// changes reports whether job j may change the workspace, so that a
// checkpoint comes before and after it: a tool that says so for its input
// (a task whose agent may write), a command that does more than read (as
// permission.Policy.OnlyReads reads it), any other tool that does not
// claim to only read (an MCP tool's claim is taken here: it decides
// nothing, it only spares a snapshot).
func (rt *Runtime) changes(j job) bool {
	t := j.tool
	switch {
	case rt.opts.Checkpoints == nil:
		return false
	case t.Writes != nil:
		return t.Writes(j.Intent.Input)
	case t.Name == "bash":
		return !rt.Policy().OnlyReads(permission.RequestFor(t, j.Intent.Input))
	}
	return !t.ReadOnly
}

// checkpoint takes a snapshot for the call of intent (when: one of the
// contract.Checkpoint* moments), records it after cause and returns its
// id. A snapshot that fails is recorded as such (the rewinds that would
// need it refuse, saying so) and the call goes on: rein does not stop
// work because it could not keep a copy.
func (rt *Runtime) checkpoint(ctx context.Context, intent, when, cause string, sink Sink) (id string, next string, err error) {
	e := TakeCheckpoint(ctx, rt.opts.Checkpoints, intent, when)
	if e.Error != "" {
		rt.opts.Logger.Warn("tool: checkpoint failed", "intent", intent, "when", when, "err", e.Error)
	}
	next, err = sink.Emit(e, cause)
	return e.ID, next, err
}

// TakeCheckpoint takes a snapshot with cp and returns the event that
// records it for the call of intent (empty for a rewind's) at when: its
// figures, or why it failed.
func TakeCheckpoint(ctx context.Context, cp Checkpointer, intent, when string) *contract.CheckpointRecorded {
	start := time.Now()
	snap, err := cp.Take(ctx)
	e := &contract.CheckpointRecorded{IntentID: intent, When: when, DurationMS: time.Since(start).Milliseconds()}
	if err != nil {
		e.Error = err.Error()
		return e
	}
	e.ID, e.Files, e.Bytes, e.New, e.NewBytes = snap.ID, snap.Files, snap.Bytes, snap.New, snap.NewBytes
	e.LeftCount, e.LeftBytes = snap.LeftCount, snap.LeftBytes
	for _, l := range snap.Left {
		e.Left = append(e.Left, contract.LeftOut{Path: l.Path, Reason: l.Reason})
	}
	return e
}

// changedFiles returns what changed between the snapshots from and to
// for a call's observation (see ChangedFiles); a failure to compare them
// is a diagnostic, and names nothing.
func (rt *Runtime) changedFiles(from, to string, have []contract.FileStamp) []contract.FileStamp {
	files, err := ChangedFiles(rt.opts.Checkpoints, from, to, have)
	if err != nil {
		rt.opts.Logger.Warn("tool: comparing checkpoints", "from", from, "to", to, "err", err)
	}
	return files
}

// ChangedFiles returns what changed between cp's snapshots from and to,
// as the stamps of a call's observation (contract.FileCreated,
// FileChanged, FileDeleted), leaving out the paths of have (a file
// tool's own stamps), at most maxChangedFiles of them.
func ChangedFiles(cp Checkpointer, from, to string, have []contract.FileStamp) ([]contract.FileStamp, error) {
	if from == "" || to == "" || from == to {
		return nil, nil
	}
	changes, err := cp.Diff(from, to)
	if err != nil {
		return nil, err
	}
	own := make(map[string]bool, len(have))
	for _, f := range have {
		own[f.Path] = true
	}
	var out []contract.FileStamp
	for _, c := range changes {
		abs := filepath.Join(cp.Root(), filepath.FromSlash(c.Path))
		if own[abs] {
			continue
		}
		if len(out) == maxChangedFiles {
			break
		}
		out = append(out, StampOf(abs, c))
	}
	return out, nil
}

// StampOf is the stamp of a change between two snapshots of the file at
// abs: of its content afterwards, none for a file that is gone.
func StampOf(abs string, c checkpoint.Change) contract.FileStamp {
	s := contract.FileStamp{Path: abs}
	switch c.Op {
	case checkpoint.Created:
		s.Op = contract.FileCreated
	case checkpoint.Deleted:
		s.Op = contract.FileDeleted
		return s
	default:
		s.Op = contract.FileChanged
	}
	s.Size, s.ModTime, s.SHA256 = c.To.Size, c.To.ModTime.UTC(), c.To.Hash
	return s
}
