package permission

import (
	"path"
	"strings"

	"github.com/rein-agent/rein/internal/shell"
)

// subKind says what a subcommand's next word is, for the prefix an
// "always" answer saves.
type subKind uint8

const (
	// plainSub: the next words are the subcommand's arguments; the rule is
	// the program and the subcommand with any arguments (go test:*).
	plainSub subKind = iota
	// groupSub: a group of subcommands (git stash, docker compose, gh pr);
	// the next word is a subcommand too, and part of the rule, so that
	// approving gh pr list does not allow gh pr merge.
	groupSub
	// runnerSub: runs what the next word names, a script, a program or an
	// image (npm run build, uv run pytest, go run ./cmd/gen); that word is
	// part of the rule, and it must be a plain name or relative path that is
	// not an interpreter or a shell.
	runnerSub
	// exactSub: its arguments are code, arbitrary requests or configuration
	// that changes what later commands run (git config, gh api, go env -w);
	// only the exact command is offered.
	exactSub
)

// subcommandPrograms are the programs whose first argument is a subcommand
// (git status, go test, npm install) or a target (make test, mvn package,
// gradle build). For them, and only them, "always" offers a prefix rule:
// the program, the subcommand and, for the subcommands listed as groups or
// runners, the word after it, with any further arguments. Every other
// command gets the exact rule (echo bench-ok, ls -la, rm -rf build), and so
// does one whose subcommand follows an option (git -C dir status, go -C x
// test: the option changes what the rule would cover) or is not a plain
// lower-case word (make -j4, ./script.sh).
//
// A program is looked up by the command name exactly as written: ./git is a
// file of the workspace, and /usr/bin/git status gets the exact rule. The
// inner maps list, by the space-separated words after the program, the
// subcommands that are not plain; a subcommand missing there is plain.
var subcommandPrograms = map[string]map[string]subKind{
	// bisect run and submodule foreach run any command they are given.
	"git": {"config": exactSub, "stash": groupSub, "remote": groupSub, "worktree": groupSub,
		"submodule": groupSub, "submodule foreach": exactSub, "bisect": groupSub, "bisect run": exactSub,
		"notes": groupSub, "lfs": groupSub},
	"go":    {"run": runnerSub, "env": exactSub, "mod": groupSub, "work": groupSub, "tool": groupSub},
	"cargo": {"config": exactSub},
	"npm":   {"run": runnerSub, "run-script": runnerSub, "exec": runnerSub, "config": exactSub, "cache": groupSub},
	"pnpm":  {"run": runnerSub, "exec": runnerSub, "dlx": runnerSub, "config": exactSub},
	// yarn runs a package.json script given as its subcommand (yarn build).
	"yarn": {"run": runnerSub, "exec": runnerSub, "dlx": runnerSub, "node": exactSub, "config": exactSub},
	// bun FILE runs a file, but a file name is never a plain subcommand.
	"bun":    {"run": runnerSub, "x": runnerSub, "exec": exactSub},
	"docker": containerSubcommands,
	"podman": containerSubcommands,
	"kubectl": {"exec": runnerSub, "run": runnerSub, "config": groupSub, "rollout": groupSub,
		"create": groupSub, "set": groupSub, "auth": groupSub},
	"helm": {"repo": groupSub, "plugin": groupSub, "dependency": groupSub, "registry": groupSub},
	"gh": {"api": exactSub, "alias": exactSub, "config": exactSub, "pr": groupSub, "issue": groupSub,
		"repo": groupSub, "release": groupSub, "run": groupSub, "workflow": groupSub, "gist": groupSub,
		"auth": groupSub, "secret": groupSub, "variable": groupSub, "label": groupSub, "cache": groupSub,
		"extension": groupSub, "search": groupSub, "codespace": groupSub, "project": groupSub},
	"terraform": {"state": groupSub, "workspace": groupSub},
	"pip":       {"config": exactSub},
	"pip3":      {"config": exactSub},
	"uv": {"run": runnerSub, "pip": groupSub, "tool": groupSub, "tool run": runnerSub,
		"python": groupSub, "cache": groupSub},
	"poetry": {"run": runnerSub, "config": exactSub, "env": groupSub, "self": groupSub, "cache": groupSub},
	"dotnet": {"new": groupSub, "tool": groupSub, "tool run": runnerSub, "nuget": groupSub, "workload": groupSub},
	// Build tools whose arguments are targets, tasks or phases.
	"make": {}, "mvn": {}, "./mvnw": {}, "gradle": {}, "./gradlew": {},
}

var containerSubcommands = map[string]subKind{
	"run": runnerSub, "exec": runnerSub, "compose": groupSub, "compose run": runnerSub,
	"compose exec": runnerSub, "image": groupSub, "container": groupSub, "volume": groupSub,
	"network": groupSub, "system": groupSub, "buildx": groupSub, "context": groupSub,
}

// subcommandPrefix returns how many of a command's words, its name first,
// an "always" rule keeps as a prefix (2 for go test ./..., 3 for npm run
// build), or 0 when only the exact command may be offered.
func subcommandPrefix(cw []shell.Word) int {
	if len(cw) < 2 || cw[0].Kind != shell.Literal {
		return 0
	}
	subs, ok := subcommandPrograms[cw[0].Text]
	if !ok || dryRun(cw[0].Text, cw[1:]) {
		return 0
	}
	key := ""
	for i := 1; i < len(cw) && cw[i].Kind == shell.Literal && isSubcommand(cw[i].Text); i++ {
		if key != "" {
			key += " "
		}
		key += cw[i].Text
		switch subs[key] {
		case plainSub:
			return i + 1
		case exactSub:
			return 0
		case runnerSub:
			if i+1 < len(cw) && cw[i+1].Kind == shell.Literal && isRunTarget(cw[i+1].Text) {
				return i + 2
			}
			return 0
		}
		// A group: the next word must be one of its subcommands.
	}
	return 0
}

// dryRun reports whether a command's arguments ask for a dry run (git
// clean -n, npm publish --dry-run): approving one approves only itself,
// never the real run the same prefix would allow.
func dryRun(program string, args []shell.Word) bool {
	for _, w := range args {
		t := w.Text
		switch {
		case t == "-n", t == "--dryrun", t == "--what-if", t == "--dry-run", strings.HasPrefix(t, "--dry-run="):
			return true
		case program == "git" && len(t) > 2 && t[0] == '-' && t[1] != '-' && strings.ContainsRune(t[1:], 'n'):
			return true // -n in a cluster of git's short flags (git clean -nd)
		}
	}
	return false
}

// isSubcommand reports whether sub reads as a subcommand or a target (test,
// run-script, dependency:tree, bootRun): a word starting with a lower-case
// letter, of letters, digits, '-' and ':', not a flag, a path, a number or
// an assignment.
func isSubcommand(sub string) bool {
	if sub == "" || len(sub) > 32 || sub[0] < 'a' || sub[0] > 'z' {
		return false
	}
	for _, r := range sub {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == ':') {
			return false
		}
	}
	return true
}

// isRunTarget reports whether s, after a runner subcommand, names a script,
// program or image that a rule may fix (build, pytest, ./cmd/gen,
// ghcr.io/o/img:1): letters, digits and ._/:+- only, not a flag, not an
// absolute path, no "..", no version to fetch (@), and not a program that
// runs whatever its arguments say (python, sh, node).
func isRunTarget(s string) bool {
	if s == "" || len(s) > 128 || s[0] == '-' || s[0] == '/' || broad(path.Base(s)) {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._/:+-", r)) {
			return false
		}
	}
	for _, part := range strings.Split(s, "/") {
		if part == ".." {
			return false
		}
	}
	return true
}
