package skill

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// MaxFileSize is the largest SKILL.md read: a larger one is a [Problem]
// and not a skill. A skill's body is for the model to read with
// read_file, which shows a file in pages; a megabyte is far more than any
// skill needs.
const MaxFileSize = 1 << 20

// MaxName is the longest a skill's name may be, as Claude Code has it.
const MaxName = 64

// MaxDescription is the most characters of a description shown to the
// model, as Claude Code bounds it.
const MaxDescription = 1024

// load reads the skill at path, whose size was checked: its name and
// description. A skill whose front matter is malformed or lacks either
// comes back with an empty name and the problem.
func load(path string) (Skill, []Problem) {
	f, err := os.Open(path)
	if err != nil {
		return Skill{}, []Problem{{Path: path, Message: fmt.Sprintf("cannot read: %v", err)}}
	}
	defer f.Close()
	// The file may have grown since it was measured.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return Skill{}, []Problem{{Path: path, Message: fmt.Sprintf("cannot read: %v", err)}}
	}
	if len(data) > MaxFileSize {
		return Skill{}, []Problem{{Path: path, Message: fmt.Sprintf("is more than the %d bytes a SKILL.md may have; it is ignored", MaxFileSize)}}
	}
	s, probs := parse(data)
	for i := range probs {
		probs[i].Path = path
	}
	s.Path = path
	return s, probs
}

// parse reads the name and description of a SKILL.md's front matter. The
// problems it returns have no Path yet.
func parse(data []byte) (Skill, []Problem) {
	front, err := frontMatter(data)
	if err != nil {
		return Skill{}, []Problem{*err}
	}
	s, probs := frontFields(front)
	// yaml counts a lone carriage return (and NEL, LS, PS) as a line
	// break, the file's lines do not: no line is past the closing fence.
	end := bytes.Count(front, []byte("\n")) + 2
	for i := range probs {
		probs[i].Line = min(probs[i].Line, end)
	}
	return s, probs
}

// frontFields reads the name and description of the front matter front, whose
// line 1 is the file's line 2.
func frontFields(front []byte) (Skill, []Problem) {
	var doc yaml.Node
	if err := yaml.Unmarshal(front, &doc); err != nil {
		line, msg := YAMLError(err)
		return Skill{}, []Problem{{Line: line + 1, Message: "front matter: " + msg}}
	}
	var fields map[string]*yaml.Node
	if len(doc.Content) > 0 {
		m := doc.Content[0]
		if m.Kind != yaml.MappingNode {
			return Skill{}, []Problem{{Line: m.Line + 1, Message: "front matter: is not a mapping of keys to values (name: ..., description: ...)"}}
		}
		fields = make(map[string]*yaml.Node, len(m.Content)/2)
		for i := 0; i+1 < len(m.Content); i += 2 {
			key := m.Content[i]
			if first, ok := fields[key.Value]; ok && (key.Value == "name" || key.Value == "description") {
				return Skill{}, []Problem{{Line: key.Line + 1, Message: fmt.Sprintf(
					"front matter: %s is given twice (first on line %d)", key.Value, first.Line+1)}}
			}
			fields[key.Value] = m.Content[i+1]
		}
	}
	name, p := text(fields, "name")
	if p != nil {
		return Skill{}, []Problem{*p}
	}
	desc, p := text(fields, "description")
	if p != nil {
		return Skill{}, []Problem{*p}
	}
	if msg := badName(name); msg != "" {
		return Skill{}, []Problem{{Line: fields["name"].Line + 1, Message: msg}}
	}
	var probs []Problem
	desc = oneLine(desc)
	if n := utf8.RuneCountInString(desc); n > MaxDescription {
		desc = string([]rune(desc)[:MaxDescription-1]) + "…"
		probs = append(probs, Problem{Line: fields["description"].Line + 1, Message: fmt.Sprintf(
			"description is %d characters; the model is shown it cut to %d", n, MaxDescription)})
	}
	return Skill{Name: name, Description: desc}, probs
}

// frontMatter returns the text between the first line, "---", and the
// next "---" line. Line 1 of what it returns is line 2 of data.
func frontMatter(data []byte) ([]byte, *Problem) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	if !isFence(first) {
		return nil, &Problem{Line: 1, Message: `has no front matter: its first line must be "---", followed by name: and description: lines and another "---"`}
	}
	for off := 0; off < len(rest); {
		line, _, _ := bytes.Cut(rest[off:], []byte("\n"))
		if isFence(line) {
			return rest[:off], nil
		}
		off += len(line) + 1
	}
	return nil, &Problem{Line: 1, Message: `the front matter begun on this line has no closing "---" line`}
}

// isFence reports whether line is "---", trailing spaces and a carriage
// return aside.
func isFence(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r")) == "---"
}

// YAMLError returns the line of the front matter (from 1) a YAML error
// names, or 0 when it names none (the caller adds the fence's line), and
// its message without the "yaml:" and "line N:" prefixes. Package agent
// reads its files' front matter with it too.
//
// yaml counts the line of a scanner's error from 1 but a parser's from 0
// (its fail adds the one only for the scanner), so the line of a parser's
// message is one more than it says.
func YAMLError(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	rest, ok := strings.CutPrefix(msg, "line ")
	if !ok {
		return 0, msg
	}
	num, after, ok := strings.Cut(rest, ": ")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n <= 0 {
		return 0, msg
	}
	if parserError(after) {
		n++
	}
	return n, after
}

// parserError reports whether msg is one of the problems yaml's parser
// (not its scanner) reports: parserc.go's messages.
func parserError(msg string) bool {
	switch msg {
	case "did not find expected ',' or ']'", "did not find expected ',' or '}'",
		"did not find expected '-' indicator", "did not find expected <document start>",
		"did not find expected <stream-start>", "did not find expected key",
		"did not find expected node content", "found duplicate %TAG directive",
		"found duplicate %YAML directive", "found incompatible YAML document",
		"found undefined tag handle":
		return true
	}
	return false
}

// text returns the string value of key in fields: a problem when it is
// missing, empty or not a string.
func text(fields map[string]*yaml.Node, key string) (string, *Problem) {
	n, ok := fields[key]
	if !ok {
		return "", &Problem{Line: 1, Message: fmt.Sprintf("front matter: %s is missing (name: and description: are required)", key)}
	}
	if n.Kind != yaml.ScalarNode {
		return "", &Problem{Line: n.Line + 1, Message: fmt.Sprintf("front matter: %s is not a string", key)}
	}
	if strings.TrimSpace(n.Value) == "" || n.Tag == "!!null" {
		return "", &Problem{Line: n.Line + 1, Message: fmt.Sprintf("front matter: %s is empty", key)}
	}
	return n.Value, nil
}

// badName says what is wrong with name, or "" when it is a good one:
// lowercase letters, digits and hyphens, at most MaxName of them.
func badName(name string) string {
	if len(name) > MaxName {
		return fmt.Sprintf("front matter: name is %d characters, more than %d", len(name), MaxName)
	}
	for _, r := range name {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-') {
			return fmt.Sprintf("front matter: name %q may hold only lowercase letters, digits and hyphens", name)
		}
	}
	return ""
}

// oneLine returns s on one line, valid UTF-8: every run of spaces,
// newlines and other control characters is one space.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToValidUTF8(s, "\uFFFD"), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
}
