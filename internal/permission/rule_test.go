package permission

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRule(t *testing.T) {
	type parsed struct{ Tool, Pattern, String string }
	for _, tc := range []struct {
		name, text string
		want       parsed
	}{
		{"bash prefix", "bash(go test:*)", parsed{"bash", "go test:*", "bash(go test:*)"}},
		{"bash exact", "bash(go version)", parsed{"bash", "go version", "bash(go version)"}},
		{"bash any", "bash", parsed{"bash", "", "bash"}},
		{"spaces", "  bash ( go   test :* ) ", parsed{"bash", "go test:*", "bash(go test:*)"}},
		{"quoted words", `bash(git commit -m "wip x":*)`, parsed{"bash", "git commit -m 'wip x':*", "bash(git commit -m 'wip x':*)"}},
		{"needless quotes", `bash("go" 'test':*)`, parsed{"bash", "go test:*", "bash(go test:*)"}},
		{"assignment", "bash(CGO_ENABLED=0 go build:*)", parsed{"bash", "CGO_ENABLED=0 go build:*", "bash(CGO_ENABLED=0 go build:*)"}},
		{"glob argument", "bash(ls *.go)", parsed{"bash", "ls *.go", "bash(ls *.go)"}},
		{"parens in command", "bash(echo '(x)')", parsed{"bash", "echo '(x)'", "bash(echo '(x)')"}},
		{"edit glob", "edit_file(docs/**)", parsed{"edit_file", "docs/**", "edit_file(docs/**)"}},
		{"write glob", "write_file(src/*.go)", parsed{"write_file", "src/*.go", "write_file(src/*.go)"}},
		{"read glob", "read_file(**/*.md)", parsed{"read_file", "**/*.md", "read_file(**/*.md)"}},
		{"dot slash cleaned", "edit_file(./docs/**)", parsed{"edit_file", "docs/**", "edit_file(docs/**)"}},
		{"absolute", "read_file(/etc/hosts)", parsed{"read_file", "/etc/hosts", "read_file(/etc/hosts)"}},
		{"list_dir", "list_dir", parsed{"list_dir", "", "list_dir"}},
		{"glob tool", "glob", parsed{"glob", "", "glob"}},
		{"grep tool", "grep", parsed{"grep", "", "grep"}},
		{"other tool", "mcp_fetch", parsed{"mcp_fetch", "", "mcp_fetch"}},
		{"tools by prefix", "mcp__github__*", parsed{"mcp__github__*", "", "mcp__github__*"}},
		{"longest name", strings.Repeat("a", 64), parsed{strings.Repeat("a", 64), "", strings.Repeat("a", 64)}},
		{"longest prefix", "mcp__" + strings.Repeat("a", 58) + "*", parsed{"mcp__" + strings.Repeat("a", 58) + "*", "", "mcp__" + strings.Repeat("a", 58) + "*"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseRule(tc.text)
			if err != nil {
				t.Fatalf("ParseRule(%q) error: %v", tc.text, err)
			}
			if d := cmp.Diff(tc.want, parsed{r.Tool(), r.Pattern(), r.String()}); d != "" {
				t.Errorf("ParseRule(%q) mismatch (-want +got):\n%s", tc.text, d)
			}
			again, err := ParseRule(r.String())
			if err != nil || !again.Equal(r) || again.String() != r.String() {
				t.Errorf("ParseRule(%q).String() = %q does not round-trip: %v, %v", tc.text, r.String(), again, err)
			}
			if d := cmp.Diff(r.words, again.words); d != "" {
				t.Errorf("round-trip words (-first +again):\n%s", d)
			}
		})
	}
}

func TestParseRuleErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "  ", "empty rule"},
		{"no closing paren", "bash(go test:*", "missing the closing ')'"},
		{"stray paren", "bash)", "')' without '('"},
		{"bad tool name", "run tests(x)", `tool name "run tests"`},
		{"star inside a name", "mcp*x", `tool name "mcp*x"`},
		{"name too long", strings.Repeat("a", 65), "tool name"},
		{"prefix too long", "mcp__" + strings.Repeat("a", 59) + "*", "tool name"},
		{"wrong case", "Bash(go test:*)", `did you mean "bash"`},
		{"empty pattern", "bash()", "empty pattern"},
		{"empty command", "bash(:*)", "empty command"},
		{"list", "bash(go test && rm x:*)", "not one simple command"},
		{"pipeline", "bash(ls | sh)", "not one simple command"},
		{"redirect", "bash(echo > x)", "not one simple command"},
		{"unparseable", "bash(echo 'x)", "cannot read"},
		{"variable", "bash($CMD:*)", "run-time values"},
		{"glob name", "bash(r*:*)", "must be a plain word"},
		{"lone star", "bash(go test *)", "write go test:*"},
		{"bad glob", "edit_file(docs/[)", "not a valid glob pattern"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseRule(tc.text)
			if err == nil {
				t.Fatalf("ParseRule(%q) = nil error, want one mentioning %q", tc.text, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "permission: ") {
				t.Errorf("ParseRule(%q) error = %q, want it to start with permission: and mention %q", tc.text, err, tc.want)
			}
		})
	}
}

func TestZeroRule(t *testing.T) {
	var r Rule
	if !r.IsZero() || r.String() != "" {
		t.Errorf("zero Rule: IsZero %v, String %q", r.IsZero(), r.String())
	}
	ws := mustWorkspace(t, t.TempDir())
	if _, err := New(Default, Rules{Allow: []Rule{{}}}, ws); err == nil || !strings.Contains(err.Error(), "allow rule 1 is empty") {
		t.Errorf("New with a zero rule: error = %v", err)
	}
}

func TestParseModeAndNew(t *testing.T) {
	for _, s := range []string{"default", "accept-edits", "plan", "yolo", " YOLO "} {
		if _, err := ParseMode(s); err != nil {
			t.Errorf("ParseMode(%q) error: %v", s, err)
		}
	}
	_, err := ParseMode("acceptEdits")
	if err == nil || !strings.Contains(err.Error(), "default, accept-edits, plan, yolo") {
		t.Errorf("ParseMode(acceptEdits) error = %v, want the list of modes", err)
	}
	ws := mustWorkspace(t, t.TempDir())
	if _, err := New("careful", Rules{}, ws); err == nil || !strings.Contains(err.Error(), "want one of") {
		t.Errorf("New(careful) error = %v", err)
	}
	if _, err := New(Default, Rules{}, nil); err == nil {
		t.Error("New without a workspace: nil error")
	}
	p, err := New("", Rules{}, ws)
	if err != nil || p.Mode() != Default {
		t.Errorf("New(\"\") = %v, %v; want the default mode", p, err)
	}
}
