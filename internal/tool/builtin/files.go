package builtin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/workspace"
)

// maxFileSize is the largest file read_file shows whole and edit_file
// edits; read_file reads a range of a larger one.
const maxFileSize = 10 << 20

// fileToolsIn returns rein's file tools for one session, working in sc:
// read_file, write_file, edit_file and list_dir, in that order.
// write_file and edit_file refuse to change a file the session has not
// read, or that changed on disk since, so they never clobber content the
// model has not seen. The tools keep no memory of their own: read_file,
// write_file and edit_file report the stamp of each file they read whole
// or wrote in their Result, the tool runtime records it on the call's
// tool.observation, and the state folds it into the read ledger
// (state.Ledger) that Check and Execute consult. So a resumed session, or
// a fork, knows what the model had read. The tools are safe for concurrent
// use. read_file and list_dir read the artifacts directory too.
func fileToolsIn(sc *scope) []registry.Tool {
	ft := &fileTools{ws: sc.ws, scope: sc}
	return []registry.Tool{ft.readFile(), ft.writeFile(), ft.editFile(), ft.listDir()}
}

// fileTools is what the file tools of one session share.
type fileTools struct {
	ws    *workspace.Workspace
	scope *scope // ws, and the artifacts directory to read
}

// sameContent reports whether two stamps are of the same content. The
// modification time is not compared: a file touched but not changed is
// still what the model read.
func sameContent(a, b contract.FileStamp) bool { return a.Size == b.Size && a.SHA256 == b.SHA256 }

// newStamp returns the stamp of the file at abs, modified at mtime, whose
// content has length size and SHA-256 sum. A modification time the log
// cannot hold (a year outside 0 to 9999, which touch -d can set) is
// recorded as the zero time: it is for people to read, and the content
// is what the ledger compares.
func newStamp(abs string, size int64, sum []byte, mtime time.Time, op contract.FileOp) contract.FileStamp {
	mtime = mtime.UTC()
	if y := mtime.Year(); y < 0 || y > 9999 {
		mtime = time.Time{}
	}
	return contract.FileStamp{Path: abs, Size: size, ModTime: mtime, SHA256: hex.EncodeToString(sum), Op: op}
}

// contentStamp returns the stamp of data, as held by the file at abs
// modified at mtime.
func contentStamp(abs string, data []byte, mtime time.Time, op contract.FileOp) contract.FileStamp {
	sum := sha256.Sum256(data)
	return newStamp(abs, int64(len(data)), sum[:], mtime, op)
}

// fileStamp hashes the file at abs without holding it in memory.
func fileStamp(abs string) (contract.FileStamp, error) {
	f, err := os.Open(abs)
	if err != nil {
		return contract.FileStamp{}, err
	}
	defer f.Close() // read-only: a close error loses nothing
	fi, err := f.Stat()
	if err != nil {
		return contract.FileStamp{}, err
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return contract.FileStamp{}, err
	}
	return newStamp(abs, n, h.Sum(nil), fi.ModTime(), contract.FileRead), nil
}

// verify returns a stale_file *registry.CheckError unless the file at abs,
// whose content now has stamp cur, is in ledger with that content: read
// or written in the session and not changed since. shown is the path as
// the model should see it.
func verify(ledger state.Ledger, abs, shown string, cur contract.FileStamp) error {
	rec, ok := ledger.Lookup(abs)
	if !ok {
		return nowFailed(contract.CodeStaleFile,
			"%s has not been read in this session; call read_file on it first, so you change what is really there", shown)
	}
	if !sameContent(rec, cur) {
		return nowFailed(contract.CodeStaleFile,
			"%s changed on disk since you last read it (now %d bytes, modified %s); call read_file again to see its current content, then retry",
			shown, cur.Size, cur.ModTime.Format(time.RFC3339))
	}
	return nil
}

// nowFailed returns the *registry.CheckError of a precondition about the
// world as it is now (see registry.CheckError.Current): a file's presence,
// kind or content, or what the session has read of it.
func nowFailed(code contract.Code, format string, args ...any) error {
	return &registry.CheckError{Code: code, Message: fmt.Sprintf(format, args...), Current: true}
}

// verifyFile is verify for a file not yet loaded: it hashes the file.
func verifyFile(ledger state.Ledger, abs, shown string) error {
	cur, err := fileStamp(abs)
	if err != nil {
		return nowFailed(contract.CodePreconditionFailed, "%s: %v", shown, err)
	}
	return verify(ledger, abs, shown, cur)
}

// resolve returns where path leads for a tool that makes u of it: inside
// the workspace, or for a read in the session's artifacts directory (see
// scope). A path outside them, a write in the artifacts directory, and a
// path that cannot be resolved are a precondition_failed
// *registry.CheckError naming the path.
func (ft *fileTools) resolve(path string, u use) (string, error) {
	abs, err := ft.scope.locate(path, u)
	if _, ok := errors.AsType[*registry.CheckError](err); ok {
		return "", err
	}
	if outside, ok := errors.AsType[*workspace.OutsideError](err); ok {
		where := path
		if outside.Resolved != filepath.Clean(path) {
			where += " leads to " + outside.Resolved + ", which"
		}
		return "", &registry.CheckError{Code: "precondition_failed", Message: fmt.Sprintf(
			"%s is outside the workspace roots (%s); file tools only reach files inside them",
			where, strings.Join(ft.ws.Roots(), ", "))}
	}
	if err != nil {
		return "", &registry.CheckError{Code: "precondition_failed", Message: fmt.Sprintf("cannot resolve %q: %v", path, err)}
	}
	return abs, nil
}

// show returns abs as the model should see it: relative to the workspace
// root with forward slashes when inside it, absolute otherwise.
func (ft *fileTools) show(abs string) string {
	rel, err := filepath.Rel(ft.ws.Root(), abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return filepath.ToSlash(rel)
}

// decodeInput decodes a tool's input into T. The runtime has validated it
// against the schema, so an error here is a bug upstream; it is reported
// to the model all the same.
func decodeInput[T any](tool string, input json.RawMessage) (T, error) {
	var v T
	if err := json.Unmarshal(input, &v); err != nil {
		return v, fmt.Errorf("%s: decode input: %w", tool, err)
	}
	return v, nil
}

// pathInput is a file tool's input, which names one path.
type pathInput interface{ target() string }

func (in readFileInput) target() string  { return in.Path }
func (in writeFileInput) target() string { return in.Path }
func (in editFileInput) target() string  { return in.Path }

// target is the directory to list, "." when none is given.
func (in listDirInput) target() string {
	if in.Path == "" {
		return "."
	}
	return in.Path
}

// resolveInput decodes the input of a file tool that makes u of the path
// it names, and resolves the path (see resolve); Check and Execute both
// start with it.
func resolveInput[T pathInput](ft *fileTools, tool string, input json.RawMessage, u use) (T, string, error) {
	in, err := decodeInput[T](tool, input)
	if err != nil {
		return in, "", err
	}
	abs, err := ft.resolve(in.target(), u)
	return in, abs, err
}

// pathCheck returns the Check of a file tool, which makes u of its path,
// whose only precondition is that the path leads where such a tool may
// go (see resolve).
func pathCheck[T pathInput](ft *fileTools, tool string, u use) func(json.RawMessage, state.Ledger) error {
	return func(input json.RawMessage, _ state.Ledger) error {
		_, _, err := resolveInput[T](ft, tool, input, u)
		return err
	}
}

// fileRun is the work of a file tool: it writes what it has to show to w,
// checks against ledger what it must, and returns the stamps of the files
// it read whole or wrote (see registry.Result.Files), even with an error.
type fileRun[T pathInput] func(ctx context.Context, w io.Writer, in T, abs string, ledger state.Ledger) ([]contract.FileStamp, error)

// fileExecutor returns the registry.Executor of a file tool, which makes
// u of its path, whose work is run: it returns at once when ctx is done,
// decodes the input and resolves its path again (the world may have
// changed since Check), and hands run the input, the resolved path, the
// output to write to and the call's ledger. The stamp of a file read in
// the artifacts directory or a read root outside the workspace is not
// reported: the ledger is of the files the model may then change, and no
// tool changes those.
func fileExecutor[T pathInput](ft *fileTools, tool string, u use, run fileRun[T]) registry.Executor {
	return func(ctx context.Context, call *registry.Call) (registry.Result, error) {
		if err := ctx.Err(); err != nil {
			return registry.Result{}, err
		}
		in, abs, err := resolveInput[T](ft, tool, call.Input, u)
		if err != nil {
			return registry.Result{}, err
		}
		files, err := run(ctx, call.Output, in, abs, call.Ledger)
		if ft.scope.readOnly(abs) {
			files = nil
		}
		return registry.Result{Files: files}, err
	}
}

// fileKind names what a non-regular file is, for messages.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	default:
		return "a special file"
	}
}

// writeOutput writes s to w, wrapping a failure with the tool's name.
func writeOutput(w io.Writer, tool, s string) error {
	if _, err := io.WriteString(w, s); err != nil {
		return fmt.Errorf("%s: write output: %w", tool, err)
	}
	return nil
}

// count returns n and the noun for n of a thing: "1 line", "3 lines".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
