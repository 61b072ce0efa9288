package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rein-agent/rein/internal/textdiff"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/rein-agent/rein/internal/atomicfile"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

//go:embed write_file.md
var writeFileDescription string

type writeFileInput struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// writeFile declares write_file: create or replace a whole file, one the
// session has read as it is now when it exists.
func (ft *fileTools) writeFile() registry.Tool {
	schema := objectSchema([]string{"path", "content"},
		`"path":{"type":"string","description":"The file to write, relative to the workspace root or absolute inside the workspace. Missing parent directories are created."}`,
		`"content":{"type":"string","description":"The whole new content of the file."}`)
	check := func(input json.RawMessage, ledger state.Ledger) error {
		_, abs, err := resolveInput[writeFileInput](ft, "write_file", input, forWrite)
		if err != nil {
			return err
		}
		_, err = ft.existingFile(abs, false, ledger)
		return err
	}
	t := fileTool(ft, "write_file", writeFileDescription, schema, registry.RiskWrite, check, ft.writeFileAt)
	t.Preview = ft.previewWrite
	return t
}

// existingFile returns the file at abs as it is now, nil when there is
// none. A file that is there must be a regular one which ledger holds
// with its current content (read or written in the session, not changed
// since), else the error is a *registry.CheckError (stale_file or
// precondition_failed) about the file as it is now (Current). With load
// set, the content of a file up to maxFileSize is returned too;
// otherwise, or for a larger file, the file is only hashed.
func (ft *fileTools) existingFile(abs string, load bool, ledger state.Ledger) (*loaded, error) {
	shown := ft.show(abs)
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, nowFailed(contract.CodePreconditionFailed, "%s: %v", shown, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nowFailed(contract.CodePreconditionFailed, "%s is %s, not a file to write", shown, fileKind(fi.Mode()))
	}
	if !load || fi.Size() > maxFileSize {
		return &loaded{size: fi.Size()}, verifyFile(ledger, abs, shown)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, nowFailed(contract.CodePreconditionFailed, "%s: %v", shown, err)
	}
	cur := contentStamp(abs, data, fi.ModTime(), contract.FileRead)
	if err := verify(ledger, abs, shown, cur); err != nil {
		return nil, err
	}
	return &loaded{data: data, size: cur.Size, whole: true}, nil
}

// loaded is what existingFile found.
type loaded struct {
	data  []byte // the content, when whole
	size  int64
	whole bool
}

// commit writes data to abs atomically (package atomicfile: a reader
// sees the old content or the new, never a part; an existing file keeps
// its mode, a new one gets 0666 less the umask; missing parent
// directories are created) and returns its new stamp, which the tool
// reports: what rein wrote the model has seen, so it may change the file
// again without reading it back. A write that only could not be made
// durable (a directory's fsync failed) has changed the file, and is
// reported as the write it is.
func commit(abs string, data []byte) ([]contract.FileStamp, error) {
	if err := atomicfile.MkdirAll(filepath.Dir(abs), 0o755); err != nil && !errors.Is(err, atomicfile.ErrNotDurable) {
		return nil, err
	}
	if err := atomicfile.Write(abs, data, 0o666); err != nil && !errors.Is(err, atomicfile.ErrNotDurable) {
		return nil, err
	}
	mtime := time.Now().Round(0)
	if fi, err := os.Stat(abs); err == nil {
		mtime = fi.ModTime()
	}
	return []contract.FileStamp{contentStamp(abs, data, mtime, contract.FileWrite)}, nil
}

// writeFileAt writes in.Content to the file at abs, which ledger must hold
// as it is if it exists, and reports what changed to w.
func (ft *fileTools) writeFileAt(_ context.Context, w io.Writer, in writeFileInput, abs string, ledger state.Ledger) ([]contract.FileStamp, error) {
	shown := ft.show(abs)
	old, err := ft.existingFile(abs, true, ledger)
	if err != nil {
		return nil, err
	}
	data := []byte(in.Content)
	files, err := commit(abs, data)
	if err != nil {
		return nil, fmt.Errorf("write_file: %s: %w", shown, err)
	}
	return files, writeOutput(w, "write_file", writeReport(shown, old, data))
}

// writeReport says what writing data over old (nil when there was no
// file) changed.
func writeReport(shown string, old *loaded, data []byte) string {
	switch {
	case old == nil:
		return fmt.Sprintf("created %s (%s)\n", shown, count(textdiff.CountLines(data), "line", "lines"))
	case !old.whole:
		return fmt.Sprintf("updated %s (%s, was %s: too large to show a diff)\n", shown, humanSize(int64(len(data))), humanSize(old.size))
	}
	if diff := textdiff.Unified(shown, old.data, data); diff != "" {
		return fmt.Sprintf("updated %s\n%s", shown, diff)
	}
	return fmt.Sprintf("updated %s (content unchanged)\n", shown)
}
