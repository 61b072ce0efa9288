package permission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/workspace"
	"github.com/rein-agent/rein/internal/workspace/workspacetest"
)

func TestToolDecisions(t *testing.T) {
	base := workspacetest.RealTemp(t)
	root := workspacetest.Mkdir(t, filepath.Join(base, "ws"))
	outside := workspacetest.Mkdir(t, filepath.Join(base, "outside"))
	workspacetest.Mkdir(t, filepath.Join(root, "docs"))
	workspacetest.Mkdir(t, filepath.Join(root, "secrets"))
	workspacetest.Symlink(t, filepath.Join(root, "secrets"), filepath.Join(root, "docs", "link"))
	workspacetest.Symlink(t, outside, filepath.Join(root, "out"))
	ws := mustWorkspace(t, root)

	fetch := Request{Tool: "fetch", Risk: registry.RiskNetwork, ReadOnly: true, Input: json.RawMessage(`{"url":"https://example.com"}`)}
	todo := Request{Tool: "todo", Risk: registry.RiskWrite, Input: json.RawMessage(`{}`)}
	for _, tc := range []struct {
		name  string
		mode  Mode
		rules Rules
		req   Request
		want  decision
	}{
		// Modes without rules.
		{"default read", Default, Rules{}, fileReq(t, "read_file", "docs/a.md"), allowMode},
		{"default list", Default, Rules{}, fileReq(t, "list_dir", "."), allowMode},
		{"default edit", Default, Rules{}, fileReq(t, "edit_file", "docs/a.md"), askMode},
		{"default write", Default, Rules{}, fileReq(t, "write_file", "new.go"), askMode},
		{"default network read", Default, Rules{}, fetch, askMode},
		{"accept-edits edit inside", AcceptEdits, Rules{}, fileReq(t, "edit_file", "docs/a.md"), allowMode},
		{"accept-edits write new file", AcceptEdits, Rules{}, fileReq(t, "write_file", "pkg/new.go"), allowMode},
		{"accept-edits write absolute inside", AcceptEdits, Rules{}, fileReq(t, "write_file", filepath.Join(root, "x.go")), allowMode},
		{"accept-edits edit outside", AcceptEdits, Rules{}, fileReq(t, "edit_file", "../outside/x"), askMode},
		{"accept-edits edit through link outside", AcceptEdits, Rules{}, fileReq(t, "edit_file", "out/x"), askMode},
		{"accept-edits write without path", AcceptEdits, Rules{}, todo, askMode},
		{"accept-edits read", AcceptEdits, Rules{}, fileReq(t, "read_file", "x"), allowMode},
		{"plan read", Plan, Rules{}, fileReq(t, "grep", "."), allowMode},
		{"plan edit", Plan, Rules{}, fileReq(t, "edit_file", "docs/a.md"), denyMode},
		{"plan edit despite allow", Plan, Rules{Allow: mustRules(t, "edit_file")}, fileReq(t, "edit_file", "docs/a.md"), denyMode},
		{"yolo edit outside", Yolo, Rules{}, fileReq(t, "edit_file", "/etc/passwd"), allowMode},
		{"yolo network", Yolo, Rules{}, fetch, allowMode},
		// Rules.
		{"allow glob", Default, Rules{Allow: mustRules(t, "edit_file(docs/**)")}, fileReq(t, "edit_file", "docs/a/b.md"), allowRule("edit_file(docs/**)")},
		{"allow glob absolute input", Default, Rules{Allow: mustRules(t, "edit_file(docs/**)")}, fileReq(t, "edit_file", filepath.Join(root, "docs", "a.md")), allowRule("edit_file(docs/**)")},
		{"allow glob misses", Default, Rules{Allow: mustRules(t, "edit_file(docs/**)")}, fileReq(t, "edit_file", "src/a.go"), askMode},
		{"allow glob other tool", Default, Rules{Allow: mustRules(t, "edit_file(docs/**)")}, fileReq(t, "write_file", "docs/a.md"), askMode},
		{"allow follows the link", Default, Rules{Allow: mustRules(t, "edit_file(docs/**)")}, fileReq(t, "edit_file", "docs/link/key"), askMode},
		{"allow single star", Default, Rules{Allow: mustRules(t, "write_file(src/*.go)")}, fileReq(t, "write_file", "src/a.go"), allowRule("write_file(src/*.go)")},
		{"allow single star deeper", Default, Rules{Allow: mustRules(t, "write_file(src/*.go)")}, fileReq(t, "write_file", "src/x/a.go"), askMode},
		{"allow dotdot back inside", Default, Rules{Allow: mustRules(t, "write_file(src/*.go)")}, fileReq(t, "write_file", "docs/../src/a.go"), allowRule("write_file(src/*.go)")},
		{"allow outside never by relative glob", Default, Rules{Allow: mustRules(t, "edit_file(**)")}, fileReq(t, "edit_file", "../outside/x"), askMode},
		{"allow absolute glob", Default, Rules{Allow: mustRules(t, "read_file(/etc/**)")}, fileReq(t, "read_file", "/etc/hosts"), allowRule("read_file(/etc/**)")},
		{"allow bare tool", Default, Rules{Allow: mustRules(t, "write_file")}, fileReq(t, "write_file", "x"), allowRule("write_file")},
		{"allow bare other tool", Default, Rules{Allow: mustRules(t, "fetch")}, fetch, allowRule("fetch")},
		{"pattern needs a path", Default, Rules{Allow: mustRules(t, "todo(**)")}, todo, askMode},
		{"deny glob", Yolo, Rules{Deny: mustRules(t, "read_file(**/.env)")}, fileReq(t, "read_file", "app/.env"), denyRule("read_file(**/.env)")},
		{"deny beats allow", Default, Rules{Allow: mustRules(t, "edit_file"), Deny: mustRules(t, "edit_file(secrets/**)")}, fileReq(t, "edit_file", "secrets/key"), denyRule("edit_file(secrets/**)")},
		{"deny sees through link", Yolo, Rules{Deny: mustRules(t, "edit_file(secrets/**)")}, fileReq(t, "edit_file", "docs/link/key"), denyRule("edit_file(secrets/**)")},
		{"deny sees the written path", Yolo, Rules{Deny: mustRules(t, "edit_file(docs/link/**)")}, fileReq(t, "edit_file", "docs/link/key"), denyRule("edit_file(docs/link/**)")},
		{"deny bare tool in plan", Plan, Rules{Deny: mustRules(t, "read_file")}, fileReq(t, "read_file", "x"), denyRule("read_file")},
		{"ask glob beats allow", Default, Rules{Allow: mustRules(t, "read_file"), Ask: mustRules(t, "read_file(.env)")}, fileReq(t, "read_file", ".env"), askRule("read_file(.env)")},
		{"ask in yolo", Yolo, Rules{Ask: mustRules(t, "write_file(go.mod)")}, fileReq(t, "write_file", "go.mod"), askRule("write_file(go.mod)")},
		{"ask in plan on read", Plan, Rules{Ask: mustRules(t, "read_file(.env)")}, fileReq(t, "read_file", ".env"), askRule("read_file(.env)")},
		{"malformed path", Default, Rules{Allow: mustRules(t, "edit_file(**)")}, Request{Tool: "edit_file", Risk: registry.RiskWrite, Input: json.RawMessage(`{"path":5}`)}, askMode},
		{"other field malformed", Default, Rules{Allow: mustRules(t, "edit_file(**)")}, Request{Tool: "edit_file", Risk: registry.RiskWrite, Input: json.RawMessage(`{"path":"a","old":5}`)}, allowRule("edit_file(**)")},
		{"malformed input", Default, Rules{Allow: mustRules(t, "edit_file(**)")}, Request{Tool: "edit_file", Risk: registry.RiskWrite, Input: json.RawMessage(`{"path":`)}, askMode},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.mode, tc.rules, ws)
			if err != nil {
				t.Fatal(err)
			}
			v := p.Decide(tc.req)
			if d := cmp.Diff(tc.want, decisionOf(t, v)); d != "" {
				t.Errorf("Decide(%s %s) mismatch (-want +got):\n%s\nreason: %s", tc.req.Tool, tc.req.Input, d, v.Reason)
			}
		})
	}
}

func TestHidden(t *testing.T) {
	bash := registry.Tool{Name: "bash", Risk: registry.RiskExecute}
	edit := registry.Tool{Name: "edit_file", Risk: registry.RiskWrite}
	read := registry.Tool{Name: "read_file", Risk: registry.RiskRead, ReadOnly: true}
	fetch := registry.Tool{Name: "fetch", Risk: registry.RiskNetwork, ReadOnly: true}
	for _, tc := range []struct {
		name  string
		mode  Mode
		rules Rules
		want  map[string]bool
	}{
		{"default", Default, Rules{}, map[string]bool{"bash": false, "edit_file": false, "read_file": false, "fetch": false}},
		{"yolo", Yolo, Rules{}, map[string]bool{"bash": false, "edit_file": false, "read_file": false, "fetch": false}},
		{"plan", Plan, Rules{}, map[string]bool{"bash": true, "edit_file": true, "read_file": false, "fetch": true}},
		{"bare deny", Default, Rules{Deny: mustRules(t, "bash", "edit_file(x)")}, map[string]bool{"bash": true, "edit_file": false, "read_file": false, "fetch": false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := policyOf(t, tc.mode, tc.rules)
			got := map[string]bool{}
			for _, tl := range []registry.Tool{bash, edit, read, fetch} {
				got[tl.Name] = p.Hidden(tl)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Hidden (-want +got):\n%s", d)
			}
		})
	}
}

func TestVerdictEvent(t *testing.T) {
	v := Verdict{Decision: contract.Deny, By: ByRule, Rule: "bash(rm:*)", Reason: "Deny rule bash(rm:*) forbids `rm x`."}
	want := &contract.ToolPermission{IntentID: "int_1", Decision: contract.Deny, By: "rule", Rule: "bash(rm:*)", Reason: v.Reason}
	if d := cmp.Diff(want, v.Event("int_1")); d != "" {
		t.Errorf("Event() (-want +got):\n%s", d)
	}
	tl := registry.Tool{Name: "edit_file", Risk: registry.RiskWrite}
	in := json.RawMessage(`{"path":"x"}`)
	if d := cmp.Diff(Request{Tool: "edit_file", Risk: registry.RiskWrite, Input: in}, RequestFor(tl, in)); d != "" {
		t.Errorf("RequestFor() (-want +got):\n%s", d)
	}
}

func TestSuggestRules(t *testing.T) {
	root := workspacetest.RealTemp(t)
	ws := mustWorkspace(t, root)
	p, err := New(Default, Rules{Allow: mustRules(t, "bash(go vet:*)")}, ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		req  Request
		want []string
	}{
		{"go test", bashReq(t, "go test ./..."), []string{"bash(go test:*)"}},
		{"two words only", bashReq(t, "go test -run X ./pkg"), []string{"bash(go test:*)"}},
		{"one word: exact", bashReq(t, "ls"), []string{"bash(ls)"}},
		{"compound skips allowed", bashReq(t, "go test ./... && go vet ./... && make lint"), []string{"bash(go test:*)", "bash(make lint:*)"}},
		{"deduplicated", bashReq(t, "go test ./a; go test ./b"), []string{"bash(go test:*)"}},
		{"dynamic second word", bashReq(t, "rm $X"), nil},
		{"pattern second word", bashReq(t, "ls *.go"), nil},
		{"flag second word: exact", bashReq(t, "rm -rf build"), []string{"bash(rm -rf build)"}},
		{"interpreter: exact", bashReq(t, "python3 -c print"), []string{"bash(python3 -c print)"}},
		{"broad command with a word: exact", bashReq(t, "find . -delete"), []string{"bash(find . -delete)"}},
		{"option before the subcommand: exact", bashReq(t, "git -C sub push"), []string{"bash(git -C sub push)"}},
		{"read outside: no rule can", bashReq(t, "git -C /tmp push"), nil},
		{"broad lone command: exact", bashReq(t, "env"), []string{"bash(env)"}},
		{"quoted second word", bashReq(t, `git commit -m "a b"`), []string{"bash(git commit:*)"}},
		{"assignment kept", bashReq(t, "CGO_ENABLED=0 go build ./..."), []string{"bash(CGO_ENABLED=0 go build:*)"}},
		{"bare assignment", bashReq(t, "X=1"), []string{"bash(X=1)"}},
		{"computed name", bashReq(t, "$CMD x"), nil},
		{"already allowed", bashReq(t, "go vet ./..."), nil},
		{"unparseable", bashReq(t, "echo 'x"), nil},
		{"edit path", fileReq(t, "edit_file", "docs/a.md"), []string{"edit_file(docs/a.md)"}},
		{"edit absolute inside", fileReq(t, "edit_file", filepath.Join(root, "b.md")), []string{"edit_file(b.md)"}},
		{"edit glob characters", fileReq(t, "edit_file", "docs/[x]*.md"), []string{`edit_file(docs/\[x\]\*.md)`}},
		{"edit outside", fileReq(t, "edit_file", "/etc/hosts"), nil},
		{"no path", Request{Tool: "todo", Risk: registry.RiskWrite, Input: json.RawMessage(`{}`)}, []string{"todo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range p.SuggestRules(tc.req) {
				got = append(got, r.String())
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("SuggestRules (-want +got):\n%s", d)
			}
		})
	}
	// A suggested path rule allows exactly that path, glob characters and
	// all.
	req := fileReq(t, "edit_file", "docs/[x]*.md")
	q, err := New(Default, Rules{Allow: p.SuggestRules(req)}, ws)
	if err != nil {
		t.Fatal(err)
	}
	if v := q.Decide(req); v.Decision != contract.Allow {
		t.Errorf("suggested rule does not allow its request: %+v", v)
	}
	if v := q.Decide(fileReq(t, "edit_file", "docs/x-other.md")); v.Decision == contract.Allow {
		t.Errorf("suggested rule allows another file: %+v", v)
	}
}

func TestForHeadless(t *testing.T) {
	root := workspacetest.RealTemp(t)
	ws := mustWorkspace(t, root)
	for _, tc := range []struct {
		name    string
		mode    Mode
		rules   Rules
		req     Request
		want    decision
		mention []string
		absent  []string
	}{
		{"bash", Default, Rules{}, bashReq(t, "go test ./..."), decision{contract.Deny, ByHeadless, ""},
			[]string{"cannot ask", "--allow 'bash(go test:*)'", "--permission-mode yolo"}, nil},
		{"bash compound", Default, Rules{}, bashReq(t, "go test ./... && go vet ./..."), decision{contract.Deny, ByHeadless, ""},
			[]string{"--allow 'bash(go test:*)' --allow 'bash(go vet:*)'", "--permission-mode yolo"}, nil},
		{"edit", Default, Rules{}, fileReq(t, "edit_file", "docs/a.md"), decision{contract.Deny, ByHeadless, ""},
			[]string{"--allow 'edit_file(docs/a.md)'", "--permission-mode accept-edits"}, nil},
		{"accept-edits bash", AcceptEdits, Rules{}, bashReq(t, "make"), decision{contract.Deny, ByHeadless, ""},
			[]string{"--allow 'bash(make)'", "--permission-mode yolo"}, nil},
		{"no rule can", Default, Rules{}, bashReq(t, "$CMD x"), decision{contract.Deny, ByHeadless, ""},
			[]string{"--permission-mode yolo"}, []string{"--allow"}},
		{"redirect outside", Default, Rules{}, bashReq(t, "echo x > /tmp/y"), decision{contract.Deny, ByHeadless, ""},
			[]string{"--permission-mode yolo"}, []string{"--allow"}},
		{"ask rule", Yolo, Rules{Ask: mustRules(t, "bash(git push:*)")}, bashReq(t, "git push"), decision{contract.Deny, ByHeadless, ""},
			[]string{"Run rein interactively", "remove the ask rule bash(git push:*)"}, nil},
		{"unverifiable under a deny rule", Yolo, Rules{Deny: mustRules(t, "bash(rm:*)")}, bashReq(t, "$X y"), decision{contract.Deny, ByHeadless, ""},
			[]string{"cannot be checked against rule bash(rm:*)", "Run rein interactively"}, []string{"remove", "--allow", "--permission-mode"}},
		{"edit outside", AcceptEdits, Rules{}, fileReq(t, "edit_file", "../x"), decision{contract.Deny, ByHeadless, ""},
			[]string{"outside the workspace", "added as a workspace root"}, []string{"--allow", "--permission-mode"}},
		{"allow unchanged", Default, Rules{}, fileReq(t, "read_file", "x"), allowMode, nil, nil},
		{"deny unchanged", Plan, Rules{}, bashReq(t, "ls"), denyMode, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.mode, tc.rules, ws)
			if err != nil {
				t.Fatal(err)
			}
			v := p.Decide(tc.req)
			h := p.ForHeadless(v, tc.req)
			if d := cmp.Diff(tc.want, decisionOf(t, h)); d != "" {
				t.Errorf("ForHeadless mismatch (-want +got):\n%s\nreason: %s", d, h.Reason)
			}
			if h.Decision == contract.Deny && v.Decision == contract.Ask && !strings.HasPrefix(h.Reason, v.Reason) {
				t.Errorf("headless reason %q does not start with the ask's reason %q", h.Reason, v.Reason)
			}
			for _, m := range tc.mention {
				if !strings.Contains(h.Reason, m) {
					t.Errorf("headless reason %q does not mention %q", h.Reason, m)
				}
			}
			for _, m := range tc.absent {
				if strings.Contains(h.Reason, m) {
					t.Errorf("headless reason %q mentions %q", h.Reason, m)
				}
			}
		})
	}
}

// The policy is read-only after New: decisions may run concurrently.
func TestDecideConcurrently(t *testing.T) {
	p := policyOf(t, Default, Rules{Allow: mustRules(t, "bash(go test:*)", "edit_file(docs/**)")})
	if err := os.MkdirAll(filepath.Join(p.Workspace().Root(), "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 50 {
				if v := p.Decide(bashReq(t, "go test ./... && go test -count=$((1+2)) ./x")); v.Decision != contract.Allow {
					t.Errorf("goroutine %d: %+v", i, v)
					return
				}
				if v := p.Decide(fileReq(t, "edit_file", "docs/x.md")); v.Decision != contract.Allow {
					t.Errorf("goroutine %d: %+v", i, v)
					return
				}
			}
		})
	}
	wg.Wait()
}

// Writes under .rein/, .claude/ and .git/ always ask (short of yolo): they would let
// an agent raise its own permissions or plant a git hook.
func TestProtectedPaths(t *testing.T) {
	askMode := decision{contract.Ask, ByMode, ""}
	for _, c := range []struct {
		name  string
		mode  Mode
		rules Rules
		req   Request
		want  decision
	}{
		{"accept-edits config", AcceptEdits, Rules{}, fileReq(t, "edit_file", ".rein/config.toml"), askMode},
		{"accept-edits hook", AcceptEdits, Rules{}, fileReq(t, "write_file", ".git/hooks/pre-commit"), askMode},
		{"case folded", AcceptEdits, Rules{}, fileReq(t, "write_file", ".GIT/config"), askMode},
		{"a trusted project's hook script", AcceptEdits, Rules{}, fileReq(t, "write_file", ".claude/hooks/fmt.sh"), askMode},
		{"a project's MCP servers", AcceptEdits, Rules{}, fileReq(t, "write_file", ".mcp.json"), askMode},
		{"Claude Code's settings", AcceptEdits, Rules{Allow: mustRules(t, "edit_file(**)")}, fileReq(t, "edit_file", ".claude/settings.json"), askMode},
		{"allow rule does not cover it", AcceptEdits, Rules{Allow: mustRules(t, "write_file(**)")}, fileReq(t, "write_file", ".rein/config.toml"), askMode},
		{"yolo allows", Yolo, Rules{}, fileReq(t, "write_file", ".rein/config.toml"), decision{contract.Allow, ByMode, ""}},
		{"reads are fine", Default, Rules{}, fileReq(t, "read_file", ".git/config"), decision{contract.Allow, ByMode, ""}},
		{"elsewhere is fine", AcceptEdits, Rules{}, fileReq(t, "edit_file", "src/.reinrc"), decision{contract.Allow, ByMode, ""}},
		{"redirect into it", Default, Rules{Allow: mustRules(t, "bash(echo:*)")}, bashReq(t, "echo x > .rein/config.toml"), askMode},
		{"redirect into .claude", Default, Rules{Allow: mustRules(t, "bash(echo:*)")}, bashReq(t, "echo x > .claude/hooks/fmt.sh"), askMode},
		{"accept-edits redirect into .claude", AcceptEdits, Rules{Allow: mustRules(t, "bash(echo:*)")}, bashReq(t, "echo x > .claude/settings.json"), askMode},
		{"plan denies .claude as it denies .rein", Plan, Rules{}, fileReq(t, "write_file", ".claude/settings.json"), decision{contract.Deny, ByMode, ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := policyOf(t, c.mode, c.rules).Decide(c.req)
			if got := decisionOf(t, v); got != c.want {
				t.Errorf("Decide() = %+v, want %+v", got, c.want)
			}
			if v.Firm != (c.want == askMode) {
				t.Errorf("Firm = %v: an ask of a protected path is firm (no hook may allow it)", v.Firm)
			}
		})
	}
}

// With changes the mode and adds rules, and keeps everything else the
// policy was given: its containment and rein's own directories.
func TestWithKeepsWhatThePolicyWasGiven(t *testing.T) {
	ws := mustWorkspace(t, t.TempDir())
	own := filepath.Join(ws.Root(), ".config", "rein")
	p, err := New(Default, Rules{}, ws)
	if err != nil {
		t.Fatal(err)
	}
	p = p.WithContainment(Containment{Sandboxed: true, Writable: []string{t.TempDir()}}).WithOwn(workspace.Places([]string{own}))
	q, err := p.With(AcceptEdits, Rules{Allow: mustRules(t, "write_file")})
	if err != nil {
		t.Fatal(err)
	}
	if q.Mode() != AcceptEdits || len(q.Rules().Allow) != 1 || p.Mode() != Default || len(p.Rules().Allow) != 0 {
		t.Errorf("With: mode %s rules %v (from %s %v)", q.Mode(), q.Rules().Allow, p.Mode(), p.Rules().Allow)
	}
	if c := q.Containment(); !c.Sandboxed || len(c.Writable) != 1 {
		t.Errorf("containment = %+v, want kept", c)
	}
	if v := q.Decide(fileReq(t, "write_file", filepath.Join(own, "config.toml"))); v.Decision != contract.Ask || !v.Firm {
		t.Errorf("a write into rein's own directory = %+v, want a firm ask", v)
	}
	if _, err := p.With("reckless", Rules{}); err == nil {
		t.Errorf("With(reckless) = nil error")
	}
}
