package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/workspace"
)

func rulesText(rs permission.Rules) map[string][]string {
	out := map[string][]string{}
	for name, list := range map[string][]permission.Rule{"allow": rs.Allow, "ask": rs.Ask, "deny": rs.Deny} {
		for _, r := range list {
			out[name] = append(out[name], r.String())
		}
	}
	return out
}

// loadRules reads the rules of the project's file at path back, as rein
// does: config.Load, then the lists parsed.
func loadRules(t *testing.T, path string) (permission.Rules, error) {
	t.Helper()
	c, err := Load(Paths{Project: path})
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

func mustRules(t testing.TB, texts ...string) []permission.Rule {
	t.Helper()
	rs, err := permission.ParseRules(texts)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// The text edits keep every other byte of the file.
func TestSaveRuleEditsText(t *testing.T) {
	goTest := "bash(go test:*)"
	for _, tc := range []struct {
		name, before, list, rule, after string
	}{
		{"missing file", "", "allow", goTest,
			"[permissions]\nallow = [\"bash(go test:*)\"]\n"},
		{"no table", "# my settings\nprovider = \"openai\" # the vendor\n\n[tools]\nbash = { timeout = 60 }\n", "allow", goTest,
			"# my settings\nprovider = \"openai\" # the vendor\n\n[tools]\nbash = { timeout = 60 }\n\n[permissions]\nallow = [\"bash(go test:*)\"]\n"},
		{"no final newline", "model = \"x\"", "deny", "bash(rm:*)",
			"model = \"x\"\n\n[permissions]\ndeny = [\"bash(rm:*)\"]\n"},
		{"table without the list", "[permissions]\ndeny = [\"bash(rm:*)\"] # never\n\n[other]\nx = 1\n", "allow", goTest,
			"[permissions]\ndeny = [\"bash(rm:*)\"] # never\nallow = [\"bash(go test:*)\"]\n\n[other]\nx = 1\n"},
		{"empty table", "[permissions]\n[other]\nx = 1\n", "allow", goTest,
			"[permissions]\nallow = [\"bash(go test:*)\"]\n[other]\nx = 1\n"},
		{"empty table at the end without newline", "x = 1\n[permissions]", "allow", goTest,
			"x = 1\n[permissions]\nallow = [\"bash(go test:*)\"]\n"},
		{"one line", "[permissions]\nallow = [\"bash(ls:*)\"] # ok\n", "allow", goTest,
			"[permissions]\nallow = [\"bash(ls:*)\", \"bash(go test:*)\"] # ok\n"},
		{"one line trailing comma", "[permissions]\nallow = ['bash(ls:*)',]\n", "allow", goTest,
			"[permissions]\nallow = ['bash(ls:*)', \"bash(go test:*)\"]\n"},
		{"empty list", "[permissions]\nallow = []\n", "allow", goTest,
			"[permissions]\nallow = [\"bash(go test:*)\"]\n"},
		{"multi-line trailing comma", "[permissions]\nallow = [\n    \"bash(ls:*)\", # listing\n    \"bash(pwd)\",\n]\nz = 2\n", "allow", goTest,
			"[permissions]\nallow = [\n    \"bash(ls:*)\", # listing\n    \"bash(pwd)\",\n    \"bash(go test:*)\",\n]\nz = 2\n"},
		{"multi-line without trailing comma", "[permissions]\nallow = [\n  \"bash(ls:*)\" # listing\n]\n", "allow", goTest,
			"[permissions]\nallow = [\n  \"bash(ls:*)\", # listing\n  \"bash(go test:*)\"\n]\n"},
		{"multi-line closing on last line", "[permissions]\nallow = [\"bash(ls:*)\",\n         \"bash(pwd)\"]\n", "allow", goTest,
			"[permissions]\nallow = [\"bash(ls:*)\",\n         \"bash(pwd)\", \"bash(go test:*)\"]\n"},
		{"brackets in strings and comments", "[permissions] # [x]\nallow = [ \"bash(echo ']' '[':*)\" ] # ]\n[p2]\ns = \"\"\"\n[permissions]\nallow = []\n\"\"\"\n", "allow", goTest,
			"[permissions] # [x]\nallow = [ \"bash(echo ']' '[':*)\", \"bash(go test:*)\" ] # ]\n[p2]\ns = \"\"\"\n[permissions]\nallow = []\n\"\"\"\n"},
		{"quoted header and key", "[ \"permissions\" ]\n'allow' = [\"bash(ls:*)\"]\n", "allow", goTest,
			"[ \"permissions\" ]\n'allow' = [\"bash(ls:*)\", \"bash(go test:*)\"]\n"},
		{"sub-table after", "[permissions]\nallow = [\"bash(ls:*)\"]\n[permissions.extra]\nallow = [\"x\"]\n", "allow", goTest,
			"[permissions]\nallow = [\"bash(ls:*)\", \"bash(go test:*)\"]\n[permissions.extra]\nallow = [\"x\"]\n"},
		{"crlf", "[permissions]\r\nallow = [\r\n  \"bash(ls:*)\",\r\n]\r\n", "allow", goTest,
			"[permissions]\r\nallow = [\r\n  \"bash(ls:*)\",\r\n  \"bash(go test:*)\",\r\n]\r\n"},
		{"rule with double quotes", "", "allow", `bash(git commit -m "x y":*)`,
			"[permissions]\nallow = [\"bash(git commit -m 'x y':*)\"]\n"},
		{"already there", "[permissions]\nallow = [\"bash(go test:*)\"] # keep\n", "allow", goTest,
			"[permissions]\nallow = [\"bash(go test:*)\"] # keep\n"},
		{"already there in another spelling", "[permissions]\nallow = [\"bash( go test :*)\"]\n", "allow", goTest,
			"[permissions]\nallow = [\"bash( go test :*)\"]\n"},
		{"in the other list", "[permissions]\ndeny = [\"bash(go test:*)\"]\n", "allow", goTest,
			"[permissions]\ndeny = [\"bash(go test:*)\"]\nallow = [\"bash(go test:*)\"]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, ".rein", "config.toml")
			if tc.before != "" {
				write(t, file, tc.before)
			}
			r, err := permission.ParseRule(tc.rule)
			if err != nil {
				t.Fatal(err)
			}
			if err := SaveRule(dir, contract.Decision(tc.list), r); err != nil {
				t.Fatalf("SaveRule: %v", err)
			}
			got, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.after, string(got)); d != "" {
				t.Errorf("file after SaveRule (-want +got):\n%s", d)
			}
			rs, err := loadRules(t, file)
			if err != nil {
				t.Fatalf("rules after SaveRule: %v", err)
			}
			found := false
			for _, x := range map[string][]permission.Rule{"allow": rs.Allow, "ask": rs.Ask, "deny": rs.Deny}[tc.list] {
				found = found || x.Equal(r)
			}
			if !found {
				t.Errorf("rules after SaveRule do not list %s in %s: %v", r, tc.list, rulesText(rs))
			}
		})
	}
}

// Layouts the text edit leaves alone are re-encoded: values kept, the rule
// added once.
func TestSaveRuleReencodes(t *testing.T) {
	for _, tc := range []struct {
		name, before string
		want         map[string][]string
	}{
		{"inline table", "x = 1\npermissions = { allow = [\"bash(ls:*)\"] }\n", map[string][]string{"allow": {"bash(ls:*)", "bash(go test:*)"}}},
		{"dotted keys", "permissions.deny = [\"bash(rm:*)\"]\n[other]\ny = \"z\"\n", map[string][]string{"allow": {"bash(go test:*)"}, "deny": {"bash(rm:*)"}}},
		{"dotted list key", "[permissions]\nallow.x = 1\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := write(t, filepath.Join(dir, ".rein", "config.toml"), tc.before)
			err := SaveRule(dir, contract.Allow, mustRules(t, "bash(go test:*)")[0])
			if tc.want == nil {
				if err == nil || !strings.Contains(err.Error(), "permissions.allow is not a list") {
					t.Errorf("SaveRule error = %v, want permissions.allow is not a list", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			rs, err := loadRules(t, file)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, rulesText(rs)); d != "" {
				t.Errorf("rules after SaveRule (-want +got):\n%s", d)
			}
			before, err := decodeMap(tc.before)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			after, err := decodeMap(string(data))
			if err != nil {
				t.Fatal(err)
			}
			delete(before, "permissions")
			delete(after, "permissions")
			if d := cmp.Diff(before, after); d != "" {
				t.Errorf("other values changed (-before +after):\n%s", d)
			}
		})
	}
}

func TestSaveRuleErrors(t *testing.T) {
	r := mustRules(t, "bash(go test:*)")[0]
	for _, tc := range []struct {
		name, before, list string
		rule               permission.Rule
		want               string
	}{
		{"broken file", "provider = \"openai\n", "allow", r, "config.toml:1:"},
		{"permissions not a table", "permissions = 3\n", "allow", r, "permissions is not a table"},
		{"list of numbers", "[permissions]\nallow = [1]\n", "allow", r, "not a string"},
		{"unknown list", "", "maybe", r, `unknown rule list "maybe"`},
		{"zero rule", "", "allow", permission.Rule{}, "empty rule"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, ".rein", "config.toml")
			if tc.before != "" {
				write(t, file, tc.before)
			}
			err := SaveRule(dir, contract.Decision(tc.list), tc.rule)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("SaveRule error = %v, want one mentioning %q", err, tc.want)
			}
			got, _ := os.ReadFile(file) // missing is fine: compared with ""
			if string(got) != tc.before {
				t.Errorf("SaveRule changed the file on error: %q", got)
			}
		})
	}
}

func TestSaveRuleKeepsModeAndLink(t *testing.T) {
	dir := t.TempDir()
	real := write(t, filepath.Join(dir, "shared", "config.toml"), "x = 1\n")
	if err := os.Chmod(real, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "proj", ".rein"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "proj", ".rein", "config.toml")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	if err := SaveRule(filepath.Join(dir, "proj"), contract.Deny, mustRules(t, "bash(rm:*)")[0]); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(filepath.Join(dir, "proj", ".rein", "config.toml"))
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi, err)
	}
	fi, err = os.Stat(real)
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode after SaveRule: %v, %v; want 0640", fi, err)
	}
	data, err := os.ReadFile(real)
	if err != nil || string(data) != "x = 1\n\n[permissions]\ndeny = [\"bash(rm:*)\"]\n" {
		t.Errorf("target after SaveRule: %q, %v", data, err)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "shared"))
	if err != nil || len(entries) != 1 {
		t.Errorf("temporary files left behind: %v, %v", entries, err)
	}
}

// "Always" end to end: the suggested rule is saved, loaded back, and then
// allows the request without asking.
func TestAlwaysRoundTrip(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := permission.New(permission.Default, permission.Rules{}, ws)
	if err != nil {
		t.Fatal(err)
	}
	req := permission.Request{Tool: "bash", Risk: registry.RiskExecute, Input: []byte(`{"command":"go test ./... && go vet ./..."}`)}
	if v := p.Decide(req); v.Decision != "ask" {
		t.Fatalf("before: %+v", v)
	}
	for _, r := range p.SuggestRules(req) {
		if err := SaveRule(dir, contract.Allow, r); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := loadRules(t, filepath.Join(dir, ProjectFile))
	if err != nil {
		t.Fatal(err)
	}
	q, err := permission.New(permission.Default, rs, ws)
	if err != nil {
		t.Fatal(err)
	}
	v := q.Decide(req)
	type decision struct {
		Decision contract.Decision
		By, Rule string
	}
	want := decision{"allow", permission.ByRule, "bash(go test:*), bash(go vet:*)"}
	if d := cmp.Diff(want, decision{v.Decision, v.By, v.Rule}); d != "" || v.Reason == "" {
		t.Errorf("after always (-want +got):\n%s (reason %q)", d, v.Reason)
	}
}

// A rule whose text TOML must quote (quotes, backslashes, control
// characters, non-ASCII) is read back as it was saved, or refused.
func TestSaveRuleQuotes(t *testing.T) {
	for _, text := range []string{
		`bash(echo 'it''s':*)`, `bash(echo "hi":*)`, `bash(printf a\\b:*)`, "bash(printf 'a\tb':*)",
		`bash(echo "it's" \n:*)`, "bash(echo héllo 日本:*)", "bash(echo \x7f:*)", "bash(echo \xff:*)",
	} {
		t.Run(text, func(t *testing.T) {
			r, err := permission.ParseRule(text)
			if err != nil {
				t.Skipf("not a rule: %v", err)
			}
			dir := t.TempDir()
			if err := SaveRule(dir, contract.Allow, r); err != nil {
				if _, statErr := os.Stat(filepath.Join(dir, ProjectFile)); statErr == nil {
					t.Errorf("SaveRule refused (%v) but wrote the file", err)
				}
				return
			}
			rs, err := loadRules(t, filepath.Join(dir, ProjectFile))
			if err != nil {
				t.Fatal(err)
			}
			if len(rs.Allow) != 1 || rs.Allow[0].String() != r.String() {
				t.Errorf("read back %v, want [%s]", rulesText(rs), r)
			}
		})
	}
}
