package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// projectServer is one entry of a .mcp.json's mcpServers, as Claude Code
// writes it; the keys rein does not use are ignored.
type projectServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// ParseProjectFile reads a project's .mcp.json in Claude Code's format:
//
//	{"mcpServers": {
//	  "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "env": {"K": "v"}},
//	  "api": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${API_TOKEN}"}}}}
//
// ${VAR} and ${VAR:-default} are expanded, with getenv, in command, args,
// env values, url and headers, as Claude Code does. The servers come in
// name order. A file that is not JSON is an error naming its line and
// column; an entry rein cannot use (of type "sse", with neither command
// nor url, with a variable that is not set and has no default, with a
// name that is not 1 to 64 letters, digits, '_' or '-') is left out, and
// the error names it beside the servers that are returned.
//
// data is the file at path as the caller read it (the caller that hashed
// the bytes it trusts parses those same bytes).
func ParseProjectFile(path string, data []byte, getenv func(string) string) ([]Server, error) {
	var file struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("mcp: %s: %v", jsonWhere(path, data, err), err)
	}
	var servers []Server
	var problems []error
	for _, name := range slices.Sorted(maps.Keys(file.MCPServers)) {
		s, err := projectEntry(name, file.MCPServers[name], getenv)
		if err != nil {
			problems = append(problems, fmt.Errorf("mcp: %s: server %q: %w", path, name, err))
			continue
		}
		s.Source = path
		servers = append(servers, s)
	}
	return servers, errors.Join(problems...)
}

// validServerName is what a server's name may be: it becomes part of its
// tools' names, mcp__NAME__TOOL, so it holds no "__" (nor starts or ends
// with '_'): a server github__x would otherwise have tools that rules
// about github name.
var validServerName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*$`) })

// CheckName says what is wrong with name as a server's name; nil when
// nothing is.
func CheckName(name string) error {
	if len(name) > 64 || !validServerName().MatchString(name) {
		return errors.New(`a server's name must be 1 to 64 letters, digits, '-' or single '_' between them (its tools are named mcp__NAME__TOOL)`)
	}
	return nil
}

// projectEntry turns one entry of mcpServers into a Server.
func projectEntry(name string, raw json.RawMessage, getenv func(string) string) (Server, error) {
	if err := CheckName(name); err != nil {
		return Server{}, err
	}
	var p projectServer
	if err := json.Unmarshal(raw, &p); err != nil {
		return Server{}, fmt.Errorf("not a server: %v", err)
	}
	x := expander{getenv: getenv}
	s := Server{Name: name, Command: x.expand(p.Command), URL: x.expand(p.URL), Written: compact(raw)}
	for _, a := range p.Args {
		s.Args = append(s.Args, x.expand(a))
	}
	s.Env = x.expandMap(p.Env)
	s.Headers = x.expandMap(p.Headers)
	if x.err != nil {
		return Server{}, x.err
	}
	switch {
	case p.Type == "sse":
		return Server{}, errors.New(`type "sse" is not supported (the deprecated HTTP+SSE transport); use the server's streamable HTTP endpoint with type "http"`)
	case p.Type != "" && p.Type != "stdio" && p.Type != "http" && p.Type != "streamable-http":
		return Server{}, fmt.Errorf("unknown type %q (want stdio or http)", p.Type)
	case (s.Command == "") == (s.URL == ""):
		return Server{}, errors.New("a server needs a command (stdio) or a url (http), not both")
	case s.URL != "" && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://"):
		return Server{}, fmt.Errorf("url %q is not http:// or https://", s.URL)
	}
	return s, nil
}

// compact is the JSON raw on one line, as written otherwise.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// expander expands ${VAR} and ${VAR:-default}, remembering the first
// variable that is not set and has no default.
type expander struct {
	getenv func(string) string
	err    error
}

// reference matches ${VAR} and ${VAR:-default}.
var reference = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)
})

func (x *expander) expand(s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return reference().ReplaceAllStringFunc(s, func(m string) string {
		sub := reference().FindStringSubmatch(m)
		v := ""
		if x.getenv != nil {
			v = x.getenv(sub[1])
		}
		switch {
		case v != "":
			return v
		case sub[2] != "":
			return sub[3]
		}
		if x.err == nil {
			x.err = fmt.Errorf("${%s} is not set and has no default (write ${%s:-default})", sub[1], sub[1])
		}
		return ""
	})
}

func (x *expander) expandMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = x.expand(v)
	}
	return out
}

// jsonWhere names path and, for a syntax error, the line and column of
// data where it is.
func jsonWhere(path string, data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return path
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("%s:%d:%d", path, line, col)
}
