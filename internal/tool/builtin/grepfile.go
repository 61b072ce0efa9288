package builtin

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp/syntax"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/rein-agent/rein/internal/excerpt"
)

const (
	// grepChunk is how much of a file a worker reads at a time; a smaller
	// file is read whole.
	grepChunk = 4 << 20
	// grepMaxLine is the longest line searched whole; a longer one is
	// searched in pieces of this size.
	grepMaxLine = 64 << 20
	// grepProbe is how much of a file's start is looked at for a NUL byte,
	// the mark of a binary file.
	grepProbe = 8 << 10
)

// grepResult is what one file's search found.
type grepResult struct {
	seq     int
	abs     string
	lines   []grepLine // content mode: the matching lines and their context, in order
	matches int        // matching lines found
	binary  bool       // skipped as binary
	err     error      // the file could not be read
}

// grepLine is a line to show: a matching line, a context line, or (n 0) a
// separator between groups of lines that are not adjacent.
type grepLine struct {
	n     int
	text  string
	match bool
}

// grepSearcher searches files for a query, one at a time, reusing its
// buffers. Each worker has its own.
type grepSearcher struct {
	q     *grepQuery
	chunk int // grepChunk; smaller in tests
	buf   []byte
	lower []byte // buf lower-cased, for a case-folded literal
}

func newGrepSearcher(q *grepQuery) *grepSearcher { return &grepSearcher{q: q, chunk: grepChunk} }

// scanState carries a file's search from one chunk to the next.
type scanState struct {
	line    int // the number of the line that starts where the scan starts
	emitted int // the number of the last line added to the result, 0 for none
	after   int // lines up to this number follow a match as its context
}

// search searches the file abs. It reads the file a chunk at a time,
// keeping the last context lines of a chunk in front of the next, and
// stops at the first match in files mode, at grepLimit matches in content
// mode, or when ctx is done.
func (s *grepSearcher) search(ctx context.Context, abs string) grepResult {
	res := grepResult{abs: abs}
	f, err := openNoPoll(abs)
	if err != nil {
		res.err = err
		return res
	}
	defer f.Close() // read-only: a close error loses nothing

	st := scanState{line: 1}
	buf := s.buf[:0]
	carry := 0 // buf[:carry] holds lines already searched, kept for context
	want := s.chunk
	for first := true; ctx.Err() == nil; first = false {
		var eof bool
		buf, eof, err = fillChunk(f, buf, carry+want)
		if err != nil {
			res.err = err
			break
		}
		if first && bytes.IndexByte(buf[:min(len(buf), grepProbe)], 0) >= 0 {
			res.binary = true
			break
		}
		end := len(buf)
		if !eof {
			i := bytes.LastIndexByte(buf[carry:], '\n')
			if i < 0 && len(buf)-carry < s.maxLine() {
				want *= 2 // a line longer than the chunk: read on to its end
				continue
			}
			if i >= 0 {
				end = carry + i + 1
			}
		}
		if s.scan(&res, &st, buf[:end], carry) || eof {
			break
		}
		keep := end
		for range s.q.context {
			if keep == 0 {
				break
			}
			keep = bytes.LastIndexByte(buf[:keep-1], '\n') + 1
		}
		carry = end - keep
		buf = buf[:copy(buf, buf[keep:])]
		want = s.chunk
	}
	if cap(buf) <= 3*s.chunk {
		s.buf = buf[:0] // a buffer grown for a very long line is let go
	}
	return res
}

// openNoPoll opens name for reading, as os.Open does but without trying to
// register the file with the runtime's poller: on Linux os.Open tries
// epoll and undoes it for a regular file, five system calls a file that
// grep, opening thousands, goes without.
func openNoPoll(name string) (*os.File, error) {
	for {
		fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == nil {
			return os.NewFile(uintptr(fd), name), nil
		}
		if !errors.Is(err, syscall.EINTR) {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
	}
}

// maxLine is the longest line searched whole, grepMaxLine for the normal
// chunk size.
func (s *grepSearcher) maxLine() int { return s.chunk * (grepMaxLine / grepChunk) }

// fillChunk reads from f until buf holds want bytes or f ends. A buffer starts
// small, enough for most source files, and grows to want at once when a
// file needs more.
func fillChunk(f *os.File, buf []byte, want int) ([]byte, bool, error) {
	for len(buf) < want {
		if len(buf) == cap(buf) {
			size := want + want/8
			if cap(buf) == 0 {
				size = min(size, 64<<10)
			}
			buf = append(make([]byte, 0, size), buf...)
		}
		n, err := f.Read(buf[len(buf):min(cap(buf), want)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, true, nil
		}
		if err != nil {
			return buf, false, fmt.Errorf("read: %w", err)
		}
	}
	return buf, false, nil
}

// scan searches the lines of buf[from:]; buf[:from] holds the lines before
// them, already searched, for the context of a match. It jumps from one
// occurrence of the query's literal to the next and runs the regular
// expression only on the lines that hold one, except for the lines that
// follow a match as its context, which it takes one by one. It reports
// whether the file needs no more searching.
func (s *grepSearcher) scan(res *grepResult, st *scanState, buf []byte, from int) bool {
	q := s.q
	numbered := q.mode == grepContent
	hay := buf
	if q.fold {
		s.lower = lowerASCII(s.lower, buf)
		hay = s.lower
	}
	pos, line := from, st.line // line is the number of the line at pos
	for pos < len(buf) {
		ls := pos
		if q.lit != nil && !(numbered && line <= st.after) {
			i := bytes.Index(hay[pos:], q.lit)
			if i < 0 {
				break
			}
			ls = pos + bytes.LastIndexByte(hay[pos:pos+i], '\n') + 1
		}
		le := len(buf)
		if i := bytes.IndexByte(buf[ls:], '\n'); i >= 0 {
			le = ls + i
		}
		if numbered {
			line += bytes.Count(buf[pos:ls], []byte{'\n'})
		}
		text := bytes.TrimSuffix(buf[ls:le], []byte{'\r'})
		switch {
		case q.matchLine(text, hay[ls:le]):
			res.matches++
			switch q.mode {
			case grepFiles:
				return true
			case grepContent:
				s.before(res, st, buf, ls, line)
				res.lines = append(res.lines, grepLine{n: line, text: cutLine(text), match: true})
				st.emitted, st.after = line, line+q.context
				if res.matches >= grepLimit {
					return true
				}
			}
		case numbered && line <= st.after:
			res.lines = append(res.lines, grepLine{n: line, text: cutLine(text)})
			st.emitted = line
		}
		pos, line = le+1, line+1
	}
	if numbered && pos < len(buf) {
		line += bytes.Count(buf[pos:], []byte{'\n'})
	}
	st.line = line
	return false
}

// before adds the context lines before the match on the line numbered line,
// which starts at buf[ls], that are not in the result yet, with a
// separator when they do not follow the last line added.
func (s *grepSearcher) before(res *grepResult, st *scanState, buf []byte, ls, line int) {
	k := s.q.context
	if k == 0 {
		return
	}
	first := max(line-k, st.emitted+1, 1)
	var prev []grepLine
	for p, n := ls, line-1; n >= first && p > 0; n-- {
		start := bytes.LastIndexByte(buf[:p-1], '\n') + 1
		prev = append(prev, grepLine{n: n, text: cutLine(bytes.TrimSuffix(buf[start:p-1], []byte{'\r'}))})
		p = start
	}
	if st.emitted > 0 && line-len(prev) > st.emitted+1 {
		res.lines = append(res.lines, grepLine{})
	}
	for i := len(prev) - 1; i >= 0; i-- {
		res.lines = append(res.lines, prev[i])
	}
}

// matchLine reports whether the line text matches; hay is the same line as
// the literal is looked for in it (lower-cased for a folded literal).
func (q *grepQuery) matchLine(text, hay []byte) bool {
	if q.lit != nil && !bytes.Contains(hay, q.lit) {
		return false
	}
	return q.exact || q.re.Match(text)
}

// cutLine returns the line as grep shows it: at most grepLineMax bytes, cut
// on a character boundary.
func cutLine(b []byte) string {
	if len(b) <= grepLineMax {
		return string(b)
	}
	head := excerpt.Prefix(b, grepLineMax)
	return fmt.Sprintf("%s [... %d more bytes]", head, len(b)-len(head))
}

// lowerASCII returns src with A-Z lowered, in dst's storage; every other
// byte is kept, so offsets in the result are offsets in src. It works on
// eight bytes at a time.
func lowerASCII(dst, src []byte) []byte {
	if cap(dst) < len(src) {
		dst = make([]byte, len(src), cap(src))
	}
	dst = dst[:len(src)]
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(src); i += 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		low7 := x &^ highs
		geA := (low7 + (0x80-'A')*ones) & highs   // high bit set where the low 7 bits are >= 'A'
		gtZ := (low7 + (0x80-'Z'-1)*ones) & highs // ... where they are > 'Z'
		upper := geA &^ gtZ &^ x                  // and the byte is ASCII
		binary.LittleEndian.PutUint64(dst[i:], x|upper>>2)
	}
	for ; i < len(src); i++ {
		c := src[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
	return dst
}

// requiredLiteral returns the longest string that every match of re must
// contain, for a fast search ahead of the regular expression; nil when
// there is none. fold says it is to be found in lower-cased text (re
// ignores case there); exact, that re is that string and nothing more.
func requiredLiteral(re *syntax.Regexp) (lit []byte, fold, exact bool) {
	var best string
	var visit func(*syntax.Regexp)
	visit = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpLiteral:
			f := re.Flags&syntax.FoldCase != 0
			for _, p := range literalPieces(string(re.Rune), f) {
				if len(p) > len(best) {
					best, fold = p, f
				}
			}
		case syntax.OpConcat:
			for _, sub := range re.Sub {
				visit(sub)
			}
		case syntax.OpCapture, syntax.OpPlus:
			visit(re.Sub[0])
		case syntax.OpRepeat:
			if re.Min > 0 {
				visit(re.Sub[0])
			}
		}
	}
	visit(re)
	if best == "" {
		return nil, false, false
	}
	exact = re.Op == syntax.OpLiteral && !fold && best == string(re.Rune) && !strings.ContainsAny(best, "\r\n")
	return []byte(best), fold, exact
}

// literalPieces splits a literal into the parts that can be searched for
// as bytes. U+FFFD also matches invalid UTF-8, so it splits. A folded
// literal keeps only its ASCII runs, lower-cased, without k and s: (?i)k
// also matches the Kelvin sign and (?i)s the long s.
func literalPieces(s string, fold bool) []string {
	split := func(r rune) bool { return r == utf8.RuneError }
	if fold {
		split = func(r rune) bool { return r >= utf8.RuneSelf || strings.ContainsRune("kKsS", r) }
	}
	pieces := strings.FieldsFunc(s, split)
	if fold {
		for i, p := range pieces {
			pieces[i] = strings.ToLower(p)
		}
	}
	return pieces
}
