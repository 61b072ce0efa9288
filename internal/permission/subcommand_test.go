package permission

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/shell"
	"github.com/rein-agent/rein/internal/workspace/workspacetest"
)

// "Always" saves the rule a person means: a prefix only after a real
// subcommand, else the exact command. Each rule is saved, loaded back and
// checked to allow the approved command, to allow more arguments only when
// it is a prefix, and not to allow a neighbour the person did not approve.
func TestAlwaysSavesTheRuleMeant(t *testing.T) {
	for _, tc := range []struct {
		command string
		want    string // "" when no rule can say it
		other   string // a command the saved rule must not allow
	}{
		{"echo bench-ok", "bash(echo bench-ok)", "echo bench-ko"},
		{"echo", "bash(echo)", "echo hi"},
		{"ls -la", "bash(ls -la)", "ls -la /etc"},
		{"ls", "bash(ls)", "ls /etc"},
		{"rm -rf build", "bash(rm -rf build)", "rm -rf ~"},
		{"python3 -c 'print(1)'", "bash(python3 -c 'print(1)')", "python3 -c 'print(2)'"},
		{"go test ./...", "bash(go test:*)", "go vet ./..."},
		// $PKG could be -exec=...: go test's arguments cannot be seen.
		{"go test $PKG", "", ""},
		{"git status --short", "bash(git status:*)", "git push"},
		{`git commit -m "a b"`, "bash(git commit:*)", "git push"},
		{"cargo build --release", "bash(cargo build:*)", "cargo publish"},
		{"make test", "bash(make test:*)", "make deploy"},
		// What runs any command it is given, and a dry run, is approved as
		// it stands.
		{"git bisect run make test", "bash(git bisect run make test)", "git bisect run sh -c x"},
		{"git submodule foreach echo", "bash(git submodule foreach echo)", "git submodule foreach rm -rf x"},
		{"git clean -n", "bash(git clean -n)", "git clean -fdx"},
		{"npm publish --dry-run", "bash(npm publish --dry-run)", "npm publish"},
		{"git clean -nd", "bash(git clean -nd)", "git clean -fdx"},
		{"kubectl apply --dry-run=client -f x.yaml", "bash(kubectl apply --dry-run=client -f x.yaml)", "kubectl apply -f x.yaml"},
		{"make", "bash(make)", "make deploy"},
		{"make -j4 test", "bash(make -j4 test)", "make -j4 deploy"},
		{"./gradlew bootRun", "bash(./gradlew bootRun:*)", "./gradlew publish"},
		{"mvn dependency:tree", "bash(mvn dependency:tree:*)", "mvn deploy"},
		{"CGO_ENABLED=0 go build ./...", "bash(CGO_ENABLED=0 go build:*)", "go build ./..."},
		// npm run's script name is what the person approved.
		{"npm run build", "bash(npm run build:*)", "npm run deploy"},
		{"npm run build:prod -- --watch", "bash(npm run build:prod:*)", "npm run deploy"},
		{"npm run", "bash(npm run)", "npm run deploy"},
		{"npm install", "bash(npm install:*)", "npm publish"},
		{"yarn build", "bash(yarn build:*)", "yarn deploy"},
		{"uv run pytest -q", "bash(uv run pytest:*)", "uv run mypy"},
		{"uv run python -c x", "bash(uv run python -c x)", "uv run python -c y"},
		{"uv tool run ruff check", "bash(uv tool run ruff:*)", "uv tool run black"},
		{"go run ./cmd/gen", "bash(go run ./cmd/gen:*)", "go run ./cmd/other"},
		{"go run github.com/x/y@latest", "bash(go run github.com/x/y@latest)", "go run github.com/x/z@latest"},
		{"go run ../elsewhere", "bash(go run ../elsewhere)", "go run ../other"},
		{"docker run alpine echo hi", "bash(docker run alpine:*)", "docker run ubuntu"},
		{"docker run --rm -v /:/host alpine", "bash(docker run --rm -v /:/host alpine)", "docker run --rm alpine"},
		{"docker compose up -d", "bash(docker compose up:*)", "docker compose down"},
		{"kubectl get pods", "bash(kubectl get:*)", "kubectl delete pods"},
		// A group's subcommand is part of the rule: listing is not merging.
		{"gh pr list", "bash(gh pr list:*)", "gh pr merge 1"},
		{"gh pr", "bash(gh pr)", "gh pr merge 1"},
		{"git stash list", "bash(git stash list:*)", "git stash drop"},
		// Arguments that are code, requests or configuration: exact.
		{"gh api repos/o/r", "bash(gh api repos/o/r)", "gh api -X DELETE repos/o/r"},
		// git config writes .git/config, which no rule may allow.
		{"git config core.pager less", "", ""},
		{"go env GOPATH", "bash(go env GOPATH)", "go env -w GOFLAGS=-x"},
		// An option before the subcommand changes what a prefix would cover.
		{"git -C sub status", "bash(git -C sub status)", "git -C sub push"},
		// Another repository, outside: a read outside, which no rule
		// allows (and its configuration may name programs).
		{"git -C /tmp status", "", ""},
		{"go -C x test ./...", "bash(go -C x test ./...)", "go -C y test ./..."},
		// Only the program itself, not a file of that name.
		{"/usr/bin/git status", "bash(/usr/bin/git status)", "/usr/bin/git push"},
		{"./git status", "bash(./git status)", "./git push"},
		{"ls *.go", "", ""},
		{"echo $HOME", "", ""},
	} {
		t.Run(tc.command, func(t *testing.T) {
			dir := workspacetest.RealTemp(t)
			ws := mustWorkspace(t, dir)
			p, err := New(Default, Rules{}, ws)
			if err != nil {
				t.Fatal(err)
			}
			rules := p.SuggestRules(bashReq(t, tc.command))
			var got []string
			for _, r := range rules {
				got = append(got, r.String())
			}
			var want []string
			if tc.want != "" {
				want = []string{tc.want}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("SuggestRules(%q) (-want +got):\n%s", tc.command, d)
			}
			if tc.want == "" {
				return
			}
			q := alwaysSaved(t, ws, rules)
			allowed := func(command string) bool { return q.Decide(bashReq(t, command)).Decision == contract.Allow }
			if !allowed(tc.command) {
				t.Errorf("the saved rule %s does not allow %q", tc.want, tc.command)
			}
			more := tc.command + " more"
			if prefix := strings.HasSuffix(tc.want, ":*)"); allowed(more) != prefix {
				t.Errorf("the saved rule %s allows %q: %v, want %v", tc.want, more, !prefix, prefix)
			}
			if allowed(tc.other) {
				t.Errorf("the saved rule %s allows %q", tc.want, tc.other)
			}
		})
	}
}

// The README's promise: "always" saves bash(go test:*) for a command with
// a subcommand, but only the exact command for anything broader.
func TestAlwaysReadmeExamples(t *testing.T) {
	p := policyOf(t, Default, Rules{})
	for command, want := range map[string]string{
		"go test ./...":          "bash(go test:*)",
		"rm -rf build":           "bash(rm -rf build)",
		"python3 -c 'import os'": "bash(python3 -c 'import os')",
	} {
		rules := p.SuggestRules(bashReq(t, command))
		if len(rules) != 1 || rules[0].String() != want {
			t.Errorf("SuggestRules(%q) = %v, want %s", command, rules, want)
		}
	}
}

// FuzzSuggestCommand checks, for any command, that each rule "always"
// would save for one of its simple commands reads back as the same rule,
// allows that command, and, unless it is the prefix of a program with
// subcommands, allows nothing with one more argument.
func FuzzSuggestCommand(f *testing.F) {
	for _, s := range []string{
		"echo bench-ok", "go test ./...", "npm run build", "git -C x status", "git stash list", "make",
		"X=1 go build", "X=1", "uv tool run ruff", "docker run alpine sh", "gh pr merge 1", "ls *.go",
		"go run ./cmd/gen", "echo 'a b' \"c\" d\\ e", "git commit -m \"$(date)\"", "npm run 'build x'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, command string) {
		a := analyzeBash(command)
		for i := range a.Commands {
			c := &a.Commands[i]
			r, ok := suggestCommand(c, false)
			if !ok {
				continue
			}
			back, err := ParseRule(r.String())
			if err != nil || !back.Equal(r) {
				t.Fatalf("rule %s for %q reads back as %s, %v", r, c.Text, back, err)
			}
			if !back.allowsCommand(c) {
				t.Errorf("rule %s does not allow %q", r, c.Text)
			}
			more := shell.Command{Words: append(append([]shell.Word(nil), c.Words...), shell.Word{Text: "more"}), NAssign: c.NAssign}
			if back.allowsCommand(&more) != back.prefix {
				t.Errorf("rule %s allows %q with one more argument: %v", r, c.Text, back.allowsCommand(&more))
			}
			if back.prefix {
				name := back.words[back.nAssign].Text
				if _, ok := subcommandPrograms[name]; !ok || len(back.words)-back.nAssign < 2 {
					t.Errorf("prefix rule %s for %q: %q has no subcommands", r, c.Text, name)
				}
			}
		}
	})
}
