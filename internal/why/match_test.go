package why

import (
	"testing"
)

const (
	ws     = "/ws"
	target = "/ws/src/parser.ts"
)

// accessOf runs one intent of tool with input through a Finder of target,
// in a session of workspace /ws; the intent starts in cwd ("" for /ws).
func accessOf(t *testing.T, tool, input, cwd string) Access {
	t.Helper()
	if cwd == "" {
		cwd = ws
	}
	r := newRecorder("ses_1", ws, t0)
	r.call("looking")
	in, _ := r.propose("int_1", tool, input)
	r.runs(in, cwd)
	got := find(target, r)
	switch len(got) {
	case 0:
		return ""
	case 1:
		return got[0].Access
	}
	t.Fatalf("%s %s: %d touches, want at most 1", tool, input, len(got))
	return ""
}

func TestFileTools(t *testing.T) {
	tests := []struct {
		name, tool, input string
		want              Access
	}{
		{"read relative", "read_file", `{"path":"src/parser.ts"}`, Read},
		{"read absolute", "read_file", `{"path":"/ws/src/parser.ts"}`, Read},
		{"read dot-dot inside", "read_file", `{"path":"./lib/../src/parser.ts"}`, Read},
		{"read dot-dot through the root", "read_file", `{"path":"../ws/src/parser.ts","offset":3}`, Read},
		{"read trailing slash", "read_file", `{"path":"src//parser.ts/"}`, Read},
		{"read another file", "read_file", `{"path":"src/parser.tsx"}`, ""},
		{"read another workspace", "read_file", `{"path":"/other/src/parser.ts"}`, ""},
		{"read no path", "read_file", `{}`, ""},
		{"read path not a string", "read_file", `{"path":3}`, ""},
		{"read input not an object", "read_file", `"src/parser.ts"`, ""},
		{"write", "write_file", `{"path":"src/parser.ts","content":"x"}`, Write},
		{"edit", "edit_file", `{"path":"/ws/src/parser.ts","old_string":"a","new_string":"b"}`, Write},
		{"edit another file", "edit_file", `{"path":"src/lexer.ts","old_string":"a","new_string":"b"}`, ""},
		{"grep of the file", "grep", `{"pattern":"parse","path":"src/parser.ts"}`, Read},
		{"grep of its directory", "grep", `{"pattern":"parse","path":"src"}`, ""},
		{"grep of the workspace", "grep", `{"pattern":"parse"}`, ""},
		{"list_dir of its directory", "list_dir", `{"path":"src"}`, ""},
		{"list_dir of the file", "list_dir", `{"path":"src/parser.ts"}`, Read},
		{"glob of its directory", "glob", `{"pattern":"*.ts","path":"src"}`, ""},
		{"glob naming it", "glob", `{"pattern":"src/parser.ts"}`, ""},
		{"unknown tool with a path", "mcp_open", `{"path":"src/parser.ts"}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := accessOf(t, tc.tool, tc.input, ""); got != tc.want {
				t.Errorf("%s %s: access %q, want %q", tc.tool, tc.input, got, tc.want)
			}
		})
	}
}

func TestBash(t *testing.T) {
	tests := []struct {
		name, command string
		// cwd is where the command ran; "" for the workspace root.
		cwd  string
		want Access
	}{
		{"plain", "cat src/parser.ts", "", Command},
		{"absolute", "wc -l /ws/src/parser.ts", "", Command},
		{"dot-dot", "cat ../ws/src/parser.ts", "", Command},
		{"single quoted", "cat 'src/parser.ts'", "", Command},
		{"double quoted", `cat "src/parser.ts"`, "", Command},
		{"quoted in pieces", `cat src/"parser".ts`, "", Command},
		{"escaped", `cat src/parser\.ts`, "", Command},
		{"ansi-c quoted without escapes", `cat $'src/parser.ts'`, "", Command},
		{"redirect write", "echo x > src/parser.ts", "", Write},
		{"redirect append", "echo x >>src/parser.ts", "", Write},
		{"redirect clobber", "echo x >| src/parser.ts", "", Write},
		{"redirect all", "make &> src/parser.ts", "", Write},
		{"redirect read", "wc -l < src/parser.ts", "", Command},
		{"redirect to fd", "make 2>&1 >src/parser.ts", "", Write},
		{"write beats command", "cp src/parser.ts /tmp/x; echo > src/parser.ts", "", Write},
		// The files a command's arguments write are writes.
		{"sed in place", "sed -i s/a/b/ src/parser.ts", "", Write},
		{"tee", "echo x | tee -a src/parser.ts", "", Write},
		{"cp target", "cp old.ts src/parser.ts", "", Write},
		{"cp source", "cp src/parser.ts old.ts", "", Command},
		{"sed w", "sed -n 'w src/parser.ts' x", "", Write},
		{"dd of", "dd if=x of=src/parser.ts", "", Write},
		{"go test -coverprofile", "go test -coverprofile=src/parser.ts ./...", "", Write},
		{"rm in a subdirectory", "rm parser.ts", "/ws/src", Write},
		{"relative after cd", "cd /tmp && rm src/parser.ts", "", Command},
		{"glob", "cat src/*.ts", "", ""},
		{"brace, expanded as the shell does", "cat src/{parser,lexer}.ts", "", Command},
		{"ancestor", "rm -rf src", "", Command},
		{"ancestor with slash", "ls src/", "", Command},
		{"workspace root", "git add .", "", ""},
		{"go test", "go test ./...", "", ""},
		{"filesystem root", "ls /", "", ""},
		{"another file", "cat src/parser.tsx src/lexer.ts", "", ""},
		{"command substitution", "echo $(cat src/parser.ts)", "", Command},
		{"substitution in quotes", `echo "$(cat src/parser.ts)" > out.txt`, "", Command},
		{"backquotes", "echo `cat src/parser.ts`", "", Command},
		{"process substitution", "diff <(cat src/parser.ts) b", "", Command},
		{"subshell and pipeline", "(cd /tmp && cat /ws/src/parser.ts) | wc -l", "", Command},
		{"and chain", "true && go vet ./... && prettier --write src/parser.ts", "", Command},
		{"flag with equals", "tool --file=src/parser.ts", "", Command},
		{"dd operand", "dd if=src/parser.ts of=/tmp/p", "", Command},
		{"assignment value", "F=src/parser.ts make", "", Command},
		{"parameter", "cat $F", "", ""},
		{"parameter inside a path", "cat src/$NAME.ts", "", ""},
		{"tilde", "cat ~/src/parser.ts", "", ""},
		{"here-document body", "cat <<EOF\nsrc/parser.ts\nEOF", "", ""},
		{"here-document substitution", "cat <<EOF\n$(cat src/parser.ts)\nEOF", "", Command},
		{"bash -c", "bash -c 'echo x > src/parser.ts'", "", Write},
		{"sh -ec", `sh -ec "cat src/parser.ts"`, "", Command},
		{"eval", "eval cat src/parser.ts", "", Command},
		{"for loop", "for f in src/parser.ts; do wc -l $f; done", "", Command},
		{"test clause", "[[ -f src/parser.ts ]] && echo yes", "", Command},
		{"unparsable", "cat src/parser.ts |", "", Command},
		{"unparsable quote", `echo "unterminated src/parser.ts`, "", Command},
		{"unparsable glob", "cat src/*.ts |", "", ""},
		{"ran in a subdirectory", "cat parser.ts", "/ws/src", Command},
		{"ran elsewhere", "cat src/parser.ts", "/ws/src", ""},
		{"ran in the file's directory", "ls .", "/ws/src", Command},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			input := `{"command":` + jsonString(tc.command) + `}`
			if got := accessOf(t, "bash", input, tc.cwd); got != tc.want {
				t.Errorf("bash %q in %q: access %q, want %q", tc.command, tc.cwd, got, tc.want)
			}
		})
	}
}

// An input whose command is not a string or is empty is no touch.
func TestBashBadInput(t *testing.T) {
	for _, input := range []string{`{"command":["cat","src/parser.ts"]}`, `{"command":""}`, `{}`, `null`} {
		if got := accessOf(t, "bash", input, ""); got != "" {
			t.Errorf("bash %s: access %q, want none", input, got)
		}
	}
}

// A directory at or above the workspace root holds every file: naming it
// is no touch, though naming one below the root is.
func TestBashAboveRoot(t *testing.T) {
	const deep, file = "/home/u/ws", "/home/u/ws/src/parser.ts"
	tests := []struct {
		command string
		want    Access
	}{
		{"ls ..", ""},
		{"du -sh /home", ""},
		{"git -C /home/u/ws status", ""},
		{"ls /home/u/ws/src", Command},
		{"ls ../ws/src", Command},
	}
	for _, tc := range tests {
		t.Run(tc.command, func(t *testing.T) {
			r := newRecorder("ses_1", deep, t0)
			r.call()
			in, _ := r.propose("int_1", "bash", `{"command":`+jsonString(tc.command)+`}`)
			r.runs(in, deep)
			var got Access
			if ts := find(file, r); len(ts) > 0 {
				got = ts[0].Access
			}
			if got != tc.want {
				t.Errorf("bash %q: access %q, want %q", tc.command, got, tc.want)
			}
		})
	}
}
