package shell

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Parse lists commands flat, nested scripts after the command that runs
// them, with their depth.
func TestParseNested(t *testing.T) {
	s, err := Parse(`sudo bash -c 'eval "rm x"' && echo ok`)
	if err != nil {
		t.Fatal(err)
	}
	type cmd struct {
		Text  string
		Depth int
	}
	var got []cmd
	for _, c := range s.Commands {
		got = append(got, cmd{c.Text, c.Depth})
	}
	// The program sudo runs is a command of its own, at the same depth.
	want := []cmd{{`sudo bash -c 'eval "rm x"'`, 0}, {`bash -c 'eval "rm x"'`, 0}, {`eval "rm x"`, 1}, {"rm x", 2}, {"echo ok", 0}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("commands (-want +got):\n%s", d)
	}
	if len(s.Opaque) > 0 {
		t.Errorf("opaque: %q", s.Opaque)
	}
}

// Each word has a role: the programs run, through wrappers, the code run,
// the files written.
func TestRoles(t *testing.T) {
	const (
		A = RoleArg
		P = RoleProgram
		C = RoleCode
		W = RoleWrite
		S = RoleAssign
	)
	for _, tc := range []struct {
		script  string
		want    []Role
		program int
	}{
		{"go test ./...", []Role{P, A, A}, 0},
		{"X=1 make", []Role{S, P}, 1},
		{"sudo -u root make install", []Role{P, A, A, P, A}, 3},
		{"env -i A=1 PATH=/bin go vet", []Role{P, A, A, A, P, A}, 4},
		{"timeout -s KILL 10 nice -n 5 make", []Role{P, A, A, A, P, A, A, P}, 7},
		{"sh -c 'rm x'", []Role{P, A, C}, 0},
		{"eval echo hi", []Role{P, C, C}, 0},
		{"tee -a log out", []Role{P, A, W, W}, 0},
		{"sudo $CMD", []Role{P, A}, -1},
		{"$CMD x", []Role{A, A}, -1},
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

func TestRedirects(t *testing.T) {
	s, _ := Parse("make 2>&1 >out.log <in.txt >&- 3<>rw <<EOF\nbody\nEOF")
	type rd struct {
		Op, Target string
		Role       Role
	}
	var got []rd
	for _, r := range s.Redirects {
		got = append(got, rd{r.Op, r.Target.Text, r.Role})
	}
	want := []rd{{">&", "1", RoleArg}, {">", "out.log", RoleWrite}, {"<", "in.txt", RoleRead},
		{">&", "-", RoleArg}, {"<>", "rw", RoleWrite}, {"<<", "EOF", RoleArg}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("redirects (-want +got):\n%s", d)
	}
	for _, w := range s.Words {
		if w.Text == "body" || w.Text == "out.log" {
			t.Errorf("word %q: a here-document body or a redirection target is no word", w.Text)
		}
	}
}

func TestWords(t *testing.T) {
	s, _ := Parse(`for f in a "b c" ~/d $x; do :; done`)
	want := []Word{{Text: "a"}, {Text: "b c"}, {Text: "~/d", Tilde: true}, {Kind: Dynamic, Splits: true}, {Text: ":"}}
	if d := cmp.Diff(want, s.Words); d != "" {
		t.Errorf("words (-want +got):\n%s", d)
	}
}

// A command's arguments are brace-expanded as the shell expands them,
// across quoted parts, so that {r'm',-f,x} is rm -f x; a word elsewhere
// with a brace expansion is a Pattern; an expansion past maxBraces words
// is computed.
func TestBraces(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   []Word
	}{
		{`{r'm',-f,src/keep.txt}`, []Word{{Text: "rm"}, {Text: "-f"}, {Text: "src/keep.txt"}}},
		{`go test {-exec,'sh -c x'} ./...`, []Word{{Text: "go"}, {Text: "test"}, {Text: "-exec"}, {Text: "sh -c x"}, {Text: "./..."}}},
		{"cat {../out/x,go.mod}", []Word{{Text: "cat"}, {Text: "../out/x"}, {Text: "go.mod"}}},
		{"ls {/abs,.} a{,b}", []Word{{Text: "ls"}, {Text: "/abs"}, {Text: "."}, {Text: "a"}, {Text: "ab"}}},
		{"cat x{1..3}", []Word{{Text: "cat"}, {Text: "x1"}, {Text: "x2"}, {Text: "x3"}}},
		{"cat {~,x}/k", []Word{{Text: "cat"}, {Text: "~/k", Tilde: true}, {Text: "x/k"}}},
		{`cat '{a,b}' {} {x}`, []Word{{Text: "cat"}, {Text: "{a,b}"}, {Text: "{}"}, {Text: "{x}"}}},
		{"cat {1..100}", []Word{{Text: "cat"}, {Kind: Dynamic, Splits: true}}},
		{"cat {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", []Word{{Text: "cat"}, {Kind: Dynamic, Splits: true}}},
	} {
		s, err := Parse(tc.script)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, s.Commands[0].Words); d != "" {
			t.Errorf("Parse(%q) words (-want +got):\n%s", tc.script, d)
		}
	}
	s, _ := Parse("cat < {a,'b'} > x{'1',2}")
	for _, r := range s.Redirects {
		if r.Target.Kind != Pattern {
			t.Errorf("redirection %s: %+v, want a Pattern", r.Text, r.Target)
		}
	}
	// The command name a brace expansion makes is the program run.
	if s, _ := Parse("{r'm',-f,x}"); len(s.Opaque) > 0 || s.Commands[0].Program() != 0 {
		t.Errorf("opaque %q, program %d", s.Opaque, s.Commands[0].Program())
	}
}

// What does not parse or passes a limit is an error for the script itself,
// opaque and unparsed wherever it is.
func TestUnreadable(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		topLevel     bool
	}{
		{"syntax", "echo 'x", true},
		{"too long", "echo " + strings.Repeat("x", MaxSource), true},
		{"too many brackets", strings.Repeat("(", maxBrackets+1), true},
		{"too many blocks", strings.Repeat("if ", maxBlocks+1), true},
		{"too many brackets in one word", "echo " + strings.Repeat("$(", 80000) + "x" + strings.Repeat(")", 80000), true},
		{"nested syntax", `bash -c "echo 'x"`, false},
		{"nested too deep", `bash -c "bash -c \"bash -c 'bash -c \\\"bash -c ls\\\"'\""`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse(tc.script)
			var se *SyntaxError
			if got := errors.As(err, &se); got != tc.topLevel {
				t.Errorf("Parse error = %v, want a *SyntaxError: %v", err, tc.topLevel)
			}
			if len(s.Opaque) == 0 {
				t.Errorf("nothing opaque")
			}
		})
	}
}

func TestParseCommand(t *testing.T) {
	c, err := ParseCommand("CGO_ENABLED=0 go 'build':*")
	if err != nil {
		t.Fatal(err)
	}
	want := []Word{{Text: "CGO_ENABLED=0", Kind: Assign}, {Text: "go"}, {Text: "build:*", Kind: Pattern}}
	if d := cmp.Diff(want, c.Words); d != "" || c.NAssign != 1 {
		t.Errorf("words (-want +got):\n%s nAssign %d", d, c.NAssign)
	}
	for src, want := range map[string]error{"a; b": ErrNotOne, "a | b": ErrNotSimple, "a > x": ErrNotSimple, "! a": ErrNotSimple} {
		if _, err := ParseCommand(src); !errors.Is(err, want) {
			t.Errorf("ParseCommand(%q) = %v, want %v", src, err, want)
		}
	}
}

func TestSource(t *testing.T) {
	for _, src := range []string{"go", "'a b'", "A='x y'", `\*.go`, "*.go", `a\ b*`, `A""=`, `'X=1' go`} {
		s, _ := Parse(src)
		w := s.Commands[0].Words[0]
		back, _ := Parse(w.Source())
		if d := cmp.Diff(w, back.Commands[0].Words[0]); d != "" {
			t.Errorf("%q: Source() = %q reads back differently (-want +got):\n%s", src, w.Source(), d)
		}
	}
}

// BenchmarkParse measures a typical command: a list with a pipeline, a
// redirection and a command substitution.
func BenchmarkParse(b *testing.B) {
	const src = `cd internal && go test -run 'TestX|TestY' ./... 2>&1 | tee "$(mktemp)" > /dev/null`
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}

func TestClipReadsOnlyTheStart(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"echo   a\tb", "echo a b"},
		{strings.Repeat("x", maxQuoted+1), strings.Repeat("x", maxQuoted) + "…"},
		// More than clipRead bytes, mostly blank: what was read fits, and
		// the cut is still marked.
		{"a" + strings.Repeat(" ", clipRead) + "b", "a…"},
	} {
		if got := Clip(tc.in); got != tc.want {
			t.Errorf("Clip(%.20q…) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Closers the count sees but the parser does not (escaped, quoted, in a
// comment) cannot lead the limits to let a deep script through: how many
// brackets and blocks a script opens at all is bounded too.
func TestLimitsCountOpeners(t *testing.T) {
	for name, src := range map[string]string{
		"escaped closers":           strings.Repeat(`$[\]`, maxOpeners+1),
		"escaped closers, unclosed": strings.Repeat(`$(\)`, maxOpeners+1),
		"quoted closers":            strings.Repeat(`$(')'`, maxOpeners+1),
		"commented closers":         strings.Repeat("$(#)\n", maxOpeners+1),
		"blocks closed by words":    strings.Repeat("if fi ", maxBlockWords+1),
		"backquotes":                strings.Repeat("`", maxOpeners+1),
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse(src); !errors.Is(err, errTooMany) {
				t.Errorf("Parse error = %v, want the limit on brackets and blocks opened", err)
			}
		})
	}
	// A long script of ordinary commands stays well inside.
	if src := strings.Repeat("echo ${a} $(b) [x];\n", 400); tooDeep(src) != nil {
		t.Errorf("tooDeep = %v for 400 ordinary lines", tooDeep(src))
	}
}

// Brace expansions are counted before they are expanded: a long word of
// braces, or a sequence past the int64 range, is one computed word.
func TestBraceLimits(t *testing.T) {
	for _, script := range []string{
		"cat " + strings.Repeat("{a,b}", 4000),
		"cat {-9223372036854775808..9223372036854775807}",
		"cat {1..65}", "cat {a..z}{a..z}", "cat {0..1000..10}",
	} {
		s, err := Parse(script)
		if err != nil {
			t.Fatal(err)
		}
		if w := s.Commands[0].Words; len(w) != 2 || w[1].Kind != Dynamic || !w[1].Splits {
			t.Errorf("Parse(%.40q): %d words, the second %+v", script, len(w), w[1])
		}
	}
	s, _ := Parse("cat {1..63..1} {z..a..5}")
	if n := len(s.Commands[0].Words); n != 1+63+6 {
		t.Errorf("words: %d, want %d", n, 1+63+6)
	}
}

// Sequences expand as bash expands them: padded, by steps, downwards.
func TestBraceSequences(t *testing.T) {
	for script, want := range map[string]string{
		"echo {01..3}":      "echo 01 02 03",
		"echo {z..a..5}":    "echo z u p k f a",
		"echo {3..-1..2}":   "echo 3 1 -1",
		"echo a{b,c{d,e}}f": "echo abf acdf acef",
		"echo {1..2,x}":     "echo 1..2 x",
		"echo {9223372036854775806..9223372036854775807}": "echo 9223372036854775806 9223372036854775807",
	} {
		s, err := Parse(script)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, w := range s.Commands[0].Words {
			got = append(got, w.Text)
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("Parse(%q) = %q, want %q", script, g, want)
		}
	}
}

// A word that starts with what prints the shell's directory or its
// repository's top, then is literal, keeps that start as its Anchor.
func TestAnchors(t *testing.T) {
	for src, want := range map[string][2]string{
		`$HOME/x`:                               {"HOME", "/x"},
		`"$PWD"`:                                {"PWD", ""},
		"`pwd -P`/":                             {"PWD", "/"},
		`$(pwd -L -P)`:                          {"PWD", ""},
		`"$(realpath .)"/.git`:                  {"PWD", "/.git"},
		`$(realpath -e -s ./)`:                  {"PWD", ""},
		`$(readlink -f .)`:                      {"PWD", ""},
		"`readlink -en .`":                      {"PWD", ""},
		`$(git rev-parse --show-toplevel)`:      {"TOP", ""},
		`"$(git rev-parse --show-toplevel)"/`:   {"TOP", "/"},
		`$(readlink .)`:                         {"", ""}, // prints nothing for a directory
		`$(realpath src)`:                       {"", ""},
		`$(realpath '.')`:                       {"", ""},
		`$(realpath --relative-to=/ .)`:         {"", ""},
		`$(pwd -x)`:                             {"", ""},
		`$(git rev-parse --git-dir)`:            {"", ""},
		`$(git -C x rev-parse --show-toplevel)`: {"", ""},
		`$(pwd)$X`:                              {"", ""},
	} {
		c, err := ParseCommand("rm " + src)
		if err != nil {
			t.Fatal(err)
		}
		w := c.Words[1]
		if got := [2]string{w.Anchor, w.Rest}; w.Kind != Dynamic || got != want {
			t.Errorf("%s: anchor %q rest %q (kind %v), want %q", src, w.Anchor, w.Rest, w.Kind, want)
		}
	}
}
