package main

// The session's extensions: the person's hooks (their config.toml, and a
// project's .claude/settings.json once they trust it, in Claude Code's
// format) and the skills found in the workspace and the person's
// directories.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rein-agent/rein/internal/cli"
	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/hook"
	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/skill"
)

// projectSettings are the files of a project, relative to its root, whose
// hooks run commands: they need the person's trust.
var projectSettings = []string{filepath.Join(".claude", "settings.json"), filepath.Join(".claude", "settings.local.json")}

// extensions are what a session brings of the person's own.
type extensions struct {
	hooks   []hook.Hook
	skills  []skill.Skill
	maxStop int
	// hookFiles are the files the hooks came from, trusted or the
	// person's own.
	hookFiles []string
	// problems are what could not be loaded or was left out, by kind
	// ("hooks", "skills"): a fact whose Key is "!" and the file, its Value
	// what is wrong.
	problems map[string][]cli.Fact
}

// loadExtensions gathers the extensions of a session in the workspace at
// root under cfg (read from userFile and the project's file), asking
// spec.Trust about a project's settings file not trusted yet. It fails
// only when the person's answer cannot be saved or read.
func loadExtensions(ctx context.Context, spec cli.Spec, cfg *config.Config, root, userFile string) (*extensions, error) {
	x := &extensions{maxStop: cfg.MaxStopContinues, problems: map[string][]cli.Fact{}}
	if x.maxStop == 0 {
		x.maxStop = -1 // 0 continues: the hook runner's 0 would mean its default
	}
	for _, h := range cfg.Hooks {
		x.hooks = append(x.hooks, hook.Hook{Event: h.Event, Matcher: h.Matcher, Command: h.Command, Timeout: h.Timeout, Source: h.Source})
	}
	if len(cfg.Hooks) > 0 {
		x.hookFiles = append(x.hookFiles, userFile)
	}
	for _, name := range projectSettings {
		if err := x.projectHooks(ctx, spec, cfg, filepath.Join(root, name), userFile); err != nil {
			return nil, err
		}
	}
	skills, problems := skill.Discover(skill.UserRoots(root))
	x.skills = skills
	for _, p := range problems {
		at := p.Path
		if p.Line > 0 {
			at = fmt.Sprintf("%s:%d", p.Path, p.Line)
		}
		x.problem("skills", at, p.Message)
	}
	return x, nil
}

// projectHooks adds the hooks of the project's settings file at path
// when the person trusts it: trusted before with this content, trusted
// for this run (--trust-project), or trusted now when asked.
func (x *extensions) projectHooks(ctx context.Context, spec cli.Spec, cfg *config.Config, path, userFile string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		x.problem("hooks", path, err.Error())
		return nil
	}
	hooks, problems, err := hook.LoadClaudeSettings(path)
	if err != nil {
		x.problem("hooks", path, err.Error())
		return nil
	}
	for _, p := range problems {
		x.problem("hooks", path, p)
	}
	if len(hooks) == 0 {
		return nil
	}
	trusted := cfg.IsTrusted(path, data) || spec.TrustProject
	if !trusted && spec.Trust != nil {
		var what []string
		for _, h := range hooks {
			what = append(what, h.Event+" hook: "+printable.Line(h.Command))
		}
		yes, err := spec.Trust(ctx, cli.TrustQuestion{Path: path, Changed: cfg.TrustedBefore(path), What: what})
		if err != nil {
			return err
		}
		if yes {
			if err := config.SaveTrust(userFile, path, config.TrustHash(data)); err != nil {
				return fmt.Errorf("trust %s: %w", path, err)
			}
			trusted = true
		}
	}
	if !trusted {
		why := fmt.Sprintf("not trusted, so its %d hooks do not run; run rein interactively to be asked, or pass --trust-project", len(hooks))
		if cfg.TrustedBefore(path) {
			why = fmt.Sprintf("changed since you trusted it, so its %d hooks do not run until you trust it again (interactively, or --trust-project)", len(hooks))
		}
		x.problem("hooks", path, why)
		warn(path + ": " + why)
		return nil
	}
	x.hooks = append(x.hooks, hooks...)
	x.hookFiles = append(x.hookFiles, path)
	return nil
}

// problem notes what is wrong with the file at path, of kind.
func (x *extensions) problem(kind, path, what string) {
	what = strings.TrimPrefix(what, path+": ")
	x.problems[kind] = append(x.problems[kind], cli.Fact{Key: "!" + path, Value: printable.Line(what)})
}

// hookRunner is the runner of the session's hooks, nil when it has none.
func (x *extensions) hookRunner(opts hook.Options) *hook.Runner {
	if x == nil || len(x.hooks) == 0 {
		return nil
	}
	opts.Hooks, opts.MaxStopContinues = x.hooks, x.maxStop
	return hook.New(&opts)
}

// systemSkills is the list of skills for the system prompt, and the
// directories the read tools may read for them.
func (x *extensions) systemSkills() (text string, dirs []string) {
	if x == nil {
		return "", nil
	}
	text, _ = skill.Prompt(x.skills, skill.DefaultBudget)
	return text, skill.Dirs(x.skills)
}

// facts are the lines /hooks and /skills and rein hooks and rein skills
// show of kind.
func (x *extensions) facts(kind string) []cli.Fact {
	var out []cli.Fact
	if x == nil {
		return nil
	}
	switch kind {
	case "hooks":
		for _, h := range x.hooks {
			what := h.Event
			if h.Matcher != "" {
				what += " (" + h.Matcher + ")"
			}
			out = append(out, cli.Fact{Key: what, Value: printable.Line(h.Command) + "  (" + h.Source + ")"})
		}
	case "skills":
		for _, s := range x.skills {
			out = append(out, cli.Fact{Key: s.Name, Value: printable.Line(s.Description) + "  (" + s.Path + ", " + s.Scope + ")"})
		}
	default:
		return nil
	}
	return append(out, x.problems[kind]...)
}

// listExtensions answers rein hooks and rein skills for the workspace of
// spec. This build has no MCP client yet: rein mcp says so.
func listExtensions(ctx context.Context, spec cli.Spec, kind string) ([]cli.Fact, error) {
	if kind != "hooks" && kind != "skills" {
		return nil, errors.New("this build of rein does not start MCP servers yet")
	}
	cfg, err := loadConfig(spec.Cwd)
	if err != nil {
		return nil, err
	}
	x, err := loadExtensions(ctx, spec, cfg, spec.Cwd, config.DefaultPaths(spec.Cwd).User)
	if err != nil {
		return nil, err
	}
	return x.facts(kind), nil
}
