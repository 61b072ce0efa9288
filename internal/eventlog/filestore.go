package eventlog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/rein-agent/rein/internal/atomicfile"
	"github.com/rein-agent/rein/internal/contract"
)

// FileName is the name of the log file inside a session directory.
const FileName = "events.jsonl"

const (
	// indexEvery is the spacing of the in-memory offset index: the offset
	// of every indexEvery-th line is kept, so Events seeks to at most
	// indexEvery-1 lines before the one it wants and skips those without
	// decoding them.
	indexEvery = 64
	// bufferSize is the size of the read and write buffers. Lines may be
	// far longer; readLine grows past it as needed.
	bufferSize = 64 << 10
)

// FileOptions configures [OpenFile]. The zero value opens a writable store
// with buffered appends that become durable at Sync.
type FileOptions struct {
	// Logger receives the warning about a torn last line. Nil means
	// discard.
	Logger *slog.Logger
	// SyncEveryAppend makes every Append flush and fsync before it
	// returns. False (the default) buffers appends until Sync or Close.
	SyncEveryAppend bool
	// ReadOnly opens the store for reading only: nothing is ever written,
	// a torn last line is skipped with a warning rather than cut off, and
	// a missing directory or file is an error wrapping fs.ErrNotExist.
	// Where the system allows it (Linux, on files the process owns), the
	// file is opened without updating its access time.
	ReadOnly bool
	// Visit, if not nil, is called by OpenFile with every event stored,
	// in order of Seq, on the goroutine that called OpenFile, before
	// OpenFile returns: a caller can fold its state in the same pass that
	// checks the file. An event is visited once its line has been checked;
	// a torn last line is not visited. If Visit returns an error, OpenFile
	// stops, leaves the file untouched (a torn tail is not cut) and
	// returns that error, wrapped with the file and the line. An error on
	// a later line fails OpenFile after the events before it have been
	// visited.
	Visit func(contract.Envelope) error
	// Secrets are strings that must never reach the file, such as API
	// keys. Append replaces every occurrence of each non-empty one in the
	// line it writes by "[REDACTED]". An occurrence is the secret as the
	// writer encodes it in a JSON string (without the quotes), so a secret
	// holding a quote or a backslash is still found; the same text spelled
	// with other escapes (\u0041 for A) is not. Nil means none.
	Secrets []string
}

// FileStore is a [Store] kept in one JSON Lines file, dir/events.jsonl: one
// envelope per line, each line ending with a newline, sequence numbers
// dense from 1. See the package documentation for what it does on open
// with a file a crash left behind.
//
// Appends go through a write buffer and become durable at Sync (or at each
// Append with FileOptions.SyncEveryAppend). After a write or sync failure
// the store is broken: every later Append and Sync returns that failure,
// and the next writable open cuts off whatever was half written.
//
// A FileStore is not safe for concurrent use; a [Log] serialises its calls.
// Its zero value is not usable; use [OpenFile]. Nothing prevents two
// processes from opening the same file for writing: the session layer must
// not let that happen.
type FileStore struct {
	path     string
	logger   *slog.Logger
	readOnly bool
	syncEach bool
	redactor *Redactor

	f     *os.File
	w     *bufio.Writer // nil when read-only
	size  int64         // end of the last complete line, buffered bytes included
	last  uint64
	index []int64 // index[k] is the offset of the line of seq k*indexEvery+1
	err   error   // first write or sync failure, returned from then on

	closed bool
}

var _ Store = (*FileStore)(nil)

// OpenFile opens the log of the session directory dir, dir/events.jsonl.
// A writable store creates the directory (mode 0o700) and the file (mode
// 0o600) if they are missing; a read-only one fails with an error wrapping
// fs.ErrNotExist. opts may be nil.
//
// OpenFile reads the whole file to check it and index it, decoding it on
// several goroutines, none of which outlives the call; FileOptions.Visit
// sees every event on the way. A torn last line is cut off (writable) or
// skipped (read-only), with a warning on the logger giving the line number
// and byte count. Any other damage is an error naming the file and the
// line, and the file is left untouched.
func OpenFile(dir string, opts *FileOptions) (*FileStore, error) {
	var o FileOptions
	if opts != nil {
		o = *opts
	}
	s := &FileStore{
		path:     filepath.Join(dir, FileName),
		logger:   o.Logger,
		readOnly: o.ReadOnly,
		syncEach: o.SyncEveryAppend,
		redactor: NewRedactor(o.Secrets),
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	var err error
	if s.readOnly {
		s.f, err = OpenReadOnly(s.path)
	} else {
		s.f, err = createOrOpen(dir, s.path)
	}
	if err != nil {
		return nil, fmt.Errorf("eventlog: open %s: %w", s.path, err)
	}
	if err := s.scan(o.Visit); err != nil {
		// The scan failed, so the file was not modified; the close error
		// adds nothing to the one being returned.
		_ = s.f.Close()
		return nil, err
	}
	if !s.readOnly {
		s.w = bufio.NewWriterSize(s.f, bufferSize)
	}
	return s, nil
}

// createOrOpen opens path for appending, creating dir and path if needed.
// When it creates the directory or the file it fsyncs the directory that
// holds it, so that their existence survives a crash as the contents will.
func createOrOpen(dir, path string) (*os.File, error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		// The new directory's own entry must survive a crash too.
		if err := atomicfile.SyncDir(filepath.Dir(dir)); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	}
	if err != nil {
		return nil, err
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		_ = f.Close() // the sync error is the one to report
		return nil, err
	}
	return f, nil
}

// scan reads the whole file, checks every line, visits its event (visit
// may be nil) and builds the index. It handles a torn last line, and fails
// on any other damage, or when visit fails, without modifying the file.
func (s *FileStore) scan(visit func(contract.Envelope) error) error {
	var torn *Damage
	err := decodeLines(s.f, "eventlog: open "+s.path, func(l *logLine) error {
		if reason := l.tornReason(); reason != "" {
			torn = &Damage{Line: l.num, Offset: l.off, Bytes: l.size, Reason: reason}
			return nil
		}
		err := l.err
		if err == nil {
			err = l.env.Follows(s.last)
		}
		if err == nil && visit != nil {
			err = visit(l.env)
		}
		if err != nil {
			return fmt.Errorf("eventlog: open %s: line %d: %w", s.path, l.num, err)
		}
		if s.last%indexEvery == 0 {
			s.index = append(s.index, l.off)
		}
		s.last++
		s.size = l.off + l.size
		return nil
	})
	if err != nil || torn == nil {
		return err
	}
	return s.tornTail(torn.Offset, torn.Line, torn.Bytes, torn.Reason)
}

// tornTail handles a torn last line, the n bytes from off to the end of
// the file: a writable store truncates the file to off and syncs it, a
// read-only one only stops before it. Both log a warning.
func (s *FileStore) tornTail(off int64, line int, n int64, reason string) error {
	s.size = off
	if s.readOnly {
		s.logger.Warn("eventlog: skipping a torn last line; the file is opened read-only and left as it is",
			"path", s.path, "line", line, "bytes", n, "reason", reason)
		return nil
	}
	if err := s.f.Truncate(off); err != nil {
		return fmt.Errorf("eventlog: open %s: cut torn line %d: %w", s.path, line, err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("eventlog: open %s: cut torn line %d: %w", s.path, line, err)
	}
	s.logger.Warn("eventlog: cut off a torn last line, left by a crash during a write",
		"path", s.path, "line", line, "bytes", n, "reason", reason)
	return nil
}

// readLine reads one line, its newline included, and reports whether it
// ends with a newline; at the end of the input it returns an empty line.
// The line is valid until the next call. Lines longer than r's buffer are
// gathered in *buf, so there is no limit on their length.
func readLine(r *bufio.Reader, buf *[]byte) (line []byte, complete bool, err error) {
	b, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		*buf = append((*buf)[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = r.ReadSlice('\n')
			*buf = append(*buf, b...)
		}
		b = *buf
	}
	switch {
	case err == nil:
		return b, true, nil
	case errors.Is(err, io.EOF):
		return b, false, nil
	}
	return nil, false, err
}

// Path returns the path of the log file.
func (s *FileStore) Path() string { return s.path }

// LastSeq returns the Seq of the last event stored, buffered ones
// included, or 0 if there is none.
func (s *FileStore) LastSeq() uint64 { return s.last }

// Append writes env, whose Seq must be LastSeq()+1, as one line to the
// write buffer, or through to disk with FileOptions.SyncEveryAppend, and
// returns it as written. The line is valid UTF-8 JSON that strict parsers
// accept: invalid UTF-8 and lone surrogate escapes (which a
// json.RawMessage in env, such as a tool intent's input, may carry) are
// replaced by U+FFFD, as encoding/json decodes them; and every secret of
// FileOptions.Secrets in it is replaced by "[REDACTED]". When either
// changed the line, the envelope returned is the one decoded from the line
// written, which is what Events will yield; otherwise it is env. It fails
// on a read-only, closed or broken store, and for an envelope that does
// not encode (nothing is written then).
func (s *FileStore) Append(env contract.Envelope) (contract.Envelope, error) {
	if err := s.writable("append to"); err != nil {
		return contract.Envelope{}, err
	}
	if err := env.Follows(s.last); err != nil {
		return contract.Envelope{}, fmt.Errorf("eventlog: append to %s: %w", s.path, err)
	}
	b, changed, err := s.encode(env)
	if err != nil {
		return contract.Envelope{}, fmt.Errorf("eventlog: append to %s: %w", s.path, err)
	}
	if changed {
		// Rare (a secret, or bytes no parser accepts): the cost of decoding
		// is paid only then, so that what the log publishes is what it
		// keeps.
		if err := env.UnmarshalJSON(b); err != nil {
			return contract.Envelope{}, fmt.Errorf("eventlog: append to %s: read back the line written for %s: %w", s.path, env.Type(), err)
		}
	}
	if _, err = s.w.Write(b); err == nil {
		err = s.w.WriteByte('\n')
	}
	if err != nil {
		s.err = fmt.Errorf("eventlog: append to %s: %w", s.path, err)
		return contract.Envelope{}, s.err
	}
	if s.last%indexEvery == 0 {
		s.index = append(s.index, s.size)
	}
	s.last++
	s.size += int64(len(b)) + 1
	if s.syncEach {
		if err := s.sync(); err != nil {
			return contract.Envelope{}, err
		}
	}
	return env, nil
}

// dataField starts the data of an envelope's line, the last of its
// fields; the ids and names before it never hold a quote, so its first
// occurrence is the one.
var dataField = []byte(`,"data":`)

// encode returns the line of env, cleaned and redacted, and whether
// cleaning or redacting changed it.
func (s *FileStore) encode(env contract.Envelope) ([]byte, bool, error) {
	raw, err := env.MarshalJSON()
	if err != nil {
		return nil, false, err
	}
	// Clean first, so that redaction sees the text as it will be written.
	b := contract.CleanJSON(raw)
	cleaned := len(b) != len(raw) || &b[0] != &raw[0]
	// Only the data is redacted. The envelope's fields before it (seq, id,
	// time, session, run, turn, type, cause) are rein's own and never a
	// secret, and a numeric secret cut out of a timestamp would leave a
	// line that no longer decodes.
	b, redacted, err := s.redactor.line(b, max(bytes.Index(b, dataField), 0))
	if err != nil {
		return nil, false, err
	}
	if bytes.IndexByte(b, '\n') >= 0 {
		// encoding/json never writes one, but a line must stay a line.
		return nil, false, fmt.Errorf("encoded %s contains a newline", env.Type())
	}
	return b, cleaned || redacted, nil
}

// Sync flushes the write buffer and fsyncs the file. On a read-only store
// there is nothing to make durable, and it returns nil.
func (s *FileStore) Sync() error {
	if s.readOnly && !s.closed {
		return nil
	}
	if err := s.writable("sync"); err != nil {
		return err
	}
	return s.sync()
}

// sync flushes and fsyncs, breaking the store if either fails.
func (s *FileStore) sync() error {
	if err := s.w.Flush(); err != nil {
		s.err = fmt.Errorf("eventlog: flush %s: %w", s.path, err)
		return s.err
	}
	if err := s.f.Sync(); err != nil {
		// After a failed fsync the kernel may have dropped the dirty
		// pages: nothing written since the last good sync can be trusted.
		s.err = fmt.Errorf("eventlog: sync %s: %w", s.path, err)
		return s.err
	}
	return nil
}

// writable returns why the store cannot be written to, or nil.
func (s *FileStore) writable(op string) error {
	switch {
	case s.closed:
		return fmt.Errorf("eventlog: %s %s: %w", op, s.path, ErrClosed)
	case s.readOnly:
		return fmt.Errorf("eventlog: %s %s: opened read-only", op, s.path)
	}
	return s.err
}

// Events returns the events with Seq >= from, in order, reading the file
// after flushing the write buffer. It seeks with the offset index rather
// than reading from the start. Ranging over a closed store yields an error
// wrapping [ErrClosed]; a line that no longer decodes or is out of
// sequence (the file was changed behind the store's back) yields an error
// naming the file and line.
//
// Reads go through ReadAt on the store's file and stop at the end of what
// was stored when ranging began, so the loop body may append to the store.
func (s *FileStore) Events(from uint64) iter.Seq2[contract.Envelope, error] {
	return func(yield func(contract.Envelope, error) bool) {
		if s.closed {
			yield(contract.Envelope{}, fmt.Errorf("eventlog: read %s: %w", s.path, ErrClosed))
			return
		}
		if s.w != nil {
			if err := s.writable("read"); err != nil {
				yield(contract.Envelope{}, err)
				return
			}
			if err := s.w.Flush(); err != nil {
				s.err = fmt.Errorf("eventlog: flush %s: %w", s.path, err)
				yield(contract.Envelope{}, s.err)
				return
			}
		}
		from = max(from, 1)
		last, end := s.last, s.size
		if from > last {
			return
		}
		k := (from - 1) / indexEvery
		seq, off := k*indexEvery+1, s.index[k]
		r := bufio.NewReaderSize(io.NewSectionReader(s.f, off, end-off), bufferSize)
		var buf []byte
		for ; seq <= last; seq++ {
			b, complete, err := readLine(r, &buf)
			if err == nil && !complete {
				err = io.ErrUnexpectedEOF
			}
			if err != nil {
				yield(contract.Envelope{}, fmt.Errorf("eventlog: read %s: line %d: %w", s.path, seq, err))
				return
			}
			if seq < from {
				continue
			}
			var env contract.Envelope
			if err := env.UnmarshalJSON(b); err != nil {
				yield(contract.Envelope{}, fmt.Errorf("eventlog: read %s: line %d: %w", s.path, seq, err))
				return
			}
			if env.Seq != seq {
				yield(contract.Envelope{}, fmt.Errorf("eventlog: read %s: line %d has seq %d", s.path, seq, env.Seq))
				return
			}
			if !yield(env, nil) {
				return
			}
		}
	}
}

// Close flushes and fsyncs what was appended, then closes the file. If
// the store broke earlier, Close returns that failure. Closing twice is
// not an error.
func (s *FileStore) Close() error {
	if s.closed {
		return nil
	}
	var err error
	if !s.readOnly {
		err = s.writable("close")
		if err == nil {
			err = s.sync()
		}
	}
	s.closed = true
	if cerr := s.f.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("eventlog: close %s: %w", s.path, cerr)
	}
	return err
}
