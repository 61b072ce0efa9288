package builtin

import (
	"bufio"
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
)

//go:embed glob.md
var globDescription string

// globLimit is how many paths glob shows at most.
const globLimit = 500

type globInput struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

// globSchema is the glob tool's input schema.
var globSchema = objectSchema([]string{"pattern"},
	`"pattern":{"type":"string","minLength":1,"description":"The glob to match file paths against, relative to path: * and ? within one path element, ** across directories, [abc] classes, {a,b} alternatives. Example: **/*_test.go"}`,
	`"path":{"type":"string","description":"The directory to search from, relative to the workspace root or absolute (default: the workspace root)."}`)

// globTool declares the glob tool: find files by name pattern.
func globTool(sc *scope) registry.Tool {
	return searchTool("glob", globDescription, globSchema,
		func(in globInput) error {
			_, _, err := globCheck(sc, in)
			return err
		},
		func(ctx context.Context, in globInput, out io.Writer) error { return runGlob(ctx, sc, in, out) })
}

// globStart returns the directory the walk starts from and the pattern to
// match below it: the pattern's leading elements without metacharacters
// ("internal/*.go", "/abs/dir/**") move into the start, so the walk covers
// no more than it must.
func globStart(sc *scope, in globInput) (start, pattern string, err error) {
	base, pattern := doublestar.SplitPattern(filepath.ToSlash(in.Pattern))
	dir := in.Path
	switch {
	case filepath.IsAbs(base):
		dir = base
	case base != ".":
		if dir == "" {
			dir = "."
		}
		dir = filepath.Join(dir, filepath.FromSlash(base))
	}
	start, err = searchStart(sc, dir)
	return start, pattern, err
}

// globCheck checks in as far as it can without walking: the pattern is
// a valid glob, and the path, when given, leads to a directory where
// glob may search. It returns where the walk starts and the pattern to
// match below it (see globStart). An invalid pattern is a
// *registry.CheckError about the input, a missing directory one about
// the workspace as it is now.
func globCheck(sc *scope, in globInput) (start, pattern string, err error) {
	if !doublestar.ValidatePattern(in.Pattern) {
		return "", "", &registry.CheckError{Code: contract.CodePreconditionFailed, Message: fmt.Sprintf(
			"%q is not a valid glob pattern: check that every [ and { is closed and a \\ escapes a character", in.Pattern)}
	}
	if start, pattern, err = globStart(sc, in); err != nil {
		return "", "", err
	}
	if in.Path != "" {
		dir, err := searchStart(sc, in.Path)
		if err != nil {
			return "", "", err
		}
		if fi, err := os.Stat(dir); err != nil {
			return "", "", nowFailed(contract.CodePreconditionFailed,
				"%s does not exist or cannot be read (%v); give a directory inside the workspace", in.Path, err)
		} else if !fi.IsDir() {
			return "", "", nowFailed(contract.CodePreconditionFailed,
				"%s is a file, not a directory; give the directory to search, or read the file with read_file", in.Path)
		}
	}
	return start, pattern, nil
}

type globMatch struct {
	path string
	mod  time.Time
}

func runGlob(ctx context.Context, sc *scope, in globInput, out io.Writer) error {
	ws := sc.ws
	// Checked again: the directory may have gone since Check ran.
	start, pattern, err := globCheck(sc, in)
	if err != nil {
		return fmt.Errorf("glob: %w", err)
	}
	var matches []globMatch
	if fi, err := os.Stat(start); err == nil && fi.IsDir() {
		err := walkFiles(ctx, ws, start, sc.hiddenFrom(start), func(f walkedFile) error {
			if !doublestar.MatchUnvalidated(pattern, f.rel) {
				return nil
			}
			fi, err := os.Stat(f.abs)
			if err != nil {
				return nil // gone since the walk listed it
			}
			matches = append(matches, globMatch{path: searchDisplay(ws, f.abs), mod: fi.ModTime()})
			return nil
		})
		if err != nil {
			return fmt.Errorf("glob: %w", err)
		}
	}
	// Newest first: the files being worked on come before the rest when
	// the list is cut. Ties (same modification time) go by path.
	slices.SortFunc(matches, func(a, b globMatch) int {
		if c := b.mod.Compare(a.mod); c != 0 {
			return c
		}
		return cmp.Compare(a.path, b.path)
	})
	w := bufio.NewWriter(out)
	if len(matches) == 0 {
		fmt.Fprintf(w, "No files match %s in %s.\n", in.Pattern, searchWhere(ws, start))
	}
	for i, m := range matches {
		if i == globLimit {
			fmt.Fprintf(w, "... %d more files not shown (the list holds the %d most recently modified); narrow the pattern or the path.\n", len(matches)-globLimit, globLimit)
			break
		}
		fmt.Fprintln(w, m.path)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("glob: write output: %w", err)
	}
	return nil
}
