package composer

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/rein-agent/rein/internal/atomicfile"
)

// MaxHistory is how many entries a history keeps: the newest.
const MaxHistory = 1000

// History is what the person sent in a project, kept across sessions in a
// file of one JSON string per line, newest last. A History is safe for
// concurrent use: the program adds to it (from a tea.Cmd) while the
// composer reads it. The zero History is an empty one kept in memory only;
// [OpenHistory] gives one kept in a file.
type History struct {
	path string

	mu        sync.Mutex
	entries   []string // oldest first, at most MaxHistory
	fileLines int      // lines in the file, corrupt ones included
}

// HistoryPath returns the history file of the workspace:
// $XDG_STATE_HOME/rein/history/<the first 16 hex digits of the sha256 of
// the workspace's absolute path>.jsonl, XDG_STATE_HOME defaulting to
// ~/.local/state (a relative XDG_STATE_HOME is ignored, as the XDG
// specification asks). It fails when the workspace's absolute path or the
// home directory cannot be found.
func HistoryPath(workspace string) (string, error) {
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return "", fmt.Errorf("composer: history of %s: %w", workspace, err)
	}
	state := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("composer: history: %w", err)
		}
		state = filepath.Join(home, ".local", "state")
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(state, "rein", "history", hex.EncodeToString(sum[:])[:16]+".jsonl"), nil
}

// OpenHistory reads the history at path. A missing file is an empty
// history (the file and its directory are made by the first
// [History.Add]); a line that is not a JSON string is skipped. It fails
// when the file exists but cannot be read.
func OpenHistory(path string) (*History, error) {
	h := &History{path: path}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return nil, fmt.Errorf("composer: open history: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for sc.Scan() {
		h.fileLines++
		var e string
		if json.Unmarshal(sc.Bytes(), &e) != nil || e == "" {
			continue
		}
		h.entries = append(h.entries, e)
	}
	if len(h.entries) > MaxHistory {
		h.entries = slices.Clone(h.entries[len(h.entries)-MaxHistory:])
	}
	return h, nil
}

// Add appends entry to the history, in memory and in the file, unless it
// is blank or the same as the newest entry. The file keeps the newest
// [MaxHistory] entries: it is rewritten whole (atomically) when it would
// hold more, appended to otherwise; it is made with mode 0600 in a
// directory made with mode 0700. When writing fails, the entry is still
// in memory for this session and the error says why the file lacks it.
func (h *History) Add(entry string) error {
	if strings.TrimSpace(entry) == "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.entries); n > 0 && h.entries[n-1] == entry {
		return nil
	}
	h.entries = append(h.entries, entry)
	if len(h.entries) > MaxHistory {
		h.entries = slices.Delete(h.entries, 0, len(h.entries)-MaxHistory)
	}
	if h.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return fmt.Errorf("composer: save history: %w", err)
	}
	if h.fileLines+1 > MaxHistory {
		return h.rewrite()
	}
	line, err := json.Marshal(entry)
	if err != nil {
		return fmt.Errorf("composer: save history: %w", err)
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("composer: save history: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("composer: save history: %w", err)
	}
	h.fileLines++
	return nil
}

// rewrite replaces the file with the entries in memory; h.mu is held.
func (h *History) rewrite() error {
	var b bytes.Buffer
	for _, e := range h.entries {
		line, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("composer: save history: %w", err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	err := atomicfile.Write(h.path, b.Bytes(), 0o600)
	if err == nil || errors.Is(err, atomicfile.ErrNotDurable) {
		h.fileLines = len(h.entries)
	}
	if err != nil {
		return fmt.Errorf("composer: save history: %w", err)
	}
	return nil
}

// Entries returns a copy of the history, oldest first.
func (h *History) Entries() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.entries)
}
