package eventlog

import (
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/rein-agent/rein/internal/contract"
)

// ReadOptions configures [ReadFile]. The zero value is ready to use.
type ReadOptions struct {
	// Logger receives a warning for every line skipped and every gap in
	// the sequence. Nil means discard.
	Logger *slog.Logger
}

// Damage is a line of a log that [ReadFile] skipped, or whose event it
// read but found out of sequence.
type Damage struct {
	// Line is the number of the line, from 1.
	Line int
	// Offset is the offset of the line's first byte in the file.
	Offset int64
	// Bytes is the length of the line, its newline included.
	Bytes int64
	// Reason says what is wrong with it.
	Reason string
}

// ReadInfo is what [ReadFile] found in a log.
type ReadInfo struct {
	// Events is the number of events visited.
	Events int
	// LastSeq is the Seq of the last event visited, 0 if none was.
	LastSeq uint64
	// Torn is the torn last line that was skipped, nil if there is none.
	Torn *Damage
	// Damaged lists, in file order, the other lines skipped (they do not
	// decode, hold a delta, or repeat or go back in the sequence) and the
	// lines whose event came after a gap in the sequence (their event was
	// visited).
	Damaged []Damage
}

// ReadFile reads the log of the session directory dir, dir/events.jsonl,
// for a command that only looks at it (replay, log, why, sessions list),
// and calls visit (which may be nil) with its events in file order, on
// the calling goroutine. It is tolerant where [OpenFile] is strict: it
// reads whatever can be read and says what could not.
//
//   - A torn last line (no trailing newline, or not decoding) is skipped,
//     with a warning, and reported in ReadInfo.Torn.
//   - A line elsewhere that does not decode, or holds a delta, is skipped,
//     with a warning naming the file and the line, and reported in
//     ReadInfo.Damaged; the events after it are still read.
//   - An event whose Seq is not after the last one visited is skipped the
//     same way. An event that comes after a gap is visited, and the gap is
//     reported as damage of its line ("seq jumps from 41 to 43: 1 event
//     missing").
//
// ReadFile never writes: it cuts nothing, creates nothing, and opens the
// file without updating its access time where the system allows it. A
// missing directory or file is an error wrapping fs.ErrNotExist; an empty
// file holds no events. A visit error stops the read and is returned,
// wrapped with the file and the line. On any error, the ReadInfo returned
// describes what was read before it.
func ReadFile(dir string, opts *ReadOptions, visit func(contract.Envelope) error) (ReadInfo, error) {
	path := filepath.Join(dir, FileName)
	logger := slog.New(slog.DiscardHandler)
	if opts != nil && opts.Logger != nil {
		logger = opts.Logger
	}
	f, err := OpenReadOnly(path)
	if err != nil {
		return ReadInfo{}, fmt.Errorf("eventlog: read %s: %w", path, err)
	}
	// Nothing was written: a close error says nothing about what was read.
	defer f.Close()
	var info ReadInfo
	damaged := func(l *logLine, msg, reason string) {
		info.Damaged = append(info.Damaged, Damage{Line: l.num, Offset: l.off, Bytes: l.size, Reason: reason})
		logger.Warn(msg, "path", path, "line", l.num, "bytes", l.size, "reason", reason)
	}
	err = decodeLines(f, "eventlog: read "+path, func(l *logLine) error {
		switch reason := l.tornReason(); {
		case reason != "":
			info.Torn = &Damage{Line: l.num, Offset: l.off, Bytes: l.size, Reason: reason}
			logger.Warn("eventlog: skipping a torn last line, left by a crash during a write; the file is left as it is",
				"path", path, "line", l.num, "bytes", l.size, "reason", reason)
			return nil
		case l.err != nil:
			damaged(l, "eventlog: skipping a line that does not decode", l.err.Error())
			return nil
		case !l.env.Durable():
			damaged(l, "eventlog: skipping a delta, which is never stored", l.env.Type()+" is a delta, which is never stored")
			return nil
		case l.env.Seq <= info.LastSeq:
			damaged(l, "eventlog: skipping an event out of sequence",
				fmt.Sprintf("seq %d does not come after %d", l.env.Seq, info.LastSeq))
			return nil
		case l.env.Seq > info.LastSeq+1:
			missing := l.env.Seq - info.LastSeq - 1
			events := "events"
			if missing == 1 {
				events = "event"
			}
			damaged(l, "eventlog: events are missing from the log",
				fmt.Sprintf("seq jumps from %d to %d: %d %s missing", info.LastSeq, l.env.Seq, missing, events))
		}
		if visit != nil {
			if err := visit(l.env); err != nil {
				return fmt.Errorf("eventlog: read %s: line %d: %w", path, l.num, err)
			}
		}
		info.Events++
		info.LastSeq = l.env.Seq
		return nil
	})
	return info, err
}
