package agent

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"

	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/skill"
)

// maxModel bounds a model's name or an effort as written.
const maxModel = 200

// parse reads an agent file's data in format. It returns the definition
// (with an empty Name when the file is not loaded) and its problems, whose
// Path is not set yet.
func parse(format string, data []byte) (Definition, []Problem) {
	if p := textProblem(data); p != nil {
		return Definition{}, []Problem{*p}
	}
	if format == formatCodex {
		return parseCodex(data)
	}
	return parseClaude(data)
}

// textProblem says what keeps data from being a text file: a NUL byte or
// bytes that are not UTF-8, with the line of the first.
func textProblem(data []byte) *Problem {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return &Problem{Line: lineOf(data, i), Message: "holds a NUL byte: it is not a text file"}
	}
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, n := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return &Problem{Line: lineOf(data, off), Message: "is not valid UTF-8"}
	}
	return nil
}

// fields are the settings of an agent's file, as its format has them,
// each with the line it is on.
type fields struct {
	name, description, model, effort, mode string
	tools, disallowed                      []string
	toolsSet                               bool // tools given, even as an empty list
	maxTurns                               int
	line                                   map[string]int // the line of each key given
}

// finish checks f and makes the definition of it, with prompt as its
// system prompt, adding its problems to probs. The name is empty when the
// file is not loaded.
func (f *fields) finish(prompt string, probs []Problem) (Definition, []Problem) {
	at := func(key string) int { return max(f.line[key], 1) }
	fail := func(key, msg string) (Definition, []Problem) {
		return Definition{}, append(probs, Problem{Line: at(key), Message: msg})
	}
	for _, p := range probs {
		if !p.Warning {
			return Definition{}, probs
		}
	}
	switch {
	case f.line["name"] == 0:
		return fail("name", "name is missing (name and description are required)")
	case f.name == "":
		return fail("name", "name is empty")
	case !id.ValidName(f.name, id.MaxName):
		return fail("name", fmt.Sprintf("name %s may hold only ASCII letters, digits, '_' and '-', at most %d of them", quote(f.name), id.MaxName))
	case f.line["description"] == 0:
		return fail("description", "description is missing (name and description are required)")
	}
	d := Definition{Name: f.name, Description: oneLine(f.description), Prompt: prompt, MaxTurns: f.maxTurns}
	if d.Description == "" {
		return fail("description", "description is empty")
	}
	for _, kv := range [][2]string{{"model", f.model}, {"effort", f.effort}} {
		if v := kv[1]; len(v) > maxModel || strings.ContainsFunc(v, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) {
			return fail(kv[0], fmt.Sprintf("%s %s is not one word of at most %d printable characters", kv[0], quote(v), maxModel))
		}
	}
	if f.model != "inherit" {
		d.Model = f.model
	}
	d.Effort = f.effort
	if f.mode != "" {
		mode, warning, ok := permissionMode(f.mode)
		if !ok {
			return fail("mode", fmt.Sprintf("permission mode %s is not one rein knows: want default, acceptEdits, plan or bypassPermissions "+
				"(or rein's default, accept-edits, plan, yolo)", quote(f.mode)))
		}
		if warning != "" {
			probs = append(probs, Problem{Line: at("mode"), Warning: true, Message: warning})
		}
		d.PermissionMode = mode
	}
	if f.toolsSet {
		tools, tprobs, dropped := mapTools(f.tools, false)
		for _, p := range tprobs {
			p.Line = at("tools")
			probs = append(probs, p)
		}
		if len(tools) == 0 && len(f.tools) > 0 {
			return Definition{}, append(probs, Problem{Line: at("tools"), Message: fmt.Sprintf(
				"none of its tools is one rein has (%s); an agent with no tools is not what it asks for, so it is not loaded", strings.Join(dropped, ", "))})
		}
		if tools == nil {
			tools = []string{}
		}
		d.Tools = tools
	}
	disallowed, dprobs, _ := mapTools(f.disallowed, true)
	for _, p := range dprobs {
		p.Line = at("disallowedTools")
		probs = append(probs, p)
	}
	d.DisallowedTools = disallowed
	for _, p := range probs {
		if !p.Warning {
			return Definition{}, probs
		}
	}
	if strings.TrimSpace(prompt) == "" {
		probs = append(probs, Problem{Line: 1, Warning: true, Message: "has no instructions: the agent's system prompt is empty"})
	}
	return d, probs
}

// permissionMode maps a permission mode as Claude Code (or rein) writes it
// to rein's, with a warning when rein's is not quite what was asked; ok
// is false for a mode neither knows.
func permissionMode(s string) (mode, warning string, ok bool) {
	switch s {
	case "default", "manual":
		return "default", "", true
	case "acceptEdits", "accept-edits":
		return "accept-edits", "", true
	case "plan":
		return "plan", "", true
	case "bypassPermissions", "yolo":
		return "yolo", "", true
	case "dontAsk", "auto":
		return "default", fmt.Sprintf("permission mode %s has no match in rein: the agent runs in default mode "+
			"(no looser than its parent's), and what it may not do without asking asks you", s), true
	}
	return "", "", false
}

// parseClaude reads a file in Claude Code's format: YAML front matter and
// a Markdown body.
func parseClaude(data []byte) (Definition, []Problem) {
	front, body, p := frontMatter(data)
	if p != nil {
		return Definition{}, []Problem{*p}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(front, &doc); err != nil {
		line, msg := skill.YAMLError(err)
		// yaml counts a lone carriage return as a line break, the file's
		// lines do not: no line is past the closing fence.
		end := bytes.Count(front, []byte("\n")) + 2
		return Definition{}, []Problem{{Line: min(line+1, end), Message: "front matter: " + msg}}
	}
	f := fields{line: map[string]int{}}
	var probs []Problem
	if len(doc.Content) == 0 {
		return f.finish(body, nil)
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return Definition{}, []Problem{{Line: m.Line + 1, Message: "front matter: is not a mapping of keys to values (name: ..., description: ...)"}}
	}
	keys := map[string]string{"name": "name", "description": "description", "tools": "tools", "disallowedTools": "disallowedTools",
		"model": "model", "effort": "effort", "permissionMode": "mode", "maxTurns": "maxTurns"}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key, ok := keys[k.Value]
		if !ok || k.Kind != yaml.ScalarNode {
			continue // color, hooks, skills...: not rein's business
		}
		line := k.Line + 1
		if first, ok := f.line[key]; ok {
			probs = append(probs, Problem{Line: line, Message: fmt.Sprintf("front matter: %s is given twice (first on line %d)", k.Value, first)})
			continue
		}
		f.line[key] = line
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		var err error
		switch key {
		case "name":
			f.name, err = yamlString(v)
		case "description":
			f.description, err = yamlString(v)
		case "model":
			f.model, err = yamlString(v)
		case "effort":
			f.effort, err = yamlString(v)
		case "mode":
			f.mode, err = yamlString(v)
		case "tools":
			f.tools, f.toolsSet, err = yamlList(v)
		case "disallowedTools":
			f.disallowed, _, err = yamlList(v)
		case "maxTurns":
			f.maxTurns, err = yamlTurns(v)
		}
		if err != nil {
			probs = append(probs, Problem{Line: line, Message: fmt.Sprintf("front matter: %s %v", k.Value, err)})
		}
	}
	return f.finish(body, probs)
}

var (
	errNotString = errors.New("is not a string")
	errNotList   = errors.New("is neither a list of tool names nor a string of them separated by commas")
	errNotTurns  = errors.New("is not a whole number of turns, 1 or more")
)

// yamlString is the string v holds; null is "".
func yamlString(v *yaml.Node) (string, error) {
	if v == nil || v.Kind != yaml.ScalarNode {
		return "", errNotString
	}
	if v.Tag == "!!null" {
		return "", nil
	}
	if v.Tag != "!!str" {
		return "", errNotString
	}
	return strings.TrimSpace(v.Value), nil
}

// yamlList is the tool names v holds: a list of strings, or one string
// of them separated by commas (Claude Code's "Read, Grep, Glob"). set is
// false for null or an empty string, which Claude Code takes as no list at
// all.
func yamlList(v *yaml.Node) (names []string, set bool, err error) {
	if v == nil {
		return nil, false, errNotList
	}
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return nil, false, nil
		}
		if v.Tag != "!!str" {
			return nil, false, errNotList
		}
		names = splitTools(v.Value)
		return names, len(names) > 0, nil
	case yaml.SequenceNode:
		names = []string{}
		for _, item := range v.Content {
			if item.Kind == yaml.AliasNode {
				item = item.Alias
			}
			if item == nil || item.Kind != yaml.ScalarNode || item.Tag != "!!str" {
				return nil, false, errNotList
			}
			if s := strings.TrimSpace(item.Value); s != "" {
				names = append(names, s)
			}
		}
		return names, true, nil
	}
	return nil, false, errNotList
}

// yamlTurns is the positive whole number v holds.
func yamlTurns(v *yaml.Node) (int, error) {
	var n int
	if v == nil || v.Kind != yaml.ScalarNode || v.Tag != "!!int" || v.Decode(&n) != nil || n < 1 {
		return 0, errNotTurns
	}
	return n, nil
}

// frontMatter splits data into the text between its first line, "---",
// and the next "---" line, and the body after it, with the blank lines
// that begin it and the spaces that end it trimmed. Line 1 of front is
// line 2 of data.
func frontMatter(data []byte) (front []byte, body string, p *Problem) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	if !isFence(first) {
		return nil, "", &Problem{Line: 1, Message: `has no front matter: its first line must be "---", followed by name: and description: lines and another "---"`}
	}
	for off := 0; off < len(rest); {
		line, _, _ := bytes.Cut(rest[off:], []byte("\n"))
		if isFence(line) {
			after := rest[min(off+len(line)+1, len(rest)):]
			return rest[:off], strings.TrimRightFunc(strings.TrimLeft(string(after), "\r\n"), unicode.IsSpace), nil
		}
		off += len(line) + 1
	}
	return nil, "", &Problem{Line: 1, Message: `the front matter begun on this line has no closing "---" line`}
}

// isFence reports whether line is "---", trailing spaces and a carriage
// return aside.
func isFence(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r")) == "---"
}

// parseCodex reads a file in Codex's format: TOML whose
// developer_instructions are the system prompt.
func parseCodex(data []byte) (Definition, []Problem) {
	var doc map[string]any
	text := string(data)
	if _, err := toml.Decode(text, &doc); err != nil {
		var perr toml.ParseError
		line := 1
		msg := err.Error()
		if errors.As(err, &perr) {
			msg = perr.Message
			line = perr.Position.Line
			if at := perr.Position.Start; at >= 0 && at <= len(text) {
				line = strings.Count(text[:at], "\n") + 1
			}
		}
		return Definition{}, []Problem{{Line: line, Message: "not valid TOML: " + msg}}
	}
	f := fields{line: map[string]int{}}
	var probs []Problem
	// Only the keys at the top, before any [table], are the agent's.
	keys := map[string]string{"name": "name", "description": "description", "developer_instructions": "prompt",
		"model": "model", "model_reasoning_effort": "effort", "sandbox_mode": "sandbox"}
	var prompt, sandbox string
	names := make([]string, 0, len(doc))
	for k := range doc {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		key, ok := keys[k]
		if !ok {
			continue
		}
		f.line[key] = tomlLine(text, k)
		s, isString := doc[k].(string)
		if !isString {
			probs = append(probs, Problem{Line: max(f.line[key], 1), Message: fmt.Sprintf("%s %v", k, errNotString)})
			continue
		}
		s = strings.TrimSpace(s)
		switch key {
		case "name":
			f.name = s
		case "description":
			f.description = s
		case "prompt":
			prompt = s
		case "model":
			f.model = s
		case "effort":
			f.effort = s
		case "sandbox":
			sandbox = s
		}
	}
	if f.line["prompt"] == 0 && len(probs) == 0 {
		probs = append(probs, Problem{Line: 1, Message: "developer_instructions is missing (name, description and developer_instructions are required)"})
	}
	d, probs := f.finish(prompt, probs)
	if d.Name == "" {
		return d, probs
	}
	switch sandbox {
	case "", "workspace-write":
	case "read-only":
		d.ReadOnly = true
	case "danger-full-access":
		probs = append(probs, Problem{Line: f.line["sandbox"], Warning: true, Message: "sandbox_mode danger-full-access is not given: " +
			"a child runs in its parent's sandbox, never a wider one"})
	default:
		return Definition{}, append(probs, Problem{Line: max(f.line["sandbox"], 1), Message: fmt.Sprintf(
			"sandbox_mode %s is not one Codex knows: want read-only, workspace-write or danger-full-access", quote(sandbox))})
	}
	return d, probs
}

// tomlLine returns the line of the TOML text that assigns key at the
// start of a line, or 0.
func tomlLine(text, key string) int {
	for i, l := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), key)
		if ok && strings.HasPrefix(strings.TrimLeft(rest, " \t"), "=") {
			return i + 1
		}
	}
	return 0
}

// oneLine returns s on one line: every run of spaces, newlines and other
// control characters is one space.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
}
