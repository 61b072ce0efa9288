package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// claudeEvents are the hook events Claude Code has and rein does not run:
// a settings file may name them, and they are reported as ignored.
var claudeEvents = []string{
	"PostToolUseFailure", "PermissionRequest", "PermissionDenied", "Notification", "SubagentStart",
	"SubagentStop", "PreCompact", "PostCompact", "SessionEnd", "TaskCompleted", "TeammateIdle",
}

// settingsGroup is one entry of an event's list in a settings file.
type settingsGroup struct {
	Matcher string            `json:"matcher"`
	Hooks   []settingsHandler `json:"hooks"`
}

// settingsHandler is one handler of a group.
type settingsHandler struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Timeout *float64 `json:"timeout"`
}

// ParseClaudeSettings reads the "hooks" section of a Claude Code settings
// file (.claude/settings.json, .claude/settings.local.json):
//
//	{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "...", "timeout": 30}]}]}}
//
// in the order of the file, each hook's Source the file and the line of
// its command. A file that is not JSON of that shape is an error naming
// the file (and the line and column of a syntax error). What rein does not run is returned
// as problems ("file: ..."), not errors, and left out: handlers of other
// types than command (prompt, http, agent, mcp_tool), events it does not
// know or run, a matcher that is not a regular expression (but a
// PreToolUse hook's, which is kept and runs before every tool: see
// [Hook.Warning]), a hook with no command. "disableAllHooks": true makes
// it return no hook.
//
// data is the content of the file at path as the caller read it: a caller
// that decides on the bytes (their hash, trusted) runs the hooks of those
// same bytes.
func ParseClaudeSettings(path string, data []byte) ([]Hook, []string, error) {
	var top struct {
		Hooks   json.RawMessage `json:"hooks"`
		Disable bool            `json:"disableAllHooks"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, jsonError(path, data, err)
	}
	if len(top.Hooks) == 0 || string(top.Hooks) == "null" {
		return nil, nil, nil
	}
	if top.Disable {
		return nil, []string{path + ": disableAllHooks is set, so none of its hooks run"}, nil
	}
	l := &loader{path: path, data: data}
	if err := l.events(top.Hooks); err != nil {
		return nil, nil, err
	}
	return l.hooks, l.problems, nil
}

// loader reads the hooks section of one settings file.
type loader struct {
	path     string
	data     []byte
	at       int // where the search for the next command's line starts
	hooks    []Hook
	problems []string
}

// events reads the section's events in the order of the file.
func (l *loader) events(section json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(section))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("hook: %s: \"hooks\" is not an object of events", l.path)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return jsonError(l.path, l.data, err)
		}
		event, _ := t.(string) // an object's keys are strings
		var groups []settingsGroup
		if err := dec.Decode(&groups); err != nil {
			return fmt.Errorf("hook: %s: the %s hooks: %w", l.path, event, err)
		}
		l.event(event, groups)
	}
	return nil
}

// event adds the hooks of event's groups.
func (l *loader) event(event string, groups []settingsGroup) {
	switch {
	case slices.Contains(claudeEvents, event):
		l.problem("rein does not run %s hooks; they are ignored", event)
		return
	case !slices.Contains(Events, event):
		l.problem("there is no hook event named %s; its hooks are ignored", event)
		return
	}
	for _, g := range groups {
		for _, h := range g.Hooks {
			if h.Type != "command" {
				l.problem("a %s hook of type %q is ignored: rein runs only command hooks", event, h.Type)
				continue
			}
			hk := Hook{Event: event, Matcher: g.Matcher, Command: h.Command, Source: l.source(h.Command)}
			if h.Timeout != nil && *h.Timeout > 0 {
				hk.Timeout = time.Duration(math.Min(*h.Timeout, 24*3600) * float64(time.Second))
			}
			if why := hk.problem(); why != "" {
				l.problem("a %s hook is ignored: %s", event, why)
				continue
			}
			if why := hk.Warning(); why != "" {
				l.problem("a %s hook: %s", event, why)
			}
			l.hooks = append(l.hooks, hk)
		}
	}
}

func (l *loader) problem(format string, args ...any) {
	l.problems = append(l.problems, l.path+": "+fmt.Sprintf(format, args...))
}

// source is the file and the line of command's next occurrence in it, as
// JSON writes it; the file alone when it is written otherwise.
func (l *loader) source(command string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(command) != nil || command == "" {
		return l.path
	}
	i := bytes.Index(l.data[l.at:], bytes.TrimSpace(b.Bytes()))
	if i < 0 {
		return l.path
	}
	l.at += i + 1
	return l.path + ":" + strconv.Itoa(bytes.Count(l.data[:l.at], []byte("\n"))+1)
}

// jsonError is err, of decoding data read from path, naming the file and,
// for a syntax or type error, the line and column.
func jsonError(path string, data []byte, err error) error {
	var off int64 = -1
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		off = se.Offset
	} else if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return fmt.Errorf("hook: %s: %w", path, err)
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	return fmt.Errorf("hook: %s:%d:%d: %w", path, line, max(col, 1), err)
}
