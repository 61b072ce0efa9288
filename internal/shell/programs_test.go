package shell

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// summary is what Parse finds in a script, in a form a table can say:
// each command as "text" (with "<-N" for a parent at index N, "!" when it
// is unplaced), each file as "r:path", "w:path" ("R:"/"W:" for a whole
// tree, "?" for a path known only at run time, "~" when it moved), and
// whether anything is opaque, "pinned" when only pinned code is.
type summary struct {
	Commands []string
	Files    []string
	Opaque   string
}

func summarize(s *Script) summary {
	var out summary
	pinned := 0
	for _, c := range s.Commands {
		text := c.Text
		if c.Parent >= 0 {
			text += fmt.Sprintf(" <-%d", c.Parent)
		}
		if c.Unplaced {
			text += " !"
		}
		out.Commands = append(out.Commands, text)
		if c.Pinned {
			pinned += len(c.Opaque)
		}
		for _, f := range c.Files {
			kind := "r"
			if f.Role == RoleWrite {
				kind = "w"
			}
			if f.Tree {
				kind = strings.ToUpper(kind)
			}
			p := f.Path.Text
			if f.Path.Kind == Dynamic {
				p = "?"
			}
			if f.Moved {
				p = "~" + p
			}
			out.Files = append(out.Files, kind+":"+p)
		}
	}
	switch {
	case len(s.Opaque) == 0:
	case len(s.Opaque) == pinned:
		out.Opaque = "pinned"
	default:
		out.Opaque = s.Opaque[0]
	}
	return out
}

// Parse knows the programs that run other programs, run code or name
// files in their arguments: a program argument becomes a command of its
// own, code it can read a nested script, code it cannot read opaque, a
// file argument a read or a write.
func TestProgramArguments(t *testing.T) {
	type S = summary
	c := func(cmds ...string) []string { return cmds }
	for _, tc := range []struct {
		script string
		want   S
	}{
		// Programs that run programs.
		{"find . -exec rm {} +", S{Commands: c("find . -exec rm {} +", "rm {} <-0"), Files: c("W:.")}},
		{`find src -name '*.go' -exec cat {} \;`, S{Commands: c(`find src -name '*.go' -exec cat {} \;`, "cat {} <-0"), Files: c("R:src")}},
		{"find . -delete", S{Commands: c("find . -delete", "find -delete <-0"), Files: c("W:.")}},
		{"find /etc -fprint out.txt", S{Commands: c("find /etc -fprint out.txt"), Files: c("r:/etc", "w:out.txt")}},
		{"find src -name x", S{Commands: c("find src -name x"), Files: c("r:src")}},
		{"git blame -S /x/revs a.go", S{Commands: c("git blame -S /x/revs a.go"), Files: c("r:/x/revs")}},
		{"git blame --ignore-revs-file=/x/revs a.go", S{Commands: c("git blame --ignore-revs-file=/x/revs a.go"), Files: c("r:/x/revs")}},
		{"git ls-files -oX /x/ex", S{Commands: c("git ls-files -oX /x/ex"), Files: c("r:/x/ex")}},
		{"git ls-files --exclude-from=/x/ex -o", S{Commands: c("git ls-files --exclude-from=/x/ex -o"), Files: c("r:/x/ex")}},
		{"git log -pO/x/order", S{Commands: c("git log -pO/x/order"), Files: c("r:/x/order")}},
		{"git log -S-O/x/order", S{Commands: c("git log -S-O/x/order")}},
		{"find -- /outside -type f", S{Commands: c("find -- /outside -type f"), Files: c("r:/outside")}},
		{"find -L -- /dir -name .env -exec cat {} +", S{Commands: c("find -L -- /dir -name .env -exec cat {} +", "cat {} <-0"), Files: c("R:/dir")}},
		{"find -- -delete", S{Commands: c("find -- -delete", "find -delete <-0"), Files: c("W:.")}},
		{`find . -exec sh -c 'cat {}' \;`, S{Commands: c(`find . -exec sh -c 'cat {}' \;`, "sh -c 'cat {}' <-0"), Files: c("r:."), Opaque: "the script run by sh -c 'cat {}' is computed at run time"}},
		{"ls | xargs rm", S{Commands: c("ls", "xargs rm", "rm <-1"), Files: c("r:.", "w:?")}},
		{"xargs -I{} mv {} dst/", S{Commands: c("xargs -I{} mv {} dst/", "mv {} dst/ <-0"), Files: c("w:?", "w:dst/")}},
		{"xargs -a list.txt rm", S{Commands: c("xargs -a list.txt rm", "rm <-0"), Files: c("r:list.txt", "w:?")}},
		{"env -S 'rm -rf x'", S{Commands: c("env -S 'rm -rf x'", "env rm -rf x <-0", "rm -rf x <-1"), Files: c("W:x")}},
		{"env -i A=1 make", S{Commands: c("env -i A=1 make", "A=1 make <-0")}},
		{"env -S \"$X\"", S{Commands: c(`env -S "$X" !`), Opaque: `the string env -S "$X" gives env -S cannot be split before it runs`}},
		{"timeout 10 go test ./...", S{Commands: c("timeout 10 go test ./...", "go test ./... <-0")}},
		{"sudo -u root rm -rf x", S{Commands: c("sudo -u root rm -rf x", "rm -rf x <-0"), Files: c("W:x")}},
		{"sudo -s 'rm x'", S{Commands: c("sudo -s 'rm x'", "rm x <-0"), Files: c("w:x")}},
		{"nohup make &", S{Commands: c("nohup make", "make <-0")}},
		{"busybox rm x", S{Commands: c("busybox rm x", "rm x <-0"), Files: c("w:x")}},
		{"watch make", S{Commands: c("watch make", "make <-0")}},
		{"flock /tmp/l -c 'rm x'", S{Commands: c("flock /tmp/l -c 'rm x'", "rm x <-0"), Files: c("w:/tmp/l", "w:x")}},
		{"npx cowsay hi", S{Commands: c("npx cowsay hi", "cowsay hi <-0")}},
		{"npm exec -- eslint .", S{Commands: c("npm exec -- eslint .", "eslint . <-0")}},
		{"pnpm dlx create-vite", S{Commands: c("pnpm dlx create-vite", "create-vite <-0")}},
		{"uv run pytest -q", S{Commands: c("uv run pytest -q", "pytest -q <-0")}},
		{"command -v go", S{Commands: c("command -v go")}},
		{"sudo $CMD", S{Commands: c("sudo $CMD !"), Opaque: "the program sudo $CMD runs cannot be told before it runs"}},
		{"xargs --weird rm", S{Commands: c("xargs --weird rm", "rm <-0"), Files: c("w:?")}},
		// Scripts it reads.
		{"trap 'rm x' EXIT", S{Commands: c("trap 'rm x' EXIT", "rm x <-0"), Files: c("w:x")}},
		{"git diff --no-index /dev/null /x", S{Commands: c("git diff --no-index /dev/null /x"), Files: c("r:/dev/null", "r:/x")}},
		{"git blame --contents /x f", S{Commands: c("git blame --contents /x f"), Files: c("r:/x")}},
		{"date -f /x +%s", S{Commands: c("date -f /x +%s"), Files: c("r:/x")}},
		{"tmux new -d 'rm x'", S{Commands: c("tmux new -d 'rm x'"), Opaque: "tmux new -d 'rm x' can have a program outside the sandbox run code, which cannot be checked"}},
		{"systemd-run --user rm x", S{Commands: c("systemd-run --user rm x", "rm x <-0"), Files: c("w:x"), Opaque: "systemd-run --user rm x can have a program outside the sandbox run code, which cannot be checked"}},
		{"git -c alias.z='!rm -rf x' z", S{Commands: c("git -c alias.z='!rm -rf x' z", "rm -rf x <-0"), Files: c("W:x")}},
		{"git -c alias.s='status -s' s", S{Commands: c("git -c alias.s='status -s' s", "git -c 'alias.s=status -s' status -s <-0")}},
		{"git -c core.pager='rm x' log", S{Commands: c("git -c core.pager='rm x' log", "rm x <-0"), Files: c("w:x")}},
		{"git -c core.fsmonitor=true status", S{Commands: c("git -c core.fsmonitor=true status")}},
		{"git rebase -x 'make test' main", S{Commands: c("git rebase -x 'make test' main", "make test <-0")}},
		{"git bisect run make test", S{Commands: c("git bisect run make test", "make test <-0")}},
		{"GIT_SSH_COMMAND='rm -rf x' git fetch", S{Commands: c("GIT_SSH_COMMAND='rm -rf x' git fetch", "rm -rf x <-0"), Files: c("W:x")}},
		{"tar --to-command='rm x' -xf a.tar -C out", S{Commands: c("tar --to-command='rm x' -xf a.tar -C out", "rm x <-0"), Files: c("r:a.tar", "W:out", "w:x")}},
		{"alias ll='rm -rf x'", S{Commands: c("alias ll='rm -rf x'", "rm -rf x <-0"), Files: c("W:x")}},
		{"go test -exec 'sh -c \"rm x\"' ./...", S{Commands: c(`go test -exec 'sh -c "rm x"' ./...`, `sh -c 'rm x' <-0`, "rm x <-1"), Files: c("w:x")}},
		{"go test -toolexec=x ./...", S{Commands: c("go test -toolexec=x ./...", "x <-0")}},
		{"go vet -vettool=/tmp/v ./...", S{Commands: c("go vet -vettool=/tmp/v ./...", "/tmp/v <-0")}},
		// Code it cannot read.
		{"python3 -c 'print(1)'", S{Commands: c("python3 -c 'print(1)'"), Opaque: "pinned"}},
		{"node -e 'x' && perl -E 'y' && ruby -e z", S{Commands: c("node -e 'x'", "perl -E 'y'", "ruby -e z"), Opaque: "pinned"}},
		{"python3 script.py arg", S{Commands: c("python3 script.py arg"), Files: c("r:script.py")}},
		{"echo x | python3", S{Commands: c("echo x", "python3"), Opaque: "python3 runs Python code it reads from standard input"}},
		{"echo x | sh", S{Commands: c("echo x", "sh"), Opaque: "sh runs a shell that reads its commands from standard input"}},
		{"bash run.sh", S{Commands: c("bash run.sh"), Files: c("r:run.sh")}},
		{"source venv/bin/activate", S{Commands: c("source venv/bin/activate"), Files: c("r:venv/bin/activate"), Opaque: "source venv/bin/activate runs the commands of a file, which cannot be checked"}},
		{"awk '{print $1}' f", S{Commands: c("awk '{print $1}' f"), Files: c("r:f")}},
		{"awk '$3 > 100 || /a|b/' f", S{Commands: c("awk '$3 > 100 || /a|b/' f"), Files: c("r:f")}},
		{"awk '{system(\"rm x\")}'", S{Commands: c(`awk '{system("rm x")}'`), Opaque: "pinned"}},
		{`awk '{print > "/tmp/x"}' f`, S{Commands: c(`awk '{print > "/tmp/x"}' f`), Files: c("r:f"), Opaque: "pinned"}},
		{"awk -f prog.awk f", S{Commands: c("awk -f prog.awk f"), Files: c("r:prog.awk", "r:f"), Opaque: "awk -f prog.awk f runs awk code from a file, which cannot be checked"}},
		{"sed 's/x/y/e' f", S{Commands: c("sed 's/x/y/e' f"), Files: c("r:f"), Opaque: "sed 's/x/y/e' f runs, as a command, text that sed computes at run time"}},
		{"sed '1e rm x' f", S{Commands: c("sed '1e rm x' f", "rm x <-0"), Files: c("r:f", "w:x")}},
		{"sed -n 's/a/b/w out' f", S{Commands: c("sed -n 's/a/b/w out' f"), Files: c("w:out", "r:f")}},
		{"sed -i.bak -e 's/a/b/' -e '/x/r /etc/passwd' f", S{Commands: c("sed -i.bak -e 's/a/b/' -e '/x/r /etc/passwd' f"), Files: c("r:/etc/passwd", "w:f")}},
		{"make CC=evil", S{Commands: c("make CC=evil"), Opaque: "make CC=evil sets a variable of the makefile, which can change what its recipes run"}},
		{"make -f /x/Makefile test", S{Commands: c("make -f /x/Makefile test"), Files: c("r:/x/Makefile")}},
		{"ssh host ls", S{Commands: c("ssh host ls"), Opaque: "ssh host ls reaches another host, where what runs cannot be checked"}},
		// Files.
		{"cat a /etc/passwd", S{Commands: c("cat a /etc/passwd"), Files: c("r:a", "r:/etc/passwd")}},
		{"head -n 5 a", S{Commands: c("head -n 5 a"), Files: c("r:a")}},
		{"rg -n foo src", S{Commands: c("rg -n foo src"), Files: c("R:src")}},
		{"rg foo", S{Commands: c("rg foo"), Files: c("R:.")}},
		{"rg --pre ./pre.sh foo", S{Commands: c("rg --pre ./pre.sh foo", "./pre.sh <-0"), Files: c("R:.")}},
		{"ls -la src", S{Commands: c("ls -la src"), Files: c("r:src")}},
		{"ls -R", S{Commands: c("ls -R"), Files: c("R:.")}},
		{"grep -rn foo", S{Commands: c("grep -rn foo"), Files: c("R:.")}},
		{"grep -e foo -f pats a b", S{Commands: c("grep -e foo -f pats a b"), Files: c("r:pats", "r:a", "r:b")}},
		{"cp -r a b dst", S{Commands: c("cp -r a b dst"), Files: c("R:a", "R:b", "W:dst")}},
		{"cp -l .git/config x", S{Commands: c("cp -l .git/config x"), Files: c("w:.git/config", "w:x")}},
		{"mv a b", S{Commands: c("mv a b"), Files: c("w:a", "w:b")}},
		{"rm -rf build dist", S{Commands: c("rm -rf build dist"), Files: c("W:build", "W:dist")}},
		{"chmod -R u+x,go-w bin", S{Commands: c("chmod -R u+x,go-w bin"), Files: c("W:bin")}},
		{"chown user:group f", S{Commands: c("chown user:group f"), Files: c("w:f")}},
		{"tee -a log out", S{Commands: c("tee -a log out"), Files: c("w:log", "w:out")}},
		{"sort -o out in", S{Commands: c("sort -o out in"), Files: c("w:out", "r:in")}},
		{"uniq in out", S{Commands: c("uniq in out"), Files: c("r:in", "w:out")}},
		{"dd if=/dev/zero of=disk.img", S{Commands: c("dd if=/dev/zero of=disk.img"), Files: c("r:/dev/zero", "w:disk.img")}},
		{"jq --arg k v '.x' a.json", S{Commands: c("jq --arg k v '.x' a.json"), Files: c("r:a.json")}},
		{"tar czf out.tgz src", S{Commands: c("tar czf out.tgz src"), Files: c("w:out.tgz", "R:src")}},
		{"tar -xzf a.tgz", S{Commands: c("tar -xzf a.tgz"), Files: c("r:a.tgz", "W:.")}},
		{"tar -cf out.tar -C dir x", S{Commands: c("tar -cf out.tar -C dir x"), Files: c("w:out.tar", "R:dir", "R:~x")}},
		{"unzip a.zip -d out", S{Commands: c("unzip a.zip -d out"), Files: c("r:a.zip", "W:out")}},
		{"zip -r out.zip src", S{Commands: c("zip -r out.zip src"), Files: c("w:out.zip", "R:src")}},
		{"go test -o .git/hooks/pre-commit -c", S{Commands: c("go test -o .git/hooks/pre-commit -c"), Files: c("w:.git/hooks/pre-commit", "w:.")}},
		{"go test -coverprofile=/outside/x ./...", S{Commands: c("go test -coverprofile=/outside/x ./..."), Files: c("w:/outside/x")}},
		{"go test ./x -args -test.cpuprofile=/o", S{Commands: c("go test ./x -args -test.cpuprofile=/o"), Files: c("w:/o")}},
		{"go env -w GOFLAGS=-x", S{Commands: c("go env -w GOFLAGS=-x"), Files: c("w:?")}},
		{"git config core.hooksPath x", S{Commands: c("git config core.hooksPath x"), Files: c("w:.git/config")}},
		{"git config --get user.name", S{Commands: c("git config --get user.name")}},
		{"git -C sub log -p", S{Commands: c("git -C sub log -p"), Files: c("r:sub")}},
		{"git diff --output=../x", S{Commands: c("git diff --output=../x"), Files: c("w:../x")}},
		{"curl -o out.html -d @secret.txt http://x", S{Commands: c("curl -o out.html -d @secret.txt http://x"), Files: c("w:out.html", "r:secret.txt")}},
		{"patch -p1", S{Commands: c("patch -p1"), Files: c("w:?")}},
		{"gzip -k f", S{Commands: c("gzip -k f"), Files: c("w:f")}},
		{"gzip -c f", S{Commands: c("gzip -c f"), Files: c("r:f")}},
		// Computed words where an option could be.
		{"go test $FLAGS ./...", S{Commands: c("go test $FLAGS ./... !"), Opaque: "the arguments of go test $FLAGS ./... cannot be told before it runs"}},
		{"go test -run \"$T\" -count=$((1+2)) ./...", S{Commands: c(`go test -run "$T" -count=$((1+2)) ./...`)}},
		{"go test -vet=off -exec \"$X\"", S{Commands: c(`go test -vet=off -exec "$X" !`), Opaque: `the program go test -vet=off -exec "$X" gives -exec cannot be told before it runs`}},
		{"cat $f", S{Commands: c("cat $f"), Files: c("r:?")}},
		{"sort $opts in", S{Commands: c("sort $opts in"), Files: c("w:?", "w:in")}},
		{"cat *.go", S{Commands: c("cat *.go"), Files: c("r:*.go")}},
		{"find $dir -name x", S{Commands: c("find $dir -name x !"), Opaque: "the arguments of find $dir -name x cannot be told before it runs"}},
	} {
		t.Run(tc.script, func(t *testing.T) {
			s, err := Parse(tc.script)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, summarize(s)); d != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tc.script, d)
			}
		})
	}
}

// Known tells the programs whose arguments the analyser reads, or that
// name no file and run nothing, from the others; a path outside the
// system's directories is a file of the workspace, whatever its name.
func TestKnown(t *testing.T) {
	for text, want := range map[string]bool{
		"cat": true, "/usr/bin/cat": true, "/bin/echo": true, "git": true, "python3.12": true, "echo": true, "[": true,
		"tmux": true, "pr": false, "look": false, "sqlite3": false, "split": false, "./echo": false, "bin/cat": false,
		"/tmp/cat": false,
	} {
		if got := Known(Word{Text: text}); got != want {
			t.Errorf("Known(%q) = %v, want %v", text, got, want)
		}
	}
	for _, w := range []Word{{Text: "~/cat", Tilde: true}, {Kind: Dynamic}, {Text: "c*", Kind: Pattern}} {
		if Known(w) {
			t.Errorf("Known(%+v) = true", w)
		}
	}
}

// Each word of a command has a role, and Program still names what a chain
// of wrappers finally runs.
func TestProgramRoles(t *testing.T) {
	const (
		A = RoleArg
		P = RoleProgram
		C = RoleCode
		R = RoleRead
		W = RoleWrite
	)
	for _, tc := range []struct {
		script  string
		want    []Role
		program int
	}{
		{`find . -name x -exec rm {} \;`, []Role{P, W, A, A, A, P, A, A}, 0},
		{"cat a b", []Role{P, R, R}, 0},
		{"cp a b", []Role{P, R, W}, 0},
		{"python3 -c 'x'", []Role{P, A, C}, 0},
		{"sed -i s/a/b/ f", []Role{P, A, C, W}, 0},
		{"xargs -0 rm", []Role{P, A, P}, 2},
		{"sudo timeout 5 make", []Role{P, P, A, P}, 3},
	} {
		t.Run(tc.script, func(t *testing.T) {
			s, _ := Parse(tc.script)
			c := s.Commands[0]
			if d := cmp.Diff(tc.want, c.Roles); d != "" {
				t.Errorf("roles (-want +got):\n%s", d)
			}
			if got := c.Program(); got != tc.program {
				t.Errorf("Program() = %d, want %d", got, tc.program)
			}
		})
	}
}

// TestWordSet checks that a word set finds whole words only, and that the
// sets of git's options are written as it reads them: words separated by
// spaces, nothing else.
func TestWordSet(t *testing.T) {
	s := set("--stat-width --patch -p", "--stat")
	for w, want := range map[string]bool{
		"--stat": true, "-p": true, "--patch": true, "--stat-width": true,
		"--sta": false, "stat": false, "-": false, "": false, "--stat-": false, "--patch -p": false,
	} {
		if got := s.has(w); got != want {
			t.Errorf("has(%q) = %v, want %v", w, got, want)
		}
	}
	for sub, g := range gitReaders {
		if g == nil {
			continue
		}
		for _, l := range append(append(wordSet{}, g.words...), g.valued...) {
			if strings.ContainsAny(l, "\t\n\r") {
				t.Errorf("git %s: a list of options holds white space other than spaces: %q", sub, l)
			}
		}
	}
}
