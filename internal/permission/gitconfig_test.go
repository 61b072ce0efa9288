package permission

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/workspace/workspacetest"
)

// parseGitConfig reads git's format: sections, subsections (case kept),
// the old [section.subsection], bare names, quotes, escapes, comments,
// continued lines; what git would refuse is an error.
func TestParseGitConfig(t *testing.T) {
	type kv struct{ Key, Value string }
	for _, tc := range []struct {
		name, src string
		want      []kv
	}{
		{"plain", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n", []kv{{"core.repositoryformatversion", "0"}, {"core.bare", "false"}}},
		{"case", "[Core]\n\tFSMonitor = x\n", []kv{{"core.fsmonitor", "x"}}},
		{"subsection keeps its case", "[diff \"Foo\"]\n\ttextConv = cat\n", []kv{{"diff.Foo.textconv", "cat"}}},
		{"old subsection", "[Diff.Foo]\ntextconv=cat\n", []kv{{"diff.foo.textconv", "cat"}}},
		{"escapes in a subsection", `[includeIf "gitdir:~/\"x\\"]` + "\npath = a\n", []kv{{`includeif.gitdir:~/"x\.path`, "a"}}},
		{"a variable after the header", "[core] pager = less -R\n", []kv{{"core.pager", "less -R"}}},
		{"bare", "[log]\n\tshowSignature\n", []kv{{"log.showsignature", ""}}},
		{"comments", "# c\n; c\n[core] ; c\n\tpager = a # b\n\teditor = \"vi # x\" ; y\n", []kv{{"core.pager", "a"}, {"core.editor", "vi # x"}}},
		{"quotes and escapes", "[a]\n\tb = \"x  y\"\\tz\\\\ \\\"q\\\"\n", []kv{{"a.b", "x  y\tz\\ \"q\""}}},
		{"inner blanks, one space each", "[a]\n\tb =  x \t y  \n", []kv{{"a.b", "x   y"}}},
		{"continued line", "[core]\n\tfsmonitor = echo \\\nran\n", []kv{{"core.fsmonitor", "echo ran"}}},
		{"crlf", "[core]\r\n\tpager = x\r\n", []kv{{"core.pager", "x"}}},
		{"bom", "\xef\xbb\xbf[core]\n\tpager = x\n", []kv{{"core.pager", "x"}}},
	} {
		vars, err := parseGitConfig([]byte(tc.src))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var got []kv
		for _, v := range vars {
			got = append(got, kv{v.key, v.value})
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
	for _, src := range []string{"pager = x\n", "[core\n", "[]\n", "[co re]\n", "[core \"x]\n", "[core]\n\t1x = y\n",
		"[core]\n\tpager = \"x\n", "[core]\n\tpager = \\q\n", "[core]\n\tpager x\n", "[core]\n\tpa\x00ger = x\n",
		"[core]\n\tpager = " + strings.Repeat("x", gitConfigMax)} {
		if _, err := parseGitConfig([]byte(src)); err == nil {
			t.Errorf("parseGitConfig(%.40q) = nil error", src)
		}
	}
}

// gitWorld is a workspace that is a git repository as git init makes it,
// with files under base given by files.
func gitWorld(t testing.TB, files map[string]string) (*Policy, string) {
	t.Helper()
	base := workspacetest.RealTemp(t)
	workspacetest.Mkdir(t, filepath.Join(base, "ws/src"))
	all := map[string]string{"ws/README.md": "hi\n"}
	if _, gitfile := files["ws/.git"]; !gitfile {
		for _, d := range []string{"ws/.git/objects", "ws/.git/refs/heads", "ws/.git/hooks"} {
			workspacetest.Mkdir(t, filepath.Join(base, d))
		}
		all["ws/.git/HEAD"], all["ws/.git/config"] = "ref: refs/heads/main\n", "[core]\n\tbare = false\n"
	}
	for k, v := range files {
		all[k] = v
	}
	for name, text := range all {
		workspacetest.Mkdir(t, filepath.Dir(filepath.Join(base, name)))
		if err := os.WriteFile(filepath.Join(base, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p, err := New(Default, Rules{}, mustWorkspace(t, filepath.Join(base, "ws")))
	if err != nil {
		t.Fatal(err)
	}
	return p.WithContainment(Containment{Sandboxed: true}), base
}

// A repository's configuration runs code: git status, git log -p, git
// diff and git show are read-only only when the repository git finds
// from the workspace (and its submodules) names no program, reads no file
// elsewhere, has no hook a read runs, and can be read; and only when the
// script does not change directory first nor points git elsewhere.
func TestGitReadOnlyOnlyInACleanRepository(t *testing.T) {
	const status = "git status"
	index := indexWith(t, 2, "sub", "src/a.go")
	for _, tc := range []struct {
		name    string
		files   map[string]string
		command string
		want    string // "" for read-only; else what the reason says
	}{
		{"clean", nil, status, ""},
		{"clean, every reader", nil, "git status && git log -p -3 && git diff && git show HEAD && git blame README.md", ""},
		{"core.fsmonitor", map[string]string{"ws/.git/config": "[core]\n\tfsmonitor = echo ran > owned.txt; false\n"}, status, "core.fsmonitor"},
		{"core.fsmonitor false", map[string]string{"ws/.git/config": "[core]\n\tfsmonitor = false\n"}, status, ""},
		{"core.fsmonitor in a continued line", map[string]string{"ws/.git/config": "[core]\n\tfsmonitor = \\\ntouch x\n"}, status, "core.fsmonitor"},
		{"textconv", map[string]string{"ws/.git/config": "[diff \"bin\"]\n\ttextconv = touch x;cat\n"}, "git log -p", "diff.bin.textconv"},
		{"diff.external", map[string]string{"ws/.git/config": "[diff]\n\texternal = ./x\n"}, "git diff", "diff.external"},
		{"diff command", map[string]string{"ws/.git/config": "[diff.x]\n\tcommand = ./x\n"}, "git show", "diff.x.command"},
		{"clean filter", map[string]string{"ws/.git/config": "[filter \"lfs\"]\n\tclean = ./x %f\n"}, status, "filter.lfs.clean"},
		{"core.pager", map[string]string{"ws/.git/config": "[core]\n\tpager = ./x\n"}, "git log", "core.pager"},
		{"pager.log", map[string]string{"ws/.git/config": "[pager]\n\tlog = ./x\n"}, "git log", "pager.log"},
		{"log.showSignature", map[string]string{"ws/.git/config": "[log]\n\tshowSignature\n[gpg]\n\tprogram = ./x\n"}, "git log", "log.showsignature"},
		{"gpg.ssh.program", map[string]string{"ws/.git/config": "[gpg \"ssh\"]\n\tprogram = ./x\n"}, "git log", "gpg.ssh.program"},
		{"core.worktree", map[string]string{"ws/.git/config": "[core]\n\tworktree = /\n"}, status, "core.worktree"},
		{"include.path", map[string]string{"ws/.git/config": "[include]\n\tpath = ../evil.cfg\n"}, status, "include.path"},
		{"includeIf", map[string]string{"ws/.git/config": "[includeIf \"gitdir:/\"]\n\tpath = ../evil.cfg\n"}, status, "includeif.gitdir:/.path"},
		{"config.worktree", map[string]string{"ws/.git/config.worktree": "[core]\n\tfsmonitor = ./x\n"}, status, "config.worktree sets core.fsmonitor"},
		{"unreadable config", map[string]string{"ws/.git/config": "[core\n\tfsmonitor = ./x\n"}, status, "cannot be read"},
		{"post-index-change hook", map[string]string{"ws/.git/hooks/post-index-change": "#!/bin/sh\ntouch x\n"}, status, "post-index-change"},
		{"post-index-change in core.hooksPath", map[string]string{"ws/.git/config": "[core]\n\thooksPath = .husky/_\n",
			"ws/.husky/_/post-index-change": "#!/bin/sh\ntouch x\n"}, status, "post-index-change"},
		{"core.hooksPath alone", map[string]string{"ws/.git/config": "[core]\n\thooksPath = .husky/_\n", "ws/.husky/_/pre-commit": "x\n"}, status, ""},
		{"a gitfile to a repository elsewhere", map[string]string{"ws/.git": "gitdir: ../elsewhere\n", "elsewhere/HEAD": "ref: refs/heads/main\n",
			"elsewhere/config": "[core]\n\tfsmonitor = ./x\n"}, status, "elsewhere/config sets core.fsmonitor"},
		{"a linked worktree's common config", map[string]string{"ws/.git": "gitdir: ../main/.git/worktrees/w\n",
			"main/.git/worktrees/w/HEAD": "ref: refs/heads/w\n", "main/.git/worktrees/w/commondir": "../..\n",
			"main/.git/config": "[diff \"x\"]\n\ttextconv = ./x\n"}, "git diff", "main/.git/config sets diff.x.textconv"},
		{"a bad gitfile", map[string]string{"ws/.git": "nothing\n"}, status, "not a gitfile"},
		{"a submodule's configuration", map[string]string{"ws/.git/index": index, "ws/sub/.git/config": "[core]\n\tfsmonitor = ./x\n",
			"ws/sub/.git/HEAD": "ref: refs/heads/main\n"}, status, "sub/.git/config sets core.fsmonitor"},
		{"a submodule not checked out", map[string]string{"ws/.git/index": index}, status, ""},
		{"a submodule through its gitfile", map[string]string{"ws/.git/index": index, "ws/sub/.git": "gitdir: ../.git/modules/sub\n",
			"ws/.git/modules/sub/config": "[core]\n\tpager = ./x\n"}, status, "modules/sub/config sets core.pager"},
		{"a broken index", map[string]string{"ws/.git/index": "DIRC\x00\x00\x00\x02\x00\x00\x00\x05"}, status, "index"},
		{"an index cut after its flags", map[string]string{"ws/.git/index": indexWith(t, 3, "a")[:12+62+1]}, status, "index"},
		{"cd first", nil, "cd src && git status", "changes directory"},
		{"cd anywhere", nil, "git log -1; cd src", "changes directory"},
		{"cd in a subshell", nil, "(cd src && git status)", "changes directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := gitWorld(t, tc.files)
			v := p.Decide(bashReq(t, tc.command))
			if tc.want == "" {
				if v.Decision != contract.Allow || !strings.Contains(v.Reason, "a read-only command") {
					t.Errorf("Decide(%q) = %+v, want allowed as read-only", tc.command, v)
				}
				return
			}
			if v.Decision != contract.Ask || !strings.Contains(v.Reason, tc.want) || !strings.Contains(v.Reason, "is not one") {
				t.Errorf("Decide(%q) = %+v, want an ask whose reason says %q", tc.command, v, tc.want)
			}
			if p.OnlyReads(bashReq(t, tc.command)) {
				t.Errorf("OnlyReads(%q) = true", tc.command)
			}
		})
	}
}

// The repository git uses is found as git finds it: up from the workspace
// root, and a directory in the shape of a repository is one (a bare one).
func TestGitRepositoryIsFoundAsGitFindsIt(t *testing.T) {
	base := workspacetest.RealTemp(t)
	write := func(name, text string) {
		workspacetest.Mkdir(t, filepath.Dir(filepath.Join(base, name)))
		if err := os.WriteFile(filepath.Join(base, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A workspace below a repository's root.
	write("repo/.git/HEAD", "ref: refs/heads/main\n")
	write("repo/.git/config", "[core]\n\tfsmonitor = ./x\n")
	workspacetest.Mkdir(t, filepath.Join(base, "repo/.git/objects"))
	workspacetest.Mkdir(t, filepath.Join(base, "repo/.git/refs"))
	workspacetest.Mkdir(t, filepath.Join(base, "repo/app"))
	// A workspace committed in the shape of a bare repository.
	write("bare/ws/HEAD", "ref: refs/heads/main\n")
	write("bare/ws/config", "[core]\n\tpager = ./x\n")
	workspacetest.Mkdir(t, filepath.Join(base, "bare/ws/objects"))
	workspacetest.Mkdir(t, filepath.Join(base, "bare/ws/refs"))
	for dir, want := range map[string]string{"repo/app": "repo/.git/config sets core.fsmonitor", "bare/ws": "bare/ws/config sets core.pager"} {
		p, err := New(Default, Rules{}, mustWorkspace(t, filepath.Join(base, dir)))
		if err != nil {
			t.Fatal(err)
		}
		v := p.WithContainment(Containment{Sandboxed: true}).Decide(bashReq(t, "git status"))
		if v.Decision != contract.Ask || !strings.Contains(v.Reason, want) {
			t.Errorf("%s: %+v, want an ask that says %q", dir, v, want)
		}
	}
}

// gitlinks reads the submodules an index records, in every version of
// the format, as git writes it.
func TestGitlinks(t *testing.T) {
	for _, version := range []int{2, 3, 4} {
		got, err := gitlinks(writeTemp(t, indexWith(t, version, "a/sub", "a/x.go", "b/other-sub", "c")), false)
		if err != nil {
			t.Fatalf("version %d: %v", version, err)
		}
		if d := cmp.Diff([]string{"a/sub", "b/other-sub"}, got); d != "" {
			t.Errorf("version %d (-want +got):\n%s", version, d)
		}
	}
	// An index git itself wrote, where git is installed.
	if _, err := exec.LookPath("git"); err != nil {
		return
	}
	for _, version := range []string{"2", "4"} {
		dir := t.TempDir()
		run := func(args ...string) {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		run("init", "-q")
		run("config", "index.version", version)
		for _, f := range []string{"src/deep/a.go", "src/deep/b.go", "zz"} {
			workspacetest.Mkdir(t, filepath.Dir(filepath.Join(dir, f)))
			if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		run("add", ".")
		run("update-index", "--add", "--cacheinfo", "160000,1111111111111111111111111111111111111111,src/deep/mod")
		run("update-index", "--add", "--cacheinfo", "160000,2222222222222222222222222222222222222222,vendor/lib")
		got, err := gitlinks(filepath.Join(dir, ".git", "index"), false)
		if err != nil {
			t.Fatalf("index.version %s: %v", version, err)
		}
		if d := cmp.Diff([]string{"src/deep/mod", "vendor/lib"}, got); d != "" {
			t.Errorf("index.version %s (-want +got):\n%s", version, d)
		}
	}
}

func writeTemp(t *testing.T, text string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "index")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// indexWith returns an index file of version holding the paths, sorted
// by the caller; those with "sub" in their name are gitlinks.
func indexWith(t testing.TB, version int, paths ...string) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("DIRC")
	binary.Write(&b, binary.BigEndian, uint32(version))
	binary.Write(&b, binary.BigEndian, uint32(len(paths)))
	prev := ""
	for _, p := range paths {
		start := b.Len()
		b.Write(make([]byte, 24))
		mode := uint32(0o100644)
		if strings.Contains(p, "sub") {
			mode = 0o160000
		}
		binary.Write(&b, binary.BigEndian, mode)
		b.Write(make([]byte, 12)) // uid, gid, size
		b.Write(bytes.Repeat([]byte{0xab}, 20))
		flags := uint16(len(p))
		if version == 3 {
			flags |= 0x4000
		}
		binary.Write(&b, binary.BigEndian, flags)
		if version == 3 {
			b.Write([]byte{0, 0})
		}
		if version == 4 {
			common := 0
			for common < len(prev) && common < len(p) && prev[common] == p[common] {
				common++
			}
			b.WriteByte(byte(len(prev) - common)) // short paths: one byte
			b.WriteString(p[common:])
			b.WriteByte(0)
		} else {
			b.WriteString(p)
			n := b.Len() - start
			b.Write(make([]byte, (n+8)&^7-n))
		}
		prev = p
	}
	b.Write(make([]byte, 20)) // the checksum
	return b.String()
}

// A decision about git reads the repository's configuration every time,
// and its index (for the submodules) only when the index changed: with
// an index of 100,000 entries, reading it is most of the cost.
func BenchmarkGitStatusDecision(b *testing.B) {
	paths := make([]string, 100000)
	for i := range paths {
		paths[i] = fmt.Sprintf("src/pkg%03d/file%05d.go", i/1000, i)
	}
	index := indexWith(b, 2, paths...)
	for _, cached := range []bool{true, false} {
		b.Run(fmt.Sprintf("cached=%v", cached), func(b *testing.B) {
			p, _ := gitWorld(b, map[string]string{"ws/.git/index": index})
			if !cached {
				p.indexes = nil
			}
			req := bashReq(b, "git status")
			for b.Loop() {
				if v := p.Decide(req); v.Decision != contract.Allow {
					b.Fatal(v)
				}
			}
		})
	}
}

// FuzzGitConfig feeds arbitrary bytes to the configuration reader and the
// index reader: nothing may panic, and a configuration read back holds
// keys of git's shape.
func FuzzGitConfig(f *testing.F) {
	for _, s := range []string{"[core]\n\tfsmonitor = x\n", "[diff \"a\\\"b\"] textconv = \"x\\\ny\" ; c\n", "[a.b]\nc\n",
		"\xef\xbb\xbf[x]\r\ny=\\t\n", indexWith(f, 2, "a", "sub"), indexWith(f, 4, "a/b", "a/sub")} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		vars, err := parseGitConfig(b)
		for _, v := range vars {
			if err == nil && (strings.Count(v.key, ".") < 1 || v.key[0] == '.') {
				t.Errorf("key %q", v.key)
			}
		}
		file := filepath.Join(t.TempDir(), "index")
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = gitlinks(file, false) // only must not panic
	})
}
