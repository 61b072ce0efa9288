package kernel

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/rein-agent/rein/internal/textdiff"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rein-agent/rein/internal/checkpoint"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool"
)

// DefaultKeepPoints is how many of its latest points a session keeps
// what a rewind to them needs (Options.KeepPoints).
const DefaultKeepPoints = 100

// RewindPoint is a place a session can be rewound to: just before one of
// its messages (see Kernel.RewindPoints).
type RewindPoint struct {
	Seq  uint64
	Time time.Time
	// Text is the message as the person sent it.
	Text string
	// Rewound says an earlier rewind left it out of the conversation: a
	// rewind to it goes forward again.
	Rewound bool
	// Files counts the files a rewind of the code to it restores; -1 when
	// the session cannot say (no checkpoints kept, or one that failed).
	Files int
}

// RewindChange is what a rewind of the code does to one file: Op
// "created" (it comes back), "changed" (rewritten) or "deleted" (it goes).
type RewindChange struct {
	Path string // relative to the workspace, slash separated
	Op   string
}

// RewindPlan is what a rewind to Point does (Kernel.PlanRewind), or did
// (Kernel.Rewind).
type RewindPlan struct {
	Point RewindPoint
	Scope string
	// Changes are the files the code's rewind restores; none for a
	// rewind of the conversation alone.
	Changes []RewindChange
	// Conflicts are the files among Changes that someone else changed
	// since rein last recorded them (or whose content rein did not keep),
	// and what is in the way of one coming back: a rewind stops on them
	// unless forced.
	Conflicts []string
	// checkpoint is the snapshot the files come back from; changes what
	// the store does to each.
	checkpoint string
	changes    []checkpoint.Change
}

// ErrConflict is what a rewind that stopped on Conflicts wraps.
var ErrConflict = errors.New("files changed since rein last recorded them")

// RewindPoints returns the points a rewind may go to, oldest first: the
// messages of the session, the rewound ones too, at most KeepPoints of
// the latest.
func (k *Kernel) RewindPoints() []RewindPoint {
	st := k.State()
	var out []RewindPoint
	for _, p := range k.kept(&st) {
		rp := k.rewindPoint(&st, p)
		rp.Files = -1
		if plan, err := k.planCode(&st, p); err == nil {
			rp.Files = len(plan.changes)
		}
		out = append(out, rp)
	}
	return out
}

// kept returns the points of st a rewind may go to.
func (k *Kernel) kept(st *state.State) []state.Point {
	keep := cmp.Or(k.opts.KeepPoints, DefaultKeepPoints)
	return st.Points[max(0, len(st.Points)-keep):]
}

func (k *Kernel) rewindPoint(st *state.State, p state.Point) RewindPoint {
	return RewindPoint{Seq: p.Seq, Time: p.Time, Text: p.Text, Rewound: !st.Live(p)}
}

// PlanRewind says what a rewind to the message of seq would do, scope
// being contract.RewindBoth, RewindCode or RewindConversation; seq 0 means
// the latest message of the conversation. It changes nothing.
func (k *Kernel) PlanRewind(seq uint64, scope string) (RewindPlan, error) {
	st := k.State()
	return k.plan(&st, seq, scope)
}

func (k *Kernel) plan(st *state.State, seq uint64, scope string) (RewindPlan, error) {
	switch scope {
	case "":
		scope = contract.RewindBoth
	case contract.RewindBoth, contract.RewindCode, contract.RewindConversation:
	default:
		return RewindPlan{}, &ControlError{Msg: fmt.Sprintf("there is no rewind scope %q: it is both, code or conversation", scope)}
	}
	p, err := k.pointOf(st, seq)
	if err != nil {
		return RewindPlan{}, err
	}
	plan := RewindPlan{Point: k.rewindPoint(st, p), Scope: scope}
	if scope == contract.RewindConversation {
		return plan, nil
	}
	code, err := k.planCode(st, p)
	if err != nil {
		return plan, err
	}
	code.Point, code.Scope = plan.Point, scope
	return code, nil
}

// pointOf finds the point of seq among those kept, or the latest of the
// conversation for seq 0.
func (k *Kernel) pointOf(st *state.State, seq uint64) (state.Point, error) {
	if seq == 0 {
		if len(st.Timeline) == 0 {
			return state.Point{}, &ControlError{Msg: "the session has no message to rewind to"}
		}
		seq = st.Timeline[len(st.Timeline)-1]
	}
	kept := k.kept(st)
	i := slices.IndexFunc(kept, func(p state.Point) bool { return p.Seq == seq })
	if i >= 0 {
		return kept[i], nil
	}
	if _, ok := st.PointAt(seq); ok {
		return state.Point{}, &ControlError{Msg: fmt.Sprintf("the message at seq %d is older than the %d points the session keeps (the checkpoints setting points)",
			seq, cmp.Or(k.opts.KeepPoints, DefaultKeepPoints))}
	}
	return state.Point{}, &ControlError{Msg: fmt.Sprintf("there is no message at seq %d to rewind to; the list of points says which there are", seq)}
}

// planCode says what restoring the workspace to point p does: the files
// that differ between the snapshot of the workspace at p and the last one
// rein recorded, and those among them changed on disk since.
func (k *Kernel) planCode(st *state.State, p state.Point) (RewindPlan, error) {
	var plan RewindPlan
	at, ok := st.Workspace(p)
	if !ok {
		return plan, nil // nothing of rein's changed the workspace since
	}
	if k.opts.Checkpoints == nil {
		return plan, &ControlError{Msg: "this session keeps no checkpoints, so its files cannot be rewound (the conversation can)"}
	}
	i, _ := slices.BinarySearchFunc(st.Checkpoints, at.Seq, func(c state.Checkpoint, seq uint64) int { return cmp.Compare(c.Seq, seq) })
	for _, c := range st.Checkpoints[i:] {
		if c.ID == "" {
			return plan, &ControlError{Msg: fmt.Sprintf("the checkpoint at seq %d failed, so the files changed since cannot be restored exactly (the conversation can be rewound)", c.Seq)}
		}
	}
	last, _ := st.LastCheckpoint()
	sp, err := k.opts.Checkpoints.Plan(at.ID, last.ID)
	if err != nil {
		return plan, &ControlError{Msg: fmt.Sprintf("reading the checkpoints: %v", err), Err: err}
	}
	plan.checkpoint, plan.changes = at.ID, sp.Changes
	for _, c := range sp.Changes {
		plan.Changes = append(plan.Changes, RewindChange{Path: c.Path, Op: string(c.Op)})
	}
	plan.Conflicts = sp.Conflicts
	return plan, nil
}

// Rewind rewinds the session to just before the message of seq (0: the
// latest of the conversation), as PlanRewind describes: with scope
// contract.RewindCode or RewindBoth, the files the session changed since
// come back as they were; with RewindConversation or RewindBoth, the
// conversation goes on from there (the log keeps what came after, which
// replay shows as rewound). Files changed since rein last recorded them
// stop it, with an error wrapping ErrConflict and nothing written, unless
// force. It records a checkpoint of the workspace as it is first, so that
// a later rewind can come back to it, then session.rewound, then, when it
// restored files, a checkpoint of the workspace as restored: what rein
// last recorded from then on. It returns
// ErrBusy during a run.
func (k *Kernel) Rewind(ctx context.Context, seq uint64, scope string, force bool) (RewindPlan, error) {
	if !k.busy.CompareAndSwap(false, true) {
		return RewindPlan{}, ErrBusy
	}
	defer k.busy.Store(false)
	st := k.State()
	if st.Unfinished() {
		return RewindPlan{}, &ControlError{Msg: "the last run is unfinished (rein stopped before it ended): resume the session first, then rewind"}
	}
	plan, err := k.plan(&st, seq, scope)
	if err != nil {
		return plan, err
	}
	if len(plan.Conflicts) > 0 && !force {
		return plan, &ControlError{Msg: fmt.Sprintf("%s changed since rein last recorded %s",
			strings.Join(plan.Conflicts, ", "), pronoun(len(plan.Conflicts))), Err: ErrConflict}
	}
	if k.opts.Checkpoints != nil {
		if err := k.rewindCheckpoint(ctx, plan.Scope != contract.RewindConversation); err != nil {
			return plan, err
		}
	}
	e := &contract.SessionRewound{To: plan.Point.Seq, Scope: plan.Scope, Checkpoint: plan.checkpoint}
	if len(plan.changes) > 0 {
		if err := k.opts.Checkpoints.Restore(plan.checkpoint, plan.changes); err != nil {
			// Some files may be restored and others not: what rein
			// last recorded is the workspace as it now is, so that the
			// next rewind does not take rein's own writes for someone
			// else's. The conversation is left as it was.
			rerr := k.record(tool.TakeCheckpoint(context.WithoutCancel(ctx), k.opts.Checkpoints, "", contract.CheckpointRestored))
			return plan, errors.Join(&ControlError{Msg: "some files could not be restored, so the rewind stopped (the conversation was not rewound; " +
				"the files it did restore are recorded; once what stopped it is dealt with, a rewind to the same point finishes it): " + err.Error(), Err: err}, rerr)
		}
		root := k.opts.Checkpoints.Root()
		for _, c := range plan.changes {
			e.Files = append(e.Files, tool.StampOf(filepath.Join(root, filepath.FromSlash(c.Path)), c))
		}
		if force {
			for _, c := range plan.Conflicts {
				e.Forced = append(e.Forced, filepath.Join(root, filepath.FromSlash(c)))
			}
		}
	}
	if err := k.record(e); err != nil {
		return plan, err
	}
	if len(plan.changes) > 0 {
		// What rein last recorded is now the workspace as restored: the
		// next rewind compares the disk with it, not with what was there
		// before this one.
		if err := k.record(tool.TakeCheckpoint(context.WithoutCancel(ctx), k.opts.Checkpoints, "", contract.CheckpointRestored)); err != nil {
			return plan, err
		}
	}
	return plan, nil
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// rewindCheckpoint records a snapshot of the workspace as it is before a
// rewind writes anything. One that fails stops a rewind of the files
// (code); a rewind of the conversation alone, which writes no file,
// records the failure (a later rewind of the files past it refuses,
// saying so) and goes on, as the refusal of a rewind of the files over a
// failed checkpoint promises.
func (k *Kernel) rewindCheckpoint(ctx context.Context, code bool) error {
	if err := ctx.Err(); err != nil {
		return err // cancelled: nothing recorded, nothing rewound
	}
	ctx = context.WithoutCancel(ctx) // a snapshot begun is finished
	e := tool.TakeCheckpoint(ctx, k.opts.Checkpoints, "", contract.CheckpointRewind)
	if e.Error != "" && code {
		return &ControlError{Msg: "the workspace could not be recorded before the rewind, so nothing was rewound: " + e.Error}
	}
	return k.record(e)
}

// changedSince records, for the call of intent that rein stopped during
// (a resume settles it), a checkpoint of the workspace as the call left
// it, when the last one recorded is the one taken before the call, and
// returns the files that changed between the two, as the call's
// observation names them.
func (r *run) changedSince(intent string) ([]contract.FileStamp, error) {
	k := r.k
	st := r.state()
	last, ok := st.LastCheckpoint()
	if k.opts.Checkpoints == nil || !ok || last.When != contract.CheckpointBefore || last.Intent != intent || last.ID == "" {
		return nil, nil
	}
	e := tool.TakeCheckpoint(context.Background(), k.opts.Checkpoints, intent, contract.CheckpointAfter)
	if _, err := r.emit(e, r.lastID); err != nil {
		return nil, err
	}
	if e.ID == "" {
		return nil, nil
	}
	files, err := tool.ChangedFiles(k.opts.Checkpoints, last.ID, e.ID, nil)
	if err != nil {
		k.opts.Logger.Warn("kernel: comparing checkpoints", "from", last.ID, "to", e.ID, "err", err)
	}
	return files, nil
}

// prune lets go of what only the points older than the kept ones need
// (Options.KeepPoints): the checkpoints' objects that no later one
// shares. It runs when a message takes a point past the limit; a
// failure is a diagnostic (the objects stay, and take room, nothing
// else).
func (k *Kernel) prune() {
	st := k.State()
	keep := cmp.Or(k.opts.KeepPoints, DefaultKeepPoints)
	if k.opts.Checkpoints == nil || len(st.Points) <= keep {
		return
	}
	oldest := st.Points[len(st.Points)-keep].Seq
	var ids []string
	for _, c := range st.Checkpoints {
		if c.Seq > oldest && c.ID != "" {
			ids = append(ids, c.ID)
		}
	}
	if last, ok := st.LastCheckpoint(); ok && last.ID != "" {
		ids = append(ids, last.ID) // the base of the next one
	}
	if _, err := k.opts.Checkpoints.Keep(ids); err != nil {
		k.opts.Logger.Warn("kernel: letting go of old checkpoints", "err", err)
	}
}

// maxChangeDiff bounds the diff ChangesOf gives of one call, and
// maxDiffFile the files it shows line by line.
const (
	maxChangeDiff = 256 << 10
	maxDiffFile   = 1 << 20
)

// ChangesOf returns the unified diff of what the call of intent changed
// in the workspace, as the checkpoints before and after it hold it (a
// command's changes, which its input does not tell): each text file
// created, changed or deleted, a binary or large one named only; ""
// when the session keeps no checkpoints of it. It reads only the
// checkpoints (for /diff).
func (k *Kernel) ChangesOf(intent string) string {
	st := k.State()
	i := slices.IndexFunc(st.Checkpoints, func(c state.Checkpoint) bool {
		return c.Intent == intent && c.When == contract.CheckpointAfter
	})
	if k.opts.Checkpoints == nil || i < 1 || st.Checkpoints[i].ID == "" || st.Checkpoints[i-1].ID == "" {
		return ""
	}
	from, to := st.Checkpoints[i-1].ID, st.Checkpoints[i].ID
	changes, err := k.opts.Checkpoints.Diff(from, to)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, c := range changes {
		if b.Len() >= maxChangeDiff {
			fmt.Fprintf(&b, "… the diff is cut at %d KiB\n", maxChangeDiff>>10)
			break
		}
		before, okb := k.snapshotText(from, c.Path, c.Op != checkpoint.Created)
		after, oka := k.snapshotText(to, c.Path, c.Op != checkpoint.Deleted)
		if !okb || !oka {
			fmt.Fprintf(&b, "binary or large file %s %s\n", c.Path, c.Op)
			continue
		}
		b.WriteString(textdiff.Unified(c.Path, before, after))
	}
	return b.String()
}

// snapshotText returns the content of path in snapshot id when it is
// text of at most maxDiffFile bytes (nil, true when !exists); false when
// it is not, or cannot be read.
func (k *Kernel) snapshotText(id, path string, exists bool) ([]byte, bool) {
	if !exists {
		return nil, true
	}
	r, e, err := k.opts.Checkpoints.Open(id, path)
	if err != nil {
		return nil, false
	}
	defer r.Close()
	if e.Size > maxDiffFile || e.Kind != "file" {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(r, maxDiffFile+1))
	if err != nil || len(data) > maxDiffFile || bytes.IndexByte(data, 0) >= 0 {
		return nil, false
	}
	return data, true
}
