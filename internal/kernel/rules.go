package kernel

import (
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
)

// Rule is a permission rule in force and where it came from, for a
// person's /permissions.
type Rule struct {
	// Decision is the rule's list: allow, ask or deny.
	Decision contract.Decision
	// Rule is the rule as written: bash(go test:*).
	Rule string
	// Origin is who gave it: "user" (the person's own config.toml),
	// "project" (the project's .rein/config.toml), "answers" (an "always"
	// or "never" answer, kept in the person's projects.toml), "flag"
	// (--allow, --deny); "" for a rule rein made itself (the demo's).
	Origin string
	// File is the file that holds it; "" for a flag.
	File string
}

// Rules returns the permission rules in force, with where each came from:
// the deny rules first, then the ask rules, then the allow rules (deny
// wins, then ask, then allow), each list in the order the policy reads it,
// the rules answers saved during the session included. It returns nil
// when the kernel has no tool runtime. It is safe to call from any
// goroutine, a run in progress included.
func (k *Kernel) Rules() []Rule {
	if k.opts.Tools == nil {
		return nil
	}
	rs := k.opts.Tools.Policy().Rules()
	var out []Rule
	for _, l := range []struct {
		d     contract.Decision
		rules []permission.Rule
	}{{contract.Deny, rs.Deny}, {contract.Ask, rs.Ask}, {contract.Allow, rs.Allow}} {
		for _, r := range l.rules {
			o := r.Origin()
			out = append(out, Rule{Decision: l.d, Rule: r.String(), Origin: string(o.Kind), File: o.File})
		}
	}
	return out
}

// From says, for people, where r came from: its file (an answer's marked
// so), a flag, or rein itself.
func (r Rule) From() string {
	switch {
	case r.Origin == "flag":
		return "a flag (--allow, --deny)"
	case r.Origin == "answers" && r.File == "":
		return "your answer (this session only)"
	case r.Origin == "answers":
		return r.File + " (your answers)"
	case r.File == "":
		return "rein's own (this session)"
	}
	return r.File
}
