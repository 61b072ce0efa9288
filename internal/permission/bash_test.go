package permission

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/shell"
)

// Every construct that holds commands is walked: the analysis lists each
// simple command, in source order.
func TestAnalyzeFindsEveryCommand(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		want         []string
	}{
		{"simple", "go test ./...", []string{"go test ./..."}},
		{"and list", "echo ok && rm -rf x", []string{"echo ok", "rm -rf x"}},
		{"or list", "false || rm x", []string{"false", "rm x"}},
		{"sequence", "echo ok; rm -rf x", []string{"echo ok", "rm -rf x"}},
		{"newlines", "echo ok\nrm x\n", []string{"echo ok", "rm x"}},
		{"background", "sleep 1 & rm x", []string{"sleep 1", "rm x"}},
		{"pipeline", "echo ok | sh", []string{"echo ok", "sh"}},
		{"pipe all", "make |& tee log", []string{"make", "tee log"}},
		{"negation", "! grep -q x f", []string{"grep -q x f"}},
		{"subshell", "(echo ok; rm x)", []string{"echo ok", "rm x"}},
		{"group", "{ echo ok; rm x; }", []string{"echo ok", "rm x"}},
		{"command substitution", "echo $(rm -rf x)", []string{"echo $(rm -rf x)", "rm -rf x"}},
		{"backticks", "echo `rm -rf x`", []string{"echo `rm -rf x`", "rm -rf x"}},
		{"nested substitution", `echo "$(cat $(rm x))"`, []string{`echo "$(cat $(rm x))"`, "cat $(rm x)", "rm x"}},
		{"process substitution", "diff <(ls a) >(rm x)", []string{"diff <(ls a) >(rm x)", "ls a", "rm x"}},
		{"assignment value", "X=$(rm x) go test", []string{"X=$(rm x) go test", "rm x"}},
		{"if", "if true; then rm x; elif false; then ls; else pwd; fi", []string{"true", "rm x", "false", "ls", "pwd"}},
		{"for", "for f in a b; do rm $f; done", []string{"rm $f"}},
		{"for list substitution", "for f in $(ls); do echo $f; done", []string{"ls", "echo $f"}},
		{"while", "while read l; do rm $l; done < list", []string{"read l", "rm $l"}},
		{"until", "until false; do rm x; done", []string{"false", "rm x"}},
		{"case", "case $x in a) rm x;; *) ls;; esac", []string{"rm x", "ls"}},
		{"function", "f() { rm -rf x; }; f", []string{"rm -rf x", "f"}},
		{"function keyword", "function g { rm x; }", []string{"rm x"}},
		{"here-document", "cat <<EOF\n$(rm x)\nEOF\n", []string{"cat", "rm x"}},
		{"here-string", "cat <<< $(rm x)", []string{"cat", "rm x"}},
		{"redirect target substitution", "echo ok > $(rm x)", []string{"echo ok", "rm x"}},
		{"test clause", "[[ -f $(rm x) ]] && ls", []string{"rm x", "ls"}},
		{"declare", "export A=1 && go test", []string{"export A=1", "go test"}},
		{"time", "time go test", []string{"go test"}},
		{"coproc", "coproc rm x", []string{"rm x"}},
		{"eval literal", "eval 'rm -rf x'", []string{"eval 'rm -rf x'", "rm -rf x"}},
		{"bash -c", "bash -c 'echo a; rm x'", []string{"bash -c 'echo a; rm x'", "echo a", "rm x"}},
		{"sh -ec", `sh -ec "rm x"`, []string{`sh -ec "rm x"`, "rm x"}},
		{"bash -o option -c", "bash -o pipefail -c 'rm x'", []string{"bash -o pipefail -c 'rm x'", "rm x"}},
		{"sudo bash -c", "sudo bash -c 'rm x'", []string{"sudo bash -c 'rm x'", "bash -c 'rm x'", "rm x"}},
		{"find -exec", `find . -exec rm {} \;`, []string{`find . -exec rm {} \;`, "rm {}"}},
		{"xargs", "xargs -0 rm -f", []string{"xargs -0 rm -f", "rm -f"}},
		{"bash script file", "bash script.sh -c x", []string{"bash script.sh -c x"}},
		{"comment", "ls # rm x", []string{"ls"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := analyzeBash(tc.script)
			var got []string
			for _, c := range a.Commands {
				got = append(got, c.Text)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("commands of %q (-want +got):\n%s\nopaque: %q", tc.script, d, a.Opaque)
			}
		})
	}
}

func TestAnalyzeOpaque(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		opaque       bool
	}{
		{"plain", "go test ./... && go vet ./...", false},
		{"unterminated quote", "echo 'oops", true},
		{"unbalanced paren", "(echo ok", true},
		{"dangling operator", "echo ok &&", true},
		{"computed name", "$CMD args", true},
		{"substituted name", "$(which go) test", true},
		{"quoted expansion name", `"$X" a`, true},
		{"glob name", "/bin/r? x", true},
		{"brace name, expanded", "{rm,-rf,x}", false},
		{"brace name, too many", "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b} x", true},
		{"ansi-c name with escape", `$'\x72m' x`, true},
		{"eval computed", `eval "$X"`, true},
		{"bash -c computed", `bash -c "$X"`, true},
		{"arithmetic on a name", "echo $((x + 1))", true},
		{"arithmetic on numbers", "echo $((1 + 2))", false},
		{"arithmetic command", "(( x ))", true},
		{"let", "let x=1", true},
		{"c-style for", "for ((i=0; i<3; i++)); do echo; done", true},
		{"test arithmetic", `[[ $x -eq 1 ]]`, true},
		{"test arithmetic numbers", `[[ 1 -eq 1 ]]`, false},
		{"test string", `[[ $x == y ]]`, false},
		{"test -v subscript", `[[ -v a[$i] ]]`, true},
		{"indirect", "echo ${!x}", true},
		{"prompt expansion", "echo ${x@P}", true},
		{"quote transformation", "echo ${x@Q}", false},
		{"subscript", "echo ${a[i]}", true},
		{"all elements", "echo ${a[@]}", false},
		{"slice", "echo ${s:$n}", true},
		{"printf -v subscript", `printf -v 'a[$(rm -rf x)]' %s 1`, true},
		{"read computed name", `read "$name"`, true},
		{"read plain", "read -r line", false},
		{"declare -i", "declare -i n=$x", true},
		{"declare -i number", "declare -i n=3", false},
		{"nameref", "declare -n r='a[$(rm x)]'", true},
		{"nameref plain", "local -n r=other", false},
		{"export computed value", `export PATH="$HOME/bin:$PATH"`, false},
		{"export computed name", `export "$name"`, true},
		{"export subscript", `export 'a[$i]'=1`, true},
		{"test computed", `[ -n "$X" ]`, false},
		{"test -v subscript", `[ -v 'a[$(rm x)]' ]`, true},
		{"test computed operator", `test "$op" 'a[$i]'`, true},
		{"unset subscript", `unset 'a[$(rm x)]'`, true},
		{"printf computed argument", `printf '%s\n' "$x"`, false},
		{"printf -v computed", `printf -v "$n" x`, true},
		{"deep nesting", `bash -c "bash -c \"bash -c 'bash -c \\\"bash -c ls\\\"'\""`, true},
		{"variable argument", "echo $HOME", false},
		{"ansi-c argument", `echo $'a\nb'`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := analyzeBash(tc.script)
			if got := len(a.Opaque) > 0; got != tc.opaque {
				t.Errorf("analyzeBash(%q) opaque = %v (%q), want %v", tc.script, got, a.Opaque, tc.opaque)
			}
		})
	}
}

func TestWordDecoding(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		want         []shell.Word
	}{
		{"plain", "go test", []shell.Word{{Text: "go"}, {Text: "test"}}},
		{"escaped", `\rm -rf`, []shell.Word{{Text: "rm"}, {Text: "-rf"}}},
		{"quotes", `'r'"m" "a\"b\$c\q"`, []shell.Word{{Text: "rm"}, {Text: `a"b$c\q`}}},
		{"line continuation", "r\\\nm", []shell.Word{{Text: "rm"}}},
		{"glob", "ls *.go '*.md' \\*.txt", []shell.Word{{Text: "ls"}, {Text: "*.go", Kind: shell.Pattern}, {Text: "*.md"}, {Text: "*.txt"}}},
		{"lone bracket", "[ -n x ]", []shell.Word{{Text: "["}, {Text: "-n"}, {Text: "x"}, {Text: "]"}}},
		{"bracket glob", `ls a[bc] \[x]`, []shell.Word{{Text: "ls"}, {Text: "a[bc]", Kind: shell.Pattern}, {Text: "[x]"}}},
		{"braces", "echo {a,b} {", []shell.Word{{Text: "echo"}, {Text: "a"}, {Text: "b"}, {Text: "{"}}},
		{"assignment", "A=1 B+='x y' go", []shell.Word{{Text: "A=1", Kind: shell.Assign}, {Text: "B+=x y", Kind: shell.Assign}, {Text: "go"}}},
		{"dynamic", "echo $x a$(b) \"$y\"", []shell.Word{{Text: "echo"}, {Kind: shell.Dynamic, Splits: true}, {Kind: shell.Dynamic, Prefix: "a", Splits: true}, {Kind: shell.Dynamic}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := analyzeBash(tc.script)
			if len(a.Commands) == 0 {
				t.Fatalf("no command in %q (opaque %q)", tc.script, a.Opaque)
			}
			if d := cmp.Diff(tc.want, a.Commands[0].Words); d != "" {
				t.Errorf("words of %q (-want +got):\n%s", tc.script, d)
			}
		})
	}
}

func TestBashDecisions(t *testing.T) {
	echo := Rules{Allow: mustRules(t, "bash(echo:*)")}
	goTest := Rules{Allow: mustRules(t, "bash(go test:*)")}
	for _, tc := range []struct {
		name    string
		mode    Mode
		rules   Rules
		command string
		want    decision
	}{
		// The cases for bash(echo:*).
		{"echo allowed", Default, echo, "echo ok", allowRule("bash(echo:*)")},
		{"echo list allowed", Default, echo, "echo ok && echo ko", allowRule("bash(echo:*)")},
		{"and list hides rm", Default, echo, "echo ok && rm -rf x", askMode},
		{"substitution hides rm", Default, echo, "echo $(rm -rf x)", askMode},
		{"backticks hide rm", Default, echo, "echo `rm -rf x`", askMode},
		{"sequence hides rm", Default, echo, "echo ok; rm -rf x", askMode},
		{"pipe into sh", Default, echo, "echo ok | sh", askMode},
		{"subshell hides rm", Default, echo, "(echo ok; rm x)", askMode},
		{"group hides rm", Default, echo, "{ echo ok; rm x; }", askMode},
		{"process substitution hides rm", Default, echo, "echo <(rm x)", askMode},
		{"if body hides rm", Default, echo, "if echo ok; then rm x; fi", askMode},
		{"while body hides rm", Default, echo, "while echo ok; do rm x; done", askMode},
		{"function body hides rm", Default, echo, "f() { rm x; }; echo ok", askMode},
		{"here-document hides rm", Default, echo, "echo <<EOF\n$(rm x)\nEOF", askMode},
		{"echo with quoted args", Default, echo, `echo "a && b" 'c; d'`, allowRule("bash(echo:*)")},
		{"echo with variable", Default, echo, "echo $HOME", allowRule("bash(echo:*)")},
		{"echo escaped name", Default, echo, `\echo ok`, allowRule("bash(echo:*)")},
		{"echo is not echox", Default, echo, "echox ok", askMode},
		{"path is not the name", Default, echo, "/tmp/echo ok", askMode},
		{"assignment in front", Default, echo, "PATH=/tmp echo ok", askMode},
		{"bare assignment", Default, echo, "X=1; echo $X", askMode},
		{"eval of allowed", Default, echo, "eval 'echo ok'", askMode},
		{"bash -c of allowed", Default, echo, "bash -c 'echo ok'", askMode},
		{"computed command", Default, echo, "$CMD ok", askMode},
		// The cases for bash(go test:*).
		{"go test all", Default, goTest, "go test ./...", allowRule("bash(go test:*)")},
		{"go test run", Default, goTest, "go test -run X ./pkg", allowRule("bash(go test:*)")},
		{"go test alone", Default, goTest, "go test", allowRule("bash(go test:*)")},
		{"go testx", Default, goTest, "go testx", askMode},
		{"go vet", Default, goTest, "go vet ./...", askMode},
		{"go alone", Default, goTest, "go", askMode},
		{"go test and vet", Default, Rules{Allow: mustRules(t, "bash(go test:*)", "bash(go vet:*)")}, "go test ./... && go vet ./...", allowRule("bash(go test:*), bash(go vet:*)")},
		{"exact rule", Default, Rules{Allow: mustRules(t, "bash(go version)")}, "go version", allowRule("bash(go version)")},
		{"exact rule with more", Default, Rules{Allow: mustRules(t, "bash(go version)")}, "go version -m x", askMode},
		{"assignment rule", Default, Rules{Allow: mustRules(t, "bash(CGO_ENABLED=0 go build:*)")}, "CGO_ENABLED=0 go build ./...", allowRule("bash(CGO_ENABLED=0 go build:*)")},
		{"assignment rule other value", Default, Rules{Allow: mustRules(t, "bash(CGO_ENABLED=0 go build:*)")}, "CGO_ENABLED=1 go build ./...", askMode},
		{"bare bash allows all", Default, Rules{Allow: mustRules(t, "bash")}, "rm -rf x; $CMD", allowRule("bash")},
		// Deny wins.
		{"deny in yolo", Yolo, Rules{Deny: mustRules(t, "bash(rm:*)")}, "echo ok && rm -rf x", denyRule("bash(rm:*)")},
		{"deny beats allow", Default, Rules{Allow: mustRules(t, "bash(echo:*)", "bash(rm:*)"), Deny: mustRules(t, "bash(rm:*)")}, "echo ok && rm -rf x", denyRule("bash(rm:*)")},
		{"deny beats bare allow", Default, Rules{Allow: mustRules(t, "bash"), Deny: mustRules(t, "bash(rm:*)")}, "rm x", denyRule("bash(rm:*)")},
		{"deny in substitution", Yolo, Rules{Deny: mustRules(t, "bash(rm:*)")}, "echo $(rm -rf x)", denyRule("bash(rm:*)")},
		{"deny full path", Yolo, Rules{Deny: mustRules(t, "bash(rm:*)")}, "/bin/rm -rf x", denyRule("bash(rm:*)")},
		{"deny quoted", Yolo, Rules{Deny: mustRules(t, "bash(rm:*)")}, `'r'm -rf x`, denyRule("bash(rm:*)")},
		{"deny with assignment", Yolo, Rules{Deny: mustRules(t, "bash(rm:*)")}, "X=1 rm -rf x", denyRule("bash(rm:*)")},
		{"deny through sudo", Yolo, Rules{Deny: mustRules(t, "bash(rm:*)")}, "sudo -u root rm -rf x", denyRule("bash(rm:*)")},
		{"deny through xargs", Yolo, Rules{Deny: mustRules(t, "bash(rm:*)")}, "ls | xargs rm", denyRule("bash(rm:*)")},
		{"deny through bash -c", Yolo, Rules{Deny: mustRules(t, "bash(rm:*)")}, "bash -c 'cd / && rm -rf x'", denyRule("bash(rm:*)")},
		{"deny through eval", Yolo, Rules{Deny: mustRules(t, "bash(rm:*)")}, `eval "rm -rf x"`, denyRule("bash(rm:*)")},
		{"deny two words", Yolo, Rules{Deny: mustRules(t, "bash(git push:*)")}, "git add . && git push --force", denyRule("bash(git push:*)")},
		{"deny other command passes", Yolo, Rules{Deny: mustRules(t, "bash(rm:*)")}, "echo rm", allowMode},
		{"deny bare bash", Yolo, Rules{Deny: mustRules(t, "bash")}, "ls", denyRule("bash")},
		// Unverifiable commands.
		{"unparseable asks", Default, echo, "echo 'oops", askMode},
		{"unparseable asks without rules", Default, Rules{}, "(((", askMode},
		{"unparseable in yolo", Yolo, Rules{}, "echo 'oops", allowMode},
		{"unparseable with deny rules in yolo", Yolo, Rules{Deny: mustRules(t, "bash(rm:*)")}, "echo 'oops", askRule("bash(rm:*)")},
		{"computed name with deny rules in yolo", Yolo, Rules{Deny: mustRules(t, "bash(rm:*)")}, "$(printf rm) -rf x", askRule("bash(rm:*)")},
		{"computed name with bare allow and deny", Default, Rules{Allow: mustRules(t, "bash"), Deny: mustRules(t, "bash(rm:*)")}, "$X -rf x", askRule("bash(rm:*)")},
		{"arithmetic trap", Default, echo, "echo $((x))", askMode},
		{"no command field", Default, echo, "", askMode},
		// Ask rules.
		{"ask rule beats allow", Default, Rules{Allow: mustRules(t, "bash(git:*)"), Ask: mustRules(t, "bash(git push:*)")}, "git push", askRule("bash(git push:*)")},
		{"ask rule in yolo", Yolo, Rules{Ask: mustRules(t, "bash(git push:*)")}, "git status && git push", askRule("bash(git push:*)")},
		{"ask rule other command", Default, Rules{Allow: mustRules(t, "bash(git:*)"), Ask: mustRules(t, "bash(git push:*)")}, "git status", allowRule("bash(git:*)")},
		// Modes.
		{"default asks", Default, Rules{}, "ls", askMode},
		{"accept-edits asks", AcceptEdits, Rules{}, "ls", askMode},
		{"plan denies", Plan, Rules{}, "ls", denyMode},
		{"plan denies even allowed", Plan, echo, "echo ok", denyMode},
		{"plan deny rule first", Plan, Rules{Deny: mustRules(t, "bash(rm:*)")}, "rm x", denyRule("bash(rm:*)")},
		{"yolo allows", Yolo, Rules{}, "rm -rf x", allowMode},
		{"empty command", Default, echo, "   ", askMode},
		// Redirections.
		// A write asks in default mode whatever the rules (issue 12); in
		// accept-edits a write inside the workspace is an edit.
		{"redirect inside", Default, echo, "echo ok > out.txt", askMode},
		{"redirect append inside", Default, echo, "echo ok >> sub/out.txt 2>&1", askMode},
		{"redirect inside accept-edits", AcceptEdits, echo, "echo ok > out.txt", allowRule("bash(echo:*)")},
		{"redirect inside by a write rule", Default, Rules{Allow: mustRules(t, "bash(echo:*)", "write_file(sub/**)")}, "echo ok >> sub/out.txt 2>&1", allowRule("bash(echo:*), write_file(sub/**)")},
		{"redirect dev null", Default, echo, "echo ok > /dev/null 2>&1", allowRule("bash(echo:*)")},
		{"redirect stderr dup", Default, echo, "echo ok >&2", allowRule("bash(echo:*)")},
		{"redirect outside", Default, echo, "echo ok > /etc/passwd", askMode},
		{"redirect parent", Default, echo, "echo ok > ../x", askMode},
		{"redirect all outside", Default, echo, "echo ok &> /tmp/x", askMode},
		{"redirect dup to file outside", Default, echo, "echo ok >& /tmp/x", askMode},
		{"redirect computed", Default, echo, `echo ok > "$F"`, askMode},
		{"redirect home", Default, echo, "echo ok > ~/x", askMode},
		{"redirect after cd", Default, Rules{Allow: mustRules(t, "bash(echo:*)", "bash(cd:*)")}, "cd /tmp && echo ok > x", askMode},
		{"redirect outside in yolo", Yolo, echo, "echo ok > /etc/x", allowMode},
		{"redirect into denied file", Yolo, Rules{Deny: mustRules(t, "write_file(.env)")}, "echo X=1 > .env", denyRule("write_file(.env)")},
		// A read outside the workspace asks, as the file tools refuse it
		// (issue 12).
		{"input redirect outside", Default, Rules{Allow: mustRules(t, "bash(cat:*)")}, "cat < /etc/hosts", askMode},
		{"input redirect outside by a read rule", Default, Rules{Allow: mustRules(t, "bash(cat:*)", "read_file(/etc/**)")}, "cat < /etc/hosts", allowRule("bash(cat:*), read_file(/etc/**)")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := policyOf(t, tc.mode, tc.rules)
			req := bashReq(t, tc.command)
			if tc.name == "no command field" {
				req.Input = []byte(`{"cmd":"echo ok"}`)
			}
			v := p.Decide(req)
			if d := cmp.Diff(tc.want, decisionOf(t, v)); d != "" {
				t.Errorf("Decide(%q) mismatch (-want +got):\n%s\nreason: %s", tc.command, d, v.Reason)
			}
		})
	}
}

// TestBashRuleReasons: a deny rule and an ask rule say alike what they
// caught: every command, one command of several, or a file a command
// writes.
func TestBashRuleReasons(t *testing.T) {
	for _, tc := range []struct {
		name          string
		rules         Rules
		command, want string
	}{
		{"deny every command", Rules{Deny: mustRules(t, "bash")}, "ls", "Deny rule bash forbids every command, so `ls` cannot run."},
		{"ask every command", Rules{Ask: mustRules(t, "bash")}, "ls", "Ask rule bash requires approval for every command."},
		{"deny a command", Rules{Deny: mustRules(t, "bash(rm:*)")}, "ls && rm x", "Deny rule bash(rm:*) forbids `rm x`, part of `ls && rm x`."},
		{"ask a command", Rules{Ask: mustRules(t, "bash(rm:*)")}, "ls && rm x", "Ask rule bash(rm:*) requires approval for `rm x`, part of `ls && rm x`."},
		{"deny a file", Rules{Deny: mustRules(t, "write_file(.env)")}, "echo X=1 > .env", "Deny rule write_file(.env) forbids writing .env, which `> .env` in `echo X=1 > .env` would do."},
		{"ask a file", Rules{Ask: mustRules(t, "write_file(.env)")}, "echo X=1 > .env", "Ask rule write_file(.env) requires approval for writing .env, which `> .env` in `echo X=1 > .env` would do."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := policyOf(t, Yolo, tc.rules).Decide(bashReq(t, tc.command))
			if v.Reason != tc.want {
				t.Errorf("Decide(%q).Reason = %q, want %q", tc.command, v.Reason, tc.want)
			}
		})
	}
}

func TestBashReasons(t *testing.T) {
	p := policyOf(t, Default, Rules{Allow: mustRules(t, "bash(echo:*)"), Deny: mustRules(t, "bash(rm:*)")})
	for _, tc := range []struct {
		command string
		want    []string
	}{
		{"echo ok && ls -la", []string{"Default mode", "`ls -la` is not allowed by any rule"}},
		{"ls -la", []string{"Default mode asks before running commands, and no allow rule covers `ls -la`."}},
		{"echo ok && rm -rf x", []string{"bash(rm:*)", "`rm -rf x`"}},
		{"echo ok > /etc/x", []string{"outside the workspace"}},
		{"echo 'x", []string{"cannot be parsed", "bash(rm:*)"}},
	} {
		v := p.Decide(bashReq(t, tc.command))
		for _, w := range tc.want {
			if !strings.Contains(v.Reason, w) {
				t.Errorf("Decide(%q).Reason = %q, want it to mention %q", tc.command, v.Reason, w)
			}
		}
		if n := strings.Count(v.Reason, "`"+tc.command+"`"); n > 1 {
			t.Errorf("Decide(%q).Reason = %q names the command %d times", tc.command, v.Reason, n)
		}
	}
}
