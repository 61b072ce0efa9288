// Package config reads rein's configuration: the user's file
// ($XDG_CONFIG_HOME/rein/config.toml, default ~/.config/rein/config.toml)
// and the project's (.rein/config.toml in the workspace or the nearest
// directory above it that has one), the project's keys over the user's, and
// remembers where each value came from. Flags override both; that layering
// is the caller's. Some keys are the user's alone (base_url, env_passthrough,
// session_dir, max_artifact_bytes, mcp_max_message_bytes, max_depth, yolo and bare
// bash among the rest): a
// project's file that sets one has it ignored, with a warning naming the
// key, the file and the line, and saying why.
//
// The person's file that is broken is an error naming the file, line and
// column; a value of the wrong type (or one rein cannot use), one naming
// the file, line and key, what was found and what is wanted. In a
// project's file each is a warning instead, the value ignored (the whole
// file, when it is not TOML): a cloned repository must not keep rein from
// starting. A key rein does not know is a warning, not an error, so an
// older rein reads a newer file. The warnings about a file come in the
// order of its lines.
//
// Config is also the one place that edits the person's files, each edit
// of the text keeping their comments and layout: [Answers.Save] adds an
// "always" or "never" answer's rule to their own file of answers
// (projects.toml beside config.toml, a table per project directory, never
// a file of the repository's), and [SaveMCPServer] and [RemoveMCPServer]
// edit the [mcp_servers] tables of their config.toml. [Config.Rules] says
// which file each rule of the configuration came from; [Answers.Load]
// reads the answers' back.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
	// BaseURL is the provider's endpoint. Without Provider in the same
	// file it is an OpenAI-compatible server's (Ollama, vLLM, llama.cpp):
	// the file's provider is then openai. Only the user's file may set it:
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
	// MaxArtifactBytes bounds the bytes of all the artifacts of one session
	// (the whole outputs of tools whose output the model saw shortened);
	// past it outputs are still shortened, but no longer kept. 0 means
	// rein's default (1 GiB). Only the user's file may set it: artifacts
	// take room in your session directory, which is yours to size.
	MaxArtifactBytes int64 `toml:"max_artifact_bytes"`
	// MCPMaxMessageBytes is the largest message rein takes from an MCP
	// server (a tool's result, most often); a larger one is refused
	// unread, its call fails saying so, and the server is started again.
	// 0 means rein's default (16 MiB). Only the user's file may set it:
	// what rein holds in memory is yours to size.
	MCPMaxMessageBytes int64 `toml:"mcp_max_message_bytes"`
	// MaxParallelAgents bounds the tasks (subagents) of one turn that run
	// together; 0 means rein's default (4); at most 8, as many tools as rein runs at once.
	MaxParallelAgents int `toml:"max_parallel_agents"`
	// MaxDepth is how deep tasks may nest: 1 (the default) lets a
	// session's children call no task, 2 lets them have children of their
	// own. Only the user's file may set it: a cloned repository must not
	// let agents multiply.
	MaxDepth int `toml:"max_depth"`
	// RewindPoints is how many of a session's latest messages a rewind
	// may go back to (the checkpoints only older ones need are let go);
	// 0 means rein's default (100). Only the user's file may set it:
	// checkpoints take room in your session directory.
	RewindPoints int `toml:"rewind_points"`
	// CheckpointIgnoredBytes bounds the ignored files (build outputs,
	// local settings) a checkpoint keeps besides every file git sees; 0
	// means rein's default (50 MB). Only the user's file may set it.
	CheckpointIgnoredBytes int64 `toml:"checkpoint_ignored_bytes"`
	// Permissions holds the [permissions] table's allow, ask and deny
	// rules (rule syntax of package permission). The lists of the user's
	// and the project's files add up; deny wins whichever file says it.
	// An interactive "always" answer goes to the person's own answers
	// file instead ([Answers]).
	Permissions Permissions `toml:"permissions"`
	// Sandbox is the [sandbox] table, or the shorthand sandbox = "MODE":
	// how the commands tools start are contained.
	Sandbox Sandbox `toml:"sandbox"`
	// Models are the [models."id"] tables: what the person knows of a
	// model, over the catalogue's figures. Only the user's file may set
	// them: a cloned repository's window far past the model's would turn
	// elision and compaction off, its prices make your spending look
	// smaller.
	Models map[string]Model `toml:"models"`
	// CompactAt is the share of a request's input budget past which the
	// conversation is summarised first, between 0 and 1; 0 means the
	// default (0.85). Only the user's file may set it.
	CompactAt float64 `toml:"compact_at"`
	// MaxCost ends a run after the model call that takes its cost past it,
	// in US dollars; 0 means no budget. A project's file may only lower
	// the user's.
	MaxCost float64 `toml:"max_cost"`
	// ReasoningEffort is the reasoning level asked of a model that
	// reasons (one of its levels: low, medium, high...); "" means the
	// model's default. Only the user's file may set it.
	ReasoningEffort string `toml:"reasoning_effort"`
	// FirstByteTimeout is how many seconds rein waits for the first byte
	// of a model's response before it gives the call up as a timeout and
	// retries it; 0 means the default (90). Only the user's file may set
	// it.
	FirstByteTimeout float64 `toml:"first_byte_timeout"`
	// Notify is how the interactive UI tells you that a long run ended or
	// that an approval waits: "bell" (the default), "osc9" (a desktop
	// notification, for terminals that show them), or "off".
	Notify string `toml:"notify"`
	// HookTables are the [[hooks.EVENT]] tables: commands run around the
	// session's steps, in Claude Code's protocol (package hook). Only the
	// user's file may set them: a cloned repository must not run commands
	// on your behalf.
	HookTables map[string][]HookEntry `toml:"hooks"`
	// MaxStopContinues is how many times Stop hooks may make one run go
	// on, 0 to 10; unset means DefaultMaxStopContinues.
	MaxStopContinues *int `toml:"max_stop_continues"`
	// Trusted remembers the project files the person trusted (a
	// .claude/settings.json whose hooks run): path = "sha256:<hex>" of
	// the content they trusted. Only the user's file may set it.
	Trusted map[string]string `toml:"trusted"`
	// MCPTables are the [mcp_servers.NAME] tables: the person's MCP
	// servers (package mcp). Only the user's file may set them: a cloned
	// repository's servers go in its .mcp.json, which needs the person's
	// trust.
	MCPTables map[string]MCPEntry `toml:"mcp_servers"`
}

// Model is one [models."id"] table. A zero or absent field leaves the
// catalogue's figure.
type Model struct {
	// ContextWindow is the model's context, in tokens.
	ContextWindow int `toml:"context_window"`
	// MaxOutput is the output a reply may take, in tokens.
	MaxOutput int `toml:"max_output"`
	// The prices, in US dollars per million tokens.
	InputPrice      *float64 `toml:"input_price"`
	OutputPrice     *float64 `toml:"output_price"`
	CacheReadPrice  *float64 `toml:"cache_read_price"`
	CacheWritePrice *float64 `toml:"cache_write_price"`
	// ReasoningLevels are the reasoning efforts the model takes; an empty
	// list says it does not reason.
	ReasoningLevels []string `toml:"reasoning_levels"`
}

// Sandbox is what a [sandbox] table says (package sandbox has the
// meaning of each value). Its zero value sets nothing.
type Sandbox struct {
	// Mode is workspace-write, read-only or off; "" means not set here.
	Mode string `toml:"mode"`
	// Network, when set, says whether commands may reach the network.
	Network *bool `toml:"network"`
	// WritableRoots, when set, replaces the default list of directories
	// besides the workspace that commands may write (the toolchain caches);
	// "~/" at an entry's start means the home directory.
	WritableRoots []string `toml:"writable_roots"`
	// DenyRead, when set, replaces the default list of paths commands may
	// not read (the credential stores); rein's own configuration and state
	// are hidden whatever it says.
	DenyRead []string `toml:"deny_read"`
	// Unknown are the keys of the table rein does not know, which decode
	// turns into warnings like any other unknown key.
	Unknown []string `toml:"-"`
}

// UnmarshalTOML reads either sandbox = "MODE" or a [sandbox] table.
func (s *Sandbox) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		s.Mode = v
		return nil
	case map[string]any:
		for k, val := range v {
			if err := s.setKey(k, val); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("sandbox: want a mode (sandbox = \"workspace-write\") or a [sandbox] table, not %T", v)
}

// setKey sets one key of a [sandbox] table.
func (s *Sandbox) setKey(k string, val any) error {
	switch k {
	case "mode":
		m, ok := val.(string)
		if !ok {
			return fmt.Errorf("sandbox.mode: want a string, not %T", val)
		}
		s.Mode = m
	case "network":
		b, ok := val.(bool)
		if !ok {
			return fmt.Errorf("sandbox.network: want true or false, not %T", val)
		}
		s.Network = &b
	case "writable_roots", "deny_read":
		list, err := stringList(val)
		if err != nil {
			return fmt.Errorf("sandbox.%s: %w", k, err)
		}
		if k == "writable_roots" {
			s.WritableRoots = list
		} else {
			s.DenyRead = list
		}
	default:
		s.Unknown = append(s.Unknown, "sandbox."+k)
	}
	return nil
}

// stringList is a TOML array of strings.
func stringList(val any) ([]string, error) {
	items, ok := val.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list of strings, not %T", val)
	}
	list := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil, fmt.Errorf("want a list of strings, and %v is a %T", it, it)
		}
		list = append(list, s)
	}
	return list, nil
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
	// Hooks are the user's hooks, in the order of HookEvents, each
	// event's in the order of the file.
	Hooks []Hook
	// MaxStopContinues is max_stop_continues, DefaultMaxStopContinues
	// when no file sets it.
	MaxStopContinues int
	// MCPServers are the person's MCP servers, in name order, the
	// disabled ones too (Enabled false).
	MCPServers []MCPServer
	// ruleFiles are the [permissions] of each file, as applied (see
	// Rules).
	ruleFiles []ruleFile
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
		f := filepath.Join(d, filepath.FromSlash(ProjectFile))
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
	c := &Config{Source: map[string]string{}, lines: map[string]int{}, MaxStopContinues: DefaultMaxStopContinues}
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

// SessionDir returns the session_dir the person's file at path sets, read
// on its own: for the commands that only read sessions, which a file
// broken elsewhere must not stop. "" means it sets none (or there is no
// file); an error means the file is not TOML, or its session_dir is not
// a path.
func SessionDir(path string) (string, error) {
	data, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("config: %w", err)
	}
	var f struct {
		SessionDir any `toml:"session_dir"`
	}
	if _, err := toml.Decode(string(data), &f); err != nil {
		return "", tomlError(path, string(data), err)
	}
	switch dir := f.SessionDir.(type) {
	case nil:
		return "", nil
	case string:
		if dir == "" {
			return "", nil
		}
		p, err := expandHome(dir)
		if err != nil {
			return "", fmt.Errorf("config: %s: session_dir: %w", where(path, keyLine(string(data), "session_dir")), err)
		}
		return p, nil
	}
	return "", fmt.Errorf("config: %s: session_dir is not a string", where(path, keyLine(string(data), "session_dir")))
}

// merge reads the file at path and applies what it sets over c; project
// says it is the project's file, which may not set some keys. A missing
// file sets nothing.
//
// The person's file that is broken, or holds a value rein cannot use, is
// an error: it is theirs to fix. The project's is not: a cloned
// repository must not keep rein from starting in it, so each value it may
// not set or that rein cannot use is ignored with a warning, and a
// project's file that is not TOML at all is ignored whole. The warnings
// about a file come in the order of its lines.
func (c *Config) merge(path string, project bool) error {
	f, err := decode(path, project)
	if err != nil && project {
		c.Warnings = append(c.Warnings, strings.TrimPrefix(err.Error(), "config: ")+
			"; rein ignores the project's file whole: fix it for its settings to apply")
		return nil
	}
	if err != nil || f == nil {
		return err
	}
	warnings := f.warnings
	if project {
		warnings = append(warnings, c.ignoreUnsafe(f)...)
		warnings = append(warnings, c.limitProject(f)...)
		warnings = append(warnings, f.ignoreInvalid()...)
	} else {
		warnings = append(warnings, broadRules(f)...)
	}
	c.Warnings = append(c.Warnings, byLine(path, warnings)...)
	if err := f.checkFinite(); err != nil {
		return err
	}
	if err := f.validate(); err != nil {
		return err
	}
	if err := c.apply(f); err != nil {
		return err
	}
	c.ruleFiles = append(c.ruleFiles, ruleFile{path: path, project: project, perms: f.Permissions})
	return nil
}

// byLine sorts warnings about the file at path ("path:line: ...") by
// their line, keeping the order of those of one line; one without a line
// comes first.
func byLine(path string, warnings []string) []string {
	lineOf := func(w string) int {
		rest, _ := strings.CutPrefix(w, path+":")
		digits := rest[:len(rest)-len(strings.TrimLeft(rest, "0123456789"))]
		n, _ := strconv.Atoi(digits) // no line: 0, first
		return n
	}
	slices.SortStableFunc(warnings, func(a, b string) int { return lineOf(a) - lineOf(b) })
	return warnings
}

// decoded is one configuration file as read: its values, which keys it
// defines, and its text, to say on which line a key is set.
type decoded struct {
	File
	path     string
	text     string
	md       toml.MetaData
	warnings []string
	// dropped are the keys limitProject ignored, which validate and
	// apply skip (see defines).
	dropped map[string]bool
}

// decode reads and decodes the file at path; a missing file is nil and no
// error. A file that is not TOML is an error naming the file (and the line
// and column, where the decoder says). A value of the wrong type is an
// error naming the file, the line, the key, what it holds and what it
// should; in a project's file (project true), a warning saying so, the
// value left out.
func decode(path string, project bool) (*decoded, error) {
	data, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	d := &decoded{path: path, text: string(data)}
	var raw map[string]any
	if _, err := toml.Decode(d.text, &raw); err != nil {
		return nil, tomlError(path, d.text, err)
	}
	src := d.text
	if bad := d.wrongTypes(raw); len(bad) > 0 {
		if !project {
			return nil, fmt.Errorf("config: %s: %s", where(path, bad[0].line), bad[0].say(bad[0].text))
		}
		for _, b := range bad {
			d.warnings = append(d.warnings, b.ignored(path))
			deleteKey(raw, b.key)
		}
		// What is left, decoded as the file would be without those
		// values; d.text stays the file's, for the lines of its keys.
		var buf bytes.Buffer
		if err := toml.NewEncoder(&buf).Encode(raw); err != nil {
			return nil, fmt.Errorf("config: %s: %w", path, err)
		}
		src = buf.String()
	}
	if d.md, err = toml.Decode(src, &d.File); err != nil {
		return nil, tomlError(path, src, err)
	}
	for _, k := range d.md.Undecoded() {
		d.warnings = append(d.warnings, fmt.Sprintf("%s: unknown key %q (ignored)", d.keyAt(k...), k.String()))
	}
	slices.Sort(d.Sandbox.Unknown)
	for _, k := range d.Sandbox.Unknown {
		d.warnings = append(d.warnings, fmt.Sprintf("%s: unknown key %q (ignored)", d.keyAt(strings.Split(k, ".")...), k))
	}
	d.Sandbox.Unknown = nil
	return d, nil
}

// deleteKey takes the value at the key path key out of the decoded TOML
// m, in each table of an array of tables it goes through.
func deleteKey(m map[string]any, key []string) {
	if len(key) == 0 {
		return
	}
	if len(key) == 1 {
		delete(m, key[0])
		return
	}
	switch v := m[key[0]].(type) {
	case map[string]any:
		deleteKey(v, key[1:])
	case []map[string]any:
		for _, t := range v {
			deleteKey(t, key[1:])
		}
	default:
		delete(m, key[0]) // not a table: the whole value goes
	}
}

// tomlError is the error for the file at path, whose text is text, that
// is not valid TOML: it names the file, and the line and column where the
// decoder can. They are counted from the offset of the error in text: the
// decoder's own line is one too far for an error at the end of a line (a
// table header without its closing bracket).
func tomlError(path, text string, err error) error {
	var perr toml.ParseError
	if errors.As(err, &perr) {
		line, col := perr.Position.Line, perr.Position.Col
		if at := perr.Position.Start; at >= 0 && at <= len(text) {
			line = strings.Count(text[:at], "\n") + 1
			col = at - strings.LastIndexByte(text[:at], '\n')
		}
		return fmt.Errorf("config: %s:%d:%d: %s", path, line, col, perr.Message)
	}
	return fmt.Errorf("config: %s: %w", path, err)
}

// broadRules returns a warning for each allow rule of the user's file d
// that lets commands run any code without asking: the user may want it,
// and should know.
func broadRules(d *decoded) []string {
	var out []string
	for _, text := range d.Permissions.Allow {
		r, err := permission.ParseRule(text)
		if err != nil || !r.AllowsArbitraryCode() {
			continue
		}
		if r.Pattern() == "" {
			out = append(out, fmt.Sprintf("%s: allow rule %s runs any command without asking", d.at("allow"), r))
			continue
		}
		out = append(out, fmt.Sprintf("%s: allow rule %s runs any code without asking: %s runs whatever its arguments give it", d.at("allow"), r, programOf(r)))
	}
	return out
}

// programOf returns the program a bash rule's pattern names, its
// assignments left out.
func programOf(r permission.Rule) string {
	for _, w := range strings.Fields(r.Pattern()) {
		if !strings.Contains(w, "=") {
			return strings.TrimSuffix(w, ":*")
		}
	}
	return r.Pattern()
}

// sandboxStrictness orders the sandbox modes, the strictest first; the
// empty mode is the default, workspace-write.
var sandboxStrictness = map[string]int{"read-only": 0, "workspace-write": 1, "": 1, "off": 2}

// at says where key is set in the file: "file:line", or the file alone.
func (d *decoded) at(key string) string { return where(d.path, keyLine(d.text, key)) }

// validate checks the values of the file, each error naming the file and
// the line that set the value.
func (d *decoded) validate() error {
	if ps := d.problems(); len(ps) > 0 {
		return fmt.Errorf("config: %s: %s", ps[0].at, ps[0].err)
	}
	if err := d.checkHooks(); err != nil {
		return err
	}
	if err := d.checkServers(); err != nil {
		return err
	}
	return d.validateContext()
}

// apply sets over c what the file d sets, and remembers that d set it.
// The permission lists add up instead.
func (c *Config) apply(d *decoded) error {
	set := func(key string) {
		c.Source[key] = d.path
		c.lines[key] = keyLine(d.text, key)
	}
	for _, v := range []struct {
		key string
		ok  bool
		set func()
	}{
		{"provider", d.Provider != "", func() { c.Provider = d.Provider }},
		{"model", d.Model != "", func() { c.Model = d.Model }},
		{"base_url", d.BaseURL != "", func() { c.BaseURL = d.BaseURL }},
		{"fallback", d.defines("fallback"), func() { c.Fallback = d.Fallback }},
		{"permission_mode", d.PermissionMode != "", func() { c.PermissionMode = d.PermissionMode }},
		{"max_turns", d.MaxTurns > 0, func() { c.MaxTurns = d.MaxTurns }},
		{"env_passthrough", len(d.EnvPassthrough) > 0, func() { c.EnvPassthrough = d.EnvPassthrough }},
		{"max_artifact_bytes", d.MaxArtifactBytes > 0, func() { c.MaxArtifactBytes = d.MaxArtifactBytes }},
		{"mcp_max_message_bytes", d.MCPMaxMessageBytes > 0, func() { c.MCPMaxMessageBytes = d.MCPMaxMessageBytes }},
		{"max_parallel_agents", d.MaxParallelAgents > 0, func() { c.MaxParallelAgents = d.MaxParallelAgents }},
		{"max_depth", d.MaxDepth > 0, func() { c.MaxDepth = d.MaxDepth }},
		{"rewind_points", d.RewindPoints > 0, func() { c.RewindPoints = d.RewindPoints }},
		{"checkpoint_ignored_bytes", d.CheckpointIgnoredBytes > 0, func() { c.CheckpointIgnoredBytes = d.CheckpointIgnoredBytes }},
	} {
		if v.ok {
			v.set()
			set(v.key)
		}
	}
	if d.Provider == "" && d.BaseURL != "" {
		// An endpoint belongs to one provider: alone, an OpenAI-compatible
		// server's, as OPENAI_BASE_URL alone is.
		c.Provider = "openai"
		c.Source["provider"], c.lines["provider"] = d.path, keyLine(d.text, "base_url")
	}
	if d.Notify != "" { // one validate accepted
		c.Notify = d.Notify
		set("notify")
	}
	if d.SessionDir != "" {
		dir, err := expandHome(d.SessionDir)
		if err != nil {
			return fmt.Errorf("config: %s: session_dir: %w", d.at("session_dir"), err)
		}
		c.SessionDir = dir
		set("session_dir")
	}
	c.applySandbox(d, set)
	c.applyContext(d, set)
	c.applyHooks(d)
	if err := c.applyServers(d); err != nil {
		return err
	}
	c.Permissions.Allow = append(c.Permissions.Allow, d.Permissions.Allow...)
	c.Permissions.Ask = append(c.Permissions.Ask, d.Permissions.Ask...)
	c.Permissions.Deny = append(c.Permissions.Deny, d.Permissions.Deny...)
	return nil
}

// applySandbox sets over c what d's sandbox key or table sets, key by
// key: a project's read-only mode over the user's table keeps the user's
// roots.
func (c *Config) applySandbox(d *decoded, set func(string)) {
	s := &d.Sandbox
	if !d.md.IsDefined("sandbox") {
		return
	}
	if s.Mode != "" {
		c.Sandbox.Mode = strings.TrimSpace(s.Mode)
		set("sandbox")
	}
	if s.Network != nil {
		c.Sandbox.Network = s.Network
	}
	if s.WritableRoots != nil {
		c.Sandbox.WritableRoots = s.WritableRoots
	}
	if s.DenyRead != nil {
		c.Sandbox.DenyRead = s.DenyRead
	}
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
