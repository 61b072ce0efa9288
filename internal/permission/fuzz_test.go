package permission

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"mvdan.cc/sh/v3/syntax"
)

// FuzzBashAnalysis feeds arbitrary commands to the analysis. Nothing may
// panic, and an independent, simpler reading of the command (the parser's
// own tree, plain literal words only) must agree on the safety property:
// a command holding a simple command that the rules bash(echo:*) and
// bash(go test:*) clearly do not allow is never allowed, and one holding a
// plain rm is always denied by bash(rm:*), whatever the mode.
func FuzzBashAnalysis(f *testing.F) {
	for _, s := range []string{
		"echo ok", "echo ok && echo ko", "echo ok && rm -rf x", "echo $(rm -rf x)", "echo ok; rm -rf x",
		"echo ok | sh", "(echo ok; rm x)", "go test ./...", "go test -run X ./pkg", "go testx", "go vet",
		"echo `rm x`", "echo <(rm x)", "f() { rm x; }; echo", "if echo; then rm x; fi", "echo > /etc/x",
		"$CMD x", "eval 'rm x'", "bash -c 'rm x'", "echo 'unterminated", "x=1; echo $((x))",
		"cat <<EOF\n$(rm x)\nEOF", "echo ${x@P}", "sudo rm -rf /", "X=1 rm x", "\\rm x", "'rm' x",
		"for i in 1 2; do rm $i; done", "case x in x) rm x;; esac", "{ rm x; }", "echo ok &", "! rm x",
		"coproc rm x", "time rm x", "echo $'\\x41'", "declare -i x=y", "[[ $x -eq 1 ]] && echo",
		"find . -exec rm {} +", "find . -delete", "ls | xargs rm", "env -S 'rm -rf x'", "git -c alias.z='!rm -rf x' z",
		"trap 'rm x' EXIT", "busybox rm x", "sed 's/x/y/e' f", "echo > /dev/fd/../../tmp/x", "echo < /dev/tcp/h/1",
		"go test -exec 'sh -c x' ./...", "go test -o .git/hooks/pre-commit", "echo x > .GIT/config", "cat /etc/passwd",
		"go test -vet=off -exec \"$X\"", "tar --to-command='rm x' -xf a", "python3 -c 1", "sudo -s 'rm x'",
	} {
		f.Add(s)
	}
	ws := mustWorkspace(f, f.TempDir())
	allow := Rules{Allow: mustRules(f, "bash(echo:*)", "bash(go test:*)")}
	policies := map[string]*Policy{}
	for _, m := range Modes() {
		p, err := New(m, allow, ws)
		if err != nil {
			f.Fatal(err)
		}
		policies[string(m)] = p
		policies[string(m)+"+sandbox"] = p.WithContainment(Containment{Sandboxed: true})
		q, err := New(m, allow.Merge(Rules{Deny: mustRules(f, "bash(rm:*)")}), ws)
		if err != nil {
			f.Fatal(err)
		}
		policies[string(m)+"+deny"] = q
	}
	f.Fuzz(func(t *testing.T, command string) {
		req := bashReq(t, command)
		// JSON turns invalid UTF-8 into U+FFFD: the oracle reads the command
		// the policy reads.
		command = *decodeInput(req.Input).Command
		verdicts := map[string]Verdict{}
		for name, p := range policies {
			v := p.Decide(req)
			if v.Reason == "" || v.By == "" {
				t.Fatalf("%s: Decide(%q) = %+v: no reason or no decider", name, command, v)
			}
			h := p.ForHeadless(v, req)
			if h.Decision == contract.Ask {
				t.Fatalf("%s: ForHeadless(%q) still asks", name, command)
			}
			p.SuggestRules(req)
			verdicts[name] = v
		}
		if len(command) > 1<<20 {
			return // the independent parser has no bound
		}
		parsed, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
		notAllowed, rm, never := err != nil, false, false
		if err == nil {
			syntax.Walk(parsed, func(n syntax.Node) bool {
				switch n := n.(type) {
				case *syntax.Redirect:
					never = never || neverTarget(n)
				case *syntax.DeclClause, *syntax.LetClause:
					notAllowed = true
				case *syntax.CallExpr:
					if clearlyNotAllowed(n) {
						notAllowed = true
					}
					if len(n.Args) > 0 && n.Args[0].Lit() == "rm" {
						rm = true
					}
				}
				return true
			})
		}
		for _, mode := range []string{"default", "accept-edits", "plan"} {
			for _, name := range []string{mode, mode + "+deny"} {
				if v := verdicts[name]; notAllowed && v.Decision == contract.Allow {
					t.Errorf("%s: Decide(%q) = %+v, but it holds a command no rule allows", name, command, v)
				}
			}
		}
		if rm {
			for _, m := range Modes() {
				if v := verdicts[string(m)+"+deny"]; v.Decision != contract.Deny {
					t.Errorf("%s+deny: Decide(%q) = %+v, but it runs rm", m, command, v)
				}
			}
		}
		// A redirection to /dev/tcp, under .git or .rein, or out through
		// /dev/fd/.. is never allowed but by yolo.
		for name, v := range verdicts {
			if never && v.Decision == contract.Allow && !strings.HasPrefix(name, "yolo") {
				t.Errorf("%s: Decide(%q) = %+v, but it redirects to a file no rule allows", name, command, v)
			}
		}
		// A sandbox lets accept-edits allow only what the analysis sees.
		if v := verdicts["accept-edits+sandbox"]; v.Decision == contract.Allow && v.By == ByMode {
			if a := analyzeBash(command); len(a.Opaque) > 0 {
				t.Errorf("accept-edits+sandbox: Decide(%q) = %+v, but %s", command, v, a.Opaque[0])
			}
		}
	})
}

// neverTarget reports whether a redirection's target, read plainly, is a
// network device or a protected file, or leaves /dev/fd by "..": none is
// allowed by a rule. Targets that need decoding are left to the analysis.
func neverTarget(r *syntax.Redirect) bool {
	t := r.Word.Lit()
	if t == "" || strings.ContainsAny(t, `\*?[{~`) {
		return false
	}
	switch r.Op {
	case syntax.RdrIn, syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
	default:
		return false
	}
	if strings.HasPrefix(t, "/dev/tcp/") || strings.HasPrefix(t, "/dev/udp/") || strings.HasPrefix(t, "/dev/fd/") && strings.Contains(t, "..") {
		return true
	}
	if r.Op == syntax.RdrIn {
		return false
	}
	for _, part := range strings.Split(t, "/") {
		if strings.EqualFold(part, ".git") || strings.EqualFold(part, ".rein") {
			return true
		}
	}
	return false
}

// clearlyNotAllowed reports whether, read plainly, c is neither echo nor
// go test. Words that need decoding (quotes, escapes) are left to the
// analysis: no verdict is asserted for them.
func clearlyNotAllowed(c *syntax.CallExpr) bool {
	if len(c.Assigns) > 0 || len(c.Args) == 0 {
		return true
	}
	for _, part := range c.Args[0].Parts {
		switch part.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst:
			return true
		}
	}
	name := c.Args[0].Lit()
	if name == "" || strings.ContainsAny(name, `\`) {
		return false
	}
	switch name {
	case "echo":
		return false
	case "go":
		if len(c.Args) < 2 {
			return true
		}
		sub := c.Args[1].Lit()
		return sub != "" && !strings.ContainsAny(sub, `\`) && sub != "test"
	}
	return true
}

// BenchmarkDecideBash measures a typical decision: parsing a compound
// command and matching each simple command against the allow rules.
func BenchmarkDecideBash(b *testing.B) {
	p := policyOf(b, Default, Rules{Allow: mustRules(b, "bash(go test:*)", "bash(go vet:*)"), Deny: mustRules(b, "bash(rm:*)")})
	req := bashReq(b, "go test ./... && go vet ./...")
	b.ReportAllocs()
	for b.Loop() {
		if v := p.Decide(req); v.Decision != contract.Allow {
			b.Fatalf("Decide = %+v", v)
		}
	}
}

// BenchmarkDecideLongCompound measures a long compound command through
// Decide: 200 commands in && lists and pipelines, with command
// substitutions, redirections and file operands, every one allowed.
func BenchmarkDecideLongCompound(b *testing.B) {
	p := policyOf(b, AcceptEdits, Rules{Allow: mustRules(b, "bash(go test:*)", "bash(cat:*)", "bash(grep:*)", "bash(echo:*)"), Deny: mustRules(b, "bash(rm:*)")})
	var parts []string
	for i := range 40 {
		parts = append(parts, fmt.Sprintf("go test -run Test%d ./pkg%d/...", i, i), fmt.Sprintf("cat src/f%d.go | grep -n x > out%d.txt", i, i),
			fmt.Sprintf("echo \"$(cat VERSION)\" done %d", i))
	}
	command := strings.Join(parts, " && ")
	if n := len(analyzeBash(command).Commands); n != 200 {
		b.Fatalf("%d commands, want 200", n)
	}
	req := bashReq(b, command)
	b.ReportAllocs()
	for b.Loop() {
		if v := p.Decide(req); v.Decision != contract.Allow {
			b.Fatalf("Decide = %+v", v)
		}
	}
}

// BenchmarkDecideEdit measures a path decision: resolving the path through
// the file system and matching globs.
func BenchmarkDecideEdit(b *testing.B) {
	p := policyOf(b, AcceptEdits, Rules{Deny: mustRules(b, "edit_file(**/.env)")})
	req := fileReq(b, "edit_file", "internal/permission/policy.go")
	b.ReportAllocs()
	for b.Loop() {
		if v := p.Decide(req); v.Decision != contract.Allow {
			b.Fatalf("Decide = %+v", v)
		}
	}
}
