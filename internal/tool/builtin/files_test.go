package builtin

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
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
