package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/rein-agent/rein/cmd/rein/demo"
	"github.com/rein-agent/rein/internal/cli"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/scripted"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool/builtin"
)

// providers this build can use, and the ones that are planned but not yet
// in it.
var (
	knownProviders   = []string{"scripted"}
	plannedProviders = []string{"openai", "responses", "anthropic", "gemini"}
)

// openSession builds the runtime of a session from the command line.
func openSession(ctx context.Context, spec cli.Spec) (*cli.Session, error) {
	prov, name, model, err := chooseProvider(spec)
	if err != nil {
		return nil, err
	}
	return newSession(prov, name, model, spec.Cwd)
}

// chooseProvider returns the adapter --provider names.
func chooseProvider(spec cli.Spec) (provider.Provider, string, string, error) {
	switch spec.Provider {
	case "scripted":
		if spec.Script == "" {
			return nil, "", "", fmt.Errorf("%w: --provider scripted needs --script FILE (the format is documented in internal/provider/scripted)", cli.ErrUsage)
		}
		s, err := scripted.Load(spec.Script)
		if err != nil {
			return nil, "", "", fmt.Errorf("%w: %v", cli.ErrUsage, err)
		}
		p := scripted.New(s, &scripted.Options{Model: spec.Model})
		return p, "scripted", p.Model(), nil
	case "":
		return nil, "", "", fmt.Errorf("%w: no model provider chosen. This build has only the scripted provider "+
			"(--provider scripted --script FILE); the real ones (%s) are not in it yet. Try `rein demo` for the offline demo",
			cli.ErrUsage, strings.Join(plannedProviders, ", "))
	}
	for _, p := range plannedProviders {
		if spec.Provider == p {
			return nil, "", "", fmt.Errorf("%w: provider %q is not in this build yet; use --provider scripted --script FILE, or `rein demo`", cli.ErrUsage, p)
		}
	}
	return nil, "", "", fmt.Errorf("%w: unknown provider %q (known: %s)", cli.ErrUsage, spec.Provider, strings.Join(knownProviders, ", "))
}

// newSession opens a new session directory and a kernel over it.
func newSession(prov provider.Provider, name, model, cwd string) (*cli.Session, error) {
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
	k, err := kernel.New(prov, log, &kernel.Options{
		ProviderName: name, Model: model, Registry: reg, Cwd: cwd,
		Version: version, Session: sid, Logger: logger,
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
	sess, err := newSession(p, "scripted", p.Model(), ws)
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
