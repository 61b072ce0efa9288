package builtin

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"github.com/rein-agent/rein/internal/textdiff"
	"io"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

//go:embed edit_file.md
var editFileDescription string

type editFileInput struct {
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

// editFile declares edit_file: replace exact text in a file the session
// has read as it is now.
func (ft *fileTools) editFile() registry.Tool {
	schema := objectSchema([]string{"path", "old_string", "new_string"},
		`"path":{"type":"string","description":"The file to edit, relative to the workspace root or absolute inside the workspace."}`,
		`"old_string":{"type":"string","description":"The exact text to replace, as the file holds it (indentation included, no line-number prefixes). It must occur exactly once unless replace_all is set."}`,
		`"new_string":{"type":"string","description":"The text to put in its place; it must differ from old_string."}`,
		`"replace_all":{"type":"boolean","description":"Replace every occurrence of old_string instead of exactly one (default false)."}`)
	t := fileTool(ft, "edit_file", editFileDescription, schema, registry.RiskWrite, ft.checkEditFile, ft.editFileAt)
	t.Preview = ft.previewEdit
	return t
}

// validate returns a precondition_failed *registry.CheckError for an
// edit that would change nothing.
func (in editFileInput) validate() error {
	if in.OldString == in.NewString {
		return &registry.CheckError{Code: contract.CodePreconditionFailed, Message: "old_string and new_string are the same; there is nothing to change"}
	}
	return nil
}

// checkEditFile is edit_file's Check: everything the edit needs that can
// be seen without making it. The path leads where a write may go; the file
// exists (or, for an empty old_string, does not); it
// was read in the session and has not changed since; it is not too large
// to edit; and old_string is found in it once, or at least once with
// replace_all. It reads the file, and changes nothing.
func (ft *fileTools) checkEditFile(input json.RawMessage, ledger state.Ledger) error {
	in, abs, err := resolveInput[editFileInput](ft, "edit_file", input, forWrite)
	if err != nil {
		return err
	}
	if err := in.validate(); err != nil {
		return err
	}
	shown := ft.show(abs)
	old, err := ft.existingFile(abs, true, ledger)
	if err != nil {
		return err
	}
	if err := editTarget(shown, old != nil, in.OldString); err != nil {
		return nowFailed(contract.CodePreconditionFailed, "%v", err)
	}
	switch {
	case old == nil:
		return nil
	case !old.whole:
		return nowFailed(contract.CodePreconditionFailed, "%v", tooLargeToEdit(shown, old.size))
	}
	// The usual case, counted without a copy of the file.
	if n := bytes.Count(old.data, []byte(in.OldString)); n == 1 || n > 1 && in.ReplaceAll {
		return nil
	}
	if _, err := locate(string(old.data), in.OldString, in.NewString, in.ReplaceAll, shown); err != nil {
		return nowFailed(contract.CodePreconditionFailed, "%v", err)
	}
	return nil
}

// tooLargeToEdit says that the file shown, of size bytes, is more than
// edit_file changes.
func tooLargeToEdit(shown string, size int64) error {
	return fmt.Errorf("%s is %s, more than the %s edit_file changes; edit it with bash (sed) instead",
		shown, humanSize(size), humanSize(maxFileSize))
}

// editTarget tells whether an edit with oldString may apply to a file
// that exists or not: an empty oldString creates a file, and only a file
// that is not there yet.
func editTarget(shown string, exists bool, oldString string) error {
	switch {
	case !exists && oldString != "":
		return fmt.Errorf("%s does not exist; create it with write_file (or with edit_file and an empty old_string)", shown)
	case exists && oldString == "":
		return fmt.Errorf("old_string is empty but %s exists; give the exact text to replace, or use write_file to replace the whole file", shown)
	}
	return nil
}

// editFileAt applies the edit in to the file at abs, which ledger must
// hold as it is, and reports it to w.
func (ft *fileTools) editFileAt(_ context.Context, w io.Writer, in editFileInput, abs string, ledger state.Ledger) ([]contract.FileStamp, error) {
	if err := in.validate(); err != nil {
		return nil, err
	}
	shown := ft.show(abs)
	// Checked again: the file may have changed since Check ran (an
	// earlier intent of the turn, or another process), and the ledger is
	// the one of this invocation, which holds the turn's earlier writes.
	old, err := ft.existingFile(abs, true, ledger)
	if err != nil {
		return nil, err
	}
	if err := editTarget(shown, old != nil, in.OldString); err != nil {
		return nil, fmt.Errorf("edit_file: %w", err)
	}
	if old == nil {
		data := []byte(in.NewString)
		files, err := commit(abs, data)
		if err != nil {
			return nil, fmt.Errorf("edit_file: %s: %w", shown, err)
		}
		return files, writeOutput(w, "edit_file", fmt.Sprintf("created %s (%s)\n", shown, count(textdiff.CountLines(data), "line", "lines")))
	}
	if !old.whole {
		return nil, fmt.Errorf("edit_file: %w", tooLargeToEdit(shown, old.size))
	}
	edited, n, err := replace(string(old.data), in.OldString, in.NewString, in.ReplaceAll, shown)
	if err != nil {
		return nil, fmt.Errorf("edit_file: %w", err)
	}
	data := []byte(edited)
	files, err := commit(abs, data)
	if err != nil {
		return nil, fmt.Errorf("edit_file: %s: %w", shown, err)
	}
	return files, writeOutput(w, "edit_file",
		fmt.Sprintf("edited %s: %s\n%s", shown, count(n, "replacement", "replacements"), textdiff.Unified(shown, old.data, data)))
}

// replace replaces oldS with newS in content: the one occurrence there
// must be, or every one when all is set (see locate). It returns the new
// content and how many occurrences it replaced. The error, for the model,
// says why nothing was replaced.
func replace(content, oldS, newS string, all bool, shown string) (string, int, error) {
	m, err := locate(content, oldS, newS, all, shown)
	switch {
	case err != nil:
		return "", 0, err
	case all:
		return strings.ReplaceAll(content, m.old, m.new), m.n, nil
	}
	return strings.Replace(content, m.old, m.new, 1), 1, nil
}

// match is where an edit applies: the text to replace as content holds it,
// the text to put in its place, and how many times it occurs.
type match struct {
	old, new string
	n        int
}

// locate finds oldS in content, for an edit that puts newS in its place:
// it must occur exactly once, or at least once when all is set. In a file
// with CRLF line ends, an oldS written with bare newlines matches too (and
// newS then gets CRLFs). The error, for the model, says why the edit does
// not apply; shown names the file. It only counts: validation runs it as
// well as the edit.
func locate(content, oldS, newS string, all bool, shown string) (match, error) {
	n := strings.Count(content, oldS)
	if n == 0 && strings.Contains(content, "\r\n") && strings.Contains(oldS, "\n") && !strings.Contains(oldS, "\r\n") {
		crlfOld := strings.ReplaceAll(oldS, "\n", "\r\n")
		if c := strings.Count(content, crlfOld); c > 0 {
			n, oldS, newS = c, crlfOld, strings.ReplaceAll(strings.ReplaceAll(newS, "\r\n", "\n"), "\n", "\r\n")
		}
	}
	switch {
	case n == 0:
		return match{}, fmt.Errorf("old_string was not found in %s; %s", shown, notFoundHint(content, oldS))
	case n > 1 && !all:
		return match{}, fmt.Errorf("old_string appears %d times in %s; add surrounding lines to make it unique, or set replace_all to change every one", n, shown)
	}
	return match{old: oldS, new: newS, n: n}, nil
}

// notFoundHint guesses why oldS is not in content, for the model.
func notFoundHint(content, oldS string) string {
	want := strings.Split(strings.TrimRight(oldS, "\r\n"), "\n")
	if allNumbered(want) {
		return "it seems to hold read_file's line-number prefixes (spaces, a number, a tab); give the file's own text without them"
	}
	for i := range want {
		want[i] = strings.TrimSpace(want[i])
	}
	if strings.Join(want, "") == "" {
		return "it is only whitespace; give text the file holds"
	}
	lines := strings.Split(content, "\n")
	for start := 0; start+len(want) <= len(lines); start++ {
		match := true
		for j, w := range want {
			if strings.TrimSpace(lines[start+j]) != w {
				match = false
				break
			}
		}
		if match {
			return fmt.Sprintf("it matches lines %d-%d when leading and trailing whitespace is ignored, so the indentation or spacing differs; copy those lines exactly as read_file shows them (tabs and spaces matter)",
				start+1, start+len(want))
		}
	}
	return "read_file it again and copy the exact text, whitespace included"
}

// allNumbered reports whether every line starts like a line of read_file's
// output: optional spaces, digits, a tab.
func allNumbered(lines []string) bool {
	for _, l := range lines {
		rest := strings.TrimLeft(l, " ")
		digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
		if digits == 0 || len(rest) == digits || rest[digits] != '\t' {
			return false
		}
	}
	return true
}
