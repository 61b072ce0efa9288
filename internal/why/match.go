package why

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// fileAccess says how an intent of a file tool touches target: read_file,
// write_file and edit_file by their path; grep, list_dir and glob only when
// their path is the target itself (searching or listing a directory that
// holds a file is not a touch of the file). Relative paths resolve against
// root, the session's workspace.
func fileAccess(target, root, tool string, input json.RawMessage) Access {
	in, ok := inputOf(input)
	if !ok || in.Path == "" || resolve(root, in.Path) != target {
		return ""
	}
	switch tool {
	case "read_file", "grep", "list_dir", "glob":
		return Read
	case "write_file", "edit_file":
		return Write
	}
	return ""
}

// builtinFileTool reports whether tool is one of the file tools, which
// touch only the path they name (matched by fileAccess), so that their
// calls need not wait for an observation that names others.
func builtinFileTool(tool string) bool {
	switch tool {
	case "read_file", "grep", "list_dir", "glob", "write_file", "edit_file", "todo_write", "job_output":
		return true
	}
	return false
}

// bashTouch says how the bash intent of t touches target: the command as
// proposed and, when it differs, the command that really ran, read in the
// cwd it ran in (the session's workspace root when it never started).
func bashTouch(target, root string, t *Touch) Access {
	dir := root
	var effective string
	if t.Started != nil {
		if t.Started.Cwd != "" {
			dir = t.Started.Cwd
		}
		if in, ok := inputOf(t.Started.Input); ok {
			effective = in.Command
		}
	}
	m := matcher{target: target, root: root, dir: dir}
	in, _ := inputOf(t.Intent.Input)
	m.script(in.Command)
	if effective != "" && effective != in.Command {
		m.script(effective)
	}
	return m.access
}

// resolve returns p as a cleaned absolute path, relative to dir; "" when p
// is relative and dir is unknown.
func resolve(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, p)
}

// within reports whether p is dir or lies under it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir) && (strings.HasSuffix(dir, "/") || p[len(dir)] == '/')
}

// matcher reads the words of shell commands and keeps the strongest access
// to target they make.
type matcher struct {
	// target is the path looked for, root the session's workspace (a word
	// naming it, or a directory above it, names every file and is no
	// match), dir the directory the command ran in.
	target, root, dir string
	access            Access
}

// word matches one literal word of a command: the path it names, or for
// a word holding '=' (--file=path, NAME=path, if=path) the part after the
// first '='. A word naming the target is a Command (a Write when redirect
// is true); one naming a directory that holds the target is a Command,
// unless that directory is "/", the workspace root or above it.
func (m *matcher) word(w string, redirect bool) {
	m.path(w, redirect)
	if i := strings.IndexByte(w, '='); i >= 0 {
		m.path(w[i+1:], redirect)
	}
}

func (m *matcher) path(w string, redirect bool) {
	if w == "" {
		return
	}
	p := resolve(m.dir, w)
	switch {
	case p == "":
	case p == m.target && redirect:
		m.access = Write
	case p == m.target:
		m.access = stronger(m.access, Command)
	case p != "/" && within(m.target, p) && (m.root == "" || !within(m.root, p)):
		m.access = stronger(m.access, Command)
	}
}
