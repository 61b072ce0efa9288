package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/rein-agent/rein/cmd/rein/demo"
	"github.com/rein-agent/rein/internal/cli"
	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/scripted"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool"
	"github.com/rein-agent/rein/internal/tool/builtin"
)

// openSession builds the runtime of a session from the command line and
// the configuration files.
func openSession(ctx context.Context, spec cli.Spec) (*cli.Session, error) {
	cfg, err := config.Load(config.DefaultPaths(spec.Cwd))
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(os.Stderr, "rein: warning: "+w)
	}
	set, err := setupFrom(spec, cfg)
	if err != nil {
		return nil, err
	}
	if spec.Provider == "scripted" {
		if spec.Script == "" {
			return nil, fmt.Errorf("%w: --provider scripted needs --script FILE (the format is documented in internal/provider/scripted)", cli.ErrUsage)
		}
		s, err := scripted.Load(spec.Script)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", cli.ErrUsage, err)
		}
		p := scripted.New(s, &scripted.Options{Model: spec.Model})
		return newSession(ctx, scriptedModel(p), nil, set)
	}
	primary, fallbacks, err := chooseModels(spec, cfg)
	if err != nil {
		return nil, err
	}
	return newSession(ctx, primary, fallbacks, set)
}

// setup is how a session's tools work: where, under which permissions,
// with whom to ask.
type setup struct {
	cwd         string
	addDirs     []string
	mode        permission.Mode
	rules       permission.Rules
	passthrough []string
	approver    kernel.Approver
	maxTurns    int
	// fixedPrompt, when set, replaces the environment-dependent parts of
	// the system prompt (the demo's is the same on every machine).
	fixedPrompt bool
}

// setupFrom layers the flags over the configuration.
func setupFrom(spec cli.Spec, cfg *config.Config) (setup, error) {
	set := setup{cwd: spec.Cwd, addDirs: spec.AddDirs, passthrough: cfg.EnvPassthrough, approver: spec.Approver, maxTurns: spec.MaxTurns}
	if set.maxTurns == 0 {
		set.maxTurns = cfg.MaxTurns
	}
	modeText := spec.PermissionMode
	if modeText == "" {
		modeText = cfg.PermissionMode
	}
	if modeText != "" {
		m, err := permission.ParseMode(modeText)
		if err != nil {
			return setup{}, fmt.Errorf("%w: %v", cli.ErrUsage, err)
		}
		set.mode = m
	}
	var err error
	parse := func(what string, texts []string) []permission.Rule {
		if err != nil {
			return nil
		}
		var rules []permission.Rule
		rules, err = permission.ParseRules(texts)
		if err != nil {
			err = fmt.Errorf("%w: %s: %v", cli.ErrUsage, what, err)
		}
		return rules
	}
	set.rules = permission.Rules{
		Allow: append(parse("allow rules in the configuration", cfg.Permissions.Allow), parse("--allow", spec.Allow)...),
		Ask:   parse("ask rules in the configuration", cfg.Permissions.Ask),
		Deny:  append(parse("deny rules in the configuration", cfg.Permissions.Deny), parse("--deny", spec.Deny)...),
	}
	return set, err
}

// scriptedModel is the scripted provider as the kernel sees it: it
// streams and takes tools (the script decides what it calls).
func scriptedModel(p *scripted.Provider) kernel.Model {
	return kernel.Model{Provider: p, Name: "scripted", Model: p.Model(),
		Capabilities: provider.Capabilities{Streaming: true, Tools: true, ParallelTools: true}}
}

// newSession opens a new session directory and a kernel over it, with the
// built-in tools and a tool runtime.
func newSession(ctx context.Context, m kernel.Model, fallbacks []kernel.Model, set setup) (*cli.Session, error) {
	ws, err := permission.NewWorkspace(set.cwd, set.addDirs...)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	policy, err := permission.New(set.mode, set.rules, ws)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	root, err := sessionsDir()
	if err != nil {
		return nil, err
	}
	sid := id.New("ses")
	dir := filepath.Join(root, sid)
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	store, err := eventlog.OpenFile(dir, &eventlog.FileOptions{Logger: logger})
	if err != nil {
		return nil, err
	}
	log := eventlog.New(store, &eventlog.Options{Logger: logger})
	var secrets []string
	for _, mm := range append([]kernel.Model{m}, fallbacks...) {
		if mm.Secret != "" {
			secrets = append(secrets, mm.Secret)
		}
	}
	reg, err := registry.New(builtin.Tools(ws, &builtin.Options{
		Bash: &builtin.BashOptions{Passthrough: set.passthrough, Secrets: secrets},
	})...)
	if err != nil {
		return nil, errors.Join(err, log.Close())
	}
	var approver tool.Approver
	if set.approver != nil {
		approver = set.approver
	}
	tools, err := tool.New(reg, policy, &tool.Options{
		Approver: approver, ArtifactDir: filepath.Join(dir, "artifacts"), Secrets: secrets, Logger: logger,
	})
	if err != nil {
		return nil, errors.Join(err, log.Close())
	}
	env := kernel.Environment{Workspace: ws.Root()}
	if !set.fixedPrompt {
		env = environment(ctx, ws.Root(), time.Now())
	}
	k, err := kernel.New(m.Provider, log, &kernel.Options{
		ProviderName: m.Name, Model: m.Model, Capabilities: m.Capabilities, KeyHint: m.KeyHint, Secret: m.Secret,
		Fallback: fallbacks, Registry: reg, Tools: tools, MaxTurns: set.maxTurns, System: kernel.SystemPrompt(env),
		Cwd: set.cwd, Version: version, Session: sid, Logger: logger,
	})
	if err != nil {
		return nil, errors.Join(err, log.Close())
	}
	closeLog := func() error {
		empty := log.LastSeq() == 0
		err := log.Close()
		if empty && err == nil {
			// Nothing was said: leave no empty session behind.
			err = os.RemoveAll(dir)
		}
		return err
	}
	return &cli.Session{Runtime: k, Dir: dir, Close: closeLog}, nil
}

// demoRules are the demo's permissions: it runs in accept-edits with the
// test command allowed, so it never asks.
var demoRules = []string{"bash(go test:*)"}

// openDemo prepares the offline demo: a fresh copy of the bundled project
// and the scripted model. It ignores the person's configuration, so that
// it runs the same everywhere.
func openDemo(ctx context.Context) (*cli.Demo, error) {
	ws, err := demo.Workspace()
	if err != nil {
		return nil, err
	}
	s, err := scripted.Parse(demo.Script)
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	allow, err := permission.ParseRules(demoRules)
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	p := scripted.New(s, nil)
	sess, err := newSession(ctx, scriptedModel(p), nil, setup{
		cwd: ws, mode: permission.AcceptEdits, rules: permission.Rules{Allow: allow}, fixedPrompt: true,
	})
	if err != nil {
		return nil, err
	}
	return &cli.Demo{
		Session:   *sess,
		Workspace: ws,
		Prompt:    demo.Prompt,
		Want:      state.Completed,
		Explain: "The demo is done: the scripted model ran the failing test, read the code, fixed the bug and\n" +
			"ran the tests again, and they pass. Each step was validated, allowed (accept-edits mode, and the rule\n" +
			"bash(go test:*)), run for real in the workspace and observed; each turn of the script checked that the\n" +
			"real observation was the one it expected before going on.",
	}, nil
}

// sessionsDir is where sessions live: $XDG_STATE_HOME/rein/sessions, or
// ~/.local/state/rein/sessions.
func sessionsDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "rein", "sessions"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find where to keep sessions: set XDG_STATE_HOME or HOME: %w", err)
	}
	return filepath.Join(home, ".local", "state", "rein", "sessions"), nil
}
