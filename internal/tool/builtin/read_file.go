package builtin

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"unicode/utf8"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

//go:embed read_file.md
var readFileDescription string

const (
	// readDefaultLimit is how many lines read_file shows when not told.
	readDefaultLimit = 2000
	// readMaxLineRunes is where read_file cuts a long line.
	readMaxLineRunes = 2000
	// binarySample is how much of a file's head decides whether it is text.
	binarySample = 8 << 10
)

type readFileInput struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

// readFile declares read_file: the lines of a text file.
func (ft *fileTools) readFile() registry.Tool {
	schema := objectSchema([]string{"path"},
		`"path":{"type":"string","description":"The file to read, relative to the workspace root or absolute inside the workspace, or a session artifact's absolute path."}`,
		`"offset":{"type":"integer","minimum":1,"description":"The first line to show, counting from 1 (default 1)."}`,
		`"limit":{"type":"integer","minimum":1,"description":"The most lines to show (default 2000)."}`)
	check := func(input json.RawMessage, _ state.Ledger) error {
		in, abs, err := resolveInput[readFileInput](ft, "read_file", input, forRead)
		if err != nil {
			return err
		}
		if _, err := readable(ft.show(abs), abs, in); err != nil {
			return nowFailed(contract.CodePreconditionFailed, "%v", err)
		}
		return nil
	}
	return fileTool(ft, "read_file", readFileDescription, schema, registry.RiskRead, check, ft.readFileAt)
}

// readable returns what the file at abs, shown to the model as shown, is
// when in may read it: a regular file, whole when it is up to maxFileSize
// or when in asks for a range. Otherwise it says why not. It only looks.
func readable(shown, abs string, in readFileInput) (fs.FileInfo, error) {
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s does not exist; list_dir shows what its directory holds", shown)
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a directory; use list_dir to see what it holds", shown)
	case !fi.Mode().IsRegular():
		// Not opened: a named pipe or a device may block or never end.
		return nil, fmt.Errorf("%s is %s, not a file read_file can show", shown, fileKind(fi.Mode()))
	case fi.Size() > maxFileSize && in.Offset <= 0 && in.Limit <= 0:
		return nil, fmt.Errorf("%s is %s, more than the %s read_file shows at once; pass offset and limit to read a part of it, or search it with grep",
			shown, humanSize(fi.Size()), humanSize(maxFileSize))
	}
	return fi, nil
}

// readFileAt writes to w the lines of the file at abs that in asks for,
// and returns the file's stamp. A read of some lines counts as a read of
// the file: the model asked for what it needed, and the stamp is of the
// whole content, which readLines hashes whatever it shows (a range of a
// file over maxFileSize included; edit_file refuses such a file anyway,
// write_file may replace it). A read that fails, or an offset past the
// end, returns no stamp.
func (ft *fileTools) readFileAt(ctx context.Context, w io.Writer, in readFileInput, abs string, _ state.Ledger) ([]contract.FileStamp, error) {
	shown := ft.show(abs)
	// Checked again: the file may have changed since Check ran.
	fi, err := readable(shown, abs, in)
	if err != nil {
		return nil, fmt.Errorf("read_file: %w", err)
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, fmt.Errorf("read_file: %w", err)
	}
	defer f.Close() // read-only: a close error loses nothing
	first := max(in.Offset, 1)
	limit := in.Limit
	if limit <= 0 {
		limit = readDefaultLimit
	}
	var out bytes.Buffer
	res, err := readLines(ctx, f, &out, first, limit)
	switch {
	case errors.Is(err, errBinary):
		return nil, fmt.Errorf("read_file: %s looks binary (%s), so it is not shown; inspect it with bash (file, xxd, strings) if you must", shown, res.why)
	case err != nil:
		return nil, fmt.Errorf("read_file: %s: %w", shown, err)
	case res.total == 0:
		return []contract.FileStamp{res.stamp(abs, fi)}, writeOutput(w, "read_file", shown+" is empty (0 bytes).\n")
	case first > res.total:
		return nil, fmt.Errorf("read_file: offset %d is past the end of %s, which has %s", first, shown, count(res.total, "line", "lines"))
	}
	if last := first + limit - 1; last < res.total {
		fmt.Fprintf(&out, "(%s more after line %d; to read on, call read_file with offset=%d)\n", count(res.total-last, "line", "lines"), last, last+1)
	}
	if _, err := out.WriteTo(w); err != nil {
		return nil, fmt.Errorf("read_file: write output: %w", err)
	}
	return []contract.FileStamp{res.stamp(abs, fi)}, nil
}

// errBinary is what readLines returns for a file that is not text.
var errBinary = errors.New("binary file")

// readResult is what readLines learnt of the whole file.
type readResult struct {
	total int    // lines in the file
	size  int64  // bytes read, the whole file
	sum   []byte // sha256 of those bytes
	why   string // for errBinary, what gave it away
}

// stamp is the stamp of the file at abs as read; the size is what was
// hashed, not what fi says, so that the stamp describes exactly the
// content read.
func (r readResult) stamp(abs string, fi fs.FileInfo) contract.FileStamp {
	return newStamp(abs, r.size, r.sum, fi.ModTime(), contract.FileRead)
}

// readLines streams r once: it writes lines first to first+limit-1,
// numbered like cat -n, to w, and counts and hashes the whole content.
// Memory stays bounded whatever the size of the file or of its lines.
func readLines(ctx context.Context, r io.Reader, w *bytes.Buffer, first, limit int) (readResult, error) {
	var res readResult
	h := sha256.New()
	counted := &countingReader{r: r}
	br := bufio.NewReaderSize(io.TeeReader(counted, h), 64<<10)
	head, err := br.Peek(binarySample)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return res, err
	}
	if why := binaryReason(head, len(head) < binarySample); why != "" {
		res.why = why
		return res, errBinary
	}
	last := first + limit - 1
	var line []byte // the head of the current line, as much as is shown
	lineLen := 0    // bytes of the current line so far, newline excluded
	cr := false     // the current line so far ends with \r
	for chunks := 1; ; chunks++ {
		chunk, err := br.ReadSlice('\n')
		eof := errors.Is(err, io.EOF)
		if err != nil && !eof && !errors.Is(err, bufio.ErrBufferFull) {
			return res, err
		}
		body := bytes.TrimSuffix(chunk, []byte{'\n'})
		if n := res.total + 1; n >= first && n <= last && len(line) < utf8.UTFMax*readMaxLineRunes {
			line = append(line, body...)
		}
		lineLen += len(body)
		if len(body) > 0 {
			cr = body[len(body)-1] == '\r'
		}
		if len(body) < len(chunk) || eof && lineLen > 0 {
			res.total++
			if n := res.total; n >= first && n <= last {
				if cr {
					// The \r of a CRLF line is not shown (edit_file copes).
					lineLen--
					line = line[:min(len(line), lineLen)]
				}
				writeLine(w, n, line, lineLen)
			}
			line, lineLen, cr = line[:0], 0, false
		}
		if eof {
			break
		}
		if chunks%1024 == 0 && ctx.Err() != nil {
			return res, ctx.Err()
		}
	}
	res.size = counted.n
	res.sum = h.Sum(nil)
	return res, nil
}

// writeLine writes line number n, tab, and the text of line (which holds
// the head of a line of lineLen bytes), cut at readMaxLineRunes.
func writeLine(w *bytes.Buffer, n int, line []byte, lineLen int) {
	cut := len(line)
	for i, runes := 0, 0; i < len(line); runes++ {
		if runes == readMaxLineRunes {
			cut = i
			break
		}
		_, size := utf8.DecodeRune(line[i:])
		i += size
	}
	fmt.Fprintf(w, "%6d\t%s", n, line[:cut])
	if cut < lineLen {
		fmt.Fprintf(w, " [… line cut here: %d more bytes]", lineLen-cut)
	}
	w.WriteByte('\n')
}

// binaryReason says why head, the start of a file, is not text, or "" when
// it is. whole says head is the entire file, so a multi-byte character
// cut at its end is an error rather than the sample's edge.
func binaryReason(head []byte, whole bool) string {
	if bytes.IndexByte(head, 0) >= 0 {
		return "it has NUL bytes"
	}
	invalid := 0
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size == 1 {
			if !whole && !utf8.FullRune(head[i:]) {
				break
			}
			invalid++
		}
		i += size
	}
	// A few stray bytes are a Latin-1 accent in a text file; many are not text.
	if invalid > 0 && invalid*10 > len(head) {
		return "much of it is not valid UTF-8"
	}
	return ""
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// humanSize formats n bytes for people: "512 B", "3.4 KiB", "10.0 MiB".
func humanSize(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	f, unit := float64(n)/1024, "KiB"
	for _, u := range []string{"MiB", "GiB", "TiB"} {
		if f < 1024 {
			break
		}
		f, unit = f/1024, u
	}
	return fmt.Sprintf("%.1f %s", f, unit)
}
