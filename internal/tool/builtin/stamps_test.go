package builtin

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/state/statetest"
	"github.com/rein-agent/rein/internal/workspace"
)

// call runs the tool name of e with input and ledger, Check then Execute
// as the runtime does, and returns its result, output and error.
func (e *fileEnv) call(name string, input any, ledger state.Ledger) (registry.Result, string, error) {
	e.t.Helper()
	raw := e.input(input)
	if err := e.tools[name].Check(raw, ledger); err != nil {
		return registry.Result{}, "", err
	}
	var out bytes.Buffer
	res, err := e.tools[name].Execute(e.t.Context(), &registry.Call{IntentID: "i1", InvocationID: "v1", Input: raw, Output: &out, Ledger: ledger})
	return res, out.String(), err
}

// wantStamp returns the stamp of the file rel as it is on disk.
func (e *fileEnv) wantStamp(rel string, op contract.FileOp) contract.FileStamp {
	e.t.Helper()
	data, err := os.ReadFile(e.path(rel))
	if err != nil {
		e.t.Fatal(err)
	}
	fi, err := os.Stat(e.path(rel))
	if err != nil {
		e.t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return contract.FileStamp{Path: e.path(rel), Size: int64(len(data)), ModTime: fi.ModTime().UTC(), SHA256: hex.EncodeToString(sum[:]), Op: op}
}

// TestFileToolsReportStamps checks the stamps the file tools report: what
// read_file read (a range of lines included) and what write_file and
// edit_file wrote, by resolved absolute path, and nothing for a call that
// read or wrote nothing.
func TestFileToolsReportStamps(t *testing.T) {
	e := newFileEnv(t)
	e.put("pkg/calc.go", goSource)
	e.put("empty.txt", "")
	var ledger state.Ledger
	tests := []struct {
		name, tool string
		input      m
		want       func() []contract.FileStamp
	}{
		{"read", "read_file", m{"path": "pkg/calc.go"}, func() []contract.FileStamp {
			return []contract.FileStamp{e.wantStamp("pkg/calc.go", contract.FileRead)}
		}},
		{"read of a range", "read_file", m{"path": "./pkg/../pkg/calc.go", "offset": 3, "limit": 1}, func() []contract.FileStamp {
			return []contract.FileStamp{e.wantStamp("pkg/calc.go", contract.FileRead)}
		}},
		{"read of an empty file", "read_file", m{"path": e.path("empty.txt")}, func() []contract.FileStamp {
			return []contract.FileStamp{e.wantStamp("empty.txt", contract.FileRead)}
		}},
		{"edit", "edit_file", m{"path": "pkg/calc.go", "old_string": "return 1", "new_string": "return 2"}, func() []contract.FileStamp {
			return []contract.FileStamp{e.wantStamp("pkg/calc.go", contract.FileWrite)}
		}},
		{"write", "write_file", m{"path": "pkg/calc.go", "content": "package pkg\n"}, func() []contract.FileStamp {
			return []contract.FileStamp{e.wantStamp("pkg/calc.go", contract.FileWrite)}
		}},
		{"create", "write_file", m{"path": "new/doc.go", "content": "package doc\n"}, func() []contract.FileStamp {
			return []contract.FileStamp{e.wantStamp("new/doc.go", contract.FileWrite)}
		}},
		{"create by edit", "edit_file", m{"path": "made.go", "old_string": "", "new_string": "package made\n"}, func() []contract.FileStamp {
			return []contract.FileStamp{e.wantStamp("made.go", contract.FileWrite)}
		}},
		{"listing", "list_dir", m{"path": "pkg"}, func() []contract.FileStamp { return nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, out, err := e.call(tt.tool, tt.input, ledger)
			if err != nil {
				t.Fatalf("%s(%v) = %q, %v", tt.tool, tt.input, out, err)
			}
			if d := cmp.Diff(tt.want(), res.Files); d != "" {
				t.Errorf("%s(%v) files mismatch (-want +got):\n%s", tt.tool, tt.input, d)
			}
			ledger = ledger.With(res.Files...)
		})
	}
	// Calls that fail report nothing, having read or written nothing.
	for _, call := range []struct {
		name, tool string
		input      m
	}{
		{"missing file", "read_file", m{"path": "nope.go"}},
		{"offset past the end", "read_file", m{"path": "pkg/calc.go", "offset": 99}},
		{"directory", "read_file", m{"path": "pkg"}},
		{"edit that misses", "edit_file", m{"path": "pkg/calc.go", "old_string": "absent", "new_string": "x"}},
		{"stale write", "write_file", m{"path": "pkg/calc.go", "content": "x"}},
		{"stale edit", "edit_file", m{"path": "pkg/calc.go", "old_string": "pkg", "new_string": "x"}},
	} {
		t.Run(call.name, func(t *testing.T) {
			if strings.HasPrefix(call.name, "stale") {
				e.put("pkg/calc.go", "package changed\n")
			}
			var out bytes.Buffer
			res, err := e.tools[call.tool].Execute(t.Context(), &registry.Call{Input: e.input(call.input), Output: &out, Ledger: ledger})
			if err == nil || res.Files != nil {
				t.Errorf("%s(%v) = %+v, %v; want an error and no files", call.tool, call.input, res, err)
			}
		})
	}
}

// TestFileToolsCheckTheLedgerTheyAreGiven proves the file tools remember
// nothing: a fresh set of tools (a resumed session) edits a file that the
// ledger folded from the log holds, refuses one it does not hold, and
// refuses one whose content differs from its stamp, at Check and again at
// Execute.
func TestFileToolsCheckTheLedgerTheyAreGiven(t *testing.T) {
	before := newFileEnv(t)
	before.put("calc.go", goSource)
	res, _, err := before.call("read_file", m{"path": "calc.go"}, state.Ledger{})
	if err != nil {
		t.Fatal(err)
	}
	// The read's observation, written to the log and folded again.
	line, err := contract.Envelope{Seq: 1, Data: &contract.ToolObservation{Observation: contract.Observation{
		IntentID: "i1", ToolName: "read_file", OK: true, Phase: contract.PhaseExecution, Text: "…", Files: res.Files,
	}}}.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var env contract.Envelope
	if err := env.UnmarshalJSON(line); err != nil {
		t.Fatal(err)
	}
	folded := statetest.Reduce([]contract.Envelope{env}).Ledger

	after := &fileEnv{t: t, root: before.root, outside: before.outside, tools: map[string]registry.Tool{}}
	for _, tool := range FileTools(workspaceAt(t, before.root)) {
		after.tools[tool.Name] = tool
	}
	edit := m{"path": "calc.go", "old_string": "return 1", "new_string": "return 2"}
	if _, _, err := after.call("edit_file", edit, state.Ledger{}); checkCode(err) != "stale_file" || !strings.Contains(err.Error(), "has not been read") {
		t.Fatalf("edit with an empty ledger = %v; want stale_file", err)
	}
	if got := after.get("calc.go"); got != goSource {
		t.Fatalf("a refused edit changed calc.go: %q", got)
	}
	res, out, err := after.call("edit_file", edit, folded)
	if err != nil {
		t.Fatalf("edit with the folded ledger: %v", err)
	}
	if !strings.HasPrefix(out, "edited calc.go: 1 replacement") || after.get("calc.go") != strings.Replace(goSource, "return 1", "return 2", 1) {
		t.Errorf("the edit did not land: %q", out)
	}
	// The file changed on disk since the stamp: stale at Check ...
	ledger := folded.With(res.Files...)
	after.put("calc.go", goSource)
	if _, _, err := after.call("edit_file", m{"path": "calc.go", "old_string": "return 1", "new_string": "return 3"}, ledger); checkCode(err) != "stale_file" || !strings.Contains(err.Error(), "changed on disk since you last read it") {
		t.Fatalf("edit of a file changed since its stamp = %v; want stale_file", err)
	}
	// ... and at Execute, when it changes after Check passed.
	ledger = ledger.With(after.wantStamp("calc.go", contract.FileRead))
	input := after.input(m{"path": "calc.go", "old_string": "return 1", "new_string": "return 3"})
	if err := after.tools["edit_file"].Check(input, ledger); err != nil {
		t.Fatalf("Check with a fresh stamp: %v", err)
	}
	after.put("calc.go", "package other\n")
	var buf bytes.Buffer
	if _, err := after.tools["edit_file"].Execute(t.Context(), &registry.Call{Input: input, Output: &buf, Ledger: ledger}); checkCode(err) != "stale_file" {
		t.Fatalf("Execute after a change since Check = %v; want stale_file", err)
	}
	if got := after.get("calc.go"); got != "package other\n" {
		t.Errorf("a refused edit changed calc.go: %q", got)
	}
}

// workspaceAt returns a workspace at root.
func workspaceAt(t *testing.T, root string) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// A file dated where JSON times cannot go (touch -d @253402300800 sets
// year 10000) is still read and recorded: its stamp has the zero time,
// and the observation that carries it encodes.
func TestStampOfAFileFromFarFuture(t *testing.T) {
	far := time.Unix(253402300800, 0)
	s := newStamp("/w/far.go", 3, make([]byte, sha256.Size), far, contract.FileRead)
	if !s.ModTime.IsZero() {
		t.Errorf("ModTime = %v, want the zero time", s.ModTime)
	}
	env := contract.Envelope{ID: "evt_1", Time: time.Unix(0, 0), Session: "ses_1", Data: &contract.ToolObservation{
		Observation: contract.Observation{IntentID: "int_1", ToolName: "read_file", OK: true, Files: []contract.FileStamp{s}}}}
	if _, err := env.MarshalJSON(); err != nil {
		t.Errorf("the observation does not encode: %v", err)
	}
}
