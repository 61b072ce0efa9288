package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/workspace"
	"github.com/rein-agent/rein/internal/workspace/workspacetest"
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
	p = p.WithOwn(workspace.Places([]string{own}))
	if v := p.Decide(fileReq(t, "write_file", filepath.Join(own, "config.toml"))); v.Decision != contract.Ask || !v.Firm ||
		!strings.Contains(v.Reason, "rein's own configuration") {
		t.Errorf("a write to rein's configuration = %+v, want a firm ask", v)
	}
	if v := p.Decide(fileReq(t, "write_file", filepath.Join(ws.Root(), "notes.txt"))); v.Decision != contract.Allow {
		t.Errorf("a write elsewhere = %+v, want allowed", v)
	}
}

// With the home directory as the workspace, the file tools do not read
// what the sandbox hides from commands (the credential stores, rein's own
// configuration and sessions): a call whose path is or lies there, as
// given or where a link leads, is a firm ask in every mode, whatever the
// rules; the session's artifacts and the skills are read as before, and
// so is everything else.
func TestHiddenPathsAsk(t *testing.T) {
	home := workspacetest.RealTemp(t)
	for _, d := range []string{".ssh", ".aws", ".config/gh", ".config/rein/skills/x", ".local/state/rein/sessions/s1/artifacts", ".local/state/rein/sessions/s0", "notes"} {
		workspacetest.Mkdir(t, filepath.Join(home, d))
	}
	for _, f := range []string{".ssh/id_ed25519", ".config/gh/hosts.yml", ".config/rein/config.toml", ".config/rein/skills/x/SKILL.md",
		".local/state/rein/sessions/s1/artifacts/a1.txt", ".local/state/rein/sessions/s0/events.jsonl", "notes/todo.md"} {
		if err := os.WriteFile(filepath.Join(home, f), []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	workspacetest.Symlink(t, filepath.Join(home, ".ssh", "id_ed25519"), filepath.Join(home, "notes", "key"))
	ws := mustWorkspace(t, home)
	hidden := []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".aws"), filepath.Join(home, ".config/gh/hosts.yml"),
		filepath.Join(home, ".config/rein"), filepath.Join(home, ".local/state/rein/sessions")}
	except := []string{filepath.Join(home, ".local/state/rein/sessions/s1/artifacts"), filepath.Join(home, ".config/rein/skills")}
	for _, mode := range Modes() {
		p, err := New(mode, Rules{Allow: mustRules(t, "read_file", "grep", "write_file")}, ws)
		if err != nil {
			t.Fatal(err)
		}
		p = p.WithHidden(workspace.Places(hidden), except)
		for _, tc := range []struct {
			tool, path string
			firm       bool
		}{
			{"read_file", ".ssh/id_ed25519", true},
			{"read_file", filepath.Join(home, ".ssh/id_ed25519"), true},
			{"read_file", "notes/key", true},
			{"read_file", ".config/gh/hosts.yml", true},
			{"read_file", ".config/rein/config.toml", true},
			{"read_file", ".local/state/rein/sessions/s0/events.jsonl", true},
			{"grep", ".aws", true},
			{"list_dir", ".ssh", true},
			{"read_file", ".local/state/rein/sessions/s1/artifacts/a1.txt", false},
			{"read_file", ".config/rein/skills/x/SKILL.md", false},
			{"read_file", "notes/todo.md", false},
			{"grep", ".", false},
			{"list_dir", ".", false},
			{"write_file", ".ssh/authorized_keys", true},
		} {
			if mode == Plan && tc.tool == "write_file" {
				continue
			}
			v := p.Decide(fileReq(t, tc.tool, tc.path))
			firm := v.Decision == contract.Ask && v.Firm
			if firm != tc.firm || tc.firm && !strings.Contains(v.Reason, "sandbox hides your credentials") {
				t.Errorf("%s: %s %s = %+v, want firm ask %v", mode, tc.tool, tc.path, v, tc.firm)
			}
			if tc.firm && len(p.SuggestRules(fileReq(t, tc.tool, tc.path))) > 0 {
				t.Errorf("%s: %s %s suggests rules, which could not lift the question", mode, tc.tool, tc.path)
			}
		}
		// A derived policy keeps them.
		q, _ := p.With(mode, Rules{Allow: mustRules(t, "read_file(.ssh/**)")})
		if v := q.Decide(fileReq(t, "read_file", ".ssh/id_ed25519")); v.Decision != contract.Ask || !v.Firm {
			t.Errorf("%s, after With: %+v", mode, v)
		}
	}
}

// The policy keeps each hidden path and each of its own directories as
// given, cleaned, and where it leads when that differs: a path through a
// linked home directory in both forms, a link to a store in both, a
// dangling link, a missing store and one below a missing directory as
// given and where it would be (its directory's real path and its name), a
// relative one not at all.
func TestHiddenForms(t *testing.T) {
	home, real := workspacetest.LinkedHome(t)
	places := workspace.Places([]string{home + "/.ssh", home + "/.ssh/", home + "/x/../.ssh", home + "/.gnupg", home + "/.aws",
		home + "/.kube", home + "/.config/gh/hosts.yml", real + "/.netrc", "relative"})
	want := []string{home + "/.ssh", real + "/.ssh", home + "/.ssh", real + "/.ssh", home + "/.ssh", real + "/.ssh",
		home + "/.gnupg", real + "/gpg", home + "/.aws", real + "/.aws", home + "/.kube", real + "/.kube",
		home + "/.config/gh/hosts.yml", real + "/.config/gh/hosts.yml", real + "/.netrc"}
	p, err := New(Default, Rules{}, mustWorkspace(t, real))
	if err != nil {
		t.Fatal(err)
	}
	p = p.WithHidden(places, []string{home + "/.gnupg", home + "/skills"}).WithOwn(places)
	if d := cmp.Diff(want, p.hidden); d != "" {
		t.Errorf("hidden mismatch (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, p.own); d != "" {
		t.Errorf("own mismatch (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{home + "/.gnupg", real + "/gpg", home + "/skills", real + "/skills"}, p.except); d != "" {
		t.Errorf("except mismatch (-want +got):\n%s", d)
	}
}

// A credential store that is missing when rein starts (or whose directory
// is), in a home reached through a link, and made afterwards is hidden all
// the same when a call names it by its real path.
func TestHiddenMadeLaterThroughALinkedHome(t *testing.T) {
	home, real := workspacetest.LinkedHome(t)
	p, err := New(AcceptEdits, Rules{Allow: mustRules(t, "read_file")}, mustWorkspace(t, real))
	if err != nil {
		t.Fatal(err)
	}
	p = p.WithHidden(workspace.Places([]string{home + "/.kube", home + "/.docker/config.json"}), nil)
	workspacetest.Mkdir(t, real+"/.kube")
	workspacetest.Mkdir(t, real+"/.docker")
	for _, f := range []string{real + "/.kube/credentials", real + "/.docker/config.json"} {
		if err := os.WriteFile(f, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range []string{real + "/.kube/credentials", ".kube/credentials", real + "/.docker/config.json", ".docker/config.json"} {
		if v := p.Decide(fileReq(t, "read_file", path)); v.Decision != contract.Ask || !v.Firm {
			t.Errorf("read_file %s = %+v, want a firm ask", path, v)
		}
	}
}
