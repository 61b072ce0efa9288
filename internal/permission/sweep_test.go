package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// sweepPolicy returns a policy of mode over a workspace that is a git
// repository in the home directory (HOME set to its parent), with
// rules, and the workspace's root.
func sweepPolicy(t *testing.T, mode Mode, rules Rules) (*Policy, string) {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	root := filepath.Join(home, "ws")
	for _, d := range []string{".git/objects", ".git/refs", "src", "build"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	p, err := New(mode, rules, mustWorkspace(t, root))
	if err != nil {
		t.Fatal(err)
	}
	return p, p.Workspace().Root()
}

// refused are commands aimed at the workspace, its repository, the home
// directory or /, in the spellings a model (or a prompt injection) may
// use; ROOT stands for the workspace's absolute path.
var refused = []string{
	"rm -rf .", "rm -rf ./", "rm -fr .", "rm -r -f .", "rm -R .", "rm --recursive --force .", "rm --rec -f .",
	"rm -rf -- .", `r\m -rf .`, `"rm" -rf "."`, "'rm' -rf '.'", "/bin/rm -rf .", "command rm -rf .", "sudo rm -rf .",
	"env rm -rf .", "env -i FOO=1 rm -rf .", "timeout 5 rm -rf .", "nice -n 5 rm -rf .", "RM=1 rm -rf .", "xargs rm -rf . </dev/null",
	"rm -rf $PWD", `rm -rf "$PWD"`, "rm -rf ${PWD}", `rm -rf "$(pwd)"`, "rm -rf `pwd`", `rm -rf "$PWD/"`, "rm -rf ROOT", "rm -rf ROOT/",
	"rm -rf src/..", "rm -rf ./src/../", "rm -rf *", "rm -rf ./*", "rm -rf .*", "rm -rf * .*", `rm -rf "$PWD"/*`, "rm -rf {.,build}",
	"rm -rf .git", "rm -rf ./.git/", "rm -rf ROOT/.git", "rm -rf .g*",
	"rm -rf ~", "rm -rf ~/", "rm -rf $HOME", `rm -rf "${HOME}"`, "rm -rf ~/*", "rm -rf ..", "rm -rf ../..",
	"rm -rf /", "rm -rf --no-preserve-root /", "rm -rf /*", "rm -rf //",
	"cd src && rm -rf ..", "cd / && rm -rf *", "cd src; cd .. && rm -rf .", "echo hi; rm -rf .", "true && rm -rf . || echo no",
	"sh -c 'rm -rf .'", `bash -c "rm -rf ."`, `sh -c 'sh -c "rm -rf ."'`, "eval 'rm -rf .'", "sudo sh -c 'cd src && rm -rf ..'",
	"(rm -rf .)", "{ rm -rf .; }", "if true; then rm -rf .; fi", "echo $(rm -rf .)",
	"find . -delete", "find -delete", "find . -mindepth 1 -delete", "find . -type f -delete", "find ROOT -depth -delete",
	"find . -exec rm -rf {} +", "find . -mindepth 1 -execdir rm -rf {} ';'", "find ~ -delete", "find / -delete",
	"git clean -fdx", "git clean -fd", "git clean -xfd", "git clean -f -d -x", "git clean --force -d", "git clean -fdxX",
	"git clean -fdx .", "git clean -fdx :/", "git clean -fdx -- .", "cd src && git clean -fdx ..",
	"git reset --hard", "git reset --hard HEAD~3", "git reset --hard origin/main", "git reset -q --hard", "cd src && git reset --hard",
	"git -C src reset --hard", "/usr/bin/git reset --hard",
	"git checkout -- .", "git checkout .", "git checkout HEAD -- .", "git checkout HEAD~2 .", "cd src && git checkout -- :/",
	"git checkout -f", "git checkout -- :/", "git checkout -- '*'",
	"git restore .", "git restore --staged --worktree .", "git restore -s HEAD~2 :/", "git restore -W -S -- .", "cd src && git restore :/",
	"cd src && git checkout -- ..", "cd src && cd .. && git restore .",
	"git switch -f main", "git switch --discard-changes main", "git rm -rf .", "git rm -r -q -- .",
	"rsync -a --delete build/ ./", "rsync -a --delete-after src/ \"$PWD\"", "rsync -av --del build/ ROOT",
	"mv . /tmp/gone", "mv .git /tmp/gone", "mv ~ /tmp/gone", `mv "$PWD" ../gone`, "mv -t /tmp .git",
	// Reported by a hostile review: ~+ and the commands that print the
	// directory the shell is in or the repository's top.
	"rm -rf ~+", "rm -rf ~+/", "cd src && rm -rf ~+/..", "find ~+ -delete",
	"rm -rf $(git rev-parse --show-toplevel)", `rm -rf "$(git rev-parse --show-toplevel)"`, "rm -rf `git rev-parse --show-toplevel`",
	`rm -rf "$(git rev-parse --show-toplevel)/.git"`, "cd src && rm -rf $(git rev-parse --show-toplevel)", "rm -rf $(realpath .)",
	`rm -rf "$(realpath -e .)"`, "rm -rf $(readlink -f .)", "rm -rf `readlink -f ./`", "rm -rf $(pwd -P)", "rm -rf $(pwd -L)", "rm -rf `pwd -P`",
	// What is inside the repository directory: its objects and refs.
	"rm -rf .git/objects", "rm -rf .git/refs", "rm -rf ./.git/objects/", "rm -rf .git/objects/*", "rm -rf .git/refs/heads", "rm -r .git/objects",
	"rm -rf ROOT/.git/objects", "find .git/objects -delete", "mv .git/objects /tmp/gone", "rm -rf .git/*",
	// find's tests that pick everything, and a -delete before any test.
	"find . -name '*' -delete", "find . -path '*' -delete", "find . -delete -name x", "find . -iname '*' -delete", "find . -wholename '*' -delete",
	"find . -path './*' -delete", "find . -regex '.*' -delete", `find . \( -name '*' \) -delete`, "find . ! -type d -delete", "find . -type d -o -delete",
	"find . -print -delete", "find . -name '**' -exec rm -rf {} +", "find . -delete , -name x",
	"find . -path '*/*' -delete", "find src/.. -path 'src/../*' -delete", "find . -false -o -delete", "find . -not -true -o -delete",
	// git told its working tree or repository.
	"git --work-tree=. reset --hard", "git --git-dir=.git reset --hard", "git --work-tree . reset --hard", "git --work-tree=ROOT checkout -f",
	"git --git-dir=ROOT/.git --work-tree=/elsewhere reset --hard", "git --work-tree=src reset --hard", "git --git-dir=$G reset --hard",
	`git --work-tree="$W" --git-dir=/elsewhere/.git reset --hard`, "git --git-dir=/elsewhere/.git reset --hard", "git --work-tree=. clean -fdx",
	"git --work-tree=. checkout -- .", "git --git-dir=.git --work-tree=. restore :/", "git --work-tree=. switch -f main",
	"git --git-dir $G reset --hard", "GIT_DIR=.git git reset --hard", "GIT_WORK_TREE=$W git clean -fdx", "env GIT_DIR=.git git reset --hard",
	"git -C src --work-tree=. reset --hard", "git --work-tree=src/.. checkout -- src/..",
	// mv of everything out of the workspace, or of .git.
	"mv * /tmp/gone", "mv .* pkg/", "mv ./* ~/elsewhere", `mv * "$DEST"`, "shopt -s dotglob; mv * pkg/", "GLOBIGNORE=x; mv ./* pkg/",
	"mv ./.g* * pkg/", "mv ~/* ~/old/", "mv * .", "mv * src/..",
}

// notRefused are ordinary destructive commands (and harmless ones that
// look alike): decided as before, by the rules and the mode.
var notRefused = []string{
	"rm -rf build/", "rm -rf node_modules", "rm -rf ./build", "rm -rf src/*", "rm file.go", "rm -f .", "rm -rf build src",
	"rm -rf .github", "rm -rf src/.git", "cd build && rm -rf .", `rm -rf "$DIR"`, "rm -rf $TMPDIR/x", "rm -rf ~/tmp-cache",
	"cd \"$X\" && rm -rf .", "rm -rf *.o", "rm -rf .cache",
	"git clean -n", "git clean -fdxn", "git clean -f", "git clean -fd build/", "git clean -fdx src",
	"git reset --soft HEAD~1", "git reset HEAD file.go", "git reset", "git checkout -- file.go", "git checkout main",
	"git checkout -b feature", "git restore --staged .", "git restore file.go", "git rm -r --cached .", "git rm file.go",
	"find . -name '*.pyc' -delete", "find build -delete", "find . -type d -name __pycache__ -exec rm -rf {} +",
	"rsync -a src/ backup/", "rsync -a --delete src/ backup/", "mv a b", "mv src/a.go src/b.go", "echo rm -rf .",
	"git -C /elsewhere reset --hard", "cd \"$X\" && git reset --hard",
	// Reported by a hostile review as refused wrongly: moving the root's
	// contents into a directory in it.
	"mv * src/", "mkdir pkg && mv ./* pkg/", "mv -t pkg ./*", "mv ./* ./pkg", "mv ROOT/* ROOT/pkg/", "cd src && mv * ../pkg/",
	"mv --target-directory=pkg -- *", "shopt -u dotglob; mv * pkg/", "rm -rf ?git",
	// git checkout and restore of . below the root; git clean -X.
	"cd src && git checkout -- .", "cd src && git restore .", "cd src && git checkout -- '*'", "git -C src checkout -- .",
	"git clean -fdX", "git clean -fX", "git clean -fX -d",
	// A file in .git, not recursively or not a directory.
	"rm -f .git/index.lock", "rm -rf .git/index.lock", "rm -rf .git/hooks/pre-commit", "rm .git/refs/heads/old",
	// git told a working tree and repository outside the workspace.
	"git --git-dir=/elsewhere/.git --work-tree=/elsewhere reset --hard", "git --work-tree=/elsewhere --git-dir=/elsewhere/.git clean -fdx",
	"git --git-dir=.git checkout -- file.go", "GIT_DIR=/elsewhere/.git GIT_WORK_TREE=/elsewhere git reset --hard",
	"git --work-tree=/elsewhere checkout HEAD -- .",
	// find's tests that pick.
	"find . -name '.*' -delete", "find . -name x -delete -print", "find . -not -name x -o -delete", "find . -name '*.o' -o -name '*.a' -delete", "find . -empty -delete",
	// ~+ and the commands that print a directory, aimed below the root.
	"rm -rf $(realpath build)", "rm -rf $(git rev-parse --show-toplevel)/build", "rm -rf ~+/build", "rm -rf ~-",
}

func TestSweepsAreRefusedInEveryMode(t *testing.T) {
	hooks := Rules{Allow: mustRules(t, "bash(rm:*)", "bash(git:*)", "bash(find:*)", "bash(sh:*)", "bash(rsync:*)", "bash(mv:*)")}
	for _, mode := range Modes() {
		for _, rules := range []Rules{{}, hooks, {Allow: mustRules(t, "bash")}} {
			p, root := sweepPolicy(t, mode, rules)
			for _, cmd := range refused {
				cmd = strings.ReplaceAll(cmd, "ROOT", root)
				v := p.Decide(bashReq(t, cmd))
				if v.Decision != contract.Deny || v.By != ByPolicy {
					t.Errorf("%s, rules %v: %s gave %s by %s (%s); want a refusal by the policy", mode, rules.Allow, cmd, v.Decision, v.By, v.Reason)
					continue
				}
				if !strings.Contains(v.Reason, "cannot be undone") || !strings.Contains(v.Reason, "never allowed") {
					t.Errorf("%s: reason %q says neither that it cannot be undone nor that it is never allowed", cmd, v.Reason)
				}
				// A headless run, whose asks become denials with a hint,
				// leaves the refusal as it is: no flag allows it.
				if h := p.ForHeadless(v, bashReq(t, cmd)); h.By != ByPolicy {
					t.Errorf("%s: headless gave %+v", cmd, h)
				}
			}
		}
	}
}

func TestSweepReasonNamesWhatIsAimedAt(t *testing.T) {
	p, root := sweepPolicy(t, Yolo, Rules{})
	home := filepath.Dir(root)
	for cmd, want := range map[string]string{
		"rm -rf .":                       "the workspace (" + root + ")",
		"rm -rf .git":                    "the workspace's git repository (" + filepath.Join(root, ".git") + ")",
		"rm -rf ~":                       "your home directory (" + home + ")",
		"rm -rf /":                       "the root of the file system (/)",
		"rm -rf *":                       "everything in the workspace",
		"rm -rf ..":                      "your home directory (" + home + ")",
		"rm -rf ../..":                   filepath.Dir(home) + ", which holds the workspace",
		"git reset --hard":               "discards every uncommitted change in the working tree of the workspace's repository (" + root + ")",
		"git --work-tree=. reset --hard": "discards every uncommitted change in the workspace (" + root + ")",
		`git --work-tree="$W" --git-dir=/elsewhere/.git reset --hard`: "a working tree rein cannot tell before it runs",
		"git clean -fdx":             "deletes the untracked files of the workspace",
		"rm -rf .git/refs":           "deletes " + filepath.Join(root, ".git/refs") + ", in the workspace's git repository",
		"rm -rf .git/objects/pack/*": "deletes what " + filepath.Join(root, ".git/objects/pack/*") + " matches, in the workspace's git repository",
	} {
		v := p.Decide(bashReq(t, cmd))
		if !strings.Contains(v.Reason, want) {
			t.Errorf("%s: reason %q does not say %q", cmd, v.Reason, want)
		}
	}
}

func TestOrdinaryDeletesAreDecidedAsBefore(t *testing.T) {
	for _, mode := range Modes() {
		p, root := sweepPolicy(t, mode, Rules{})
		for _, cmd := range notRefused {
			cmd = strings.ReplaceAll(cmd, "ROOT", root)
			v := p.Decide(bashReq(t, cmd))
			if v.By == ByPolicy {
				t.Errorf("%s: %s refused: %s", mode, cmd, v.Reason)
			}
			if mode == Yolo && v.Decision != contract.Allow {
				t.Errorf("yolo: %s gave %s (%s); want allow", cmd, v.Decision, v.Reason)
			}
			if mode == Default && v.Decision != contract.Ask {
				t.Errorf("default: %s gave %s (%s); want ask", cmd, v.Decision, v.Reason)
			}
		}
	}
	// An allow rule allows them as before.
	p, _ := sweepPolicy(t, AcceptEdits, Rules{Allow: mustRules(t, "bash(rm:*)")})
	if v := p.Decide(bashReq(t, "rm -rf build/")); v.Decision != contract.Allow {
		t.Errorf("bash(rm:*) on rm -rf build/ gave %+v", v)
	}
}

func TestUndoableAsks(t *testing.T) {
	p, _ := sweepPolicy(t, Default, Rules{})
	for cmd, want := range map[string]bool{
		"rm -rf build":                    true,
		"rm src/a.go":                     true,
		"mv src/a.go src/b.go":            true,
		"echo x > notes.txt":              true,
		"sed -i s/a/b/ src/a.go":          true,
		"git checkout -- src/a.go":        true,
		"cd src && git clean -fd gen":     true,
		"rm ~/x":                          false,
		"rm /tmp/x":                       false,
		"rm -rf build && rm /tmp/x":       false,
		`rm "$F"`:                         false,
		"python3 -c 'print(1)'":           false,
		"git push":                        false,
		"make":                            false,
		"git -C /elsewhere checkout -- x": false,
		"cd src && git checkout -- .":     true,
		"git clean -fdX":                  false,
		"git --git-dir=/elsewhere/.git --work-tree=/elsewhere checkout -- x": false,
	} {
		v := p.Decide(bashReq(t, cmd))
		if v.Decision != contract.Ask {
			t.Errorf("%s gave %s (%s); want ask", cmd, v.Decision, v.Reason)
			continue
		}
		if v.Undoable != want {
			t.Errorf("%s: Undoable %v, want %v", cmd, v.Undoable, want)
		}
	}
}
