package config

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/permission"
)

// problem is a value of a file, of the right type, that rein cannot use:
// where it is set, what the error of the person's file says of it, what
// the warning of a project's file says (which ignores it), and how to
// leave it out.
type problem struct {
	at      string
	err     string // "max_turns is -1; it must be 1 or more (0 means the default)"
	ignored string // "max_turns is ignored: it is -1, and it must be 1 or more (0 means the default)"
	drop    func()
}

// problems returns the values of d rein cannot use, each with what to say
// of it, in the order validate checks them.
func (d *decoded) problems() []problem {
	var out []problem
	add := func(at, err, ignored string, drop func()) {
		out = append(out, problem{at: at, err: err, ignored: ignored, drop: drop})
	}
	for _, v := range []struct {
		key string
		n   *float64
	}{{"compact_at", &d.CompactAt}, {"max_cost", &d.MaxCost}, {"first_byte_timeout", &d.FirstByteTimeout}} {
		if d.defines(v.key) && (math.IsNaN(*v.n) || math.IsInf(*v.n, 0)) {
			add(d.at(v.key), fmt.Sprintf("%s is %v; it must be a finite number", v.key, *v.n),
				fmt.Sprintf("%s is ignored: it is %v, and it must be a finite number", v.key, *v.n),
				func() { *v.n = 0; d.drop(v.key) })
		}
	}
	for _, fb := range d.Fallback {
		if strings.TrimSpace(fb) == "" || strings.HasPrefix(fb, ":") {
			add(d.at("fallback"), fmt.Sprintf("fallback entry %q: want \"provider\" or \"provider:model\"", fb),
				fmt.Sprintf("fallback entry %q is ignored: it wants \"provider\" or \"provider:model\"", fb),
				func() {
					d.Fallback = slices.DeleteFunc(d.Fallback, func(s string) bool { return s == fb })
					if len(d.Fallback) == 0 {
						d.drop("fallback")
					}
				})
		}
	}
	d.permissionProblems(add)
	switch strings.TrimSpace(d.Sandbox.Mode) {
	case "", "workspace-write", "read-only", "off":
	default:
		add(d.keyAt("sandbox", "mode"), fmt.Sprintf("sandbox mode %q: want workspace-write, read-only or off", d.Sandbox.Mode),
			fmt.Sprintf("sandbox mode %q is ignored: it wants workspace-write, read-only or off", d.Sandbox.Mode),
			func() { d.Sandbox.Mode = "" })
	}
	if d.MaxTurns < 0 {
		add(d.at("max_turns"), fmt.Sprintf("max_turns is %d; it must be 1 or more (0 means the default)", d.MaxTurns),
			fmt.Sprintf("max_turns is ignored: it is %d, and it must be 1 or more (0 means the default)", d.MaxTurns),
			func() { d.MaxTurns = 0 })
	}
	if d.MaxParallelAgents < 0 || d.MaxParallelAgents > 8 {
		add(d.at("max_parallel_agents"), fmt.Sprintf("max_parallel_agents is %d; it must be 1 to 8 (0 means the default, 4)", d.MaxParallelAgents),
			fmt.Sprintf("max_parallel_agents is ignored: it is %d, and it must be 1 to 8 (0 means the default, 4)", d.MaxParallelAgents),
			func() { d.MaxParallelAgents = 0 })
	}
	if d.MaxDepth < 0 || d.MaxDepth > 4 {
		add(d.at("max_depth"), fmt.Sprintf("max_depth is %d; it must be 1 to 4 (0 means the default, 1: children call no task)", d.MaxDepth),
			fmt.Sprintf("max_depth is ignored: it is %d, and it must be 1 to 4 (0 means the default, 1)", d.MaxDepth),
			func() { d.MaxDepth = 0 })
	}
	d.checkpointProblems(add)
	if d.MaxArtifactBytes < 0 {
		add(d.at("max_artifact_bytes"), fmt.Sprintf("max_artifact_bytes is %d; it must be 1 or more (0 means the default, 1 GiB)", d.MaxArtifactBytes),
			fmt.Sprintf("max_artifact_bytes is ignored: it is %d, and it must be 1 or more (0 means the default, 1 GiB)", d.MaxArtifactBytes),
			func() { d.MaxArtifactBytes = 0 })
	}
	if d.MCPMaxMessageBytes < 0 {
		add(d.at("mcp_max_message_bytes"), fmt.Sprintf("mcp_max_message_bytes is %d; it must be 1 or more (0 means the default, 16 MiB)", d.MCPMaxMessageBytes),
			fmt.Sprintf("mcp_max_message_bytes is ignored: it is %d, and it must be 1 or more (0 means the default, 16 MiB)", d.MCPMaxMessageBytes),
			func() { d.MCPMaxMessageBytes = 0 })
	}
	if d.defines("max_cost") && d.MaxCost < 0 && !math.IsInf(d.MaxCost, -1) { // -inf: not finite, above
		add(d.at("max_cost"), fmt.Sprintf("max_cost is %v; it must be 0 (no budget) or more, in US dollars", d.MaxCost),
			fmt.Sprintf("max_cost is ignored: it is %v, and it must be 0 (no budget) or more, in US dollars", d.MaxCost),
			func() { d.MaxCost = 0; d.drop("max_cost") })
	}
	switch d.Notify {
	case "", "bell", "osc9", "off":
	default:
		add(d.at("notify"), fmt.Sprintf("notify = %q: want bell, osc9 or off", d.Notify),
			fmt.Sprintf("notify = %q is ignored: it wants bell, osc9 or off", d.Notify),
			func() { d.Notify = "" })
	}
	return out
}

// permissionProblems is problems' part for the permission mode and the
// [permissions] rules.
func (d *decoded) permissionProblems(add func(at, err, ignored string, drop func())) {
	if d.PermissionMode != "" {
		if _, err := permission.ParseMode(d.PermissionMode); err != nil {
			var modes []string
			for _, m := range permission.Modes() {
				modes = append(modes, string(m))
			}
			add(d.at("permission_mode"), fmt.Sprintf("permission_mode: %v", err),
				fmt.Sprintf("permission_mode is ignored: it is %q, and it wants one of %s", d.PermissionMode, strings.Join(modes, ", ")),
				func() { d.PermissionMode = "" })
		}
	}
	for _, l := range []struct {
		key   string
		rules *[]string
	}{{"allow", &d.Permissions.Allow}, {"ask", &d.Permissions.Ask}, {"deny", &d.Permissions.Deny}} {
		for _, text := range *l.rules {
			if _, err := permission.ParseRule(text); err != nil {
				add(d.at(l.key), fmt.Sprintf("[permissions] %s: %v", l.key, err),
					fmt.Sprintf("%s rule %q is ignored: %s", l.key, text, strings.TrimPrefix(err.Error(), "permission: ")),
					func() { *l.rules = slices.DeleteFunc(*l.rules, func(s string) bool { return s == text }) })
			}
		}
	}
}

// ignoreInvalid takes out of the project's file d each value rein cannot
// use (see problems), and returns a warning for each, naming the key, the
// file and its line, what the file holds and what is wanted: a cloned
// repository's mistake is no reason to refuse to start.
func (d *decoded) ignoreInvalid() []string {
	ps := d.problems()
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.at+": "+p.ignored)
		p.drop()
	}
	return out
}

// checkpointProblems adds, through add, the problems of the checkpoints'
// settings.
func (d *decoded) checkpointProblems(add func(at, err, ignored string, drop func())) {
	if d.RewindPoints < 0 || d.RewindPoints > 10000 {
		add(d.at("rewind_points"), fmt.Sprintf("rewind_points is %d; it must be 1 to 10000 (0 means the default, 100)", d.RewindPoints),
			fmt.Sprintf("rewind_points is ignored: it is %d, and it must be 1 to 10000 (0 means the default, 100)", d.RewindPoints),
			func() { d.RewindPoints = 0 })
	}
	if d.CheckpointIgnoredBytes < 0 {
		add(d.at("checkpoint_ignored_bytes"), fmt.Sprintf("checkpoint_ignored_bytes is %d; it must be 1 or more (0 means the default, 50 MB)", d.CheckpointIgnoredBytes),
			fmt.Sprintf("checkpoint_ignored_bytes is ignored: it is %d, and it must be 1 or more (0 means the default, 50 MB)", d.CheckpointIgnoredBytes),
			func() { d.CheckpointIgnoredBytes = 0 })
	}
}
