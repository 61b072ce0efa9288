package permission

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
)

// What an "always" answer saves takes effect: in a new policy of the same
// mode with the saved rules (from the person's answers), the command asked
// about, and what the saved rule names, run without a question, writes
// inside the workspace included; the firm asks still ask.
func TestAlwaysTakesEffect(t *testing.T) {
	ws, _ := hostileWorkspace(t)
	for _, tc := range []struct {
		command string
		saved   []string
		// others are commands the saved rules name, which must run too.
		others []string
	}{
		{"touch m1", []string{"bash(touch m1)"}, nil},
		{"rm -rf build", []string{"bash(rm -rf build)"}, nil},
		{"go test -coverprofile=cover.out ./...", []string{"bash(go test:*)"}, []string{"go test -coverprofile=c2.out ./...", "go test ./..."}},
		{"echo x > notes.txt", []string{"bash(echo x)", "write_file(notes.txt)"}, nil},
		{"mkdir -p build && cp README.md build/", []string{"bash(mkdir -p build)", "bash(cp README.md build/)"}, nil},
		{"npm run build > build.log", []string{"bash(npm run build:*)", "write_file(build.log)"}, []string{"npm run build --prod > build.log"}},
		{"sed -i s/a/b/ README.md", []string{"bash(sed -i s/a/b/ README.md)"}, nil},
	} {
		for _, box := range []bool{false, true} {
			p, _ := New(Default, Rules{}, ws)
			p = p.WithContainment(Containment{Sandboxed: box})
			req := bashReq(t, tc.command)
			if v := p.Decide(req); v.Decision != contract.Ask {
				t.Fatalf("%q: %+v, want an ask to begin with", tc.command, v)
			}
			var got []string
			var saved []Rule
			for _, r := range p.SuggestRules(req) {
				got = append(got, r.String())
				saved = append(saved, r.WithOrigin(Origin{Kind: FromAnswers, File: "/home/u/.config/rein/projects.toml"}))
			}
			if d := cmp.Diff(tc.saved, got); d != "" {
				t.Errorf("%q: SuggestRules (-want +got):\n%s", tc.command, d)
			}
			next, err := New(Default, Rules{Allow: saved}, ws)
			if err != nil {
				t.Fatal(err)
			}
			next = next.WithContainment(Containment{Sandboxed: box})
			for _, c := range append([]string{tc.command}, tc.others...) {
				if v := next.Decide(bashReq(t, c)); v.Decision != contract.Allow || v.By != ByRule {
					t.Errorf("sandbox %v: after always on %q, Decide(%q) = %+v, want allowed by the saved rules", box, tc.command, c, v)
				}
			}
		}
	}
	// The firm asks hold: a saved bash(touch:*) does not write under .git
	// or outside the workspace.
	p, _ := New(Default, Rules{Allow: mustRules(t, "bash(touch:*)")}, ws)
	for _, c := range []string{"touch .git/hooks/pre-commit", "touch /tmp/x", "touch .rein/x"} {
		if v := p.Decide(bashReq(t, c)); v.Decision != contract.Ask || !v.Firm {
			t.Errorf("Decide(%q) = %+v, want a firm ask", c, v)
		}
	}
}

// A project's allow rule lets the command run, not write: in default mode
// its writes still ask, and an "always" answer then saves the person's own
// rule for it.
func TestProjectRuleDoesNotLiftWrites(t *testing.T) {
	ws, _ := hostileWorkspace(t)
	project := mustRules(t, "bash(touch:*)")[0].WithOrigin(Origin{Kind: FromProject, File: ".rein/config.toml"})
	p, _ := New(Default, Rules{Allow: []Rule{project}}, ws)
	req := bashReq(t, "touch m1")
	if v := p.Decide(req); v.Decision != contract.Ask || !strings.Contains(v.Reason, "asks before writes") {
		t.Errorf("project rule: %+v, want an ask before the write", v)
	}
	rules := p.SuggestRules(req)
	if len(rules) != 1 || rules[0].String() != "bash(touch m1)" {
		t.Fatalf("SuggestRules = %v", rules)
	}
	q, _ := New(Default, Rules{Allow: []Rule{project, rules[0].WithOrigin(Origin{Kind: FromAnswers})}}, ws)
	if v := q.Decide(req); v.Decision != contract.Allow || v.Rule != "bash(touch m1)" {
		t.Errorf("with the answer's rule: %+v", v)
	}
	// The same rule from the person's own file or a flag lets it write.
	for _, o := range []Origin{{Kind: FromUser, File: "/home/u/.config/rein/config.toml"}, {Kind: FromFlag}, {}} {
		q, _ := New(Default, Rules{Allow: []Rule{project.WithOrigin(o)}}, ws)
		if v := q.Decide(req); v.Decision != contract.Allow {
			t.Errorf("origin %+v: %+v, want allowed", o, v)
		}
	}
	// As the README warns: a prefix rule of the person's allows every
	// write its command's words name inside the workspace, README.md
	// included; a project's does not.
	for _, tc := range []struct{ rule, command string }{
		{"bash(sort:*)", "sort -o README.md README.md"}, {"bash(cp:*)", "cp secret/key README.md"},
	} {
		r := mustRules(t, tc.rule)[0]
		for _, o := range []Origin{{Kind: FromUser, File: "/home/u/.config/rein/config.toml"}, {Kind: FromAnswers}, {Kind: FromProject}} {
			q, _ := New(Default, Rules{Allow: []Rule{r.WithOrigin(o)}}, ws)
			want := contract.Allow
			if o.Kind == FromProject {
				want = contract.Ask
			}
			if v := q.Decide(bashReq(t, tc.command)); v.Decision != want {
				t.Errorf("%s from %+v: %q = %+v, want %s", tc.rule, o, tc.command, v, want)
			}
		}
	}
}

// "never" denies the part of a compound command that was the reason to
// ask, not the read-only commands beside it.
func TestNeverDeniesTheReasonToAsk(t *testing.T) {
	ws, _ := hostileWorkspace(t)
	for _, box := range []bool{false, true} {
		p, _ := New(Default, Rules{Allow: mustRules(t, "bash(git status:*)")}, ws)
		p = p.WithContainment(Containment{Sandboxed: box})
		for command, want := range map[string][]string{
			"rm -rf build && echo cleaned":    {"bash(rm -rf build)"},
			"echo start; curl -s x; echo end": {"bash(curl -s x)"},
			"git status && git push":          {"bash(git push:*)"},
			"ls -la":                          {"bash(ls -la)"},
			"echo hi > notes.txt":             {"write_file(notes.txt)"},
			"ls > out.txt":                    {"write_file(out.txt)"},
			"ls -la > out.txt && git push":    {"bash(git push:*)", "write_file(out.txt)"},
			"cat README.md | tee out.txt":     {"bash(tee out.txt)"},
			"git log --output=x":              {"bash(git log --output=x)"},
			"git diff --output=d.txt HEAD":    {"bash(git diff --output=d.txt HEAD)"},
			"go test ./...":                   {"bash(go test:*)"},
			"git log --output=$F":             nil,
		} {
			var got []string
			for _, r := range p.DenyRules(bashReq(t, command)) {
				got = append(got, r.String())
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("sandbox %v: DenyRules(%q) (-want +got):\n%s", box, command, d)
			}
		}
	}
	// Saved, the deny rules leave the read-only part alone.
	q, _ := New(Default, Rules{Deny: mustRules(t, "bash(rm -rf build)")}, ws)
	q = q.WithContainment(Containment{Sandboxed: true})
	if v := q.Decide(bashReq(t, "echo cleaned")); v.Decision != contract.Allow {
		t.Errorf("echo cleaned after never: %+v", v)
	}
	if v := q.Decide(bashReq(t, "rm -rf build && echo cleaned")); v.Decision != contract.Deny {
		t.Errorf("the compound after never: %+v", v)
	}
	// A never on a write by an option denies that command, not every
	// read-only use of its program; one on a redirection denies the
	// write, not the command.
	for command, want := range map[string]contract.Decision{
		"git log --output=x": contract.Deny, "git log --oneline": contract.Allow,
		"ls > out.txt": contract.Deny, "cat README.md > out.txt": contract.Deny, "ls": contract.Allow,
	} {
		p, _ := New(Default, Rules{}, ws)
		p = p.WithContainment(Containment{Sandboxed: true})
		deny := p.DenyRules(bashReq(t, "git log --output=x"))
		deny = append(deny, p.DenyRules(bashReq(t, "ls > out.txt"))...)
		q, _ := New(Default, Rules{Deny: deny}, ws)
		q = q.WithContainment(Containment{Sandboxed: true})
		if v := q.Decide(bashReq(t, command)); v.Decision != want {
			t.Errorf("after never on git log --output=x and ls > out.txt (%v): %q = %+v, want %s", deny, command, v, want)
		}
	}
}
