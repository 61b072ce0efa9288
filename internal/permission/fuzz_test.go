package permission

import (
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
		parsed, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
		notAllowed, rm := err != nil, false
		if err == nil {
			syntax.Walk(parsed, func(n syntax.Node) bool {
				switch n := n.(type) {
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
	})
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
