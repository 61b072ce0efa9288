package main

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/rein-agent/rein/internal/cli"
	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/sandbox"
	"github.com/rein-agent/rein/internal/workspace"
)

// sandboxSetup is how a session's commands are contained, as the flags
// and the configuration say.
type sandboxSetup struct {
	mode    sandbox.Mode
	network bool
	// writable and denyRead are the configuration's lists (or the
	// defaults), ~ not yet expanded.
	writable, denyRead []string
}

// sandboxFrom layers the --sandbox and --network flags over the
// configuration's [sandbox] table.
func sandboxFrom(spec cli.Spec, cfg *config.Config) (sandboxSetup, error) {
	text := spec.Sandbox
	if text == "" {
		text = cfg.Sandbox.Mode
	}
	mode, err := sandbox.ParseMode(text)
	if err != nil {
		// The configuration's mode was checked when it was read: this is
		// the flag's.
		return sandboxSetup{}, fmt.Errorf("%w: --sandbox %q: want %s, %s or %s", cli.ErrUsage, text,
			sandbox.ModeWorkspaceWrite, sandbox.ModeReadOnly, sandbox.ModeOff)
	}
	s := sandboxSetup{mode: mode, network: spec.Network, writable: cfg.Sandbox.WritableRoots, denyRead: cfg.Sandbox.DenyRead}
	if cfg.Sandbox.Network != nil && *cfg.Sandbox.Network {
		s.network = true
	}
	if s.writable == nil {
		s.writable = sandbox.DefaultWritable()
	}
	if s.denyRead == nil {
		s.denyRead = sandbox.DefaultDenyRead()
	}
	return s, nil
}

// containment is the sandbox of one session as built: the policy the bash
// tool runs commands under, whether this machine has a sandbox at all,
// and the session's private temporary directory.
type containment struct {
	policy *sandbox.Policy
	// status is what the machine said of its sandbox; nil when the mode
	// is off and it was not asked.
	status *sandbox.Status
	// active says commands really run sandboxed: a mode other than off,
	// on a machine that has a sandbox.
	active bool
	// extra are the writable roots besides the workspace's: the caches
	// and the temporary directory.
	extra []string
	// tempDir is removed when the session closes.
	tempDir string
	// swept is closed once the temporary directories earlier reins left
	// behind are removed: close waits for it.
	swept chan struct{}
	// own are rein's own directories (the person's configuration, the
	// sessions): hidden from commands, and a write there always asks.
	own []string
}

// contain builds the sandbox of a session over ws, whose log is in
// sessionDir: the workspace roots and the configured caches writable
// (the protected paths in them read-only), the credential stores, rein's
// configuration and its sessions hidden, a private temporary directory.
// Where this machine has no sandbox, it says so once on stderr and the
// policy is off. Beside the start, it removes the temporary directories
// of reins that died without removing theirs (see removeStale).
func contain(s sandboxSetup, ws *workspace.Workspace, sessionDir, userConfig string) (*containment, error) {
	tmp, err := makeTempDir()
	if err != nil {
		return nil, fmt.Errorf("create the session's temporary directory: %w", err)
	}
	// The removal runs beside the start, which it never delays; close
	// waits for it (a second at worst, for a thousand on a slow disk).
	swept := make(chan struct{})
	go func() {
		defer close(swept)
		removeStale(filepath.Dir(tmp))
	}()
	extra := append(sandbox.Expand(s.writable), tmp)
	// The sockets that reach outside stay hidden whatever the list says.
	deny := append(sandbox.Expand(s.denyRead), sandbox.EscapeSockets()...)
	// rein's own configuration and sessions are hidden whatever the list
	// says: a command must not read the transcripts or rewrite the rules.
	own := 0
	if userConfig != "" {
		deny = append(deny, filepath.Dir(userConfig))
		own++
	}
	if sessionDir != "" {
		deny = append(deny, filepath.Dir(sessionDir))
		own++
	}
	c := &containment{extra: extra, tempDir: tmp, swept: swept, own: deny[len(deny)-own:]}
	c.policy = &sandbox.Policy{
		Mode: s.mode, Writable: append(ws.Roots(), extra...), ReadOnly: sandbox.Protected(ws.Roots()),
		DenyRead: deny, Network: s.network, TempDir: tmp,
	}
	switch {
	case s.mode == sandbox.ModeOff:
		// Nothing is asked of the machine: no command will be sandboxed.
	case !c.probe().Available:
		warn(fmt.Sprintf("no sandbox on this machine (%s): commands run unsandboxed, with your permissions, "+
			"and accept-edits asks before the commands it would otherwise have run contained, default mode before read-only ones", c.status.Reason))
		c.policy.Mode = sandbox.ModeOff
	default:
		c.active = true
	}
	return c, nil
}

// probe asks whether this machine has a sandbox, remembering the answer
// in rein's state directory (sandbox.ProbeRemembered) when there is one.
func (c *containment) probe() sandbox.Status {
	var st sandbox.Status
	if file := stateFile("sandbox.json"); file != "" {
		st = sandbox.ProbeRemembered(file)
	} else {
		st = sandbox.Probe()
	}
	c.status = &st
	return st
}

// record is the sandbox's availability as session.started records it:
// nil when the mode is off and the machine was not asked.
func (c *containment) record() *contract.SandboxStatus {
	if c.status == nil {
		return nil
	}
	return c.status.Record()
}

// containment is the sandbox as the permission policy weighs it: whether
// commands really run sandboxed, with the network or not, and where they
// may write besides the workspace (in workspace-write: the caches and the
// temporary directory; in read-only: the temporary directory only).
func (c *containment) containment() permission.Containment {
	writable := c.extra
	if c.policy.Mode == sandbox.ModeReadOnly {
		writable = []string{c.tempDir}
	}
	return permission.Containment{Sandboxed: c.active, Network: c.policy.Network, Writable: writable}
}

// hidden are the paths the sandbox hides from commands, whether or not
// commands run sandboxed (the credential stores of the deny-read list,
// the sockets that reach outside, rein's own configuration and sessions),
// resolved through their links once for all who need them (the policy
// and the search tools); own are rein's own directories among them, found
// by their paths wherever the list holds them.
func (c *containment) hidden() (hidden, own []workspace.Place) {
	hidden = workspace.Places(c.policy.DenyRead)
	for _, pl := range hidden {
		if slices.ContainsFunc(c.own, func(o string) bool { return filepath.Clean(o) == pl.Path }) {
			own = append(own, pl)
		}
	}
	return hidden, own
}

// describe is the sandbox in one line for the person, said at the start.
func (c *containment) describe() string {
	switch {
	case c.active:
		net := "network off"
		if c.policy.Network {
			net = "network on"
		}
		writes := "writes only in the workspace, the caches and a private temporary directory"
		if c.policy.Mode == sandbox.ModeReadOnly {
			writes = "writes only in a private temporary directory"
		}
		return fmt.Sprintf("sandbox: %s (%s; %s)", c.policy.Mode, writes, net)
	case c.status != nil && !c.status.Available:
		return "sandbox: none available here; commands run unsandboxed"
	}
	return "sandbox: off; commands run unsandboxed, with your permissions"
}

// close ends the sandbox helper started ahead for the next command, if
// one waits, and removes the temporary directory, once the removal of
// those earlier reins left is done.
func (c *containment) close() error {
	sandbox.Close()
	<-c.swept
	return removeTree(c.tempDir)
}

// warn says something on stderr once, as rein's warnings are said.
func warn(s string) {
	warnings().Warn(s)
}
