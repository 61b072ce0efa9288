package kernel

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
)

// The controls a person uses between and during runs: the permission mode
// (Shift+Tab, /mode), the model (/model), and what the status line shows.
// Each change is an event of the log, recorded by "user".

// Who changed the mode or the model, in the record: byUser a person,
// byResume a resume, back to the mode the kernel runs in.
const (
	byUser   = "user"
	byResume = "resume"
)

// ErrCannotSwitch is returned by SwitchModel when the session was built
// without Options.Switch.
var ErrCannotSwitch = errors.New("kernel: this session cannot switch models")

// ControlError is how SetMode and SwitchModel refuse what a person asked
// (/mode, /model): Error is a plain sentence for that person, without a
// package's prefix, and Unwrap is the cause (ErrBusy, ErrCannotSwitch, the
// switch's own error) for errors.Is and the logs.
type ControlError struct {
	// Msg is the sentence for the person.
	Msg string
	// Err is the cause; may be nil.
	Err error
}

// Error returns the sentence for the person, as it is.
func (e *ControlError) Error() string { return e.Msg }

// Unwrap returns the cause, nil when there is none.
func (e *ControlError) Unwrap() error { return e.Err }

// Current is the model a session uses now: the primary, one a person
// switched to, or the fallback a failure moved to.
type Current struct {
	// Provider names the provider ("openai"); Model the model, empty for
	// the provider's default.
	Provider, Model string
	// BaseURL is the endpoint, empty for the provider's default; it holds
	// no credential.
	BaseURL string
	// Info is what rein knows of the model's window, output and prices;
	// nil when nothing.
	Info *contract.ModelInfo
}

// Current returns the model in use. It is safe to call during a run.
func (k *Kernel) Current() Current {
	k.mu.Lock()
	defer k.mu.Unlock()
	m := &k.models[k.current]
	return Current{Provider: m.Name, Model: m.Model, BaseURL: m.BaseURL, Info: m.info()}
}

// Known returns the model names a person may switch to (Options.Known),
// for completion; the caller may keep the slice.
func (k *Kernel) Known() []string { return slices.Clone(k.opts.Known) }

// Mode returns the permission mode the next decision is made in: the tool
// runtime's, or, without one, the one the log last recorded, else
// "default".
func (k *Kernel) Mode() string {
	if k.opts.Tools != nil {
		return k.opts.Tools.Policy().Mode().String()
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.st.Mode != "" {
		return k.st.Mode
	}
	return permission.Default.String()
}

// SetMode makes the tool runtime decide in mode (see permission.ParseMode)
// from its next permission decision on, and records
// permission.mode_changed. The mode in force again changes and records
// nothing. It may be called while a run is in progress: a decision
// already made stands. An unknown mode is a *ControlError that lists the
// modes; an error appending to the log leaves the mode as it was.
func (k *Kernel) SetMode(mode string) error {
	m, err := permission.ParseMode(mode)
	if err != nil {
		var names []string
		for _, m := range permission.Modes() {
			names = append(names, m.String())
		}
		return &ControlError{Msg: fmt.Sprintf("there is no permission mode %q; the modes are %s", strings.TrimSpace(mode), strings.Join(names, ", ")), Err: err}
	}
	k.ctl.Lock()
	defer k.ctl.Unlock()
	from := k.Mode()
	if from == m.String() {
		return nil
	}
	// With no run in progress, the session starts here if it has not;
	// a run in progress starts it itself (a change in the instant between
	// its start and its session.started precedes that event, which the
	// fold does not mind).
	if k.busy.CompareAndSwap(false, true) {
		err = k.begin()
		k.busy.Store(false)
		if err != nil {
			return err
		}
	}
	// The record first: a decision the log shows after it is made in the
	// new mode, or was already under way when the person changed it.
	if err := k.record(&contract.ModeChanged{From: from, To: m.String(), By: byUser}); err != nil {
		return err
	}
	if k.opts.Tools != nil {
		if err := k.opts.Tools.SetMode(m); err != nil {
			return fmt.Errorf("kernel: set mode: %w", err)
		}
	}
	return nil
}

// SwitchModel makes the model spec names ("provider", "provider:model", or
// "model" of the provider in use) the primary model of the runs that
// follow, built by Options.Switch, and records model.switched. The
// fallbacks stay; the next run starts with the new model, whose window
// and prices the context policy uses from then on. It fails with ErrBusy
// while a run is in progress, with ErrCannotSwitch without
// Options.Switch, and with the error of Switch when spec names nothing it
// can build; each is a *ControlError, whose message is for the person who
// asked.
func (k *Kernel) SwitchModel(ctx context.Context, spec string) error {
	if k.opts.Switch == nil {
		return &ControlError{Msg: "this session cannot switch models", Err: ErrCannotSwitch}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("kernel: switch model: %w", err)
	}
	k.ctl.Lock()
	defer k.ctl.Unlock()
	if !k.busy.CompareAndSwap(false, true) {
		return &ControlError{Msg: "a run is in progress; switch models once it has ended", Err: ErrBusy}
	}
	defer k.busy.Store(false)
	spec = strings.TrimSpace(spec)
	m, err := k.opts.Switch(spec)
	if err != nil {
		msg := fmt.Sprintf("cannot switch to %s: %v", spec, err)
		if spec == "" {
			msg = err.Error()
		}
		return &ControlError{Msg: msg, Err: err}
	}
	if m.Provider == nil || m.Name == "" {
		return fmt.Errorf("kernel: switch model to %q: the model has no provider or name", spec)
	}
	if err := k.begin(); err != nil {
		return err
	}
	from := label(&k.models[k.current])
	if err := k.record(&contract.ModelSwitched{From: from, To: label(&m), Info: m.Info, By: byUser}); err != nil {
		return err
	}
	k.mu.Lock()
	k.models = append([]Model{m}, k.models[1:]...)
	k.current = 0
	k.mu.Unlock()
	k.redactor = eventlog.NewRedactor(k.secrets())
	return nil
}

// secrets returns what the kernel cuts out of what it publishes:
// Options.Secrets and the keys of every model it knows.
func (k *Kernel) secrets() []string {
	secrets := slices.Clone(k.opts.Secrets)
	for _, m := range k.models {
		secrets = append(secrets, m.Secret)
	}
	return append(secrets, k.opts.Secret) // a primary switched away from
}

// started returns the session.started of this kernel's session.
func (k *Kernel) started() *contract.SessionStarted {
	return &contract.SessionStarted{
		Cwd: k.opts.Cwd, Version: k.opts.Version, Profile: k.opts.Profile,
		Provider: k.opts.ProviderName, Model: k.opts.Model, BaseURL: k.opts.BaseURL, Sandbox: k.opts.Sandbox,
		System: k.opts.System, ModelInfo: k.models[0].Info, Parent: k.opts.Parent,
	}
}

// begin records session.started when the log holds no session yet, so
// that a control used before the first message follows it; the caller
// holds busy.
func (k *Kernel) begin() error {
	if k.State().Session != "" {
		return nil
	}
	_, err := k.append(contract.Envelope{ID: id.New("evt"), Time: k.opts.Now().UTC(), Session: k.session, Data: k.started()})
	if err != nil {
		return fmt.Errorf("kernel: append %s: %w", contract.TypeSessionStarted, err)
	}
	return nil
}

// record appends a person's change e, in the run under way or after the
// last one, and syncs the log: no run may sync it soon.
func (k *Kernel) record(e contract.Event) error {
	st := k.State()
	_, err := k.append(contract.Envelope{
		ID: id.New("evt"), Time: k.opts.Now().UTC(), Session: k.session, Run: st.Run, Turn: st.Turn, Data: e,
	})
	if err != nil {
		return fmt.Errorf("kernel: append %s: %w", e.EventType(), err)
	}
	if err := k.log.Sync(); err != nil {
		return fmt.Errorf("kernel: sync: %w", err)
	}
	return nil
}

// ChangeTools makes tools the whole set of the tools of source (an MCP
// server's: "mcp:NAME", server its name) in the registry, from the next
// model request on, and records tools.changed with the names that joined
// and left and reason. A change that adds and removes nothing records
// nothing (the tools' definitions are replaced all the same). Before the
// session has started, the change is recorded right after its
// session.started. It is safe to call from any goroutine, during a run
// too: a request already sent keeps the tools it had, and a call of a
// tool that left is refused as one that is not there.
func (k *Kernel) ChangeTools(server, source string, tools []registry.Tool, reason string) error {
	if k.opts.Registry == nil {
		return errors.New("kernel: change tools: the session has no registry")
	}
	k.ctl.Lock()
	defer k.ctl.Unlock()
	added, removed, err := k.opts.Registry.Replace(source, tools)
	if err != nil {
		return fmt.Errorf("kernel: change tools of %s: %w", server, err)
	}
	if len(added) == 0 && len(removed) == 0 {
		return nil
	}
	e := &contract.ToolsChanged{Server: server, Added: added, Removed: removed, Reason: reason}
	k.mu.Lock()
	if k.st.Session == "" {
		k.queued = append(k.queued, e)
		k.mu.Unlock()
		return nil
	}
	k.mu.Unlock()
	return k.record(e)
}
