package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/permission"
)

// loadRules reads the rules of the person's file at path back, as rein
// does: config.Load, then the lists parsed. (A project's file has what it
// may not set, or what rein cannot read, ignored instead.)
func loadRules(t *testing.T, path string) (permission.Rules, error) {
	t.Helper()
	c, err := Load(Paths{User: path})
	if err != nil {
		return permission.Rules{}, err
	}
	var rs permission.Rules
	for _, l := range []struct {
		texts []string
		out   *[]permission.Rule
	}{{c.Permissions.Allow, &rs.Allow}, {c.Permissions.Ask, &rs.Ask}, {c.Permissions.Deny, &rs.Deny}} {
		if *l.out, err = permission.ParseRules(l.texts); err != nil {
			return permission.Rules{}, err
		}
	}
	return rs, nil
}

// The [permissions] lists of a file read back as rein reads
// them (config.Load, then the rules parsed): what permission.LoadRules
// promised before it went, since nothing in rein called it.
func TestPermissionsReadBack(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text string
		want       map[string][]string
		err        string
	}{
		{"all lists", "provider = \"openai\"\n[permissions]\nallow = [\"bash(go test:*)\", \"edit_file(docs/**)\"]\nask = [\"bash(git push:*)\"]\ndeny = [\"bash(rm:*)\"]\n",
			map[string][]string{"allow": {"bash(go test:*)", "edit_file(docs/**)"}, "ask": {"bash(git push:*)"}, "deny": {"bash(rm:*)"}}, ""},
		{"no table", "provider = \"openai\"\n", map[string][]string{}, ""},
		{"canonical form", "[permissions]\nallow = [\"bash( go  test :* )\"]\n", map[string][]string{"allow": {"bash(go test:*)"}}, ""},
		{"unknown key ignored", "[permissions]\ndefault_mode = \"plan\"\n", map[string][]string{}, ""},
		{"broken toml", "provider = \"openai\nallow = 1\n", nil, "config.toml:1:"},
		{"not a list", "[permissions]\nallow = \"bash\"\n", nil, "config.toml"},
		{"bad rule", "[permissions]\ndeny = [\"bash(\"]\n", nil, "config.toml:2: [permissions] deny: permission: rule \"bash(\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, filepath.Join(dir, tc.name, "config.toml"), tc.text)
			rs, err := loadRules(t, path)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "config: ") {
					t.Errorf("error = %v, want one mentioning %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, rulesText(rs)); d != "" {
				t.Errorf("rules (-want +got):\n%s", d)
			}
		})
	}
}
