package tool

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"github.com/rein-agent/rein/internal/registry"
)

// The bounds of a Question's Preview: a huge write shows its first lines
// and says how many more there are.
const (
	previewLines = 400
	previewBytes = 64 << 10
)

// preview returns t's preview of a call with input, bounded, secrets cut
// out; "" when t has none or it failed (the call then fails as usual
// when it runs). A preview's panic is its failure.
func (rt *Runtime) preview(t registry.Tool, input json.RawMessage) (text string) {
	if t.Preview == nil {
		return ""
	}
	defer func() {
		if p := recover(); p != nil {
			rt.opts.Logger.Error("tool: a preview panicked", "tool", t.Name, "panic", p, "stack", string(debug.Stack()))
			text = ""
		}
	}()
	p, err := t.Preview(input)
	if err != nil {
		rt.opts.Logger.Debug("tool: no preview", "tool", t.Name, "err", err)
		return ""
	}
	return redactString(boundPreview(p, previewLines, previewBytes), rt.opts.Secrets)
}

// boundPreview returns the first lines of s, at most lines of them and
// maxBytes bytes (cut on a character boundary), then a line saying how
// many lines were left out; s itself when it fits.
func boundPreview(s string, lines, maxBytes int) string {
	end, n := 0, 0
	for n < lines && end < len(s) {
		i := strings.IndexByte(s[end:], '\n')
		next := len(s)
		if i >= 0 {
			next = end + i + 1
		}
		if next > maxBytes {
			break
		}
		end, n = next, n+1
	}
	if end == len(s) {
		return s
	}
	head := s[:end]
	if end == 0 {
		// A first line longer than the bound: its start, cut on a
		// character boundary.
		cut := maxBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		head = s[:cut] + "\n"
		if end = strings.IndexByte(s, '\n') + 1; end == 0 {
			end = len(s)
		}
	}
	rest := strings.Count(s[end:], "\n")
	if end < len(s) && !strings.HasSuffix(s, "\n") {
		rest++
	}
	return head + fmt.Sprintf("[rein: %d more lines are not shown]\n", rest)
}
