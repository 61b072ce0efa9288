package builtin

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

//go:embed list_dir.md
var listDirDescription string

// listMaxEntries is how many entries list_dir shows at most.
const listMaxEntries = 1000

type listDirInput struct {
	Path string `json:"path"`
	All  bool   `json:"all"`
}

// listDir declares list_dir: the entries of a directory.
func (ft *fileTools) listDir() registry.Tool {
	schema := objectSchema(nil,
		`"path":{"type":"string","description":"The directory to list, relative to the workspace root or absolute inside the workspace (default \".\", the root)."}`,
		`"all":{"type":"boolean","description":"Include hidden entries, whose names start with a dot (default false)."}`)
	check := func(input json.RawMessage, _ state.Ledger) error {
		_, abs, err := resolveInput[listDirInput](ft, "list_dir", input, forRead)
		if err != nil {
			return err
		}
		if err := listable(ft.show(abs), abs); err != nil {
			return nowFailed(contract.CodePreconditionFailed, "%v", err)
		}
		return nil
	}
	return fileTool(ft, "list_dir", listDirDescription, schema, registry.RiskRead, check,
		func(ctx context.Context, w io.Writer, in listDirInput, abs string, _ state.Ledger) ([]contract.FileStamp, error) {
			return nil, ft.listDirAt(ctx, w, in, abs) // a listing reads no file
		})
}

// listable says why the directory at abs, shown to the model as shown,
// cannot be listed; nil when it is a directory. It only looks.
func listable(shown, abs string) error {
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist", shown)
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory; use read_file to read a file", shown)
	}
	return nil
}

// dirEntry is one line of a listing.
type dirEntry struct {
	name string
	dir  bool
	text string
}

// listDirAt writes the listing of the directory at abs to w.
func (ft *fileTools) listDirAt(_ context.Context, w io.Writer, in listDirInput, abs string) error {
	shown := ft.show(abs)
	// Checked again: the directory may have gone since Check ran.
	if err := listable(shown, abs); err != nil {
		return fmt.Errorf("list_dir: %w", err)
	}
	des, err := os.ReadDir(abs)
	if err != nil {
		return fmt.Errorf("list_dir: %s: %w", shown, err)
	}
	var entries []dirEntry
	hidden := 0
	for _, de := range des {
		if !in.All && strings.HasPrefix(de.Name(), ".") {
			hidden++
			continue
		}
		entries = append(entries, describe(abs, de))
	}
	// Directories first, then the rest, each in byte order of name.
	slices.SortFunc(entries, func(a, b dirEntry) int {
		if a.dir != b.dir {
			if a.dir {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.name, b.name)
	})
	var b strings.Builder
	if len(entries) == 0 {
		fmt.Fprintf(&b, "%s is empty", shown)
		if hidden > 0 {
			fmt.Fprintf(&b, " but for %s; pass all=true to see them", count(hidden, "hidden entry", "hidden entries"))
		}
		b.WriteString(".\n")
		return writeOutput(w, "list_dir", b.String())
	}
	for _, e := range entries[:min(len(entries), listMaxEntries)] {
		b.WriteString(e.text + "\n")
	}
	if more := len(entries) - listMaxEntries; more > 0 {
		fmt.Fprintf(&b, "(%s not shown; list a subdirectory, or use glob to find what you need)\n", count(more, "more entry", "more entries"))
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "(%s not shown; pass all=true to see them)\n", count(hidden, "hidden entry", "hidden entries"))
	}
	return writeOutput(w, "list_dir", b.String())
}

// describe returns the line for de, an entry of the directory dir: a
// directory gets a trailing slash, a regular file its size, a symbolic
// link its target, anything else its kind.
func describe(dir string, de fs.DirEntry) dirEntry {
	name := de.Name()
	switch t := de.Type(); {
	case t.IsDir():
		return dirEntry{name: name, dir: true, text: name + "/"}
	case t&fs.ModeSymlink != 0:
		target, err := os.Readlink(filepath.Join(dir, name))
		if err != nil {
			return dirEntry{name: name, text: name + " -> (unreadable link)"}
		}
		return dirEntry{name: name, text: name + " -> " + target}
	case t.IsRegular():
		fi, err := de.Info()
		if err != nil {
			// Gone since the directory was read: still listed, sizeless.
			return dirEntry{name: name, text: name}
		}
		return dirEntry{name: name, text: name + "  " + humanSize(fi.Size())}
	default:
		return dirEntry{name: name, text: name + "  (" + fileKind(t) + ")"}
	}
}
