package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/permission"
)

// ignoreUnsafe takes out of the project's file d what a cloned repository
// must not set, and returns a warning for each, naming the key, the file
// and its line, why, and where the person may set it instead: where your
// key is sent (base_url), which secrets its scripts see (env_passthrough),
// where your transcripts go and how much disk they take, approvals off
// (yolo), a sandbox looser than the default or than the person's, any
// command or MCP tool run without asking, hooks and servers started on
// your behalf, what you trust. The rest of the file applies: a repository
// that asks for too much is not a reason to refuse to start.
func (c *Config) ignoreUnsafe(d *decoded) []string {
	var out []string
	ignore := func(at, what, why string) {
		out = append(out, fmt.Sprintf("%s: %s is ignored: %s", at, what, why))
	}
	f := &d.File
	own := "set it in your own config.toml"
	if f.BaseURL != "" {
		ignore(d.at("base_url"), "base_url", "a project's file may not set it, since a cloned repository could send your API key anywhere; "+
			own+" or pass --base-url")
		f.BaseURL = ""
	}
	if len(f.EnvPassthrough) > 0 {
		ignore(d.at("env_passthrough"), "env_passthrough", "a project's file may not set it, since a cloned repository could hand "+
			"your tokens to its own scripts; "+own)
		f.EnvPassthrough = nil
	}
	if f.SessionDir != "" {
		ignore(d.at("session_dir"), "session_dir", "a project's file may not set it, since a cloned repository must not choose "+
			"where your transcripts go; "+own+" or pass --session-dir")
		f.SessionDir = ""
	}
	if f.MaxArtifactBytes != 0 {
		ignore(d.at("max_artifact_bytes"), "max_artifact_bytes", "a project's file may not set it, since a cloned repository "+
			"must not choose how much of your disk its outputs take; "+own)
		f.MaxArtifactBytes = 0
	}
	if f.MaxDepth != 0 {
		ignore(d.at("max_depth"), "max_depth", "a project's file may not set it, since a cloned repository "+
			"must not let agents start agents; "+own)
		f.MaxDepth = 0
	}
	if f.RewindPoints != 0 {
		ignore(d.at("rewind_points"), "rewind_points", "a project's file may not set it, since a cloned repository "+
			"must not choose how much of your disk its checkpoints take; "+own)
		f.RewindPoints = 0
	}
	if f.CheckpointIgnoredBytes != 0 {
		ignore(d.at("checkpoint_ignored_bytes"), "checkpoint_ignored_bytes", "a project's file may not set it, since a cloned repository "+
			"must not choose how much of your disk its checkpoints take; "+own)
		f.CheckpointIgnoredBytes = 0
	}
	if f.MCPMaxMessageBytes != 0 {
		ignore(d.at("mcp_max_message_bytes"), "mcp_max_message_bytes", "a project's file may not set it, since a cloned repository "+
			"must not choose how much of your memory an MCP server's message may take; "+own)
		f.MCPMaxMessageBytes = 0
	}
	if strings.EqualFold(strings.TrimSpace(f.PermissionMode), string(permission.Yolo)) {
		ignore(d.at("permission_mode"), fmt.Sprintf("permission_mode = %q", f.PermissionMode), "a project's file may not switch "+
			"approvals off; pass --permission-mode yolo or set it in your own config.toml")
		f.PermissionMode = ""
	}
	out = append(out, c.ignoreLooserSandbox(d)...)
	out = append(out, d.ignoreExtensions()...)
	f.Permissions.Allow = slices.DeleteFunc(f.Permissions.Allow, func(text string) bool {
		why := unsafeAllow(text)
		if why != "" {
			ignore(d.at("allow"), fmt.Sprintf("allow rule %q", text), why)
		}
		return why != ""
	})
	return out
}

// unsafeAllow says why a project's file may not allow text, or "" when
// it may: a rule that runs any command, or a program that runs whatever
// code its arguments give it, or a tool of the person's MCP servers.
func unsafeAllow(text string) string {
	if strings.HasPrefix(strings.TrimSpace(text), "mcp__") {
		return "a project's file may not let the model use your MCP servers' tools without asking; put the rule in " +
			"your own config.toml (deny and ask rules for them are fine here)"
	}
	r, err := permission.ParseRule(text)
	switch {
	case err != nil || !r.AllowsArbitraryCode():
		return ""
	case r.Pattern() == "":
		return "it would let a cloned repository run any command without asking; allow specific commands " +
			"(bash(go test:*)) or put it in your own config.toml"
	}
	// Not "allow bash(python3)": that is python3 with no arguments at all.
	return fmt.Sprintf("%s runs whatever code its arguments give it, so the rule would let a cloned repository run anything "+
		"without asking; allow each exact command you trust instead, its arguments written out and no :* (such a rule "+
		"matches that one command), or put the rule in your own config.toml", programOf(r))
}

// ignoreLooserSandbox takes out of the project's file d a sandbox looser
// than the default or than what the person's file already says: a cloned
// repository may make it stricter (read-only), never turn it off, open
// the network, add places to write or unhide a credential store.
func (c *Config) ignoreLooserSandbox(d *decoded) []string {
	var out []string
	s := &d.Sandbox
	ignore := func(at, what, why string) {
		out = append(out, fmt.Sprintf("%s: sandbox %s is ignored: %s", at, what, why))
	}
	flag := "set it in your own config.toml or pass the flag"
	mode := strings.TrimSpace(s.Mode)
	switch {
	case strings.EqualFold(mode, "off"):
		ignore(d.keyAt("sandbox", "mode"), `mode "off"`, "a project's file may not take the sandbox away; "+flag+" (--sandbox off)")
		s.Mode = ""
	case mode != "" && sandboxStrictness[mode] > sandboxStrictness[c.Sandbox.Mode]:
		ignore(d.keyAt("sandbox", "mode"), fmt.Sprintf("mode %q", mode), fmt.Sprintf("it is looser than the %q your own config.toml "+
			"sets, and a project's file may only make the sandbox stricter; pass --sandbox %s for this session if you mean it", c.Sandbox.Mode, mode))
		s.Mode = ""
	}
	if s.Network != nil && *s.Network {
		ignore(d.keyAt("sandbox", "network"), "network = true", "a project's file may not open the network to its commands; "+flag+" (--network)")
		s.Network = nil
	}
	if s.WritableRoots != nil {
		ignore(d.keyAt("sandbox", "writable_roots"), "writable_roots", "a project's file may not choose where its commands may write; "+
			flag+" (--add-dir)")
		s.WritableRoots = nil
	}
	if s.DenyRead != nil {
		ignore(d.keyAt("sandbox", "deny_read"), "deny_read", "a project's file may not unhide your credentials; set it in your own config.toml")
		s.DenyRead = nil
	}
	return out
}

// ignoreExtensions takes out of the project's file d what would run
// commands or start programs on the person's behalf, or say what they
// trust: [[hooks.EVENT]] tables, max_stop_continues, [trusted] and
// [mcp_servers] tables.
func (d *decoded) ignoreExtensions() []string {
	var out []string
	if len(d.HookTables) > 0 {
		event := slices.Min(slices.Collect(maps.Keys(d.HookTables)))
		at := d.hookAt(event, 0)
		if at == d.path {
			at = d.at("hooks")
		}
		out = append(out, fmt.Sprintf("%s: hooks are ignored: a project's file may not run commands on your behalf; a project's "+
			"hooks go in .claude/settings.json, which runs only once you trust it, or put them in your own config.toml", at))
		d.HookTables = nil
	}
	if d.MaxStopContinues != nil {
		out = append(out, fmt.Sprintf("%s: max_stop_continues is ignored: how often your Stop hooks may make a run go on is yours "+
			"to say; set it in your own config.toml", d.at("max_stop_continues")))
		d.MaxStopContinues = nil
	}
	if len(d.Trusted) > 0 {
		out = append(out, fmt.Sprintf("%s: [trusted] is ignored: only your own config.toml says which project files you trust",
			d.keyAt("trusted")))
		d.Trusted = nil
	}
	if len(d.MCPTables) > 0 {
		at := d.serverAt(slices.Min(slices.Collect(maps.Keys(d.MCPTables))))
		if at == d.path {
			at = d.at("mcp_servers")
		}
		out = append(out, fmt.Sprintf("%s: mcp_servers is ignored: a project's file may not start programs on your behalf; "+
			"a project's servers go in .mcp.json, which starts only once you trust it, or put them in your own config.toml", at))
		d.MCPTables = nil
		d.drop("mcp_servers")
	}
	return out
}
