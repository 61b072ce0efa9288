package permission

import "github.com/rein-agent/rein/internal/shell"

// analyzeBash reads script with [shell.Parse]: every simple command
// anywhere in it, the files its redirections write, and what cannot be
// checked. A script that does not parse is opaque, and nothing opaque is
// ever allowed by a rule.
func analyzeBash(script string) *shell.Script {
	a, _ := shell.Parse(script) // the error is in a.Opaque too
	return a
}
