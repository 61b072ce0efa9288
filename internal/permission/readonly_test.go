package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// readOnlyCommands are issue 25's read-only commands: default mode runs
// each without asking, in a sandbox.
var readOnlyCommands = []string{
	"ls -la", "cat README.md", "head -n 3 README.md", "tail -n 3 README.md", "wc -l README.md", "echo hello",
	"printf '%s\\n' a b", "seq 5", "pwd", "which ls", "date", "grep -n hello README.md", "rg hello",
	"find . -name '*.md'", "git status", "git diff", "git log --oneline", "git show HEAD", "sort README.md",
	"uniq README.md", "cut -c1-3 README.md", "echo abc | tr a-z A-Z", "jq -n 1", "diff README.md README.md",
	"stat README.md", "file README.md", "du -sh .", "df -h",
}

// notReadOnly are writers, runners and network programs: each still asks.
var notReadOnly = []string{
	"touch m1", "rm -rf build", "mkdir d", "cp README.md b", "mv README.md b", "echo x > notes.txt",
	"cat README.md | tee notes.txt", "sed -i s/a/b/ README.md", "sort -o out README.md", "find . -delete",
	"go test ./...", "make", "npm test", "python3 -c 1", "sh -c ls", "awk '{print}' README.md",
	"xargs cat", "env", "find . -exec cat {} +", "curl http://127.0.0.1:9/", "wget http://127.0.0.1:9/",
	"ssh host ls", "git fetch", "git push", "git commit -m x", "rm -rf build && echo cleaned",
}

func TestReadOnlyCommandsRunInTheSandbox(t *testing.T) {
	ws, _ := hostileWorkspace(t)
	def, err := New(Default, Rules{}, ws)
	if err != nil {
		t.Fatal(err)
	}
	box := def.WithContainment(Containment{Sandboxed: true})
	network := def.WithContainment(Containment{Sandboxed: true, Network: true})
	for _, command := range readOnlyCommands {
		for name, p := range map[string]*Policy{"sandbox": box, "sandbox with network": network} {
			v := p.Decide(bashReq(t, command))
			if v.Decision != contract.Allow || v.By != ByMode || !strings.Contains(v.Reason, "a read-only command") {
				t.Errorf("%s: Decide(%q) = %+v, want allowed by the mode as a read-only command", name, command, v)
			}
		}
		// Without a sandbox, nothing would hide the credential stores
		// from what a link or a tree leads to: it asks, and says why.
		if v := def.Decide(bashReq(t, command)); v.Decision != contract.Ask || !strings.Contains(v.Reason, "read-only command") ||
			!strings.Contains(v.Reason, "sandbox") {
			t.Errorf("no sandbox: Decide(%q) = %+v, want an ask that says a read-only command needs the sandbox", command, v)
		}
	}
	for _, command := range notReadOnly {
		if v := box.Decide(bashReq(t, command)); v.Decision != contract.Ask || strings.Contains(v.Reason, "read-only") {
			t.Errorf("Decide(%q) = %+v, want an ask", command, v)
		}
	}
	// What reads outside the workspace, or what it cannot see, asks.
	for _, command := range []string{"echo $(</etc/passwd)", "cat < /etc/hostname", "find -files0-from list", "ls ~",
		"cat $HOME/.bashrc", "cd .. && cat x", "diff -r . /etc", "sed -n 'R /etc/passwd' README.md", "jq --rawfile a /etc/passwd -n 1",
		"git diff --no-index /etc/hostname README.md", "grep -r x /", "ls out/"} {
		if v := box.Decide(bashReq(t, command)); v.Decision != contract.Ask || strings.Contains(v.Reason, "a read-only command") {
			t.Errorf("Decide(%q) = %+v, want an ask", command, v)
		}
	}
	// Rules still come first: an ask rule asks, a deny rule denies.
	p, _ := New(Default, Rules{Ask: mustRules(t, "bash(git log:*)"), Deny: mustRules(t, "bash(cat:*)")}, ws)
	p = p.WithContainment(Containment{Sandboxed: true})
	if v := p.Decide(bashReq(t, "git log")); v.Decision != contract.Ask || v.By != ByRule {
		t.Errorf("ask rule: %+v", v)
	}
	if v := p.Decide(bashReq(t, "cat README.md")); v.Decision != contract.Deny {
		t.Errorf("deny rule: %+v", v)
	}
	// Plan mode stays a ceiling: bash is not a read there.
	plan, _ := New(Plan, Rules{}, ws)
	if v := plan.WithContainment(Containment{Sandboxed: true}).Decide(bashReq(t, "ls")); v.Decision != contract.Deny {
		t.Errorf("plan: %+v", v)
	}
}

// rein's own directories (the person's configuration, the sessions) are
// protected as a workspace's .rein is: in a workspace that holds them (the
// home directory), a write there asks whatever the mode and rules, yolo
// aside (which skips every question but the sandbox's).
func TestOwnDirectoriesAreProtected(t *testing.T) {
	ws, _ := hostileWorkspace(t)
	own := filepath.Join(ws.Root(), ".config", "rein")
	if err := os.MkdirAll(own, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := New(AcceptEdits, Rules{Allow: mustRules(t, "write_file")}, ws)
	if err != nil {
		t.Fatal(err)
	}
	p = p.WithOwn([]string{own})
	if v := p.Decide(fileReq(t, "write_file", filepath.Join(own, "config.toml"))); v.Decision != contract.Ask || !v.Firm ||
		!strings.Contains(v.Reason, "rein's own configuration") {
		t.Errorf("a write to rein's configuration = %+v, want a firm ask", v)
	}
	if v := p.Decide(fileReq(t, "write_file", filepath.Join(ws.Root(), "notes.txt"))); v.Decision != contract.Allow {
		t.Errorf("a write elsewhere = %+v, want allowed", v)
	}
}
