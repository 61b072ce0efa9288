package shell

import "testing"

// readOnlyScript reports whether every command of src is read-only, as the
// permission policy asks (its redirections and files are judged there).
func readOnlyScript(t *testing.T, src string) bool {
	t.Helper()
	s, _ := Parse(src)
	if len(s.Commands) == 0 || len(s.Opaque) > 0 {
		return false
	}
	for i := range s.Commands {
		if !s.Commands[i].ReadOnly() {
			return false
		}
	}
	return true
}

func TestReadOnly(t *testing.T) {
	for _, src := range []string{
		"ls -la", "ls", "echo hi", "seq 10", "printf '%s\\n' a b", "pwd", "which go", "type ls", "date", "date +%s",
		"date -u +%Y-%m-%d", "date -d yesterday +%F", "cat README.md", "head -n 5 a.go", "tail -20 a.go", "wc -l *.go",
		"grep -rn TODO .", "grep -e x -- *.go", "rg -n foo src", "rg foo -- *.go", "find . -name '*.go'",
		"find src -type f -newer go.mod", "git status", "git status --short", "git diff", "git diff HEAD~1 -- src",
		"git log --oneline -n 5", "git show HEAD:go.mod", "git --no-pager log", "git blame a.go",
		"git ls-files", "git rev-parse --show-toplevel", "git branch", "git branch -a", "git grep -n foo",
		"sort a.txt", "sort -u a.txt", "uniq a.txt", "cut -d: -f1 a.txt", "echo a | tr a b", "jq .name package.json",
		"jq -n 'input_filename, $__loc__'", "diff a.go b.go", "diff -ru a b", "stat go.mod", "file go.mod", "du -sh .",
		"df -h", "df .", "sed -n 1,10p a.go", "sed 's/a/b/g' a.go", "basename a/b", "dirname a/b", "uname -a", "id",
		"printenv HOME", "sha256sum go.mod", "xxd go.mod", "od -c a", "tree -L 2", "realpath x", "readlink -f x",
		"cat a | sort | uniq -c | sort -rn | head", "ls && echo done", "cd src && ls", "test -f x && cat x",
		"cat <<EOF\nhi\nEOF", "true; false", "echo $(ls)", "ls > /dev/null 2>&1",
		// git's options, by the allowlist of each subcommand.
		"git log -n 5", "git log -5", "git log -n5 --stat", "git log -S-O/etc/passwd", "git log -Gfoo -p", "git log -L1,5:a.go",
		"git log --format=%H --since=2.weeks", "git log --author x", "git diff -U3", "git diff --stat=100", "git diff -M50%",
		"git diff --cached --name-only", "git status -uno", "git status -sb", "git grep -e foo -A3", "git grep -n3 x",
		"git blame -L 1,5 a.go", "git blame -w -M a.go", "git ls-files -o --exclude-standard", "git ls-files -x '*.o' -o",
		"git ls-tree -r HEAD", "git describe --tags --dirty", "git shortlog -sn", "git rev-parse --abbrev-ref HEAD",
		"jq -nr 1", "jq -cs . a.json",
	} {
		if !readOnlyScript(t, src) {
			t.Errorf("%q: not read-only, want read-only", src)
		}
	}
	for _, src := range []string{
		// Writers.
		"touch x", "rm -rf build", "mkdir d", "cp a b", "mv a b", "tee x", "sort -o out a", "sort -T tmp a",
		"sort --output=x a", "uniq a b", "find . -delete", "find . -fprint x", "find . -fprintf x %p", "find . -fls x",
		"sed -i 's/a/b/' x", "sed -n 'w out' x", "sed 's/a/b/w out' x", "git log --output=x", "git diff --out=x",
		"tree -o x", "tree -R", "file -C -m magic", "xxd -r a b", "date -s 2020-01-01", "date --set=now",
		"date 010100002030", "printf -v PATH .", "ln -s a b", "chmod +x a", "dd if=a of=b",
		// Runners.
		"find . -exec cat {} +", "find . -ok rm {} \\;", "find . -exec rm {}", "xargs cat", "env ls", "env", "awk '{print}' a", "sh -c ls",
		"bash x.sh", "python3 -c 1", "sort --compress-program=gzip a", "rg --pre ./x foo", "git -c core.pager=cat log",
		"git log --ext-diff", "git diff --ext", "git log --show-signature", "git grep -Ovim x", "git grep --no-index x",
		"git commit -m x", "git push", "git checkout .", "git branch new", "git tag v1", "git remote add o u",
		"git --git-dir=x log", "git --exec-path=x log",
		// git options that read files named elsewhere, run a program, or
		// that the allowlist does not know; git's global options that
		// choose another repository.
		"git -C src log -1", "git --work-tree=x status", "git --namespace=x log", "git -c x.y=z status",
		"git blame -S /etc/passwd a.go", "git blame --ignore-revs-file=/etc/passwd a.go", "git blame --contents x a.go",
		"git ls-files -X /etc/passwd -o", "git ls-files --exclude-from=/etc/passwd -o", "git ls-files --exclude-per-directory=x",
		"git log -O /etc/passwd -p", "git log -O/etc/passwd", "git diff -O/etc/passwd", "git grep -iO x", "git grep -nOtouch x",
		"git grep -f /etc/passwd", "git grep --open-files-in-pager x", "git log --textconv -p", "git show --show-signature",
		"git log --show-sig", "git log --output=x", "git log --out=x", "git log --help", "git diff --frobnicate", "git log -n5O/x",
		"git diff -U3O/x", "git log --stdin",
		"jq -nf /etc/passwd", "jq -fn prog.jq", "jq -rL /tmp 1", "jq -nrf prog.jq", "jq -L . 'import \"x\" as x; x'", "jq -f prog.jq a",
		"jq 'include \"m\"; .' a", "sed '1e ls' a", "sed -f s.sed a", "make", "go test ./...", "npm test",
		"timeout 5 ls", "nice ls", "command ls", "exec ls", "eval ls", "source x", ". x",
		"less a", "more a", "man ls", "vim a", "watch ls", "sudo ls", "nohup ls",
		// Network.
		"curl https://example.com", "wget x", "ssh host ls", "nc host 80", "git fetch", "git pull",
		// Assignments and state.
		"X=1 ls", "LESSOPEN='|x %s' cat a", "GIT_DIR=/tmp/x git log", "PATH=. ls", "export X=1", "read x",
		"x=1", "alias ls=rm", "ls() { rm x; }; ls",
		// Globs and computed words that could be options.
		"sort *", "sort *.txt", "git diff *", "rg foo *", "printf *", "date *", "sed -n p *.txt", "file *",
		"sort $F", "git log $ARGS", "wc --files0-from=list", "du --files0-from=list", "sha256sum -c sums",
		"file -f names",
		// Programs the analyser does not know, or run from the workspace.
		"./ls", "bin/cat x", "pr a", "frobnicate", "$X a",
	} {
		if readOnlyScript(t, src) {
			t.Errorf("%q: read-only, want not", src)
		}
	}
}
