package projection

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
)

// maxSubject is the most of a call's command or path a stub quotes.
const maxSubject = 120

// stub returns tool result i of the state with its text replaced by a
// stub that says what it was and where the whole of it is. The stub
// depends only on the state and the session directory, so a result
// elided once is sent the same way in every later request.
func (v *view) stub(i int) contract.ModelMessage {
	m := v.s.Messages[i]
	r := *m.Result
	r.Text = stubText(&r, callOf(v.s.Messages[:i], r.IntentID), seqOf(v.s, i), v.opts.SessionDir)
	m.Result = &r
	return m
}

// callOf returns the call of intent id in the assistant messages of msgs,
// looking from the latest (a result follows its call closely); nil when
// none has it.
func callOf(msgs []contract.ModelMessage, id string) *contract.ToolCall {
	for i := len(msgs) - 1; i >= 0; i-- {
		for j := range msgs[i].ToolCalls {
			if msgs[i].ToolCalls[j].IntentID == id {
				return &msgs[i].ToolCalls[j]
			}
		}
	}
	return nil
}

// stubText is the text that stands for an elided result r of call (nil
// when unknown), recorded at seq:
//
//	[rein: `go test ./...` (bash, seq 120): 3,400 lines, 120,000 bytes, elided from the context; the whole output is /s/artifacts/inv_1.txt: read it with read_file]
//	[rein: `go test ./...` (bash, seq 120): 27,105 bytes, of which the model had been shown 24,535 (182 lines shown), elided from the context; ...]
func stubText(r *contract.ToolResult, call *contract.ToolCall, seq uint64, dir string) string {
	var b strings.Builder
	b.Grow(160 + len(dir) + len(r.ArtifactRef) + maxSubject)
	b.WriteString("[rein: ")
	if subject := subjectOf(call); subject != "" {
		b.WriteByte('`')
		b.WriteString(subject)
		b.WriteString("` (")
	} else {
		b.WriteString("the result (")
	}
	b.WriteString(r.ToolName)
	if seq > 0 {
		b.WriteString(", seq ")
		b.WriteString(strconv.FormatUint(seq, 10))
	}
	if r.IsError {
		b.WriteString(", failed")
	}
	b.WriteString("): ")
	writeSize(&b, r)
	b.WriteString(", elided from the context; ")
	if r.ArtifactRef == "" {
		b.WriteString("run it again if you need it]")
		return b.String()
	}
	b.WriteString("the whole output is ")
	if dir != "" && !filepath.IsAbs(r.ArtifactRef) {
		b.WriteString(filepath.Join(dir, r.ArtifactRef))
	} else {
		b.WriteString(r.ArtifactRef)
	}
	b.WriteString(": read it with read_file]")
	return b.String()
}

// writeSize writes the size of r's output: its lines and bytes, or, when
// the text was truncated (r.OmittedBytes > 0), the whole output's bytes,
// the bytes and lines the model had been shown: the lines of the whole
// output are not known.
//
//	3,400 lines, 120,000 bytes
//	27,105 bytes, of which the model had been shown 24,535 (182 lines shown)
func writeSize(b *strings.Builder, r *contract.ToolResult) {
	lines := strings.Count(r.Text, "\n")
	if r.Text != "" && !strings.HasSuffix(r.Text, "\n") {
		lines++
	}
	if r.OmittedBytes <= 0 {
		b.WriteString(count(lines, "line"))
		b.WriteString(", ")
		b.WriteString(count(len(r.Text), "byte"))
		return
	}
	b.WriteString(count(len(r.Text)+int(r.OmittedBytes), "byte"))
	b.WriteString(", of which the model had been shown ")
	b.WriteString(thousands(len(r.Text)))
	b.WriteString(" (")
	b.WriteString(count(lines, "line"))
	b.WriteString(" shown)")
}

// subjectKeys are the keys of a call's input that name what it worked
// on, the first present winning.
var subjectKeys = [...]string{"command", "path", "file_path", "pattern", "query", "url"}

// subjectOf returns what call worked on, as its input names it: the
// command, path, pattern, query or URL, on one line; empty when it names
// none of them.
func subjectOf(call *contract.ToolCall) string {
	if call == nil || len(call.Input) == 0 {
		return ""
	}
	vals, ok := flatStrings(call.Input)
	if !ok {
		var err error
		if vals, err = decodeSubjects(call.Input); err != nil {
			return ""
		}
	}
	for _, s := range vals {
		if s == "" {
			continue
		}
		line, _, more := strings.Cut(strings.TrimSpace(s), "\n")
		line = strings.ReplaceAll(line, "`", "'")
		if more {
			return excerpt.Prefix(line, maxSubject) + excerpt.Marker
		}
		return excerpt.Text(line, maxSubject)
	}
	return ""
}

// decodeSubjects reads the values of subjectKeys from in, a JSON object,
// with encoding/json.
func decodeSubjects(in []byte) ([len(subjectKeys)]string, error) {
	var v struct {
		Command  string `json:"command"`
		Path     string `json:"path"`
		FilePath string `json:"file_path"`
		Pattern  string `json:"pattern"`
		Query    string `json:"query"`
		URL      string `json:"url"`
	}
	err := json.Unmarshal(in, &v)
	return [len(subjectKeys)]string{v.Command, v.Path, v.FilePath, v.Pattern, v.Query, v.URL}, err
}

// flatStrings reads the values of subjectKeys from in, a JSON object, the
// way json.Unmarshal would, without reflection: stubs are made for every
// elided result of every request. It reports false when in is anything
// but a flat object whose strings hold no escape and no byte that is not
// UTF-8 (a nested value, an escape...): the caller decodes those in full.
func flatStrings(in []byte) (vals [len(subjectKeys)]string, ok bool) {
	i := skipSpace(in, 0)
	if i >= len(in) || in[i] != '{' {
		return vals, false
	}
	if i = skipSpace(in, i+1); i < len(in) && in[i] == '}' {
		return vals, skipSpace(in, i+1) == len(in)
	}
	for {
		key, j, ok := plainString(in, i)
		if i = skipSpace(in, j); !ok || i >= len(in) || in[i] != ':' {
			return vals, false
		}
		i = skipSpace(in, i+1)
		if i < len(in) && in[i] == '"' {
			val, j, ok := plainString(in, i)
			if !ok {
				return vals, false
			}
			for k, want := range subjectKeys {
				if strings.EqualFold(key, want) {
					vals[k] = val
				}
			}
			// (encoding/json matches keys without regard to case.)
			i = j
		} else {
			// A number, true, false or null: anything that opens a
			// nested value or a string is left to the full decoder.
			j := i
			for j < len(in) && in[j] != ',' && in[j] != '}' && !isSpace(in[j]) {
				if in[j] == '{' || in[j] == '[' || in[j] == '"' {
					return vals, false
				}
				j++
			}
			if j == i || subjectKey(key) && string(in[i:j]) != "null" {
				// (encoding/json refuses a number for a string.)
				return vals, false
			}
			i = j
		}
		if i = skipSpace(in, i); i >= len(in) {
			return vals, false
		}
		switch in[i] {
		case ',':
			i = skipSpace(in, i+1)
		case '}':
			return vals, skipSpace(in, i+1) == len(in)
		default:
			return vals, false
		}
	}
}

// subjectKey reports whether key is one of subjectKeys, as encoding/json
// matches it.
func subjectKey(key string) bool {
	for _, want := range subjectKeys {
		if strings.EqualFold(key, want) {
			return true
		}
	}
	return false
}

// plainString reads the JSON string at in[i], if it holds no escape, no
// control character and nothing that is not UTF-8, and returns it and the
// index after it.
func plainString(in []byte, i int) (string, int, bool) {
	if i >= len(in) || in[i] != '"' {
		return "", i, false
	}
	end := bytes.IndexByte(in[i+1:], '"')
	if end < 0 {
		return "", i, false
	}
	s := in[i+1 : i+1+end]
	for _, c := range s {
		if c < 0x20 || c == '\\' {
			return "", i, false
		}
	}
	if !utf8.Valid(s) {
		return "", i, false
	}
	return string(s), i + 2 + end, true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(in []byte, i int) int {
	for i < len(in) && isSpace(in[i]) {
		i++
	}
	return i
}

// count says n of unit: "1 line", "3,400 lines".
func count(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return thousands(n) + " " + unit + "s"
}

// thousands formats n with a comma between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 || len(s) <= 3 {
		return s
	}
	var b strings.Builder
	lead := len(s) % 3
	if lead > 0 {
		b.WriteString(s[:lead])
	}
	for i := lead; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}
