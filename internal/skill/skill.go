// Package skill finds the skills a session tells its model of: the
// directories that hold a SKILL.md, as Claude Code and Codex have them.
//
// A skill is <root>/<name>/SKILL.md: YAML front matter between a first
// line "---" and the next "---" line, with a name and a description, and a
// body of instructions; files beside it (scripts, references, templates)
// belong to the skill. Only the name, the description and the path are
// put in the system prompt ([Prompt]); the model reads the body, and the
// files beside it, with read_file when a task matches the description. So
// a skill costs a line of the prompt until it is used.
//
// The roots are searched in this order, and the first skill of a name
// wins: the project's .rein/skills, .claude/skills and .codex/skills (the
// last two when present), then the person's $XDG_CONFIG_HOME/rein/skills
// (~/.config/rein/skills), ~/.claude/skills and ~/.codex/skills. A skill
// of a name already found is reported as shadowed and skipped. Only the
// directories directly under a root are skills (Claude Code's layout); a
// symbolic link to a directory is followed, and since nothing deeper is
// searched, a link cannot lead the search round in a loop.
//
// Nothing here fails a session: a file that cannot be read or whose front
// matter is malformed is a [Problem] naming the file and line, and the
// other skills are found all the same.
package skill

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// FileName is the name of a skill's file in its directory.
const FileName = "SKILL.md"

// The scopes of a skill: where its root lies.
const (
	// ScopeProject is a skill of the workspace's own (.rein/skills,
	// .claude/skills, .codex/skills).
	ScopeProject = "project"
	// ScopeUser is a skill of the person's (~/.config/rein/skills,
	// ~/.claude/skills, ~/.codex/skills).
	ScopeUser = "user"
)

// Skill is one skill found. The zero Skill is no skill.
type Skill struct {
	// Name is the name its front matter gives: lowercase letters, digits
	// and hyphens, at most 64 characters. It may differ from the name of
	// its directory, as Claude Code allows.
	Name string
	// Description says what the skill does and when to use it, on one
	// line, at most [MaxDescription] characters (longer ones are cut,
	// with a [Problem] saying so).
	Description string
	// Path is the absolute path of its SKILL.md, as found (links in it
	// not resolved): what the model is told to read.
	Path string
	// Dir is the directory that holds Path: the skill's files.
	Dir string
	// Scope is ScopeProject or ScopeUser.
	Scope string
	// From is the skills root it was found under
	// ("/w/.claude/skills").
	From string
}

// Problem is something wrong with a skill's file: it could not be read,
// its front matter is malformed, or it is shadowed by another skill of
// the same name. It is an error for the person to read, never a reason to
// stop a session.
type Problem struct {
	// Path is the file (or skills root) the problem is in.
	Path string
	// Line is the line of Path it is on, from 1; 0 means the file as a
	// whole.
	Line int
	// Message says what is wrong.
	Message string
}

// Where returns "path:line", or the path alone when Line is 0.
func (p *Problem) Where() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d", p.Path, p.Line)
	}
	return p.Path
}

// Roots says where to look for skills. A field left empty is not
// searched.
type Roots struct {
	// Project is the workspace root: its .rein/skills, .claude/skills and
	// .codex/skills are searched.
	Project string
	// User is rein's user configuration directory ($XDG_CONFIG_HOME/rein,
	// else ~/.config/rein, as internal/config finds config.toml's): its
	// skills directory is searched.
	User string
	// Home is the person's home directory: ~/.claude/skills (Claude Code's
	// personal skills) and ~/.codex/skills (Codex's) are searched, as
	// skills of the user's scope.
	Home string
}

// UserRoots returns the roots for the workspace at project with the
// person's directories as the environment gives them: User from
// XDG_CONFIG_HOME (when absolute) or the home directory, Home from the
// home directory ("" when unknown).
func UserRoots(project string) Roots {
	r := Roots{Project: project}
	home, err := os.UserHomeDir()
	if err == nil {
		r.Home = home
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		r.User = filepath.Join(x, "rein")
	} else if r.Home != "" {
		r.User = filepath.Join(r.Home, ".config", "rein")
	}
	return r
}

// root is one skills directory to search.
type root struct {
	dir, scope string
}

// dirs returns the skills directories of r in order of precedence.
func (r Roots) dirs() []root {
	var out []root
	add := func(base, scope string, elem ...string) {
		if base != "" {
			out = append(out, root{filepath.Join(append([]string{base}, elem...)...), scope})
		}
	}
	add(r.Project, ScopeProject, ".rein", "skills")
	add(r.Project, ScopeProject, ".claude", "skills")
	add(r.Project, ScopeProject, ".codex", "skills")
	add(r.User, ScopeUser, "skills")
	add(r.Home, ScopeUser, ".claude", "skills")
	add(r.Home, ScopeUser, ".codex", "skills")
	return out
}

// Discover returns the skills under the roots of r, the project's first
// and then the person's, each group sorted by name, and the problems met,
// in the order met; it never fails as a whole. The same input gives the
// same output, so a system prompt made of it stays byte for byte the
// same. A root that does not exist is no problem; a root reached twice
// (a workspace that is the home directory) is searched once.
func Discover(r Roots) ([]Skill, []Problem) {
	var (
		found    []Skill
		problems []Problem
		seen     = map[string]bool{}
		byName   = map[string]Skill{}
	)
	project := Resolved(r.Project)
	for _, rt := range r.dirs() {
		abs, err := filepath.Abs(rt.dir)
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				problems = append(problems, Problem{Path: abs, Message: fmt.Sprintf("cannot read the skills directory: %v", err)})
			}
			continue
		}
		if seen[real] {
			continue
		}
		seen[real] = true
		// A project's skills stay inside it: their directories become
		// read roots of the file tools, and a cloned repository must not
		// widen them with a link.
		limit := ""
		if rt.scope == ScopeProject {
			limit = project
			if !Inside(limit, real) {
				problems = append(problems, Problem{Path: abs, Message: outsideProject})
				continue
			}
		}
		skills, probs := scan(abs, rt.scope, limit)
		problems = append(problems, probs...)
		for _, s := range skills {
			if first, ok := byName[s.Name]; ok {
				problems = append(problems, Problem{Path: s.Path, Message: fmt.Sprintf(
					"skill %q is shadowed by the %s skill of the same name in %s; this one is ignored", s.Name, first.Scope, first.Path)})
				continue
			}
			byName[s.Name] = s
			found = append(found, s)
		}
	}
	slices.SortStableFunc(found, func(a, b Skill) int {
		return cmp.Or(cmp.Compare(scopeRank(a.Scope), scopeRank(b.Scope)), cmp.Compare(a.Name, b.Name))
	})
	return found, problems
}

func scopeRank(scope string) int {
	if scope == ScopeProject {
		return 0
	}
	return 1
}

// scan reads the skills directly under dir: each directory (or link to
// one) that holds a SKILL.md, in the order of their directory names. A
// directory without one is not a skill and no problem.
// A skill of a project's whose directory leads outside the project is
// left out with this problem.
const outsideProject = "links outside the project; rein does not follow it (a project's skill directories become readable by the model)"

func scan(dir, scope, limit string) ([]Skill, []Problem) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, []Problem{{Path: dir, Message: fmt.Sprintf("cannot list the skills directory: %v", err)}}
	}
	var (
		skills   []Skill
		problems []Problem
	)
	for _, e := range entries {
		sub := filepath.Join(dir, e.Name())
		if info, err := os.Stat(sub); err != nil || !info.IsDir() {
			continue
		}
		if limit != "" && !Inside(limit, Resolved(sub)) {
			problems = append(problems, Problem{Path: sub, Message: outsideProject})
			continue
		}
		path := filepath.Join(sub, FileName)
		info, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			problems = append(problems, Problem{Path: path, Message: fmt.Sprintf("cannot read: %v", err)})
			continue
		case !info.Mode().IsRegular():
			problems = append(problems, Problem{Path: path, Message: "is not a regular file"})
			continue
		case info.Size() > MaxFileSize:
			problems = append(problems, Problem{Path: path, Message: fmt.Sprintf(
				"is %d bytes, more than the %d a SKILL.md may have; it is ignored", info.Size(), MaxFileSize)})
			continue
		}
		s, probs := load(path)
		problems = append(problems, probs...)
		if s.Name == "" {
			continue
		}
		s.Dir, s.Scope, s.From = sub, scope, dir
		skills = append(skills, s)
	}
	return skills, problems
}

// Resolved is path made absolute with its links followed; "" when it
// cannot be (it does not exist).
func Resolved(path string) string {
	if path == "" {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return ""
	}
	return real
}

// Inside reports whether path is dir or below it; an empty one of them is
// never inside.
func Inside(dir, path string) bool {
	if dir == "" || path == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Dirs returns the directory of each skill, in order: what the file tools
// are given to read outside the workspace (builtin.Options.ReadRoots),
// so that the model can read a skill's SKILL.md and the files beside it.
func Dirs(skills []Skill) []string {
	dirs := make([]string, len(skills))
	for i, s := range skills {
		dirs[i] = s.Dir
	}
	return dirs
}
