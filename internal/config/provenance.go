package config

import (
	"fmt"

	"github.com/rein-agent/rein/internal/permission"
)

// ruleFile is one file's [permissions] as Load applied them.
type ruleFile struct {
	path    string
	project bool
	perms   Permissions
}

// Rules returns the [permissions] rules of the files Load read, the
// person's file's first, then the project's, each with its origin
// ([permission.FromUser] or [permission.FromProject], and the file), so
// that the policy knows whose each is and /permissions can say where it
// came from. The lists are those of Permissions, in the same order.
func (c *Config) Rules() (permission.Rules, error) {
	var out permission.Rules
	for _, f := range c.ruleFiles {
		origin := permission.Origin{Kind: permission.FromUser, File: f.path}
		if f.project {
			origin.Kind = permission.FromProject
		}
		for _, l := range []struct {
			key   string
			texts []string
			to    *[]permission.Rule
		}{{"allow", f.perms.Allow, &out.Allow}, {"ask", f.perms.Ask, &out.Ask}, {"deny", f.perms.Deny, &out.Deny}} {
			rules, err := permission.ParseRules(l.texts)
			if err != nil {
				return permission.Rules{}, fmt.Errorf("config: %s: [permissions] %s: %v", f.path, l.key, err)
			}
			for _, r := range rules {
				*l.to = append(*l.to, r.WithOrigin(origin))
			}
		}
	}
	return out, nil
}
