package main

import (
	"context"
	"io"
	"slices"
	"sync"

	"github.com/rein-agent/rein/internal/cli"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/session"
)

// stderrSecrets are what rein's own messages (its warnings, its last error)
// must never show: the credentials of its environment from the start, and
// the models' keys once they are known. They are the secrets the session's
// log cuts out, so that stderr says what the log says. It is the one
// process-wide state of the wiring: the loggers are made in many places,
// before the secrets are all known.
var stderrSecrets struct {
	mu       sync.Mutex
	list     []string
	redactor *eventlog.Redactor
}

// protect adds secrets to what rein's own messages cut out.
func protect(secrets []string) {
	stderrSecrets.mu.Lock()
	defer stderrSecrets.mu.Unlock()
	for _, s := range secrets {
		if !slices.Contains(stderrSecrets.list, s) {
			stderrSecrets.list = append(stderrSecrets.list, s)
		}
	}
	stderrSecrets.redactor = eventlog.NewRedactor(stderrSecrets.list)
}

// redactText returns s with the secrets protect was given cut out.
func redactText(s string) string {
	stderrSecrets.mu.Lock()
	r := stderrSecrets.redactor
	stderrSecrets.mu.Unlock()
	return r.String(s)
}

// redactedError is an error whose message has the secrets cut out; it
// unwraps to the error itself, so that errors.Is and errors.As see what
// they always saw.
type redactedError struct {
	err error
	msg string
}

// Error returns the message with the secrets cut out.
func (e *redactedError) Error() string { return e.msg }

// Unwrap returns the error as it was, secrets and all, for errors.Is and
// errors.As only.
func (e *redactedError) Unwrap() error { return e.err }

// redactErr returns err with its message passed through cut, or err itself
// when cut changes nothing (or err is nil).
func redactErr(err error, cut func(string) string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if redacted := cut(msg); redacted != msg {
		return &redactedError{err: err, msg: redacted}
	}
	return err
}

// guarded returns deps whose functions' errors, which the CLI prints as
// rein's last message, have the secrets cut out. (What the CLI prints of a
// run comes from its events, which the log has already cut.)
func guarded(deps cli.Deps) cli.Deps {
	open, demo, resume, store, normalize := deps.Open, deps.Demo, deps.Resume, deps.Store, deps.Normalize
	deps.Open = func(ctx context.Context, spec cli.Spec) (*cli.Session, error) {
		s, err := open(ctx, spec)
		return s, redactErr(err, redactText)
	}
	deps.Resume = func(ctx context.Context, spec cli.Spec) (*cli.Session, error) {
		s, err := resume(ctx, spec)
		return s, redactErr(err, redactText)
	}
	deps.Demo = func(ctx context.Context, opts cli.DemoOptions) (*cli.Demo, error) {
		d, err := demo(ctx, opts)
		return d, redactErr(err, redactText)
	}
	deps.Store = func(cwd, dir string) (*session.Store, error) {
		s, err := store(cwd, dir)
		return s, redactErr(err, redactText)
	}
	deps.Normalize = func(ctx context.Context, api string, r io.Reader, w io.Writer) error {
		return redactErr(normalize(ctx, api, r, w), redactText)
	}
	return deps
}
