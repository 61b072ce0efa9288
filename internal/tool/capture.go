package tool

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Limits bound what a tool's output costs. The zero value means the
// defaults of each field.
type Limits struct {
	// HeadBytes and TailBytes are how much of the start and of the end of
	// an output the model is shown when the whole does not fit; 0 means
	// 8 KiB and 16 KiB (the end of a test run or a build says more than its
	// middle).
	HeadBytes, TailBytes int
	// ArtifactBytes caps the artifact that keeps a whole output; 0 means
	// 64 MiB. Past it the artifact ends with a marker saying how much more
	// there was.
	ArtifactBytes int64
	// ArtifactMinBytes is the size from which an output is kept as an
	// artifact even when the model is shown all of it, so that the
	// context engine, when it later elides the observation from the
	// prompt, has the whole text to point at; the text shown does not
	// change. 0 means 2 KiB; a negative value keeps an artifact only for
	// an output that does not fit (HeadBytes + TailBytes). An output that
	// does not fit is always kept, whatever this says.
	ArtifactMinBytes int
}

// defaultArtifactMinBytes is Limits.ArtifactMinBytes when it is 0: an
// observation shorter than that costs less in the prompt than the stub
// that would replace it.
const defaultArtifactMinBytes = 2 << 10

func (l Limits) withDefaults() Limits {
	if l.HeadBytes <= 0 {
		l.HeadBytes = 8 << 10
	}
	if l.TailBytes <= 0 {
		l.TailBytes = 16 << 10
	}
	if l.ArtifactBytes <= 0 {
		l.ArtifactBytes = 64 << 20
	}
	if l.ArtifactMinBytes == 0 {
		l.ArtifactMinBytes = defaultArtifactMinBytes
	}
	return l
}

// fits reports whether an output of n bytes is shown to the model whole.
func (l Limits) fits(n int64) bool { return n <= int64(l.HeadBytes+l.TailBytes) }

// keeps reports whether an output of n bytes, so far, is to be kept as an
// artifact: it does not fit, or it reached ArtifactMinBytes.
func (l Limits) keeps(n int64) bool {
	return !l.fits(n) || l.ArtifactMinBytes > 0 && n >= int64(l.ArtifactMinBytes)
}

// capture is the writer a tool's output goes to. It keeps the head and a
// ring of the tail in memory, whatever the size of the output, and once the
// output outgrows them, or reaches Limits.ArtifactMinBytes, spills all of
// it, from the first byte, into an artifact file, up to a cap. Credentials are cut out before anything is
// kept. It is not safe for concurrent use (registry.Call.Output says so).
type capture struct {
	lim  Limits
	path string // the artifact's path; empty means keep no artifact
	ref  string // the artifact as the observation names it

	redact *redactor

	head    []byte
	tail    []byte // a ring once full
	tailPos int    // where the ring's oldest byte is, once it has wrapped
	wrapped bool
	total   int64
	lines   int64 // newlines seen

	file     *os.File
	written  int64 // bytes in the artifact
	fileErr  error
	overflow int64 // bytes past the artifact cap

	// budget is the room left for the session's artifacts; nil means no
	// bound. dropped says it ran out: the artifact was removed (or never
	// made), and nothing more is written.
	budget  *artifactBudget
	dropped bool

	// live is where the output goes too, for a person to watch it while
	// the tool runs; nil means nowhere.
	live *liveOutput
}

// newCapture returns the capture of one output, whose artifact, when it
// needs one, is dir/name and takes its bytes from budget (nil: no bound);
// an empty dir keeps no artifact.
func newCapture(lim Limits, dir, name string, secrets []string, budget *artifactBudget) *capture {
	c := &capture{lim: lim.withDefaults(), budget: budget}
	if dir != "" {
		c.path = filepath.Join(dir, name)
		c.ref = filepath.ToSlash(filepath.Join(filepath.Base(dir), name))
	}
	c.redact = newRedactor(secrets, c.keep)
	return c
}

// Write keeps p; it never fails, so a tool is never stopped by its own
// output.
func (c *capture) Write(p []byte) (int, error) {
	c.redact.write(p)
	return len(p), nil
}

// keep stores p, already redacted.
func (c *capture) keep(p []byte) {
	c.total += int64(len(p))
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
	c.live.add(p)
	c.spill(p)
	if room := c.lim.HeadBytes - len(c.head); room > 0 {
		n := min(room, len(p))
		c.head = append(c.head, p[:n]...)
		p = p[n:]
	}
	for len(p) > 0 {
		if !c.wrapped {
			room := c.lim.TailBytes - len(c.tail)
			n := min(room, len(p))
			c.tail = append(c.tail, p[:n]...)
			p = p[n:]
			if len(c.tail) == c.lim.TailBytes {
				c.wrapped, c.tailPos = true, 0
			}
			continue
		}
		if len(p) >= len(c.tail) {
			copy(c.tail, p[len(p)-len(c.tail):])
			c.tailPos = 0
			return
		}
		n := copy(c.tail[c.tailPos:], p)
		p = p[n:]
		c.tailPos = (c.tailPos + n) % len(c.tail)
	}
}

// spill writes p to the artifact once the output is to be kept (see
// Limits.keeps). The artifact starts with the head, so it holds the whole
// output.
func (c *capture) spill(p []byte) {
	if c.path == "" || c.fileErr != nil || c.dropped {
		return
	}
	if c.file == nil {
		if !c.lim.keeps(c.total) {
			return
		}
		// What came before p: the head and the tail, not yet wrapped,
		// since the output fitted until now. The first of the three
		// writes that is not empty opens the file, or drops the
		// artifact, or fails.
		c.writeFile(c.head)
		c.writeFile(c.tail)
	}
	c.writeFile(p)
}

// writeFile appends p to the artifact, up to its cap, once the session's
// budget has room for it; the first write creates the file. When the
// budget has none, the artifact is dropped.
func (c *capture) writeFile(p []byte) {
	if c.fileErr != nil || c.dropped {
		return
	}
	room := c.lim.ArtifactBytes - c.written
	if int64(len(p)) > room {
		c.overflow += int64(len(p)) - room
		p = p[:room]
	}
	if len(p) == 0 {
		return
	}
	if !c.budget.take(int64(len(p))) {
		c.drop()
		return
	}
	if c.file == nil {
		if c.fileErr = c.open(); c.fileErr != nil {
			c.budget.give(int64(len(p)))
			return
		}
	}
	n, err := c.file.Write(p)
	c.written += int64(n)
	c.budget.give(int64(len(p) - n))
	if err != nil {
		c.fileErr = err
	}
}

// open creates the artifact file.
func (c *capture) open() error {
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(c.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	c.file = f
	return nil
}

// drop gives up the artifact because the session's budget has no room
// left: what was written of it is removed and given back, so the bound
// holds for the output that crosses it too. Should the removal fail, its
// bytes stay taken, as they stay on disk.
func (c *capture) drop() {
	c.dropped = true
	if c.file == nil {
		return
	}
	// The file is removed: an error closing it loses nothing.
	_ = c.file.Close()
	c.file = nil
	if err := os.Remove(c.path); err != nil {
		c.fileErr = fmt.Errorf("remove the partial artifact: %w", err)
		return
	}
	c.budget.give(c.written)
	c.written = 0
}

// result is what the model is shown of an output.
type result struct {
	Text         string
	Truncated    bool
	OmittedBytes int64
	ArtifactRef  string
	// Bytes is the size of the whole output.
	Bytes int64
}

// finish closes the artifact and returns the text for the model.
func (c *capture) finish() (result, error) {
	c.redact.flush()
	res := result{Bytes: c.total}
	if c.file != nil {
		if c.overflow > 0 && c.fileErr == nil {
			// A failed write of the marker shows in Close's error, or
			// leaves an artifact that ends at the cap: nothing to add.
			// Without room in the budget it ends at the cap too.
			marker := fmt.Sprintf("\n[rein: the artifact stops at %d bytes; %d more bytes of output were not kept]\n", c.lim.ArtifactBytes, c.overflow)
			if c.budget.take(int64(len(marker))) {
				n, _ := io.WriteString(c.file, marker)
				c.budget.give(int64(len(marker) - n))
			}
		}
		if err := c.file.Close(); err != nil && c.fileErr == nil {
			c.fileErr = err
		}
		if c.fileErr == nil {
			res.ArtifactRef = c.ref
		}
	}
	ferr := c.fileErr
	if c.lim.fits(c.total) {
		// Shown whole, with no marker, whether or not an artifact keeps
		// it too.
		res.Text = text(append(c.head, c.tail...))
		return res, ferr
	}
	tail := c.tail
	if c.wrapped {
		tail = append(append([]byte(nil), c.tail[c.tailPos:]...), c.tail[:c.tailPos]...)
	}
	// Cut at line ends, unless a part has none (one huge line).
	head := c.head
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
		tail = tail[i+1:]
	}
	res.Truncated = true
	res.OmittedBytes = c.total - int64(len(head)) - int64(len(tail))
	omittedLines := c.lines - int64(bytes.Count(head, []byte{'\n'})) - int64(bytes.Count(tail, []byte{'\n'}))
	var where string
	switch {
	case res.ArtifactRef != "":
		where = "; the whole output is in the session artifact " + res.ArtifactRef
		if c.overflow > 0 {
			where += fmt.Sprintf(" (its first %d bytes)", c.lim.ArtifactBytes)
		}
	case c.dropped:
		where = "; " + c.budget.notKept(c.total)
	case ferr != nil:
		where = "; the whole output could not be kept (" + ferr.Error() + ")"
	default:
		where = "; the whole output was not kept"
	}
	marker := fmt.Sprintf("[... %d lines omitted (%d bytes)%s ...]\n", omittedLines, res.OmittedBytes, where)
	if len(head) > 0 && head[len(head)-1] != '\n' {
		marker = "\n" + marker
	}
	res.Text = text(head) + marker + text(tail)
	return res, ferr
}

// text returns p as valid UTF-8.
func text(p []byte) string {
	if utf8.Valid(p) {
		return string(p)
	}
	return strings.ToValidUTF8(string(p), "\uFFFD")
}

// redactor cuts credentials out of a stream: every occurrence of a secret,
// even one split across writes, becomes [REDACTED] before it is passed on.
// It holds back only a last part that may start a secret, so that what
// it passes on is as recent as it can be (a person watches it live).
type redactor struct {
	secrets [][]byte
	keep    func([]byte)
	pending []byte // the last bytes, which may start a secret
}

const redacted = "[REDACTED]"

func newRedactor(secrets []string, keep func([]byte)) *redactor {
	r := &redactor{keep: keep}
	for _, s := range secrets {
		if len(s) >= 4 { // shorter "secrets" would redact ordinary text
			r.secrets = append(r.secrets, []byte(s))
		}
	}
	return r
}

// held returns the length of the longest end of buf that is the start of
// a secret, but not a whole one: what the next write may complete.
func (r *redactor) held(buf []byte) int {
	n := 0
	for _, s := range r.secrets {
		for j := max(len(buf)-len(s)+1, 0); j < len(buf)-n; j++ {
			if buf[j] == s[0] && bytes.HasPrefix(s, buf[j:]) {
				n = len(buf) - j
				break
			}
		}
	}
	return n
}

func (r *redactor) write(p []byte) {
	if len(r.secrets) == 0 {
		r.keep(p)
		return
	}
	buf := p // keep copies what it keeps: p need not be
	if len(r.pending) > 0 {
		buf = append(r.pending, p...)
	}
	for _, s := range r.secrets {
		if bytes.Contains(buf, s) {
			buf = bytes.ReplaceAll(buf, s, []byte(redacted))
		}
	}
	cut := len(buf) - r.held(buf)
	r.keep(buf[:cut])
	r.pending = append(r.pending[:0:0], buf[cut:]...)
}

func (r *redactor) flush() {
	if len(r.pending) > 0 {
		r.keep(r.pending)
		r.pending = nil
	}
}

// redactString cuts the credentials out of s, as the redactor does for a
// stream.
func redactString(s string, secrets []string) string {
	for _, sec := range secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, redacted)
		}
	}
	return s
}
