package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	project := filepath.Join(t.TempDir(), "project")
	user := filepath.Join(t.TempDir(), "user")
	write(t, filepath.Join(project, "review.md"), "---\ndescription: Review a file\nargument-hint: \"<file>\"\nallowed-tools: read_file\n---\n\nReview $ARGUMENTS carefully.\n")
	write(t, filepath.Join(project, "git", "commit.md"), "# Commit the staged changes\n\nWrite a commit message for $1.\n")
	write(t, filepath.Join(project, "Bad Name.md"), "x")
	write(t, filepath.Join(project, "help.md"), "not the built-in")
	write(t, filepath.Join(project, "big.md"), strings.Repeat("x", MaxFileSize+1))
	write(t, filepath.Join(project, "open.md"), "---\ndescription: never closed\n")
	write(t, filepath.Join(project, "notes.txt"), "not a command")
	write(t, filepath.Join(user, "review.md"), "the user's review")
	write(t, filepath.Join(user, "deploy.md"), "---\r\ndescription: 'Deploy it'\r\n---\r\nDeploy to $1.\r\n")

	builtins := []Command{{Name: "quit", Description: "Leave", Builtin: true}, {Name: "help", Description: "Help", Builtin: true}}
	got, errs := Load(builtins, project, user, filepath.Join(t.TempDir(), "missing"))
	want := []Command{
		{Name: "help", Description: "Help", Builtin: true},
		{Name: "quit", Description: "Leave", Builtin: true},
		{Name: "deploy", Description: "Deploy it", Template: "Deploy to $1.", Source: filepath.Join(user, "deploy.md")},
		{Name: "git:commit", Description: "Commit the staged changes", Template: "# Commit the staged changes\n\nWrite a commit message for $1.", Source: filepath.Join(project, "git", "commit.md")},
		{Name: "review", Description: "Review a file", ArgumentHint: "<file>", Template: "Review $ARGUMENTS carefully.", Source: filepath.Join(project, "review.md")},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Load() mismatch (-want +got):\n%s", d)
	}
	var msgs []string
	for _, err := range errs {
		msgs = append(msgs, err.Error())
	}
	for _, frag := range []string{"Bad Name.md: the name /Bad Name may hold only", "help.md: /help is a built-in command", "big.md is 65537 bytes", "open.md: the front matter opened by --- is never closed"} {
		found := false
		for _, m := range msgs {
			found = found || strings.Contains(m, frag)
		}
		if !found {
			t.Errorf("Load() errors %q: none says %q", msgs, frag)
		}
	}
	if len(errs) != 4 {
		t.Errorf("Load() gave %d errors, want 4: %q", len(errs), msgs)
	}
}

func TestLoadWithNoDirectories(t *testing.T) {
	got, errs := Load(nil, filepath.Join(t.TempDir(), "none"))
	if len(got) != 0 || len(errs) != 0 {
		t.Errorf("Load(missing dir) = %v, %v; want nothing", got, errs)
	}
}

func TestDirs(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	want := []string{filepath.Join("/w", ".rein", "commands"), filepath.Join(cfg, "rein", "commands")}
	if d := cmp.Diff(want, Dirs("/w")); d != "" {
		t.Errorf("Dirs() mismatch (-want +got):\n%s", d)
	}
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", "relative/ignored")
	t.Setenv("HOME", home)
	want = []string{filepath.Join("/w", ".rein", "commands"), filepath.Join(home, ".config", "rein", "commands")}
	if d := cmp.Diff(want, Dirs("/w")); d != "" {
		t.Errorf("Dirs() with a relative XDG_CONFIG_HOME mismatch (-want +got):\n%s", d)
	}
}

func TestExpand(t *testing.T) {
	tests := []struct {
		name, template, args, want string
	}{
		{"arguments", "Review $ARGUMENTS now.", "  main.go and util.go ", "Review main.go and util.go now."},
		{"positional", "from $1 to $2", `"a b" c`, "from a b to c"},
		{"missing positional is empty", "[$1][$3]", "x", "[x][]"},
		{"single quotes are literal", "$1|$2", `'it''s' "say \"hi\""`, `its|say "hi"`},
		{"backslash escapes a space", "$1", `a\ b`, "a b"},
		{"what the arguments hold is not expanded", "$ARGUMENTS / $1", "$1 $ARGUMENTS", "$1 $ARGUMENTS / $1"},
		{"a dollar that is no placeholder stays", "cost $5 is $x and $", "", "cost  is $x and $"},
		{"no placeholder appends the arguments", "Fix the tests.", "only the unit ones", "Fix the tests.\n\nARGUMENTS: only the unit ones"},
		{"no placeholder, no arguments", "Fix the tests.", "  ", "Fix the tests."},
		{"nine positionals", "$9$1", "1 2 3 4 5 6 7 8 9", "91"},
		{"unclosed quote runs to the end", "<$1>", `"a b`, "<a b>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Expand(tt.template, tt.args); got != tt.want {
				t.Errorf("Expand(%q, %q) = %q, want %q", tt.template, tt.args, got, tt.want)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  a  b\tc\n", []string{"a", "b", "c"}},
		{`"" x`, []string{"", "x"}},
		{`a"b c"d`, []string{"ab cd"}},
		{`'a\b'`, []string{`a\b`}},
		{`"a\\b\n"`, []string{`a\b\n`}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if d := cmp.Diff(tt.want, Split(tt.in)); d != "" {
				t.Errorf("Split(%q) mismatch (-want +got):\n%s", tt.in, d)
			}
		})
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		line, name, args string
		ok               bool
	}{
		{"/help", "help", "", true},
		{"/review  main.go  now ", "review", "main.go  now", true},
		{"/git:commit -m 'x'", "git:commit", "-m 'x'", true},
		{"/plan\nstep one\nstep two", "plan", "step one\nstep two", true},
		{"//text", "", "/text", false},
		{"// a comment", "", "/ a comment", false},
		{"hello /help", "", "hello /help", false},
		{"/usr/bin/env is odd", "", "/usr/bin/env is odd", false},
		{"/ x", "", "/ x", false},
		{"/", "", "/", false},
		{"/Help", "", "/Help", false},
		{" /help", "", " /help", false},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			name, args, ok := Parse(tt.line)
			if name != tt.name || args != tt.args || ok != tt.ok {
				t.Errorf("Parse(%q) = %q, %q, %v; want %q, %q, %v", tt.line, name, args, ok, tt.name, tt.args, tt.ok)
			}
		})
	}
}
