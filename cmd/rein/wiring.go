package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/rein-agent/rein/cmd/rein/demo"
	"github.com/rein-agent/rein/internal/cli"
	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/scripted"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool/builtin"
)

// openSession builds the runtime of a session from the command line and
// the configuration files.
func openSession(ctx context.Context, spec cli.Spec) (*cli.Session, error) {
	if spec.Provider == "scripted" {
		if spec.Script == "" {
			return nil, fmt.Errorf("%w: --provider scripted needs --script FILE (the format is documented in internal/provider/scripted)", cli.ErrUsage)
		}
		s, err := scripted.Load(spec.Script)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", cli.ErrUsage, err)
		}
		p := scripted.New(s, &scripted.Options{Model: spec.Model})
		return newSession(scriptedModel(p), nil, spec.Cwd)
	}
	cfg, err := config.Load(config.DefaultPaths(spec.Cwd))
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(os.Stderr, "rein: warning: "+w)
	}
	primary, fallbacks, err := chooseModels(spec, cfg)
	if err != nil {
		return nil, err
	}
	return newSession(primary, fallbacks, spec.Cwd)
}

// scriptedModel is the scripted provider as the kernel sees it: it
// streams and takes tools (the script decides what it calls).
func scriptedModel(p *scripted.Provider) kernel.Model {
	return kernel.Model{Provider: p, Name: "scripted", Model: p.Model(),
		Capabilities: provider.Capabilities{Streaming: true, Tools: true, ParallelTools: true}}
}

// newSession opens a new session directory and a kernel over it.
func newSession(m kernel.Model, fallbacks []kernel.Model, cwd string) (*cli.Session, error) {
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
	reg, err := registry.New(builtin.Tools()...)
	if err != nil {
		return nil, errors.Join(err, log.Close())
	}
	k, err := kernel.New(m.Provider, log, &kernel.Options{
		ProviderName: m.Name, Model: m.Model, Capabilities: m.Capabilities, KeyHint: m.KeyHint, Secret: m.Secret,
		Fallback: fallbacks, Registry: reg, Cwd: cwd, Version: version, Session: sid, Logger: logger,
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

// openDemo prepares the offline demo: a fresh copy of the bundled project
// and the scripted model.
func openDemo(ctx context.Context) (*cli.Demo, error) {
	ws, err := demo.Workspace()
	if err != nil {
		return nil, err
	}
	s, err := scripted.Parse(demo.Script)
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	p := scripted.New(s, nil)
	sess, err := newSession(scriptedModel(p), nil, ws)
	if err != nil {
		return nil, err
	}
	return &cli.Demo{
		Session:   *sess,
		Workspace: ws,
		Prompt:    demo.Prompt,
		Want:      state.WaitingForTool,
		Explain: "The scripted model proposed a bash intent. rein recorded it as pending and did not run it:\n" +
			"executing intents (validate, ask permission, run, observe) is the tool runtime, the next milestone.",
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
