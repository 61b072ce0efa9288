package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/rein-agent/rein/internal/registry"
)

//go:embed write_file.md
var writeFileDescription string

type writeFileInput struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func (ft *fileTools) writeFile() registry.Tool {
	return registry.Tool{
		Name:        "write_file",
		Description: writeFileDescription,
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"path":{"type":"string","description":"The file to write, relative to the workspace root or absolute inside the workspace. Missing parent directories are created."},` +
			`"content":{"type":"string","description":"The whole new content of the file."}},` +
			`"required":["path","content"],"additionalProperties":false}`),
		Risk:        registry.RiskWrite,
		Concurrency: registry.Exclusive,
		Check: func(input json.RawMessage) error {
			_, abs, err := resolveInput[writeFileInput](ft, "write_file", input)
			if err != nil {
				return err
			}
			_, err = ft.existingFile(abs, false)
			return err
		},
		Execute: fileExecutor(ft, "write_file", ft.writeFileAt),
	}
}

// existingFile returns the file at abs as it is now, nil when there is
// none. A file that is there must be a regular one which the model read
// in the session and which has not changed since, else the error is a
// *registry.CheckError (stale_file or precondition_failed). With load
// set, the content of a file up to maxFileSize is returned too; otherwise,
// or for a larger file, the file is only hashed.
func (ft *fileTools) existingFile(abs string, load bool) (*loaded, error) {
	shown := ft.show(abs)
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &registry.CheckError{Code: "precondition_failed", Message: fmt.Sprintf("%s: %v", shown, err)}
	}
	if !fi.Mode().IsRegular() {
		return nil, &registry.CheckError{Code: "precondition_failed", Message: fmt.Sprintf("%s is %s, not a file to write", shown, fileKind(fi.Mode()))}
	}
	if !load || fi.Size() > maxFileSize {
		return &loaded{size: fi.Size()}, ft.ledger.verifyFile(abs, shown)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, &registry.CheckError{Code: "precondition_failed", Message: fmt.Sprintf("%s: %v", shown, err)}
	}
	st := contentStamp(data, fi.ModTime())
	if err := ft.ledger.verify(abs, shown, st); err != nil {
		return nil, err
	}
	return &loaded{data: data, size: st.size, whole: true}, nil
}

// loaded is what existingFile found.
type loaded struct {
	data  []byte // the content, when whole
	size  int64
	whole bool
}

// commit writes data to abs atomically and records its new stamp, so the
// model may change the file again without reading it back.
func (ft *fileTools) commit(abs string, data []byte) error {
	if err := writeAtomic(abs, data); err != nil {
		return err
	}
	mtime := time.Now()
	if fi, err := os.Stat(abs); err == nil {
		mtime = fi.ModTime()
	}
	ft.ledger.record(abs, contentStamp(data, mtime))
	return nil
}

// writeFileAt writes in.Content to the file at abs and reports what
// changed to w.
func (ft *fileTools) writeFileAt(_ context.Context, w io.Writer, in writeFileInput, abs string) error {
	shown := ft.show(abs)
	old, err := ft.existingFile(abs, true)
	if err != nil {
		return err
	}
	data := []byte(in.Content)
	if err := ft.commit(abs, data); err != nil {
		return fmt.Errorf("write_file: %s: %w", shown, err)
	}
	if old == nil {
		return writeOutput(w, "write_file", fmt.Sprintf("created %s (%s)\n", shown, count(countLines(data), "line", "lines")))
	}
	if !old.whole {
		return writeOutput(w, "write_file", fmt.Sprintf("updated %s (%s, was %s: too large to show a diff)\n",
			shown, humanSize(int64(len(data))), humanSize(old.size)))
	}
	diff := unifiedDiff(shown, old.data, data)
	if diff == "" {
		return writeOutput(w, "write_file", fmt.Sprintf("updated %s (content unchanged)\n", shown))
	}
	return writeOutput(w, "write_file", fmt.Sprintf("updated %s\n%s", shown, diff))
}
