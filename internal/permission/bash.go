package permission

import (
	"regexp"
	"sync"

	"github.com/rein-agent/rein/internal/shell"
)

// analyzeBash reads script with [shell.Parse]: every simple command
// anywhere in it, the files its redirections write, and what cannot be
// checked. A script that does not parse is opaque, and nothing opaque is
// ever allowed by a rule.
func analyzeBash(script string) *shell.Script {
	a, _ := shell.Parse(script) // the error is in a.Opaque too
	return a
}

// lazyRegexp is a regular expression compiled on first use, so that
// starting rein (rein version) does not pay for the ones it never needs.
type lazyRegexp string

var compiled sync.Map // lazyRegexp -> *regexp.Regexp

// MatchString reports whether s matches the expression.
func (l lazyRegexp) MatchString(s string) bool {
	if re, ok := compiled.Load(l); ok {
		return re.(*regexp.Regexp).MatchString(s)
	}
	re, _ := compiled.LoadOrStore(l, regexp.MustCompile(string(l)))
	return re.(*regexp.Regexp).MatchString(s)
}
