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

func mustRules(t testing.TB, texts ...string) []permission.Rule {
	t.Helper()
	rs, err := permission.ParseRules(texts)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// answersHeader is the table of the project "/p" in an answers file, whose
// answers the tests of the text edits save.
const answersHeader = `[projects."/p".permissions]`

// answersIn is the answers of the project "/p", kept in dir.
func answersIn(dir string) Answers {
	return Answers{File: filepath.Join(dir, AnswersFile), Project: "/p"}
}

// An answer is added to the text of the file, every other byte kept.
func TestAnswersSaveEditsText(t *testing.T) {
	goTest := "bash(go test:*)"
	h := answersHeader
	for _, tc := range []struct {
		name, before, list, rule, after string
	}{
		{"missing file", "", "allow", goTest,
			h + "\nallow = [\"bash(go test:*)\"]\n"},
		{"no table", "# my answers\n[projects.\"/q\".permissions] # the other\nallow = [\"bash(ls)\"]\n", "allow", goTest,
			"# my answers\n[projects.\"/q\".permissions] # the other\nallow = [\"bash(ls)\"]\n\n" + h + "\nallow = [\"bash(go test:*)\"]\n"},
		{"no final newline", "[projects.\"/q\".permissions]\nallow = []", "deny", "bash(rm:*)",
			"[projects.\"/q\".permissions]\nallow = []\n\n" + h + "\ndeny = [\"bash(rm:*)\"]\n"},
		{"table without the list", h + "\ndeny = [\"bash(rm:*)\"] # never\n\n[other]\nx = 1\n", "allow", goTest,
			h + "\ndeny = [\"bash(rm:*)\"] # never\nallow = [\"bash(go test:*)\"]\n\n[other]\nx = 1\n"},
		{"empty table", h + "\n[other]\nx = 1\n", "allow", goTest,
			h + "\nallow = [\"bash(go test:*)\"]\n[other]\nx = 1\n"},
		{"empty table at the end without newline", "x = 1\n" + h, "allow", goTest,
			"x = 1\n" + h + "\nallow = [\"bash(go test:*)\"]\n"},
		{"one line", h + "\nallow = [\"bash(ls:*)\"] # ok\n", "allow", goTest,
			h + "\nallow = [\"bash(ls:*)\", \"bash(go test:*)\"] # ok\n"},
		{"one line trailing comma", h + "\nallow = ['bash(ls:*)',]\n", "allow", goTest,
			h + "\nallow = ['bash(ls:*)', \"bash(go test:*)\"]\n"},
		{"empty list", h + "\nallow = []\n", "allow", goTest,
			h + "\nallow = [\"bash(go test:*)\"]\n"},
		{"multi-line trailing comma", h + "\nallow = [\n    \"bash(ls:*)\", # listing\n    \"bash(pwd)\",\n]\nz = 2\n", "allow", goTest,
			h + "\nallow = [\n    \"bash(ls:*)\", # listing\n    \"bash(pwd)\",\n    \"bash(go test:*)\",\n]\nz = 2\n"},
		{"multi-line without trailing comma", h + "\nallow = [\n  \"bash(ls:*)\" # listing\n]\n", "allow", goTest,
			h + "\nallow = [\n  \"bash(ls:*)\", # listing\n  \"bash(go test:*)\"\n]\n"},
		{"multi-line closing on last line", h + "\nallow = [\"bash(ls:*)\",\n         \"bash(pwd)\"]\n", "allow", goTest,
			h + "\nallow = [\"bash(ls:*)\",\n         \"bash(pwd)\", \"bash(go test:*)\"]\n"},
		{"brackets in strings and comments", h + " # [x]\nallow = [ \"bash(echo ']' '[':*)\" ] # ]\n[p2]\ns = \"\"\"\n" + h + "\nallow = []\n\"\"\"\n", "allow", goTest,
			h + " # [x]\nallow = [ \"bash(echo ']' '[':*)\", \"bash(go test:*)\" ] # ]\n[p2]\ns = \"\"\"\n" + h + "\nallow = []\n\"\"\"\n"},
		{"quoted and spaced answersHeader and key", "[ 'projects' . \"/p\" . \"permissions\" ]\n'allow' = [\"bash(ls:*)\"]\n", "allow", goTest,
			"[ 'projects' . \"/p\" . \"permissions\" ]\n'allow' = [\"bash(ls:*)\", \"bash(go test:*)\"]\n"},
		{"sub-table after", h + "\nallow = [\"bash(ls:*)\"]\n[projects.\"/p\".permissions.extra]\nallow = [\"x\"]\n", "allow", goTest,
			h + "\nallow = [\"bash(ls:*)\", \"bash(go test:*)\"]\n[projects.\"/p\".permissions.extra]\nallow = [\"x\"]\n"},
		{"crlf", h + "\r\nallow = [\r\n  \"bash(ls:*)\",\r\n]\r\n", "allow", goTest,
			h + "\r\nallow = [\r\n  \"bash(ls:*)\",\r\n  \"bash(go test:*)\",\r\n]\r\n"},
		{"rule with double quotes", "", "allow", `bash(git commit -m "x y":*)`,
			h + "\nallow = [\"bash(git commit -m 'x y':*)\"]\n"},
		{"already there", h + "\nallow = [\"bash(go test:*)\"] # keep\n", "allow", goTest,
			h + "\nallow = [\"bash(go test:*)\"] # keep\n"},
		{"already there in another spelling", h + "\nallow = [\"bash( go test :*)\"]\n", "allow", goTest,
			h + "\nallow = [\"bash( go test :*)\"]\n"},
		{"in the other list", h + "\ndeny = [\"bash(go test:*)\"]\n", "allow", goTest,
			h + "\ndeny = [\"bash(go test:*)\"]\nallow = [\"bash(go test:*)\"]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := answersIn(t.TempDir())
			if tc.before != "" {
				write(t, a.File, tc.before)
			}
			r, err := permission.ParseRule(tc.rule)
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Save(contract.Decision(tc.list), r); err != nil {
				t.Fatalf("Save: %v", err)
			}
			got, err := os.ReadFile(a.File)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.after, string(got)); d != "" {
				t.Errorf("file after Save (-want +got):\n%s", d)
			}
			rs, err := a.Load()
			if err != nil {
				t.Fatalf("rules after Save: %v", err)
			}
			found := false
			for _, x := range map[string][]permission.Rule{"allow": rs.Allow, "ask": rs.Ask, "deny": rs.Deny}[tc.list] {
				found = found || x.Equal(r)
			}
			if !found {
				t.Errorf("rules after Save do not list %s in %s: %v", r, tc.list, rulesText(rs))
			}
		})
	}
}

// Layouts the text edit leaves alone are re-encoded: values kept, the rule
// added once.
func TestAnswersSaveReencodes(t *testing.T) {
	for _, tc := range []struct {
		name, before string
		want         map[string][]string
	}{
		{"inline table", "x = 1\n[projects]\n\"/p\" = { permissions = { allow = [\"bash(ls:*)\"] } }\n",
			map[string][]string{"allow": {"bash(ls:*)", "bash(go test:*)"}}},
		{"dotted keys", "projects.\"/p\".permissions.deny = [\"bash(rm:*)\"]\n[other]\ny = \"z\"\n",
			map[string][]string{"allow": {"bash(go test:*)"}, "deny": {"bash(rm:*)"}}},
		{"dotted list key", answersHeader + "\nallow.x = 1\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := answersIn(t.TempDir())
			write(t, a.File, tc.before)
			err := a.Save(contract.Allow, mustRules(t, "bash(go test:*)")[0])
			if tc.want == nil {
				if err == nil || !strings.Contains(err.Error(), `projects."/p".permissions.allow is not a list`) {
					t.Errorf("Save error = %v, want projects.\"/p\".permissions.allow is not a list", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			rs, err := a.Load()
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, rulesText(rs)); d != "" {
				t.Errorf("rules after Save (-want +got):\n%s", d)
			}
			before, err := decodeMap(tc.before)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(a.File)
			if err != nil {
				t.Fatal(err)
			}
			after, err := decodeMap(string(data))
			if err != nil {
				t.Fatal(err)
			}
			delete(before, "projects")
			delete(after, "projects")
			if d := cmp.Diff(before, after); d != "" {
				t.Errorf("other values changed (-before +after):\n%s", d)
			}
		})
	}
}

// What cannot be saved is refused, the file left as it was.
func TestAnswersSaveErrors(t *testing.T) {
	r := mustRules(t, "bash(go test:*)")[0]
	for _, tc := range []struct {
		name, before, list string
		rule               permission.Rule
		want               string
	}{
		{"broken file", "# mine\nx = \"openai\n", "allow", r, AnswersFile + ":2:"},
		{"project not a table", "[projects]\n\"/p\" = 3\n", "allow", r, `projects."/p" is not a table`},
		{"list of numbers", answersHeader + "\nallow = [1]\n", "allow", r, "not a string"},
		{"unknown list", "", "maybe", r, `unknown rule list "maybe"`},
		{"zero rule", "", "allow", permission.Rule{}, "empty rule"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := answersIn(t.TempDir())
			if tc.before != "" {
				write(t, a.File, tc.before)
			}
			err := a.Save(contract.Decision(tc.list), tc.rule)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Save error = %v, want one mentioning %q", err, tc.want)
			}
			got, _ := os.ReadFile(a.File) // missing is fine: compared with ""
			if string(got) != tc.before {
				t.Errorf("Save changed the file on error: %q", got)
			}
		})
	}
}

// A link to a shared file is followed: the shared file gets the rule, its
// mode kept, and nothing is left beside it.
func TestAnswersSaveKeepsModeAndLink(t *testing.T) {
	dir := t.TempDir()
	real := write(t, filepath.Join(dir, "shared", "answers.toml"), "x = 1\n")
	if err := os.Chmod(real, 0o640); err != nil {
		t.Fatal(err)
	}
	a := answersIn(filepath.Join(dir, "rein"))
	if err := os.MkdirAll(filepath.Dir(a.File), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, a.File); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	if err := a.Save(contract.Deny, mustRules(t, "bash(rm:*)")[0]); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(a.File)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi, err)
	}
	fi, err = os.Stat(real)
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode after Save: %v, %v; want 0640", fi, err)
	}
	data, err := os.ReadFile(real)
	if err != nil || string(data) != "x = 1\n\n"+answersHeader+"\ndeny = [\"bash(rm:*)\"]\n" {
		t.Errorf("target after Save: %q, %v", data, err)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "shared"))
	if err != nil || len(entries) != 1 {
		t.Errorf("temporary files left behind: %v, %v", entries, err)
	}
}

// "Always" end to end: the suggested rules are saved, loaded back, and
// then allow the request without asking.
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
	a := Answers{File: filepath.Join(t.TempDir(), AnswersFile), Project: dir}
	for _, r := range p.SuggestRules(req) {
		if err := a.Save(contract.Allow, r); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := a.Load()
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
func TestAnswersSaveQuotes(t *testing.T) {
	for _, text := range []string{
		`bash(echo 'it''s':*)`, `bash(echo "hi":*)`, `bash(printf a\\b:*)`, "bash(printf 'a\tb':*)",
		`bash(echo "it's" \n:*)`, "bash(echo héllo 日本:*)", "bash(echo \x7f:*)", "bash(echo \xff:*)",
	} {
		t.Run(text, func(t *testing.T) {
			r, err := permission.ParseRule(text)
			if err != nil {
				t.Skipf("not a rule: %v", err)
			}
			a := answersIn(t.TempDir())
			if err := a.Save(contract.Allow, r); err != nil {
				if _, statErr := os.Stat(a.File); statErr == nil {
					t.Errorf("Save refused (%v) but wrote the file", err)
				}
				return
			}
			rs, err := a.Load()
			if err != nil {
				t.Fatal(err)
			}
			if len(rs.Allow) != 1 || rs.Allow[0].String() != r.String() {
				t.Errorf("read back %v, want [%s]", rulesText(rs), r)
			}
		})
	}
}
