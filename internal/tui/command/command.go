// Package command is rein's slash commands as the composer and the
// interactive UI know them: the built-in ones the program gives, and the
// custom ones a person writes as Markdown files, as Claude Code has them.
//
// A file <dir>/name.md is the command /name; a file in a subdirectory,
// git/commit.md, is /git:commit. An optional front matter between two
// "---" lines gives its description and argument hint (simple "key: value"
// lines); the rest is a prompt template that [Expand] fills with what was
// typed after the name. The project's directory (.rein/commands) comes
// before the user's ($XDG_CONFIG_HOME/rein/commands), and a built-in is
// never overridden.
package command

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

// MaxFileSize is the largest command file [Load] reads; a larger one is
// reported and skipped.
const MaxFileSize = 64 << 10

// Command is one slash command: a built-in (Template empty, Builtin true)
// or a custom one read from a file. The zero Command is no command.
type Command struct {
	// Name is what follows the slash: "help", "git:commit".
	Name string
	// Description says what it does, for the completion menu; for a custom
	// command without one in its front matter, the first line of its body.
	Description string
	// ArgumentHint shows what the command takes ("<file> [focus]"); empty
	// when nothing is said.
	ArgumentHint string
	// Template is a custom command's prompt, for [Expand]; empty for
	// built-ins.
	Template string
	// Source is the file a custom command came from; empty for built-ins.
	Source string
	// Builtin says the program implements the command itself.
	Builtin bool
}

// Load reads the custom commands from dirs, in order of precedence
// (project first), and returns builtins followed by them, sorted by name
// within each group, and the problems met (one error per file), never
// failing as a whole. A directory that does not exist is no problem. A
// custom command of the same name as a built-in is skipped and reported; a
// command in a later directory of the same name as one in an earlier one
// is skipped silently (the project's wins).
func Load(builtins []Command, dirs ...string) ([]Command, []error) {
	out := slices.Clone(builtins)
	sortByName(out)
	taken := make(map[string]bool, len(builtins))
	for _, b := range builtins {
		taken[b.Name] = true
	}
	var custom []Command
	var errs []error
	for _, dir := range dirs {
		found, problems := loadDir(dir)
		errs = append(errs, problems...)
		for _, c := range found {
			switch {
			case taken[c.Name] && isBuiltin(builtins, c.Name):
				errs = append(errs, fmt.Errorf("command: %s: /%s is a built-in command; this file is ignored", c.Source, c.Name))
			case taken[c.Name]:
				// An earlier directory (the project's) has it.
			default:
				taken[c.Name] = true
				custom = append(custom, c)
			}
		}
	}
	sortByName(custom)
	return append(out, custom...), errs
}

func isBuiltin(builtins []Command, name string) bool {
	return slices.ContainsFunc(builtins, func(b Command) bool { return b.Name == name })
}

func sortByName(cs []Command) {
	slices.SortStableFunc(cs, func(a, b Command) int { return cmp.Compare(a.Name, b.Name) })
}

// loadDir reads the commands under dir, in the order of the walk.
func loadDir(dir string) ([]Command, []error) {
	var out []Command
	var errs []error
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			errs = append(errs, fmt.Errorf("command: read %s: %w", path, err))
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".md") {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			errs = append(errs, fmt.Errorf("command: %s: %w", path, err))
			return nil
		}
		name := strings.ReplaceAll(filepath.ToSlash(strings.TrimSuffix(rel, ".md")), "/", ":")
		if !ValidName(name) {
			errs = append(errs, fmt.Errorf("command: %s: the name /%s may hold only a-z, 0-9, _, - and : (a subdirectory); this file is ignored", path, name))
			return nil
		}
		c, err := readFile(path)
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		c.Name = name
		out = append(out, c)
		return nil
	})
	if err != nil {
		errs = append(errs, fmt.Errorf("command: read %s: %w", dir, err))
	}
	return out, errs
}

// ValidName reports whether name is a command's name: not empty, and only
// a-z, 0-9, '_', '-' and ':'.
func ValidName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-', r == ':':
		default:
			return false
		}
	}
	return true
}

// readFile reads one command file: its front matter and template.
func readFile(path string) (Command, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Command{}, fmt.Errorf("command: read %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return Command{}, fmt.Errorf("command: %s is not a regular file; it is ignored", path)
	}
	if fi.Size() > MaxFileSize {
		return Command{}, fmt.Errorf("command: %s is %d bytes, over the %d a command file may hold; it is ignored", path, fi.Size(), MaxFileSize)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Command{}, fmt.Errorf("command: read %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return Command{}, fmt.Errorf("command: %s is over the %d bytes a command file may hold; it is ignored", path, MaxFileSize)
	}
	c, err := parseFile(string(data))
	if err != nil {
		return Command{}, fmt.Errorf("command: %s: %w", path, err)
	}
	c.Source = path
	return c, nil
}

// parseFile splits a command file into its front matter and template.
func parseFile(text string) (Command, error) {
	text = strings.TrimPrefix(strings.ReplaceAll(text, "\r\n", "\n"), "\ufeff")
	var c Command
	body := text
	if first, rest, ok := strings.Cut(text, "\n"); ok && strings.TrimSpace(first) == "---" {
		front, after, found := cutFence(rest)
		if !found {
			return Command{}, errors.New("the front matter opened by --- is never closed by another --- line")
		}
		for _, line := range strings.Split(front, "\n") {
			key, value, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			switch strings.TrimSpace(key) {
			case "description":
				c.Description = unquote(strings.TrimSpace(value))
			case "argument-hint":
				c.ArgumentHint = unquote(strings.TrimSpace(value))
			}
		}
		body = after
	}
	c.Template = strings.TrimSpace(body)
	if c.Description == "" {
		c.Description = firstLine(c.Template)
	}
	return c, nil
}

// cutFence returns the text before the first line that is "---", and the
// text after that line.
func cutFence(s string) (before, after string, found bool) {
	for i := 0; i <= len(s); {
		end := strings.IndexByte(s[i:], '\n')
		if end < 0 {
			end = len(s) - i
		}
		if strings.TrimSpace(s[i:i+end]) == "---" {
			return s[:i], s[min(len(s), i+end+1):], true
		}
		i += end + 1
	}
	return "", "", false
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		return v[1 : len(v)-1]
	}
	return v
}

// firstLine is the first non-blank line of s, without a Markdown heading's
// marks, cut to 80 characters.
func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if line == "" {
			continue
		}
		if r := []rune(line); len(r) > 80 {
			line = string(r[:79]) + "…"
		}
		return line
	}
	return ""
}

// Dirs returns the default directories for workspace: the project's
// (<workspace>/.rein/commands) then the user's
// ($XDG_CONFIG_HOME/rein/commands, default ~/.config/rein/commands; left
// out when there is no home directory).
func Dirs(workspace string) []string {
	dirs := []string{filepath.Join(workspace, ".rein", "commands")}
	if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		dirs = append(dirs, filepath.Join(x, "rein", "commands"))
	} else if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".config", "rein", "commands"))
	}
	return dirs
}
