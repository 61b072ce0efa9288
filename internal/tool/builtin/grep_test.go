package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/registry"
)

func TestGrep(t *testing.T) {
	ws := searchWorkspace(t, map[string]string{
		".gitignore":   "ignored/\n",
		"a.go":         "package a\n\nfunc Run(ctx context.Context) {}\nfunc RunContext(ctx context.Context) {}\n",
		"b/c.go":       "package c\n// TODO: one\nvar X = 1 // todo two\n",
		"b/d.txt":      "TODO in text\n",
		"bin.dat":      "TODO\x00binary",
		"crlf.txt":     "end here\r\nnext\r\n",
		"ignored/e.go": "TODO ignored\n",
		".git/f":       "TODO in git\n",
		"kelvin.txt":   "\u212Aelvin scale\n",
		"long.txt":     "xx" + strings.Repeat("é", 300) + "\n", // 602 bytes
	})
	tests := []searchCase{{
		name:  "content",
		input: `{"pattern": "TODO"}`,
		want:  "b/c.go:2:// TODO: one\nb/d.txt:1:TODO in text\n",
	}, {
		name:  "ignore case",
		input: `{"pattern": "todo", "ignore_case": true}`,
		want:  "b/c.go:2:// TODO: one\nb/c.go:3:var X = 1 // todo two\nb/d.txt:1:TODO in text\n",
	}, {
		name:  "a regular expression",
		input: `{"pattern": "func \\w+Context\\("}`,
		want:  "a.go:4:func RunContext(ctx context.Context) {}\n",
	}, {
		name:  "a name glob",
		input: `{"pattern": "TODO", "glob": "*.go"}`,
		want:  "b/c.go:2:// TODO: one\n",
	}, {
		name:  "a path glob",
		input: `{"pattern": "TODO", "glob": "b/*.txt"}`,
		want:  "b/d.txt:1:TODO in text\n",
	}, {
		name:  "a file",
		input: `{"pattern": "todo", "path": "b/c.go"}`,
		want:  "b/c.go:3:var X = 1 // todo two\n",
	}, {
		name:  "a directory",
		input: `{"pattern": "TODO", "path": "b", "glob": "*.txt"}`,
		want:  "b/d.txt:1:TODO in text\n",
	}, {
		name:  "carriage returns are not part of the line",
		input: `{"pattern": "here$"}`,
		want:  "crlf.txt:1:end here\n",
	}, {
		name:  "case folding beyond ASCII",
		input: `{"pattern": "kelvin", "ignore_case": true}`,
		want:  "kelvin.txt:1:\u212Aelvin scale\n",
	}, {
		name:  "a long line is cut on a character boundary",
		input: `{"pattern": "^xx"}`,
		want:  "long.txt:1:xx" + strings.Repeat("é", 249) + " [... 102 more bytes]\n",
	}, {
		name:  "files",
		input: `{"pattern": "todo", "ignore_case": true, "output_mode": "files"}`,
		want:  "b/c.go\nb/d.txt\n",
	}, {
		name:  "count",
		input: `{"pattern": "todo", "ignore_case": true, "output_mode": "count"}`,
		want:  "b/c.go:2\nb/d.txt:1\n3 matching lines in 2 files\n",
	}, {
		name:  "no match",
		input: `{"pattern": "zzz", "glob": "*.go"}`,
		want:  "No matches for \"zzz\" in the workspace root (files matching *.go).\n",
	}, {
		name:  "no match, binary files skipped",
		input: `{"pattern": "binary"}`,
		want:  "No matches for \"binary\" in the workspace root; 1 binary files skipped.\n",
	}, {
		name:  "a binary file",
		input: `{"pattern": "TODO", "path": "bin.dat"}`,
		want:  "bin.dat is a binary file; grep searches text files only.\n",
	}}
	runSearchCases(t, SearchTools(ws)[1], tests)
}

func TestGrepContext(t *testing.T) {
	var f strings.Builder
	for i := 1; i <= 20; i++ {
		if i == 3 || i == 5 || i == 12 || i == 20 {
			fmt.Fprintf(&f, "MATCH %d\n", i)
		} else {
			fmt.Fprintf(&f, "line %d\n", i)
		}
	}
	ws := searchWorkspace(t, map[string]string{"f": f.String(), "g": "MATCH 1\nline 2\n"})
	got, err := runSearchTool(t, SearchTools(ws)[1], `{"pattern": "MATCH", "context": 2}`)
	if err != nil {
		t.Fatal(err)
	}
	want := `f-1-line 1
f-2-line 2
f:3:MATCH 3
f-4-line 4
f:5:MATCH 5
f-6-line 6
f-7-line 7
--
f-10-line 10
f-11-line 11
f:12:MATCH 12
f-13-line 13
f-14-line 14
--
f-18-line 18
f-19-line 19
f:20:MATCH 20
--
g:1:MATCH 1
g-2-line 2
`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("grep with context mismatch (-want +got):\n%s", d)
	}
}

func TestGrepErrors(t *testing.T) {
	ws := searchWorkspace(t, map[string]string{"a.txt": "x\n"})
	runSearchCases(t, SearchTools(ws)[1], []searchCase{
		{name: "bad regexp", input: `{"pattern": "func("}`, wantErr: []string{`"func(" is not a valid regular expression`, "missing closing )", "escape"}},
		{name: "bad glob", input: `{"pattern": "x", "glob": "[a-"}`, wantErr: []string{"not a valid glob pattern"}},
		{name: "missing path", input: `{"pattern": "x", "path": "nowhere"}`, wantErr: []string{"nowhere does not exist"}},
	})
}

func TestGrepCaps(t *testing.T) {
	many := strings.Repeat("hit\n", 300)
	t.Run("matching lines", func(t *testing.T) {
		ws := searchWorkspace(t, map[string]string{"a": many, "b": many})
		got, err := runSearchTool(t, SearchTools(ws)[1], `{"pattern": "hit"}`)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Repeat("a:N:hit\n", 300) + strings.Repeat("b:N:hit\n", 200) +
			"[grep stopped at 500 matching lines; at least 100 more were found; narrow the pattern, path or glob to see the rest]\n"
		if d := cmp.Diff(want, regexp.MustCompile(`:\d+:`).ReplaceAllString(got, ":N:")); d != "" {
			t.Errorf("grep mismatch (-want +got):\n%s", d)
		}
	})
	t.Run("files", func(t *testing.T) {
		files := map[string]string{}
		for i := range grepLimit + 20 {
			files[fmt.Sprintf("f%04d", i)] = "hit\n"
		}
		ws := searchWorkspace(t, files)
		got, err := runSearchTool(t, SearchTools(ws)[1], `{"pattern": "hit", "output_mode": "files"}`)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		if len(lines) != grepLimit+1 || lines[grepLimit-1] != fmt.Sprintf("f%04d", grepLimit-1) {
			t.Fatalf("grep printed %d lines ending %q, want %d paths in order and a last line", len(lines), lines[len(lines)-2:], grepLimit)
		}
		if !strings.HasPrefix(lines[grepLimit], "[grep stopped at 500 files") {
			t.Errorf("last line %q, want it to say where grep stopped", lines[grepLimit])
		}
	})
}

func TestGrepOrderIsDeterministic(t *testing.T) {
	files := map[string]string{}
	var want strings.Builder
	for i := range 60 {
		for j := range 5 {
			name := fmt.Sprintf("d%02d/f%d.txt", i, j)
			// Sizes differ so that the workers finish out of order.
			files[name] = strings.Repeat("filler line\n", (i*7+j*13)%50*200) + "needle\n"
			fmt.Fprintf(&want, "%s:%d:needle\n", name, (i*7+j*13)%50*200+1)
		}
	}
	ws := searchWorkspace(t, files)
	for range 5 {
		got, err := runSearchTool(t, SearchTools(ws)[1], `{"pattern": "needle"}`)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want.String(), got); d != "" {
			t.Fatalf("grep mismatch (-want +got):\n%s", d)
		}
	}
}

func TestGrepCancelled(t *testing.T) {
	ws := searchWorkspace(t, map[string]string{"a/b.txt": "needle\n"})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var out bytes.Buffer
	_, err := SearchTools(ws)[1].Execute(ctx, &registry.Call{Input: json.RawMessage(`{"pattern": "needle"}`), Output: &out})
	if err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("grep with a done context = %v (output %q), want a cancellation error", err, out.String())
	}
}

// TestGrepSearcherChunks checks the file searcher, reading in chunks of
// several sizes, against a plain line-by-line reference.
func TestGrepSearcherChunks(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "needle", "NEEDLE", "neeedle7", "beta", "", "\r", "Kelvin \u212A", "é"}
	var text strings.Builder
	for range 3000 {
		for range rnd.IntN(12) {
			text.WriteString(words[rnd.IntN(len(words))])
			text.WriteByte(' ')
		}
		if rnd.IntN(100) == 0 {
			text.WriteString(strings.Repeat("z", 600)) // a line longer than a small chunk
		}
		text.WriteByte('\n')
	}
	text.WriteString("last line without a newline needle")
	file := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(file, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	patterns := []grepInput{
		{Pattern: "needle"},
		{Pattern: `ne+dle\d`},
		{Pattern: "needle", IgnoreCase: true},
		{Pattern: "kelvin", IgnoreCase: true},
		{Pattern: "^$"},
		{Pattern: "a|b"},
		{Pattern: "zzz$"},
	}
	for _, in := range patterns {
		for _, k := range []int{0, 1, 3} {
			for _, mode := range []string{grepContent, grepCount} {
				in.Context, in.OutputMode = k, mode
				q, err := newGrepQuery(in)
				if err != nil {
					t.Fatal(err)
				}
				wantLines, wantMatches := referenceGrep(text.String(), q.re, k, grepLimit)
				if mode == grepCount {
					wantLines, wantMatches = referenceGrep(text.String(), q.re, k, -1)
					wantLines = nil
				}
				for _, chunk := range []int{64, 1000, grepChunk} {
					t.Run(fmt.Sprintf("%s/%v/context %d/%s/chunk %d", in.Pattern, in.IgnoreCase, k, mode, chunk), func(t *testing.T) {
						s := newGrepSearcher(q)
						s.chunk = chunk
						res := s.search(t.Context(), file)
						if res.err != nil || res.matches != wantMatches {
							t.Fatalf("search() = %d matches, err %v; want %d", res.matches, res.err, wantMatches)
						}
						if d := cmp.Diff(wantLines, res.lines, cmp.AllowUnexported(grepLine{})); d != "" {
							t.Errorf("search() lines mismatch (-want +got):\n%s", d)
						}
					})
				}
			}
		}
	}
}

// referenceGrep is the obvious line-by-line search, for comparison,
// stopping after limit matches unless limit is negative.
func referenceGrep(text string, re *regexp.Regexp, k, limit int) ([]grepLine, int) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	show := make([]bool, len(lines))
	match := make([]bool, len(lines))
	n := 0
	for i, l := range lines {
		if n == limit {
			break
		}
		if re.MatchString(strings.TrimSuffix(l, "\r")) {
			match[i] = true
			n++
			for j := max(i-k, 0); j <= min(i+k, len(lines)-1); j++ {
				show[j] = true
			}
		}
	}
	var out []grepLine
	last, found := 0, 0
	for i, l := range lines {
		if !show[i] || found == limit {
			continue
		}
		if match[i] {
			found++
		}
		if last > 0 && i+1 > last+1 && k > 0 {
			out = append(out, grepLine{})
		}
		out = append(out, grepLine{n: i + 1, text: cutLine([]byte(strings.TrimSuffix(l, "\r"))), match: match[i]})
		last = i + 1
	}
	return out, n
}

func TestLowerASCII(t *testing.T) {
	var src []byte
	for i := range 256 * 3 {
		src = append(src, byte(i*7)) // every byte value, at every offset within a word
	}
	for n := range len(src) {
		var want []byte
		for _, c := range src[:n] {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			want = append(want, c)
		}
		if got := lowerASCII(nil, src[:n]); !bytes.Equal(got, want) {
			t.Fatalf("lowerASCII(%d bytes) = %q, want %q", n, got, want)
		}
	}
}
