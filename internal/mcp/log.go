package mcp

import (
	"errors"
	"io/fs"
	"os"
	"sync"
)

// maxPending bounds what a server's log keeps in memory while its
// directory does not exist yet.
const maxPending = 64 << 10

// serverLog is the standard error of one server, across its restarts,
// appended to a file of the log directory. A session's directory is made
// with its first event, which may come after a server has said something:
// until the directory exists the log is kept in memory (the first
// maxPending bytes), and written out once it does.
type serverLog struct {
	dir, path string

	mu      sync.Mutex
	f       *os.File
	pending []byte
	dropped bool
	failed  error
}

// serverLog returns the log of server name, nil when there is none.
func (m *Manager) serverLog(name string) *serverLog {
	path := m.logPath(name)
	if path == "" {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.logs == nil {
		m.logs = map[string]*serverLog{}
	}
	if l, ok := m.logs[name]; ok {
		return l
	}
	l := &serverLog{dir: m.opts.LogDir, path: path}
	m.logs[name] = l
	return l
}

// Write appends p to the log; it never fails, so that a server's output
// is never held up by its log.
func (l *serverLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.write(p)
	return len(p), nil
}

// mark writes a line of rein's own to the log.
func (l *serverLog) mark(line string) {
	l.Write([]byte(line))
}

// write writes p, or keeps it while the directory does not exist; mu is
// held.
func (l *serverLog) write(p []byte) {
	if l.f == nil && l.failed == nil {
		l.open()
	}
	if l.f != nil {
		l.f.Write(p)
		return
	}
	room := maxPending - len(l.pending)
	if len(p) > room {
		p, l.dropped = p[:max(room, 0)], true
	}
	l.pending = append(l.pending, p...)
}

// open opens the file once its directory exists, and writes what was
// kept; mu is held.
func (l *serverLog) open() {
	if _, err := os.Stat(l.dir); errors.Is(err, fs.ErrNotExist) {
		return
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		l.failed = err
		l.pending = nil
		return
	}
	l.f = f
	f.Write(l.pending)
	if l.dropped {
		f.WriteString("--- rein: some of the server's output before the session began was dropped\n")
	}
	l.pending = nil
}

// close writes what is kept, if the directory exists now, and closes the
// file.
func (l *serverLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil && l.failed == nil && len(l.pending) > 0 {
		l.open()
	}
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}
