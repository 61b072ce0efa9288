package builtin

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rein-agent/rein/internal/textdiff"
	"io/fs"
	"os"
	"strings"
)

// previewEdit is edit_file's registry.Tool.Preview: the diff the edit of
// input would make to the file as it is now, computed as the edit
// computes it, writing nothing. An edit that would not apply (old_string
// not found, or found more than once) has no preview.
func (ft *fileTools) previewEdit(input json.RawMessage) (string, error) {
	in, abs, err := resolveInput[editFileInput](ft, "edit_file", input, forWrite)
	if err != nil {
		return "", err
	}
	if err := in.validate(); err != nil {
		return "", err
	}
	shown := ft.show(abs)
	old, exists, err := previewRead(abs, shown)
	if err != nil {
		return "", err
	}
	if err := editTarget(shown, exists, in.OldString); err != nil {
		return "", err
	}
	if !exists {
		return createdDiff(shown, []byte(in.NewString)), nil
	}
	edited, _, err := replace(string(old), in.OldString, in.NewString, in.ReplaceAll, shown)
	if err != nil {
		return "", err
	}
	return textdiff.Unified(shown, old, []byte(edited)), nil
}

// previewWrite is write_file's registry.Tool.Preview: the diff from the
// file as it is now (nothing, for a new file) to the content of input.
func (ft *fileTools) previewWrite(input json.RawMessage) (string, error) {
	in, abs, err := resolveInput[writeFileInput](ft, "write_file", input, forWrite)
	if err != nil {
		return "", err
	}
	shown := ft.show(abs)
	old, exists, err := previewRead(abs, shown)
	if err != nil {
		return "", err
	}
	if !exists {
		return createdDiff(shown, []byte(in.Content)), nil
	}
	return textdiff.Unified(shown, old, []byte(in.Content)), nil
}

// createdDiff is the diff that creates the file shown with data: from
// /dev/null, as diff -N and git show it.
func createdDiff(shown string, data []byte) string {
	diff := textdiff.Unified(shown, nil, data)
	if first, rest, ok := strings.Cut(diff, "\n"); ok && strings.HasPrefix(first, "--- ") {
		return "--- /dev/null\n" + rest
	}
	return diff
}

// previewRead returns the content of the regular file at abs, and whether
// there is one; a file larger than the file tools change whole, or that
// cannot be read, is an error.
func previewRead(abs, shown string) ([]byte, bool, error) {
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	case !fi.Mode().IsRegular():
		return nil, false, fmt.Errorf("%s is %s", shown, fileKind(fi.Mode()))
	case fi.Size() > maxFileSize:
		return nil, false, fmt.Errorf("%s is %s, too large to show a diff", shown, humanSize(fi.Size()))
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}
