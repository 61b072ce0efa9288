//go:build unix

package builtin_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/state/statetest"
	"github.com/rein-agent/rein/internal/tool"
	"github.com/rein-agent/rein/internal/tool/builtin"
	"github.com/rein-agent/rein/internal/workspace"
)

// recorder is a tool.Sink that keeps what the runtime emits, in order.
type recorder struct {
	mu     sync.Mutex
	events []contract.Event
}

func (r *recorder) Emit(e contract.Event, _ string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	return fmt.Sprintf("evt_%d", len(r.events)), nil
}

func (r *recorder) Sync() error { return nil }

// yoloRuntime returns a tool runtime over fresh built-in tools in dir, in
// yolo mode: what a session builds when it starts or resumes.
func yoloRuntime(t *testing.T, dir string) *tool.Runtime {
	t.Helper()
	return newRuntime(t, dir, permission.Yolo, nil, nil)
}

// newRuntime returns a tool runtime with opts, in mode, with no one to
// ask, over fresh built-in tools made with tools and working in dir.
func newRuntime(t *testing.T, dir string, mode permission.Mode, tools *builtin.Options, opts *tool.Options) *tool.Runtime {
	t.Helper()
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	policy, err := permission.New(mode, permission.Rules{}, ws)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.New(builtin.Tools(ws, tools)...)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := tool.New(reg, policy, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// fold returns the state of the events a recorder received, numbered as a
// log numbers them.
func fold(events []contract.Event) state.State {
	envs := make([]contract.Envelope, len(events))
	for i, e := range events {
		envs[i] = contract.Envelope{Seq: uint64(i + 1), Data: e}
	}
	return statetest.Reduce(envs)
}

// turn runs the intents, given as tool name and input, through rt with
// st, and returns what the runtime emitted and the observation of each
// intent, in order.
func turn(t *testing.T, rt *tool.Runtime, st *state.State, intents ...[2]string) (*recorder, []contract.Observation) {
	t.Helper()
	var ps []tool.Proposal
	for i, in := range intents {
		ps = append(ps, tool.Proposal{Intent: contract.ToolIntent{ID: fmt.Sprintf("int_%d", i), ToolName: in[0], Input: json.RawMessage(in[1])}})
	}
	s := &recorder{}
	if err := rt.Run(t.Context(), st, ps, s); err != nil {
		t.Fatal(err)
	}
	obs := make([]contract.Observation, len(ps))
	for _, e := range s.events {
		if o, ok := e.(*contract.ToolObservation); ok {
			var i int
			fmt.Sscanf(o.IntentID, "int_%d", &i)
			obs[i] = o.Observation
		}
	}
	return s, obs
}

// The file tools check against the ledger of the state they are given, as
// the runtime threads it through a turn: reads side by side each record
// their file; a new runtime over new tools (a resumed session) edits a
// file read before, twice in one turn, the second edit seeing the first's
// write; and a file a command changes between validation and execution is
// still refused at execution.
func TestRuntimeKeepsTheLedgerOfState(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n", "util.go": "package calc\n", "notes.txt": "notes\n"}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) [2]string { return [2]string{"read_file", fmt.Sprintf(`{"path":%q}`, name)} }
	s1, obs := turn(t, yoloRuntime(t, dir), &state.State{}, read("calc.go"), read("util.go"), read("notes.txt"))
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"calc.go", "util.go", "notes.txt"} {
		if !obs[i].OK || len(obs[i].Files) != 1 || obs[i].Files[0].Path != filepath.Join(root, name) || obs[i].Files[0].Op != contract.FileRead {
			t.Fatalf("observation of the read of %s: %+v", name, obs[i])
		}
		if strings.Contains(obs[i].Text, root) {
			t.Errorf("the model is shown the absolute path: %q", obs[i].Text)
		}
	}
	st := fold(s1.events)
	if n := st.Ledger.Len(); n != 3 {
		t.Fatalf("the ledger holds %d files after three reads, want 3", n)
	}

	rt := yoloRuntime(t, dir) // a resumed session: tools that remember nothing
	s2, obs := turn(t, rt, &st,
		[2]string{"edit_file", `{"path":"calc.go","old_string":"a - b","new_string":"a + b"}`},
		[2]string{"edit_file", `{"path":"calc.go","old_string":"func Add","new_string":"// Add adds.\nfunc Add"}`})
	for i, o := range obs {
		if !o.OK || len(o.Files) != 1 || o.Files[0].Op != contract.FileWrite {
			t.Fatalf("edit %d: %+v", i, o)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "calc.go")); string(got) != "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n" {
		t.Fatalf("calc.go after two edits = %q", got)
	}

	st = fold(append(s1.events, s2.events...))
	_, obs = turn(t, rt, &st,
		[2]string{"bash", `{"command":"echo '// changed' >> util.go"}`},
		[2]string{"edit_file", `{"path":"util.go","old_string":"package calc","new_string":"package util"}`},
		[2]string{"edit_file", `{"path":"never.go","old_string":"","new_string":"package never\n"}`},
		[2]string{"write_file", `{"path":"notes.txt","content":"new notes\n"}`})
	if !obs[0].OK {
		t.Fatalf("bash: %+v", obs[0])
	}
	if o := obs[1]; o.OK || o.Code != contract.CodeStaleFile || o.Phase != contract.PhaseExecution || o.Files != nil {
		t.Errorf("edit of a file changed after validation: %+v; want stale_file at execution", o)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "util.go")); string(got) != "package calc\n// changed\n" {
		t.Errorf("util.go = %q; the refused edit must not touch it", got)
	}
	if o := obs[2]; !o.OK {
		t.Errorf("creating a file needs no read: %+v", o)
	}
	if o := obs[3]; !o.OK {
		t.Errorf("write_file over a file read in an earlier session: %+v", o)
	}
}
