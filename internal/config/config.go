// Package config reads rein's configuration: the user's file
// ($XDG_CONFIG_HOME/rein/config.toml, default ~/.config/rein/config.toml)
// and the project's (.rein/config.toml in the workspace or the nearest
// directory above it that has one), the project's keys over the user's, and
// remembers where each value came from. Flags override both; that layering
// is the caller's.
//
// A broken file is an error naming the file, line and column; a key rein
// does not know is a warning, not an error, so an older rein reads a newer
// file.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/rein-agent/rein/internal/permission"
)

// File is what one configuration file may say. Every field's zero value
// means "not set here".
type File struct {
	// Provider is the provider to use: openai, responses, anthropic, gemini
	// or scripted.
	Provider string `toml:"provider"`
	// Model is passed to the provider as given.
	Model string `toml:"model"`
	// BaseURL is the provider's endpoint. Only the user's file may set it:
	// a project file (which comes with a cloned repository) could
	// otherwise send your API key to a server of its choosing.
	BaseURL string `toml:"base_url"`
	// Fallback lists the models to switch to when the provider fails for
	// good, as "provider" or "provider:model".
	Fallback []string `toml:"fallback"`
	// PermissionMode is the permission mode when no flag gives one:
	// default, accept-edits, plan or yolo. A project's file may not ask
	// for yolo: a cloned repository must not switch approvals off.
	PermissionMode string `toml:"permission_mode"`
	// MaxTurns bounds the model turns of a run when no flag says; 0 means
	// rein's default (50).
	MaxTurns int `toml:"max_turns"`
	// EnvPassthrough names environment variables that tools may see even
	// though their names look secret (GITHUB_TOKEN). Only the user's file
	// may set it, for the same reason as BaseURL.
	EnvPassthrough []string `toml:"env_passthrough"`
	// SessionDir is where sessions are kept (one directory each), when no
	// --session-dir flag says; "~/" at its start means the home directory.
	// Only the user's file may set it: a cloned repository must not choose
	// where your transcripts go.
	SessionDir string `toml:"session_dir"`
	// Permissions holds the [permissions] table's allow, ask and deny
	// rules (rule syntax of package permission). The lists of the user's
	// and the project's files add up; deny wins whichever file says it.
	// An interactive "always" answer appends to the project's file.
	Permissions Permissions `toml:"permissions"`
}

// Permissions are the rule lists of a [permissions] table.
type Permissions struct {
	Allow []string `toml:"allow"`
	Ask   []string `toml:"ask"`
	Deny  []string `toml:"deny"`
}

// Config is the merged configuration, with where each value came from.
type Config struct {
	File
	// Source maps a key ("provider", "fallback"...) to the file that set it.
	Source map[string]string
	// lines maps a key to the line of Source's file that sets it, where
	// it could be found.
	lines map[string]int
	// Warnings are things worth telling the person (unknown keys).
	Warnings []string
}

// Paths says where to look. The zero value looks nowhere.
type Paths struct {
	// User is the user's file; empty means none.
	User string
	// Project is the project's file; empty means none.
	Project string
}

// DefaultPaths returns the user's file, from the environment, and the
// project's, the nearest .rein/config.toml from dir upwards.
func DefaultPaths(dir string) Paths {
	var p Paths
	if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		p.User = filepath.Join(x, "rein", "config.toml")
	} else if home, err := os.UserHomeDir(); err == nil {
		p.User = filepath.Join(home, ".config", "rein", "config.toml")
	}
	for d := dir; d != ""; {
		f := filepath.Join(d, ".rein", "config.toml")
		if _, err := os.Stat(f); err == nil {
			p.Project = f
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return p
}

// Load reads the files of p, the project's over the user's. A missing file
// is not an error.
func Load(p Paths) (*Config, error) {
	c := &Config{Source: map[string]string{}, lines: map[string]int{}}
	for _, f := range []struct {
		path    string
		project bool
	}{{p.User, false}, {p.Project, true}} {
		if f.path == "" {
			continue
		}
		if err := c.merge(f.path, f.project); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Config) merge(path string, project bool) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	var f File
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return fmt.Errorf("config: %s:%d:%d: %s", path, perr.Position.Line, perr.Position.Col, perr.Message)
		}
		return fmt.Errorf("config: %s: %w", path, err)
	}
	for _, k := range md.Undecoded() {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: unknown key %q (ignored)", path, k.String()))
	}
	if project && f.BaseURL != "" {
		return fmt.Errorf("config: %s: base_url is not allowed in a project's file, since a cloned repository "+
			"could send your API key anywhere; set it in your own %s or pass --base-url", path, "config.toml")
	}
	if project && len(f.EnvPassthrough) > 0 {
		return fmt.Errorf("config: %s: env_passthrough is not allowed in a project's file, since a cloned repository "+
			"could hand your tokens to its own scripts; set it in your own config.toml", path)
	}
	if project && f.SessionDir != "" {
		return fmt.Errorf("config: %s: session_dir is not allowed in a project's file, since a cloned repository "+
			"must not choose where your transcripts go; set it in your own config.toml or pass --session-dir", path)
	}
	if project && strings.EqualFold(strings.TrimSpace(f.PermissionMode), string(permission.Yolo)) {
		return fmt.Errorf("config: %s: permission_mode = \"yolo\" is not allowed in a project's file, since a cloned "+
			"repository must not switch approvals off; pass --permission-mode yolo or set it in your own config.toml", path)
	}
	if project {
		for _, text := range f.Permissions.Allow {
			if r, err := permission.ParseRule(text); err == nil && r.Tool() == "bash" && r.Pattern() == "" {
				return fmt.Errorf("config: %s: allow = [%q] is not allowed in a project's file: it would let a cloned repository "+
					"run any command without asking; allow specific commands (bash(go test:*)) or put it in your own config.toml", path, text)
			}
		}
	}
	at := func(key string) string { return where(path, keyLine(string(data), key)) }
	if f.BaseURL != "" && f.Provider == "" {
		return fmt.Errorf("config: %s: base_url needs provider in the same file: an endpoint belongs to one provider", at("base_url"))
	}
	for _, fb := range f.Fallback {
		if strings.TrimSpace(fb) == "" || strings.HasPrefix(fb, ":") {
			return fmt.Errorf("config: %s: fallback entry %q: want \"provider\" or \"provider:model\"", at("fallback"), fb)
		}
	}
	if f.PermissionMode != "" {
		if _, err := permission.ParseMode(f.PermissionMode); err != nil {
			return fmt.Errorf("config: %s: permission_mode: %v", at("permission_mode"), err)
		}
	}
	for _, l := range []struct {
		key   string
		rules []string
	}{{"allow", f.Permissions.Allow}, {"ask", f.Permissions.Ask}, {"deny", f.Permissions.Deny}} {
		if _, err := permission.ParseRules(l.rules); err != nil {
			return fmt.Errorf("config: %s: [permissions] %s: %v", at(l.key), l.key, err)
		}
	}
	set := func(key string, ok bool) {
		if ok {
			c.Source[key] = path
			c.lines[key] = keyLine(string(data), key)
		}
	}
	if f.Provider != "" {
		c.Provider = f.Provider
		set("provider", true)
	}
	if f.Model != "" {
		c.Model = f.Model
		set("model", true)
	}
	if f.BaseURL != "" {
		c.BaseURL = f.BaseURL
		set("base_url", true)
	}
	if md.IsDefined("fallback") {
		c.Fallback = f.Fallback
		set("fallback", true)
	}
	if f.PermissionMode != "" {
		c.PermissionMode = f.PermissionMode
		set("permission_mode", true)
	}
	if f.MaxTurns < 0 {
		return fmt.Errorf("config: %s: max_turns is %d; it must be 1 or more (0 means the default)", at("max_turns"), f.MaxTurns)
	}
	if f.MaxTurns > 0 {
		c.MaxTurns = f.MaxTurns
		set("max_turns", true)
	}
	if len(f.EnvPassthrough) > 0 {
		c.EnvPassthrough = f.EnvPassthrough
		set("env_passthrough", true)
	}
	if f.SessionDir != "" {
		dir, err := expandHome(f.SessionDir)
		if err != nil {
			return fmt.Errorf("config: %s: session_dir: %w", at("session_dir"), err)
		}
		c.SessionDir = dir
		set("session_dir", true)
	}
	c.Permissions.Allow = append(c.Permissions.Allow, f.Permissions.Allow...)
	c.Permissions.Ask = append(c.Permissions.Ask, f.Permissions.Ask...)
	c.Permissions.Deny = append(c.Permissions.Deny, f.Permissions.Deny...)
	return nil
}

// Where says where key was set: "file:line", or the file alone when the
// line is not known, or "" when no file set it.
func (c *Config) Where(key string) string {
	path, ok := c.Source[key]
	if !ok {
		return ""
	}
	return where(path, c.lines[key])
}

func where(path string, line int) string {
	if line == 0 {
		return path
	}
	return fmt.Sprintf("%s:%d", path, line)
}

// keyLine returns the number of the first line of the TOML text data that
// assigns key (key = ..., at the start of the line), or 0.
func keyLine(data, key string) int {
	for i, l := range strings.Split(data, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), key)
		if ok && strings.HasPrefix(strings.TrimLeft(rest, " \t"), "=") {
			return i + 1
		}
	}
	return 0
}

// expandHome makes "~/x" the home directory's x, and requires an absolute
// path otherwise: a relative one would depend on where rein runs.
func expandHome(p string) (string, error) {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, rest), nil
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%q is not an absolute path (or ~/...)", p)
	}
	return filepath.Clean(p), nil
}
