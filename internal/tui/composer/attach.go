package composer

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/workspace"
)

// MaxAttachment is the most bytes of a file a message attaches; a larger
// file gets a note instead.
const MaxAttachment = 256 << 10

// attachedMsg brings a submission whose files were read back to the
// composer that sent it.
type attachedMsg struct {
	owner *Composer
	sub   Submission
}

// mentions returns the paths the text names, in order, once each: every
// word that starts with "@", and @"a path with spaces" quoted.
func mentions(text string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for i := 0; i < len(text); {
		start := strings.IndexByte(text[i:], '@')
		if start < 0 {
			break
		}
		at := i + start
		i = at + 1
		if at > 0 && !unicode.IsSpace(rune(text[at-1])) {
			continue
		}
		rest := text[at+1:]
		if q, ok := strings.CutPrefix(rest, `"`); ok {
			if end := strings.IndexByte(q, '"'); end >= 0 && !strings.ContainsRune(q[:end], '\n') {
				add(q[:end])
				i = at + 2 + end + 1
				continue
			}
		}
		end := strings.IndexFunc(rest, unicode.IsSpace)
		if end < 0 {
			end = len(rest)
		}
		add(rest[:end])
		i = at + 1 + end
	}
	return out
}

// attach returns the tea.Cmd that reads the files named and sends sub
// with them.
func attach(owner *Composer, root string, sub Submission, names []string, allow func(string) error) tea.Cmd {
	return func() tea.Msg {
		sub.Text, sub.Attachments = attachFiles(root, sub.Text, names, allow)
		return attachedMsg{owner: owner, sub: sub}
	}
}

// attachFiles appends to text a block per regular file inside the
// workspace that names stand for:
//
//	<file path="rel/path">
//	…content…
//	</file>
//
// and returns it with the files attached and notes of those refused. A
// name that is not a file (someone's @handle) is passed over silently, and
// so is a directory.
func attachFiles(root, text string, names []string, allow func(string) error) (string, []string) {
	ws, err := workspace.New(root)
	if err != nil {
		return text, []string{"no file attached: " + err.Error()}
	}
	var b strings.Builder
	b.WriteString(text)
	var notes []string
	done := map[string]bool{}
	for _, name := range names {
		a, ok := readMention(ws, name, allow)
		if !ok || done[a.rel] {
			continue
		}
		done[a.rel] = true
		if a.refused != "" {
			notes = append(notes, a.rel+": not attached: "+a.refused)
			continue
		}
		fmt.Fprintf(&b, "\n\n<file path=\"%s\">\n%s\n</file>", attrEscaper.Replace(a.rel), strings.TrimSuffix(a.content, "\n"))
		entry := a.rel
		if a.note {
			entry += " (" + a.content + ")"
		}
		notes = append(notes, entry)
	}
	return b.String(), notes
}

var attrEscaper = strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;", `>`, "&gt;")

// attachment is what one @name leads to.
type attachment struct {
	rel     string // as the person wrote it, cleaned, or workspace-relative
	content string // the file's text, or a note in its place
	note    bool   // content is a note (too large, binary)
	refused string // why nothing is attached
}

// readMention finds the file @name stands for: name as written, or less a
// trailing punctuation mark ("see @main.go, then"). ok is false when
// neither exists, or when it is a directory.
func readMention(ws *workspace.Workspace, name string, allow func(string) error) (attachment, bool) {
	for _, cand := range []string{name, strings.TrimRight(name, `.,;:!?)]}'"`)} {
		if cand == "" {
			continue
		}
		p := filepath.FromSlash(cand)
		full := p
		if !filepath.IsAbs(p) {
			full = filepath.Join(ws.Root(), p)
		}
		if _, err := os.Lstat(full); err != nil {
			continue
		}
		return readFile(ws, cand, allow)
	}
	return attachment{}, false
}

// readFile reads the file at cand, which exists, if it lies inside the
// workspace, its links followed.
func readFile(ws *workspace.Workspace, cand string, allow func(string) error) (attachment, bool) {
	a := attachment{rel: relName(ws, cand)}
	abs, root, err := ws.Locate(filepath.FromSlash(cand))
	switch {
	case err != nil:
		a.refused = err.Error()
		return a, true
	case root != 0:
		a.refused = "outside the workspace"
		return a, true
	}
	if allow != nil {
		// The person's rules hold for what they attach as for what the
		// model reads: a denied file is not sent.
		if err := allow(abs); err != nil {
			a.refused = err.Error()
			return a, true
		}
	}
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		a.refused = err.Error()
		return a, true
	case fi.IsDir():
		return attachment{}, false
	case !fi.Mode().IsRegular():
		a.refused = "not a regular file"
		return a, true
	case fi.Size() > MaxAttachment:
		a.content, a.note = fmt.Sprintf("not included: %d KiB, over the %d KiB a message attaches", (fi.Size()+1023)>>10, MaxAttachment>>10), true
		return a, true
	}
	f, err := os.Open(abs)
	if err != nil {
		a.refused = err.Error()
		return a, true
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxAttachment+1))
	switch {
	case err != nil:
		a.refused = err.Error()
	case len(data) > MaxAttachment:
		a.content, a.note = fmt.Sprintf("not included: over the %d KiB a message attaches", MaxAttachment>>10), true
	case binary(data):
		a.content, a.note = "not included: a binary file", true
	default:
		a.content = string(data)
	}
	return a, true
}

// relName is how an attachment is named: the path as written, cleaned and
// slash separated; an absolute one relative to the workspace root.
func relName(ws *workspace.Workspace, cand string) string {
	if !filepath.IsAbs(filepath.FromSlash(cand)) {
		return path.Clean(filepath.ToSlash(cand))
	}
	if rel, err := filepath.Rel(ws.Root(), cand); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(filepath.Clean(cand))
}

// binary reports whether data is not text: a NUL byte in its first 8 KiB,
// or invalid UTF-8.
func binary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8<<10)], 0) >= 0 || !utf8.Valid(data)
}
