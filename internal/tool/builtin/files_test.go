package builtin

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/workspace"
)

// fileEnv is a temporary workspace with one session's file tools, and a
// directory outside it. It keeps the session's read ledger as the tool
// runtime and the state do: every call's Check and Execute get the
// ledger, and the files a call reports are recorded in it.
type fileEnv struct {
	t       *testing.T
	root    string // the workspace root, symlinks resolved
	outside string // a directory beside the workspace
	tools   map[string]registry.Tool

	mu     sync.Mutex // guards ledger: calls may run side by side
	ledger state.Ledger
}

func newFileEnv(t *testing.T) *fileEnv {
	t.Helper()
	base := t.TempDir()
	for _, d := range []string{"ws", "out"} {
		if err := os.Mkdir(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New(filepath.Join(base, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	outside, err := filepath.EvalSymlinks(filepath.Join(base, "out"))
	if err != nil {
		t.Fatal(err)
	}
	e := &fileEnv{t: t, root: ws.Root(), outside: outside, tools: map[string]registry.Tool{}}
	for _, tool := range FileTools(ws) {
		e.tools[tool.Name] = tool
	}
	return e
}

// path returns rel inside the workspace.
func (e *fileEnv) path(rel string) string { return filepath.Join(e.root, filepath.FromSlash(rel)) }

// put writes content to rel behind the tools' back, creating directories.
func (e *fileEnv) put(rel, content string) {
	e.t.Helper()
	p := e.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// get returns the content of rel.
func (e *fileEnv) get(rel string) string {
	e.t.Helper()
	data, err := os.ReadFile(e.path(rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(data)
}

// run calls the tool as the runtime does: Check, then (if it passed)
// Execute with a buffer as output. It returns the output and the error of
// whichever step failed.
func (e *fileEnv) run(name string, input any) (string, error) {
	e.t.Helper()
	if err := e.check(name, input); err != nil {
		return "", err
	}
	return e.execute(name, input)
}

// check calls only the tool's Check, with the ledger as it stands.
func (e *fileEnv) check(name string, input any) error {
	e.t.Helper()
	return e.tools[name].Check(e.input(input), e.seen())
}

// execute calls only the tool's Execute, as after a Check that passed
// before the world changed, and records the files it reports.
func (e *fileEnv) execute(name string, input any) (string, error) {
	e.t.Helper()
	var out bytes.Buffer
	res, err := e.tools[name].Execute(e.t.Context(), &registry.Call{IntentID: "i1", InvocationID: "v1", Input: e.input(input), Output: &out, Ledger: e.seen()})
	e.mu.Lock()
	e.ledger = e.ledger.With(res.Files...)
	e.mu.Unlock()
	return out.String(), err
}

// seen returns the ledger as it stands.
func (e *fileEnv) seen() state.Ledger {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.ledger
}

func (e *fileEnv) input(input any) json.RawMessage {
	e.t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		e.t.Fatal(err)
	}
	return raw
}

// mustRun is run for a call that must succeed.
func (e *fileEnv) mustRun(name string, input any) string {
	e.t.Helper()
	out, err := e.run(name, input)
	if err != nil {
		e.t.Fatalf("%s(%v): %v", name, input, err)
	}
	return out
}

// checkCode returns the code of err's *registry.CheckError, "" for none.
func checkCode(err error) string {
	if ce, ok := errors.AsType[*registry.CheckError](err); ok {
		return string(ce.Code)
	}
	return ""
}

type m = map[string]any

func TestFileToolsDeclarations(t *testing.T) {
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tools := FileTools(ws)
	reg, err := registry.New(tools...)
	if err != nil {
		t.Fatalf("registry.New: %v", err)
	}
	type decl struct {
		Name        string
		Risk        registry.Risk
		ReadOnly    bool
		Concurrency registry.Concurrency
	}
	var got []decl
	for _, tool := range reg.All() {
		got = append(got, decl{tool.Name, tool.Risk, tool.ReadOnly, tool.Concurrency})
		if tool.Check == nil || tool.Execute == nil || strings.TrimSpace(tool.Description) == "" {
			t.Errorf("%s: Check, Execute and Description must be set", tool.Name)
		}
		var schema struct {
			Properties           map[string]struct{ Type, Description string }
			Required             []string
			AdditionalProperties *bool
		}
		if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
			t.Fatalf("%s schema: %v", tool.Name, err)
		}
		if schema.AdditionalProperties == nil || *schema.AdditionalProperties || schema.Required == nil {
			t.Errorf("%s schema: want additionalProperties false and required listed", tool.Name)
		}
		for name, p := range schema.Properties {
			if p.Type == "" || p.Description == "" {
				t.Errorf("%s schema: property %s needs a type and a description", tool.Name, name)
			}
		}
	}
	want := []decl{
		{"read_file", registry.RiskRead, true, registry.Safe},
		{"write_file", registry.RiskWrite, false, registry.Exclusive},
		{"edit_file", registry.RiskWrite, false, registry.Exclusive},
		{"list_dir", registry.RiskRead, true, registry.Safe},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("FileTools() mismatch (-want +got):\n%s", d)
	}
}

// TestPathEscapeRefused proves every file tool refuses, at Check, a path
// leading outside the workspace, whichever way it gets there, and leaves
// what is outside alone.
func TestPathEscapeRefused(t *testing.T) {
	e := newFileEnv(t)
	secret := filepath.Join(e.outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, e.path("file-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(e.outside, e.path("dir-link")); err != nil {
		t.Fatal(err)
	}
	ways := []struct{ name, file, dir string }{
		{"dotdot", "../out/secret.txt", "../out"},
		{"absolute", secret, e.outside},
		{"symlink", "file-link", "dir-link"},
		{"through a linked directory", "dir-link/secret.txt", "dir-link/."},
	}
	for _, way := range ways {
		inputs := map[string]m{
			"read_file":  {"path": way.file},
			"write_file": {"path": way.file, "content": "pwned\n"},
			"edit_file":  {"path": way.file, "old_string": "secret", "new_string": "pwned"},
			"list_dir":   {"path": way.dir},
		}
		for tool, input := range inputs {
			t.Run(way.name+"/"+tool, func(t *testing.T) {
				_, err := e.run(tool, input)
				if checkCode(err) != "precondition_failed" || !strings.Contains(err.Error(), "outside the workspace") {
					t.Fatalf("%s(%v) = %v; want precondition_failed, outside the workspace", tool, input, err)
				}
			})
		}
	}
	t.Run("write into a linked directory", func(t *testing.T) {
		_, err := e.run("write_file", m{"path": "dir-link/new.txt", "content": "x"})
		if checkCode(err) != "precondition_failed" {
			t.Fatalf("write_file through dir-link = %v; want precondition_failed", err)
		}
	})
	if data, _ := os.ReadFile(secret); string(data) != "secret\n" {
		t.Errorf("outside file = %q; want it untouched", data)
	}
	if _, err := os.Stat(filepath.Join(e.outside, "new.txt")); err == nil {
		t.Errorf("a file was created outside the workspace")
	}
}

// TestExecuteResolvesAgain proves Execute does not trust the path Check
// resolved: a directory swapped for a link outside in between is refused.
func TestExecuteResolvesAgain(t *testing.T) {
	e := newFileEnv(t)
	e.put("sub/a.txt", "inside\n")
	if err := os.WriteFile(filepath.Join(e.outside, "a.txt"), []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.mustRun("read_file", m{"path": "sub/a.txt"})
	calls := map[string]m{
		"read_file":  {"path": "sub/a.txt"},
		"write_file": {"path": "sub/a.txt", "content": "pwned\n"},
		"edit_file":  {"path": "sub/a.txt", "old_string": "inside", "new_string": "pwned"},
		"list_dir":   {"path": "sub"},
	}
	for tool, input := range calls {
		if err := e.check(tool, input); err != nil {
			t.Fatalf("%s Check before the swap: %v", tool, err)
		}
	}
	if err := os.RemoveAll(e.path("sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(e.outside, e.path("sub")); err != nil {
		t.Fatal(err)
	}
	for tool, input := range calls {
		t.Run(tool, func(t *testing.T) {
			out, err := e.execute(tool, input)
			if checkCode(err) != "precondition_failed" {
				t.Fatalf("%s Execute after the swap = %q, %v; want precondition_failed", tool, out, err)
			}
		})
	}
	if data, _ := os.ReadFile(filepath.Join(e.outside, "a.txt")); string(data) != "outside\n" {
		t.Errorf("outside file = %q; want it untouched", data)
	}
}

func TestUnifiedDiff(t *testing.T) {
	ten := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	tests := []struct {
		name, before, after, want string
	}{
		{name: "equal", before: ten, after: ten, want: ""},
		{
			name: "one line changed", before: ten, after: strings.Replace(ten, "5\n", "five\n", 1),
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
		},
		{
			name: "changes far apart make two hunks", before: ten + "11\n12\n", after: "one\n" + strings.TrimPrefix(ten, "1\n") + "11\ntwelve\n",
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+twelve\n",
		},
		{
			name: "changes six lines apart make one hunk", before: ten, after: "one\n2\n3\n4\n5\n6\n7\neight\n9\n10\n",
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -1,10 +1,10 @@\n-1\n+one\n 2\n 3\n 4\n 5\n 6\n 7\n-8\n+eight\n 9\n 10\n",
		},
		{
			name: "insertion and deletion", before: "a\nb\nc\n", after: "a\nx\ny\nc\n",
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n a\n-b\n+x\n+y\n c\n",
		},
		{
			name: "pure insertion at the top", before: "", after: "a\nb\n",
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n",
		},
		{
			name: "pure deletion after line 5", before: ten, after: strings.Replace(ten, "6\n", "", 1),
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -3,7 +3,6 @@\n 3\n 4\n 5\n-6\n 7\n 8\n 9\n",
		},
		{
			name: "no newline at end", before: "a\nb", after: "a\nb\n",
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
		},
		{
			name: "one-line files", before: "x\n", after: "y\n",
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-x\n+y\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, unifiedDiff("f.txt", []byte(tt.before), []byte(tt.after))); d != "" {
				t.Errorf("unifiedDiff() mismatch (-want +got):\n%s", d)
			}
		})
	}
	if got := unifiedDiff("/abs/f.txt", []byte("a\n"), []byte("b\n")); !strings.HasPrefix(got, "--- /abs/f.txt\n+++ /abs/f.txt\n") {
		t.Errorf("unifiedDiff of an absolute path starts %q; want no a/ b/ prefixes", got)
	}
}

// TestDiffLinesShortest proves the line diff is a correct edit script
// and a shortest one: it rebuilds both sides, and keeps as many lines as
// the longest common subsequence holds.
func TestDiffLinesShortest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		a, b := randomLines(r), randomLines(r)
		ops := diffLines(a, b)
		var gotA, gotB []string
		kept := 0
		for _, op := range ops {
			if op.kind != '+' {
				gotA = append(gotA, op.line)
			}
			if op.kind != '-' {
				gotB = append(gotB, op.line)
			}
			if op.kind == ' ' {
				kept++
			}
		}
		if !slices.Equal(gotA, a) || !slices.Equal(gotB, b) {
			t.Fatalf("case %d: diff of %q and %q does not rebuild them: %v", i, a, b, ops)
		}
		if want := lcs(a, b); kept != want {
			t.Fatalf("case %d: diff of %q and %q keeps %d lines; the longest common subsequence has %d", i, a, b, kept, want)
		}
	}
}

func randomLines(r *rand.Rand) []string {
	lines := make([]string, r.IntN(12))
	for i := range lines {
		lines[i] = string(rune('a'+r.IntN(4))) + "\n"
	}
	return lines
}

// lcs is the textbook dynamic programme, the reference for myers.
func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// TestDiffLinesGivesUp proves a change past maxDiffEdits still yields a
// correct diff: the region removed, then added.
func TestDiffLinesGivesUp(t *testing.T) {
	var a, b []string
	for i := range maxDiffEdits {
		a = append(a, "a"+strings.Repeat("x", i%7)+"\n")
		b = append(b, "b"+strings.Repeat("x", i%7)+"\n")
	}
	ops := diffLines(a, b)
	if len(ops) != 2*maxDiffEdits || ops[0].kind != '-' || ops[len(ops)-1].kind != '+' {
		t.Fatalf("diffLines past the limit gave %d ops, first %c last %c; want all removed then all added", len(ops), ops[0].kind, ops[len(ops)-1].kind)
	}
}
