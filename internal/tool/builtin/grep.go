package builtin

import (
	"bufio"
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"regexp/syntax"
	"runtime"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/workspace"
)

//go:embed grep.md
var grepDescription string

const (
	// grepLimit is how many matching lines (content mode) or files (files
	// and count modes) grep shows at most; the search stops there.
	grepLimit = 500
	// grepLineMax is how many bytes of a line grep shows.
	grepLineMax = 500
)

// The output modes of grep.
const (
	grepContent = "content"
	grepFiles   = "files"
	grepCount   = "count"
)

type grepInput struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	IgnoreCase bool   `json:"ignore_case"`
	Context    int    `json:"context"`
	OutputMode string `json:"output_mode"`
}

// grepSchema is the grep tool's input schema.
var grepSchema = objectSchema([]string{"pattern"},
	`"pattern":{"type":"string","minLength":1,"description":"The regular expression (Go RE2 syntax) to find in each line, e.g. func \\w+Context\\(. Escape ( ) [ ] { } . * + ? | to match them literally."}`,
	`"path":{"type":"string","description":"The file or directory to search, relative to the workspace root or absolute (default: the workspace root)."}`,
	`"glob":{"type":"string","description":"Search only files whose name matches this glob, e.g. *.go or *.{ts,tsx}; a glob with a / is matched against the path relative to path, e.g. cmd/**/*.go."}`,
	`"ignore_case":{"type":"boolean","description":"Match letters regardless of case (default false)."}`,
	`"context":{"type":"integer","minimum":0,"maximum":5,"description":"Lines of context to show before and after each matching line in content mode (default 0)."}`,
	`"output_mode":{"type":"string","enum":["content","files","count"],"description":"content (default): matching lines as path:line:text; files: only the paths of files that match; count: path:number of matching lines."}`)

// grepTool declares the grep tool: search file contents with a regular
// expression.
func grepTool(sc *scope) registry.Tool {
	return searchTool("grep", grepDescription, grepSchema,
		func(in grepInput) error {
			_, _, err := grepCheck(sc, in)
			return err
		},
		func(ctx context.Context, in grepInput, out io.Writer) error { return runGrep(ctx, sc, in, out) })
}

// grepCheck checks in as far as it can without searching: the pattern,
// the glob and the output mode are valid (a *registry.CheckError about the
// input), and the path leads to a file or directory where grep may search
// (one about the workspace as it is now). It returns the compiled query
// and where the search starts.
func grepCheck(sc *scope, in grepInput) (*grepQuery, string, error) {
	q, err := newGrepQuery(in)
	if err != nil {
		return nil, "", &registry.CheckError{Code: contract.CodePreconditionFailed, Message: strings.TrimPrefix(err.Error(), "grep: ")}
	}
	start, err := searchStart(sc, in.Path)
	if err != nil {
		return nil, "", err
	}
	fi, err := os.Stat(start)
	switch {
	case err != nil:
		return nil, "", nowFailed(contract.CodePreconditionFailed,
			"%s does not exist or cannot be read (%v); give a file or directory inside the workspace", in.Path, err)
	case !fi.Mode().IsRegular() && !fi.IsDir():
		return nil, "", nowFailed(contract.CodePreconditionFailed, "%s is neither a regular file nor a directory", in.Path)
	}
	return q, start, nil
}

// grepQuery is what grep looks for, compiled once and shared by the
// workers; it is read-only once built.
type grepQuery struct {
	re      *regexp.Regexp
	lit     []byte // a string every matching line holds, nil for none
	fold    bool   // lit is lower case ASCII, to find in text lower-cased
	exact   bool   // a line matches exactly when it holds lit
	glob    string // file name filter, "" for none
	onPath  bool   // glob applies to the path below the start, not the name
	context int
	mode    string
}

func newGrepQuery(in grepInput) (*grepQuery, error) {
	expr := in.Pattern
	if in.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("grep: %q is not a valid regular expression: %v. The syntax is Go's RE2: escape ( ) [ ] { } . * + ? | \\ ^ $ with a backslash to match them literally; lookaround and backreferences are not supported", in.Pattern, err)
	}
	q := &grepQuery{re: re, glob: in.Glob, onPath: strings.Contains(in.Glob, "/"), context: min(max(in.Context, 0), 5), mode: in.OutputMode}
	switch q.mode {
	case "":
		q.mode = grepContent
	case grepContent, grepFiles, grepCount:
	default:
		return nil, fmt.Errorf("grep: output_mode %q is not one of content, files, count", in.OutputMode)
	}
	if q.glob != "" && !doublestar.ValidatePattern(q.glob) {
		return nil, fmt.Errorf("grep: glob %q is not a valid glob pattern: check that every [ and { is closed", in.Glob)
	}
	if tree, err := syntax.Parse(expr, syntax.Perl); err == nil {
		q.lit, q.fold, q.exact = requiredLiteral(tree)
	}
	return q, nil
}

// wants reports whether the file at rel (below the search's start) passes
// the glob filter.
func (q *grepQuery) wants(rel string) bool {
	switch {
	case q.glob == "":
		return true
	case q.onPath:
		return doublestar.MatchUnvalidated(q.glob, rel)
	default:
		return doublestar.MatchUnvalidated(q.glob, path.Base(rel))
	}
}

func runGrep(ctx context.Context, sc *scope, in grepInput, out io.Writer) error {
	ws := sc.ws
	// Checked again: the path may have gone since Check ran.
	q, start, err := grepCheck(sc, in)
	if err != nil {
		return fmt.Errorf("grep: %w", err)
	}
	fi, err := os.Stat(start)
	if err != nil {
		return fmt.Errorf("grep: %s does not exist or cannot be read (%v); give a file or directory inside the workspace", in.Path, err)
	}
	rep := &grepReport{q: q, ws: ws, w: bufio.NewWriter(out)}
	switch {
	case fi.Mode().IsRegular():
		rep.add(newGrepSearcher(q).search(ctx, start))
	case fi.IsDir():
		err = grepTree(ctx, q, ws, start, sc.hiddenFrom(start), rep)
	default:
		return fmt.Errorf("grep: %s is neither a regular file nor a directory", in.Path)
	}
	if err != nil {
		return fmt.Errorf("grep: %w", err)
	}
	rep.finish(in, searchWhere(ws, start), fi.IsDir())
	if err := rep.w.Flush(); err != nil {
		return fmt.Errorf("grep: write output: %w", err)
	}
	return nil
}

// grepTree searches the files below start but those skip reports: one
// goroutine walks, a worker
// per processor searches, and the results are reported in walk order
// whatever order the workers finish in. Once the report is full the walk
// and the workers stop.
func grepTree(parent context.Context, q *grepQuery, ws *workspace.Workspace, start string, skip func(string) bool, rep *grepReport) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	n := runtime.GOMAXPROCS(0)
	jobs := make(chan grepJob, 4*n)
	results := make(chan grepResult, 4*n)
	var walkErr error
	var wg, workers sync.WaitGroup
	wg.Go(func() {
		defer close(jobs)
		seq := 0
		walkErr = walkFiles(ctx, ws, start, skip, func(f walkedFile) error {
			if !q.wants(f.rel) {
				return nil
			}
			select {
			case jobs <- grepJob{seq: seq, abs: f.abs}:
				seq++
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	})
	for range n {
		workers.Go(func() {
			s := newGrepSearcher(q)
			for j := range jobs {
				r := s.search(ctx, j.abs)
				r.seq = j.seq
				select {
				case results <- r:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	wg.Go(func() {
		workers.Wait()
		close(results)
	})

	pending := make(map[int]grepResult)
	next := 0
	for r := range results {
		pending[r.seq] = r
		for {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if rep.add(r) {
				cancel()
			}
		}
	}
	wg.Wait()
	if rep.full {
		// Results finished after the report filled, out of order: they
		// still tell that there is more.
		for _, r := range pending {
			rep.add(r)
		}
		return nil
	}
	if err := parent.Err(); err != nil {
		return err // the workers may have dropped results: the report is not whole
	}
	return walkErr
}

type grepJob struct {
	seq int
	abs string
}

// grepReport writes grep's results as they come, in order, and counts what
// it could not show. It is used by one goroutine.
type grepReport struct {
	q         *grepQuery
	ws        *workspace.Workspace
	w         *bufio.Writer
	shown     int  // matching lines (content) or files (files, count) written
	full      bool // shown reached grepLimit: the search stops
	more      int  // matching lines (content) or files past the limit, found before the search stopped
	lines     int  // matching lines found, in count mode
	files     int  // files with a match, in count mode
	binary    int  // binary files skipped
	failed    int  // files that could not be read
	wroteLine bool // a content line was written, so the next file's context needs a separator
}

// add reports one file's result and says whether the report is full.
func (r *grepReport) add(res grepResult) bool {
	switch {
	case res.binary:
		r.binary++
	case res.err != nil:
		r.failed++
	}
	if res.matches == 0 {
		return r.full
	}
	if r.full {
		if r.q.mode == grepContent {
			r.more += res.matches
		} else {
			r.more++
		}
		return true
	}
	p := searchDisplay(r.ws, res.abs)
	switch r.q.mode {
	case grepFiles:
		fmt.Fprintln(r.w, p)
		r.shown++
	case grepCount:
		fmt.Fprintf(r.w, "%s:%d\n", p, res.matches)
		r.shown++
		r.files++
		r.lines += res.matches
	default:
		r.content(p, res)
	}
	r.full = r.shown >= grepLimit
	return r.full
}

func (r *grepReport) content(p string, res grepResult) {
	if r.q.context > 0 && r.wroteLine {
		fmt.Fprintln(r.w, "--")
	}
	shownHere := 0
	for _, l := range res.lines {
		switch {
		case l.n == 0:
			fmt.Fprintln(r.w, "--")
		case !l.match:
			fmt.Fprintf(r.w, "%s-%d-%s\n", p, l.n, l.text)
		case r.shown == grepLimit:
			r.more += res.matches - shownHere
			return
		default:
			fmt.Fprintf(r.w, "%s:%d:%s\n", p, l.n, l.text)
			r.shown++
			shownHere++
		}
		r.wroteLine = true
	}
	r.more += res.matches - shownHere
}

// finish writes the closing lines: what was not shown, or that nothing
// matched.
func (r *grepReport) finish(in grepInput, where string, dir bool) {
	w := r.w
	switch {
	case r.full:
		unit := "files"
		if r.q.mode == grepContent {
			unit = "matching lines"
		}
		fmt.Fprintf(w, "[grep stopped at %d %s", grepLimit, unit)
		if r.more > 0 {
			fmt.Fprintf(w, "; at least %d more were found", r.more)
		}
		fmt.Fprintln(w, "; narrow the pattern, path or glob to see the rest]")
	case r.shown == 0 && !dir && r.binary > 0:
		fmt.Fprintf(w, "%s is a binary file; grep searches text files only.\n", where)
	case r.shown == 0:
		fmt.Fprintf(w, "No matches for %q in %s", in.Pattern, where)
		if in.Glob != "" {
			fmt.Fprintf(w, " (files matching %s)", in.Glob)
		}
		if r.binary > 0 {
			fmt.Fprintf(w, "; %d binary files skipped", r.binary)
		}
		fmt.Fprintln(w, ".")
	case r.q.mode == grepCount:
		fmt.Fprintf(w, "%d matching lines in %d files\n", r.lines, r.files)
	}
	if r.failed > 0 {
		fmt.Fprintf(w, "[%d files could not be read]\n", r.failed)
	}
}
