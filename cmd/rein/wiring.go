package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rein-agent/rein/internal/checkpoint"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rein-agent/rein/cmd/rein/demo"
	"github.com/rein-agent/rein/internal/cli"
	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/hook"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/mcp"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/scripted"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/session"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool"
	"github.com/rein-agent/rein/internal/tool/builtin"
	"github.com/rein-agent/rein/internal/workspace"
)

// openSession builds the runtime of a new session from the command line
// and the configuration files.
func openSession(ctx context.Context, spec cli.Spec) (*cli.Session, error) {
	cfg, set, err := configure(spec)
	if err != nil {
		return nil, err
	}
	m, fallbacks, err := models(ctx, spec, cfg, nil)
	if err != nil {
		return nil, err
	}
	store, err := storeFor(spec.SessionDir, cfg)
	if err != nil {
		return nil, err
	}
	if set.ext, err = loadExtensions(ctx, spec, cfg, spec.Cwd, config.DefaultPaths(spec.Cwd).User); err != nil {
		return nil, err
	}
	secrets := append(secretsOf(m, fallbacks), set.ext.secrets()...)
	sess, err := store.Create(id.New("ses"), &session.WriteOptions{Secrets: secrets})
	if err != nil {
		return nil, err
	}
	return build(ctx, sess, m, fallbacks, set, secrets)
}

// configure reads the configuration that applies in spec.Cwd, printing its
// warnings, and layers the flags over it: what a new session and a resumed
// one both start from. It fails like bad usage on bad configuration or
// flags.
func configure(spec cli.Spec) (*config.Config, setup, error) {
	cfg, err := loadConfig(spec.Cwd)
	if err != nil {
		return nil, setup{}, err
	}
	set, err := setupFrom(spec, cfg)
	if err != nil {
		return nil, setup{}, err
	}
	set.switching = &switching{spec: spec, cfg: cfg}
	return cfg, set, nil
}

// loadConfig reads the configuration files that apply in dir, and prints
// their warnings.
func loadConfig(dir string) (*config.Config, error) {
	cfg, err := readConfig(config.DefaultPaths(dir))
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		_, _ = fmt.Fprintln(warnSink{}, "rein: warning: "+printable.Line(redactText(w))) // a file's text may be quoted in it; stderr's errors are not rein's to handle
	}
	return cfg, nil
}

// readConfig loads the configuration files of p. A file that cannot be
// read or says something invalid is bad configuration, which exits like
// bad usage (the message names the file, and the line where it can).
func readConfig(p config.Paths) (*config.Config, error) {
	cfg, err := config.Load(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", cli.ErrUsage, err)
	}
	return cfg, nil
}

// models resolves the model and its fallbacks: the scripted one, or real
// providers. known is what a resumed session's log says of its model, nil
// for a new session or another model.
func models(ctx context.Context, spec cli.Spec, cfg *config.Config, known *contract.ModelInfo) (kernel.Model, []kernel.Model, error) {
	if spec.Provider != "scripted" {
		return chooseModels(ctx, spec, cfg, known)
	}
	if spec.Script == "" {
		return kernel.Model{}, nil, fmt.Errorf("%w: --provider scripted needs --script FILE (the format is documented in internal/provider/scripted)", cli.ErrUsage)
	}
	s, err := scripted.Load(spec.Script)
	if err != nil {
		return kernel.Model{}, nil, fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	m := scriptedModel(scripted.New(s, &scripted.Options{Model: spec.Model}))
	if _, ok := cfg.Models[m.Model]; ok {
		// A scripted model the person described (a test of the context
		// engine's limits) has the window and prices they gave it.
		describe(context.Background(), &m, cfg, known, warn)
	}
	return m, nil, nil
}

// secretsOf returns what must never be recorded: the models' keys and
// every credential in rein's environment. A value shorter than
// eventlog.MinSecret is no secret (local servers take "x" or "ollama"), and
// cutting it out would break the record.
func secretsOf(m kernel.Model, fallbacks []kernel.Model) []string {
	secrets := builtin.Credentials(os.Environ())
	for _, mm := range append([]kernel.Model{m}, fallbacks...) {
		if len(mm.Secret) >= eventlog.MinSecret && !slices.Contains(secrets, mm.Secret) {
			secrets = append(secrets, mm.Secret)
		}
	}
	protect(secrets) // rein's own messages cut them as the log does
	return secrets
}

// openStore is the store of a session to go on with (resume): the
// --session-dir flag, else the user's configuration, else the default. A
// broken configuration is an error: the session could not go on under it.
func openStore(cwd, dir string) (*session.Store, error) {
	if dir != "" {
		return storeFor(dir, &config.Config{})
	}
	// session_dir is the user's to set: the project's file cannot, so its
	// state (or brokenness) does not matter here.
	cfg, err := readConfig(config.Paths{User: config.DefaultPaths(cwd).User})
	if err != nil {
		return nil, err
	}
	return storeFor("", cfg)
}

// readStore is the store of the commands that read sessions (sessions,
// replay, log, why, fork, and finding the one to resume or compact), and of
// the demo: like openStore, but a broken configuration of the person's
// does not keep them from their sessions. It is a warning, and the
// sessions are read from the session_dir the file still says, else the
// default directory.
func readStore(cwd, dir string) (*session.Store, error) {
	if dir != "" {
		return storeFor(dir, &config.Config{})
	}
	user := config.DefaultPaths(cwd).User
	cfg, err := config.Load(config.Paths{User: user})
	if err == nil {
		return storeFor("", cfg)
	}
	sessionDir, _ := config.SessionDir(user) // "" when it cannot be read either
	store, serr := storeFor(sessionDir, &config.Config{})
	if serr != nil {
		return nil, serr
	}
	warn(fmt.Sprintf("%v; sessions are read from %s (fix the file, or pass --session-dir)", err, store.Root()))
	return store, nil
}

// storeFor returns the session store at dir, else the configuration's,
// else the default.
func storeFor(dir string, cfg *config.Config) (*session.Store, error) {
	if dir == "" {
		dir = cfg.SessionDir
	}
	if dir == "" {
		var err error
		if dir, err = session.DefaultRoot(); err != nil {
			return nil, err
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: --session-dir %q: %v", cli.ErrUsage, dir, err)
	}
	return session.NewStore(abs, &session.Options{Logger: warnings()}), nil
}

// resumeSession opens an existing session for writing, passes its resume
// gate, and builds its runtime with today's configuration and flags.
func resumeSession(ctx context.Context, spec cli.Spec) (*cli.Session, error) {
	store, err := openStore(spec.Cwd, spec.SessionDir)
	if err != nil {
		return nil, err
	}
	sid := spec.Session
	if sid == "" {
		if sid, err = store.Last(spec.Cwd); err != nil {
			return nil, err
		}
	}
	secrets := append(builtin.Credentials(os.Environ()), serverSecrets(spec.Cwd, spec.TrustProject)...)
	sess, err := store.Open(sid, &session.WriteOptions{Secrets: secrets})
	if err != nil {
		return nil, err
	}
	if cwd := sess.State.Cwd; cwd != spec.Cwd {
		// The session's workspace is another: so may its servers be, and
		// the log must not take their secrets.
		if more := serverSecrets(cwd, spec.TrustProject); len(more) > 0 {
			if err := sess.Close(); err != nil {
				return nil, err
			}
			if sess, err = store.Open(sid, &session.WriteOptions{Secrets: append(secrets, more...)}); err != nil {
				return nil, err
			}
		}
	}
	cs, err := resumeRuntime(ctx, sess, spec)
	if err != nil {
		return nil, errors.Join(err, sess.Close())
	}
	return cs, nil
}

// resumeRuntime builds the runtime of a session opened for resuming.
func resumeRuntime(ctx context.Context, sess *session.Session, spec cli.Spec) (*cli.Session, error) {
	gates, err := sess.Gate(version)
	if err != nil {
		return nil, err
	}
	st := &sess.State
	// The session goes on in its own workspace, under the configuration
	// that applies there today.
	spec.Cwd = st.Cwd
	cfg, set, err := configure(spec)
	if err != nil {
		return nil, err
	}
	if spec.Provider == "" {
		// The provider the log says the session last used, at the same
		// endpoint.
		spec.Provider = st.Provider
		if spec.Model == "" {
			spec.Model = st.Model
		}
		if spec.BaseURL == "" {
			spec.BaseURL = st.BaseURL
		}
	}
	if spec.Provider == "scripted" && spec.Script == "" && !spec.Offline {
		return nil, fmt.Errorf("%w: session %s used the scripted provider; pass --script FILE to resume it with one, or choose another --provider",
			cli.ErrUsage, sess.ID)
	}
	// /model builds from the provider, model and endpoint the session goes
	// on with.
	set.switching = &switching{spec: spec, cfg: cfg}
	if spec.Offline {
		// rein rewind: no model is asked, no server or hook started.
		set.switching = nil
		return build(ctx, sess, offlineModel(st), nil, set, builtin.Credentials(os.Environ()))
	}
	if set.ext, err = loadExtensions(ctx, spec, cfg, spec.Cwd, config.DefaultPaths(spec.Cwd).User); err != nil {
		return nil, err
	}
	var known *contract.ModelInfo
	if spec.Provider == st.Provider && spec.Model == st.Model && spec.BaseURL == st.BaseURL {
		// What the log says of the same model, at the same endpoint: no
		// need to ask the server again.
		known = st.ModelInfo
	}
	m, fallbacks, err := models(ctx, spec, cfg, known)
	if err != nil {
		return nil, err
	}
	gates["permissions"] = fmt.Sprintf("read again from today's configuration and flags (mode %s; %d allow, %d ask, %d deny rules); nothing taken from the session",
		set.mode, len(set.rules.Allow), len(set.rules.Ask), len(set.rules.Deny))
	cs, err := build(ctx, sess, m, fallbacks, set, append(secretsOf(m, fallbacks), set.ext.secrets()...))
	if err != nil {
		return nil, err
	}
	cs.Gates = gates
	return cs, nil
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
	// artifactLimit bounds a session's artifacts; 0 means the tool
	// runtime's default.
	artifactLimit int64
	// mcpMaxMessage bounds a message of an MCP server; 0 means package
	// mcp's default.
	mcpMaxMessage int64
	// fixedPrompt, when set, replaces the environment-dependent parts of
	// the system prompt (the demo's is the same on every machine).
	fixedPrompt bool
	// sandbox is how commands are contained.
	sandbox sandboxSetup
	// context is the context policy: compact_at, the budget, the
	// reasoning effort asked (checked against the model by checkEffort).
	context kernel.ContextOptions
	// switching is what /model builds another model from; nil means the
	// session cannot switch (the demo).
	switching *switching
	// notify is the config's notify: how the terminal UI tells of a
	// long run's end and of an approval waiting.
	notify string
	// ext are the session's hooks, skills and agents; nil means none
	// (the demo), whose agents are the built-ins (ext.agentList).
	ext *extensions
	// maxParallelAgents and maxDepth bound the session's tasks (0: the
	// defaults).
	maxParallelAgents, maxDepth int
	// rewindPoints is how many points a rewind may go to, and
	// checkpointIgnored the budget of ignored files a checkpoint keeps
	// (0: the defaults).
	rewindPoints      int
	checkpointIgnored int64
	// answers is the person's answers file, where "always" and "never"
	// keep their rules for the workspace; "" keeps them for the session
	// only (the demo).
	answers string
}

// setupFrom layers the flags over the configuration.
func setupFrom(spec cli.Spec, cfg *config.Config) (setup, error) {
	set := setup{cwd: spec.Cwd, addDirs: spec.AddDirs, passthrough: cfg.EnvPassthrough, approver: spec.Approver, maxTurns: spec.MaxTurns,
		artifactLimit: cfg.MaxArtifactBytes, mcpMaxMessage: cfg.MCPMaxMessageBytes, notify: cfg.Notify,
		maxParallelAgents: cfg.MaxParallelAgents, maxDepth: cfg.MaxDepth,
		rewindPoints: cfg.RewindPoints, checkpointIgnored: cfg.CheckpointIgnoredBytes}
	if set.maxTurns == 0 {
		set.maxTurns = cfg.MaxTurns
	}
	if spec.MaxCost < 0 {
		return setup{}, fmt.Errorf("%w: --max-cost %v: want 0 or more US dollars", cli.ErrUsage, spec.MaxCost)
	}
	set.context = kernel.ContextOptions{CompactAt: cfg.CompactAt, MaxCost: cmp.Or(spec.MaxCost, cfg.MaxCost),
		ReasoningEffort: cmp.Or(spec.ReasoningEffort, cfg.ReasoningEffort)}
	modeText := spec.PermissionMode
	if modeText == "" {
		modeText = cfg.PermissionMode
	}
	if modeText != "" {
		m, err := permission.ParseMode(modeText)
		if err != nil {
			// The configuration's mode was checked when it was read: this
			// is the flag's.
			return setup{}, fmt.Errorf("%w: --permission-mode %q: want one of %s", cli.ErrUsage, modeText, modeNames())
		}
		set.mode = m
	}
	for _, dir := range spec.AddDirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return setup{}, fmt.Errorf("%w: --add-dir %q: no such directory", cli.ErrUsage, dir)
		}
	}
	var err error
	parse := func(what string, texts []string) []permission.Rule {
		if err != nil {
			return nil
		}
		var rules []permission.Rule
		rules, err = permission.ParseRules(texts)
		if err != nil {
			err = fmt.Errorf("%w: %s: %s", cli.ErrUsage, what, strings.TrimPrefix(err.Error(), "permission: "))
		}
		return rules
	}
	set.sandbox, err = sandboxFrom(spec, cfg)
	if err != nil {
		return setup{}, err
	}
	flag := func(rules []permission.Rule) []permission.Rule {
		for i := range rules {
			rules[i] = rules[i].WithOrigin(permission.Origin{Kind: permission.FromFlag})
		}
		return rules
	}
	flags := permission.Rules{Allow: flag(parse("--allow", spec.Allow)), Deny: flag(parse("--deny", spec.Deny))}
	if err != nil {
		return setup{}, err
	}
	configured, err := cfg.Rules()
	if err != nil {
		return setup{}, fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	set.rules = configured.Merge(flags)
	set.answers = config.AnswersPath(config.DefaultPaths(spec.Cwd).User)
	return set, nil
}

// modeNames lists the permission modes: "default, accept-edits, plan,
// yolo".
func modeNames() string {
	var names []string
	for _, m := range permission.Modes() {
		names = append(names, string(m))
	}
	return strings.Join(names, ", ")
}

// scriptedModel is the scripted provider as the kernel sees it: it
// streams and takes tools (the script decides what it calls).
func scriptedModel(p *scripted.Provider) kernel.Model {
	return kernel.Model{Provider: p, Name: "scripted", Model: p.Model(),
		Capabilities: provider.Capabilities{Streaming: true, Tools: true, ParallelTools: true}}
}

// build makes the runtime of an opened session: its workspace, policy,
// built-in tools and tool runtime, and a kernel over its log. On failure
// the session is closed.
func build(ctx context.Context, sess *session.Session, m kernel.Model, fallbacks []kernel.Model, set setup, secrets []string) (*cli.Session, error) {
	cs, err := buildRuntime(ctx, sess, m, fallbacks, set, secrets)
	if err != nil {
		return nil, errors.Join(err, sess.Close())
	}
	return cs, nil
}

func buildRuntime(ctx context.Context, sess *session.Session, m kernel.Model, fallbacks []kernel.Model, set setup, secrets []string) (*cli.Session, error) {
	ws, err := workspace.New(set.cwd, set.addDirs...)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	box, err := contain(set.sandbox, ws, sess.Dir, config.DefaultPaths(set.cwd).User)
	if err != nil {
		return nil, err
	}
	skills, skillDirs := set.ext.systemSkills()
	var rt *tool.Runtime // the hooks' permission_mode is the mode in force when they run
	hooks := set.ext.hookRunner(hook.Options{Dir: ws.Root(), Environ: os.Environ(), Passthrough: set.passthrough, Secrets: secrets,
		Strip: builtin.ToolEnv, Session: sess.ID, Transcript: filepath.Join(sess.Dir, "events.jsonl"), Logger: warnings(),
		Mode: func() string { return string(rt.Policy().Mode()) }})
	// The session's background jobs (bash's run_in_background): their
	// output is an artifact like a tool's, under the same limit.
	jobs := builtin.NewJobs(&builtin.JobsOptions{ArtifactDir: filepath.Join(sess.Dir, "artifacts"), ArtifactLimit: set.artifactLimit, Secrets: secrets})
	st, err := toolRuntime(sess, ws, box, set, secrets, skillDirs, hooks, jobs)
	rt = st.runtime
	if err != nil {
		return nil, errors.Join(err, box.close())
	}
	tools, reg := st.runtime, st.registry
	if set.context.MaxCost > 0 && (m.Info == nil || m.Info.Prices == nil) {
		warn(fmt.Sprintf("max_cost is $%g, but the prices of %s are unknown: its calls count as costing nothing towards it; "+
			"give them in [models.%q] input_price and output_price", set.context.MaxCost, m.Model, m.Model))
	}
	env := promptEnvironment(ctx, ws, set, skills, sess.State.System == "")
	opts := &kernel.Options{
		ProviderName: m.Name, Model: m.Model, BaseURL: m.BaseURL, Capabilities: m.Capabilities, KeyHint: m.KeyHint, Secret: m.Secret,
		Explain: m.Explain, Fallback: fallbacks, Registry: reg, Tools: tools, MaxTurns: set.maxTurns, System: kernel.SystemPrompt(env),
		Cwd: set.cwd, Version: version, Session: sess.ID, State: &sess.State, Logger: warnings(), Secrets: secrets,
		Sandbox: box.record(), Info: m.Info, SessionDir: sess.Dir, Hooks: hooks, Jobs: jobs,
		Checkpoints: st.checkpoints, KeepPoints: set.rewindPoints,
		Context: kernel.ContextOptions{CompactAt: set.context.CompactAt, MaxCost: set.context.MaxCost,
			ReasoningEffort: effortFor(&m, set.context.ReasoningEffort)},
	}
	var k *kernel.Kernel
	if set.switching != nil {
		opts.Switch = set.switching.switcher(m, func() kernel.Current { return k.Current() })
		opts.Known = set.switching.known(m, fallbacks)
	}
	k, err = kernel.New(m.Provider, sess.Log, opts)
	if err != nil {
		return nil, errors.Join(err, box.close())
	}
	if err := addTasks(k, st, opts, m, env, set); err != nil {
		return nil, errors.Join(err, box.close())
	}
	// The servers start once the kernel can take their tools, and stop
	// before the log closes: no tools.changed after it.
	set.ext.startServers(ctx, mcp.Options{Dir: ws.Root(), Environ: os.Environ(), Passthrough: set.passthrough, Secrets: secrets,
		Strip: builtin.ToolEnv, LogDir: sess.Dir, ArtifactDir: filepath.Join(sess.Dir, "artifacts"), MaxMessage: set.mcpMaxMessage, Version: version},
		func(c mcp.Change) {
			if err := k.ChangeTools(c.Server, mcp.Source(c.Server), c.Tools, c.Reason); err != nil {
				warn(fmt.Sprintf("MCP server %s: %v", c.Server, err))
			}
		})
	// The jobs end with the session (a headless run's too), and their
	// ends are recorded before the log closes.
	closeAll := func() error { return errors.Join(k.EndJobs(), set.ext.stopServers(), sess.Close(), box.close()) }
	system := cmp.Or(sess.State.System, opts.System) // a resumed session keeps the prompt its log recorded
	models := offeredModels(m, opts.Known)
	return &cli.Session{Runtime: k, Dir: sess.Dir, Close: closeAll, Sandbox: box.describe(), Notify: set.notify, Models: models,
		About: func() []cli.Fact {
			return about(m, config.DefaultPaths(set.cwd), set.answers, box.describe(), env, system)
		}, Readable: readable(tools, reg),
		Extensions: set.ext.facts, Ready: set.ext.ready}, nil
}

// promptEnvironment is what the system prompt tells the model of where it
// works: the workspace, the date, git, the instructions and skills, and
// the agents its task tool may start; the demo's (set.fixedPrompt) only
// the workspace and the built-in agents, the same on every machine. fresh
// says the session is new, its prompt the one built here: the
// instructions cut short are then said.
func promptEnvironment(ctx context.Context, ws *workspace.Workspace, set setup, skills string, fresh bool) kernel.Environment {
	env := kernel.Environment{Workspace: ws.Root()}
	if !set.fixedPrompt {
		env = environment(ctx, ws.Root(), time.Now())
		env.Skills = skills
	}
	env.Agents = set.ext.systemAgents()
	if fresh {
		for _, f := range env.Instructions {
			if f.Cut > 0 {
				warn(fmt.Sprintf("cut: %d bytes of %s not included in the system prompt: the instructions may take %d bytes in all; "+
					"shorten the file to have it read whole", f.Cut, f.Path, maxInstructions))
			}
		}
	}
	return env
}

// readable says whether the person may attach the file at abs to a
// message (@path in the UI): what the session's policy says of read_file
// on it, a deny refusing it. An ask allows it: the person is the one who
// named it.
func readable(tools *tool.Runtime, reg *registry.Registry) func(abs string) error {
	return func(abs string) error {
		t, ok := reg.Lookup("read_file")
		if !ok {
			return nil
		}
		input, err := json.Marshal(map[string]string{"path": abs})
		if err != nil {
			return err
		}
		if v := tools.Policy().Decide(permission.RequestFor(t, input)); v.Decision == contract.Deny {
			return fmt.Errorf("denied: %s", v.Reason)
		}
		return nil
	}
}

// toolRuntime builds the policy, the built-in tools (bash under the
// session's sandbox, starting its background jobs as jobs, with
// job_output and job_kill) and the tool runtime of a session.
// The skills' directories (skillDirs) are read roots of the read tools;
// hooks join the permission stage.
//
// The session's runtime, registry and the runtime's options are what a
// task's child's runtime starts from; jobs, the session's background
// jobs.
func toolRuntime(sess *session.Session, ws *workspace.Workspace, box *containment, set setup, secrets, skillDirs []string,
	hooks *hook.Runner, jobs *builtin.Jobs) (sessionTools, error) {
	// The person's answers for this workspace are rules of theirs, in
	// force from the start.
	answers := config.Answers{File: set.answers, Project: ws.Root()}
	saved, err := answers.Load()
	if err != nil {
		// A file the person broke by hand keeps no session from starting:
		// this one goes on without its rules, and says why.
		warn(strings.TrimPrefix(err.Error(), "config: ") + "; the rules your always and never answers saved there are not in force " +
			"in this session: fix the file or delete it")
		saved = permission.Rules{}
	}
	policy, err := permission.New(set.mode, set.rules.Merge(saved), ws)
	if err != nil {
		return sessionTools{}, fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	// The artifacts keep whole outputs; the read tools may read them
	// there, which is where an elided observation's stub points.
	artifacts := filepath.Join(sess.Dir, "artifacts")
	// What the sandbox contains, the policy may allow in accept-edits;
	// where there is none, it asks. What it hides from commands (the
	// credential stores, rein's own files), the file tools ask before
	// reaching, and the search tools do not walk into, but for the
	// artifacts and the skills.
	hidden, own := box.hidden()
	policy = policy.WithContainment(box.containment()).WithOwn(own).
		WithHidden(hidden, append([]string{artifacts}, skillDirs...))
	bash := builtin.BashOptions{Passthrough: set.passthrough, Secrets: secrets, Sandbox: box.policy}
	st := sessionTools{childBash: builtin.Bash(ws, &bash)}
	bash.Jobs = jobs
	st.registry, err = registry.New(builtin.Tools(ws, &builtin.Options{
		ArtifactDir: artifacts,
		ReadRoots:   skillDirs,
		Hidden:      hidden,
		Bash:        &bash,
	})...)
	if err != nil {
		return sessionTools{}, err
	}
	var approver tool.Approver
	if set.approver != nil {
		approver = set.approver
	}
	wide := wideWorkspace(ws.Root())
	if wide != "" {
		warn(wide + " rein asks before the session's first write there, whatever the mode; start it in a project's directory to work on that project")
	}
	st.options = tool.Options{
		Approver: approver, ArtifactDir: artifacts, ArtifactLimit: set.artifactLimit,
		Secrets: secrets, Logger: warnings(), Hooks: hooks, Answers: answers, WideWorkspace: wide,
	}
	// A task's child takes its snapshots in its parent's store, with the
	// parent's tool options.
	if st.checkpoints = checkpoints(sess, ws, set, wide, secrets); st.checkpoints != nil {
		st.options.Checkpoints = st.checkpoints
	}
	st.runtime, err = tool.New(st.registry, policy, &st.options)
	return st, err
}

// sessionTools are a session's tools: its tool runtime, its registry and
// the runtime's options, and the bash a task's child runs instead of the
// session's, which has no background jobs (a job belongs to the session
// that started it, and a child's ends with its task).
type sessionTools struct {
	runtime   *tool.Runtime
	registry  *registry.Registry
	options   tool.Options
	childBash registry.Tool
	// checkpoints is the session's store of snapshots; nil when it keeps
	// none.
	checkpoints *checkpoint.Store
}

// wideWorkspace says, of a workspace rooted at root, why it is wider than
// a project: the filesystem's root, or the person's home directory (links
// followed); "" for any other.
func wideWorkspace(root string) string {
	clean := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	root = clean(root)
	if root == string(filepath.Separator) {
		return "The workspace is / (rein was started there): the whole filesystem is the workspace."
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" && root == clean(home) {
		return "The workspace is your home directory " + root + " (rein was started there): all of it, your configuration included, is the workspace."
	}
	return ""
}

// demoRules are the demo's permissions: the test command is allowed, so
// that a traced demo (accept-edits) never asks, and an interactive one
// (default mode) asks only about its edit.
var demoRules = []string{"bash(go test:*)"}

// openDemo prepares the offline demo: a fresh copy of the bundled project
// and the scripted model. It ignores the person's configuration, so that
// it runs the same everywhere.
func openDemo(ctx context.Context, opts cli.DemoOptions) (*cli.Demo, error) {
	sessionDir := opts.SessionDir
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
	store, err := readStore(ws, sessionDir)
	if err != nil {
		return nil, err
	}
	m := scriptedModel(p)
	secrets := secretsOf(m, nil)
	created, err := store.Create(id.New("ses"), &session.WriteOptions{Secrets: secrets})
	if err != nil {
		return nil, err
	}
	// The demo's commands run in the default sandbox, as a session's do.
	box, err := sandboxFrom(cli.Spec{}, &config.Config{})
	if err != nil {
		return nil, errors.Join(err, created.Close())
	}
	mode := permission.AcceptEdits
	explain := "The demo is done: the scripted model ran the failing test, read the code, fixed the bug and\n" +
		"ran the tests again, and they pass. Each step was validated, allowed (accept-edits mode, and the rule\n" +
		"bash(go test:*)), run for real in the workspace and observed; each turn of the script checked that the\n" +
		"real observation was the one it expected before going on."
	if opts.Approver != nil {
		mode = permission.Default
		explain = "The demo is done: the scripted model ran the failing test, read the code, fixed the bug (you " +
			"answered its edit) and ran the tests again, and they pass. Each step was validated, decided (default mode " +
			"asks before edits; the rule bash(go test:*) allows the tests), run for real in the workspace and observed; " +
			"each turn of the script checked the real observation before going on. Ctrl-D leaves."
	}
	sess, err := build(ctx, created, m, nil, setup{
		cwd: ws, mode: mode, rules: permission.Rules{Allow: allow}, fixedPrompt: true, sandbox: box, approver: opts.Approver,
	}, secrets)
	if err != nil {
		return nil, err
	}
	_, lookErr := exec.LookPath("rein")
	return &cli.Demo{
		Session:   *sess,
		Workspace: ws,
		Prompt:    demo.Prompt,
		Want:      state.Completed,
		Installed: lookErr == nil,
		Explain:   explain,
	}, nil
}
