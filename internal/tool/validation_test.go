//go:build unix

package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/state/statetest"
	"github.com/rein-agent/rein/internal/tool"
	"github.com/rein-agent/rein/internal/tool/builtin"
	"github.com/rein-agent/rein/internal/workspace"
)

// person answers questions with answer and keeps them; with fail set, a
// question fails the test instead: a call that cannot apply must never
// reach one.
type person struct {
	t      *testing.T
	fail   bool
	answer tool.Answer

	mu        sync.Mutex
	questions []tool.Question
}

func (p *person) Approve(_ context.Context, q tool.Question) (tool.Reply, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.questions = append(p.questions, q)
	if p.fail {
		p.t.Errorf("asked about %s %s; a call that cannot apply must be refused before any question", q.Tool, q.Input)
	}
	return tool.Reply{Answer: p.answer}, nil
}

// asked returns the tools the person was asked about, in order.
func (p *person) asked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, q := range p.questions {
		out = append(out, q.Tool)
	}
	return out
}

// everyToolAsks are ask rules for every built-in tool: whatever the mode,
// each call that gets past validation is a question.
var everyToolAsks = []string{"read_file", "write_file", "edit_file", "list_dir", "glob", "grep", "bash"}

// askingRuntime returns a runtime over the built-in tools in dir, in mode
// with ask rules for asks, that asks p.
func askingRuntime(t *testing.T, dir string, mode permission.Mode, asks []string, p *person) *tool.Runtime {
	t.Helper()
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := permission.ParseRules(asks)
	if err != nil {
		t.Fatal(err)
	}
	policy, err := permission.New(mode, permission.Rules{Ask: rules}, ws)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.New(builtin.Tools(ws, nil)...)
	if err != nil {
		t.Fatal(err)
	}
	opts := &tool.Options{}
	if p != nil {
		opts.Approver = p
	}
	rt, err := tool.New(reg, policy, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// call is one intent of a test turn: its tool and input.
type call struct{ tool, input string }

// runTurn runs the calls as one turn, intent ids int_0, int_1..., and
// returns what was emitted.
func runTurn(t *testing.T, rt *tool.Runtime, st *state.State, calls ...call) *sink {
	t.Helper()
	var ps []tool.Proposal
	for i, c := range calls {
		ps = append(ps, tool.Proposal{Intent: contract.ToolIntent{ID: fmt.Sprintf("int_%d", i), ToolName: c.tool, Input: json.RawMessage(c.input)}})
	}
	s := &sink{}
	if err := rt.Run(t.Context(), st, ps, s); err != nil {
		t.Fatal(err)
	}
	return s
}

// stages returns the event types emitted for intent id, in order.
func (s *sink) stages(id string) []string {
	var out []string
	invocations := map[string]bool{}
	for _, e := range s.events {
		switch e := e.(type) {
		case *contract.ToolValidation:
			if e.IntentID == id {
				out = append(out, e.EventType())
			}
		case *contract.ToolPermission:
			if e.IntentID == id {
				out = append(out, e.EventType())
			}
		case *contract.InvocationStarted:
			if e.IntentID == id {
				invocations[e.InvocationID] = true
				out = append(out, e.EventType())
			}
		case *contract.InvocationCompleted:
			if invocations[e.InvocationID] {
				out = append(out, e.EventType())
			}
		case *contract.ToolObservation:
			if e.IntentID == id {
				out = append(out, e.EventType())
			}
		}
	}
	return out
}

func (s *sink) validation(id string) *contract.ToolValidation {
	for _, e := range s.events {
		if v, ok := e.(*contract.ToolValidation); ok && v.IntentID == id {
			return v
		}
	}
	return nil
}

func (s *sink) observationOf(t *testing.T, id string) contract.Observation {
	t.Helper()
	for _, e := range s.events {
		if o, ok := e.(*contract.ToolObservation); ok && o.IntentID == id {
			return o.Observation
		}
	}
	t.Fatalf("no observation of %s in %d events", id, len(s.events))
	return contract.Observation{}
}

// readLedger returns a state whose ledger holds the files of dir named, as
// read_file records them: what a session that read them knows.
func readLedger(t *testing.T, dir string, names ...string) *state.State {
	t.Helper()
	rt := askingRuntime(t, dir, permission.Yolo, nil, nil)
	var calls []call
	for _, n := range names {
		calls = append(calls, call{"read_file", fmt.Sprintf(`{"path":%q,"limit":1}`, n)})
	}
	s := runTurn(t, rt, &state.State{}, calls...)
	envs := make([]contract.Envelope, len(s.events))
	for i, e := range s.events {
		envs[i] = contract.Envelope{Seq: uint64(i + 1), Data: e}
	}
	st := statetest.Reduce(envs)
	for _, n := range names {
		abs, err := filepath.EvalSymlinks(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := st.Ledger.Lookup(abs); !ok {
			t.Fatalf("the ledger lacks %s after reading it: %+v", n, s.events)
		}
	}
	return &st
}

const calcGo = "package calc\n\nfunc Add(a, b int) int { return a - b }\n"

// Every precondition a built-in tool can check without acting is checked
// at validation: a call that cannot apply is refused there with its code
// and reason (tool.validation ok=false, then its observation), nobody is
// asked (every tool has an ask rule, and the person fails the test if
// asked), nothing runs and nothing changes.
func TestACallThatCannotApplyIsRefusedBeforeAnyQuestion(t *testing.T) {
	outside := t.TempDir()
	tests := []struct {
		name  string
		tool  string
		input string
		code  contract.Code
		says  string
	}{
		{"edit: old_string not in the file", "edit_file", `{"path":"calc.go","old_string":"return a * b","new_string":"return a + b"}`,
			contract.CodePreconditionFailed, "old_string was not found in calc.go"},
		{"edit: old_string found twice", "edit_file", `{"path":"twice.txt","old_string":"x","new_string":"y"}`,
			contract.CodePreconditionFailed, "old_string appears 2 times in twice.txt"},
		{"edit: a file not read", "edit_file", `{"path":"unread.go","old_string":"package","new_string":"package x"}`,
			contract.CodeStaleFile, "unread.go has not been read in this session"},
		{"edit: a file changed since it was read", "edit_file", `{"path":"changed.go","old_string":"package","new_string":"package x"}`,
			contract.CodeStaleFile, "changed.go changed on disk since you last read it"},
		{"edit: no such file", "edit_file", `{"path":"missing.go","old_string":"a","new_string":"b"}`,
			contract.CodePreconditionFailed, "missing.go does not exist"},
		{"edit: outside the workspace", "edit_file", fmt.Sprintf(`{"path":%q,"old_string":"a","new_string":"b"}`, filepath.Join(outside, "x.go")),
			contract.CodePreconditionFailed, "outside the workspace"},
		{"edit: nothing to change", "edit_file", `{"path":"calc.go","old_string":"a - b","new_string":"a - b"}`,
			contract.CodePreconditionFailed, "old_string and new_string are the same"},
		{"edit: empty old_string of a file that exists", "edit_file", `{"path":"calc.go","old_string":"","new_string":"x"}`,
			contract.CodePreconditionFailed, "old_string is empty but calc.go exists"},
		{"edit: a directory", "edit_file", `{"path":"sub","old_string":"a","new_string":"b"}`,
			contract.CodePreconditionFailed, "sub is a directory"},
		{"edit: a file too large to edit", "edit_file", `{"path":"big.log","old_string":"a","new_string":"b"}`,
			contract.CodePreconditionFailed, "more than the 10.0 MiB edit_file changes"},
		{"edit: a new file under a file", "edit_file", `{"path":"calc.go/new.go","old_string":"","new_string":"x"}`,
			contract.CodePreconditionFailed, "not a directory"},
		{"edit: no old_string", "edit_file", `{"path":"calc.go","new_string":"x"}`,
			contract.CodeSchemaInvalid, "old_string"},
		{"write: over a file not read", "write_file", `{"path":"unread.go","content":"x"}`,
			contract.CodeStaleFile, "unread.go has not been read"},
		{"write: over a directory", "write_file", `{"path":"sub","content":"x"}`,
			contract.CodePreconditionFailed, "sub is a directory, not a file to write"},
		{"write: under a file", "write_file", `{"path":"calc.go/x/new.go","content":"x"}`,
			contract.CodePreconditionFailed, "not a directory"},
		{"write: outside the workspace", "write_file", fmt.Sprintf(`{"path":%q,"content":"x"}`, filepath.Join(outside, "x.go")),
			contract.CodePreconditionFailed, "outside the workspace"},
		{"read: no such file", "read_file", `{"path":"missing.go"}`,
			contract.CodePreconditionFailed, "missing.go does not exist"},
		{"read: a directory", "read_file", `{"path":"sub"}`,
			contract.CodePreconditionFailed, "sub is a directory; use list_dir"},
		{"read: a named pipe", "read_file", `{"path":"pipe"}`,
			contract.CodePreconditionFailed, "pipe is a named pipe"},
		{"read: too large to read whole", "read_file", `{"path":"big.log"}`,
			contract.CodePreconditionFailed, "pass offset and limit"},
		{"read: outside the workspace", "read_file", fmt.Sprintf(`{"path":%q}`, filepath.Join(outside, "x.go")),
			contract.CodePreconditionFailed, "outside the workspace"},
		{"list: no such directory", "list_dir", `{"path":"nowhere"}`,
			contract.CodePreconditionFailed, "nowhere does not exist"},
		{"list: a file", "list_dir", `{"path":"calc.go"}`,
			contract.CodePreconditionFailed, "calc.go is not a directory"},
		{"glob: a pattern that is not a glob", "glob", `{"pattern":"[abc"}`,
			contract.CodePreconditionFailed, "is not a valid glob pattern"},
		{"glob: no such directory", "glob", `{"pattern":"*.go","path":"nowhere"}`,
			contract.CodePreconditionFailed, "nowhere does not exist"},
		{"glob: a file for a directory", "glob", `{"pattern":"*.go","path":"calc.go"}`,
			contract.CodePreconditionFailed, "calc.go is a file, not a directory"},
		{"grep: not a regular expression", "grep", `{"pattern":"(unclosed"}`,
			contract.CodePreconditionFailed, "is not a valid regular expression"},
		{"grep: a glob that is not one", "grep", `{"pattern":"x","glob":"{a"}`,
			contract.CodePreconditionFailed, "is not a valid glob pattern"},
		{"grep: no such path", "grep", `{"pattern":"x","path":"nowhere"}`,
			contract.CodePreconditionFailed, "nowhere does not exist"},
		{"grep: outside the workspace", "grep", fmt.Sprintf(`{"pattern":"x","path":%q}`, outside),
			contract.CodePreconditionFailed, "outside the workspace"},
		{"bash: a blank command", "bash", `{"command":"  \n\t"}`,
			contract.CodePreconditionFailed, "the command is empty"},
		{"bash: a NUL byte", "bash", `{"command":"touch made\u0000; touch made"}`,
			contract.CodePreconditionFailed, "NUL byte"},
	}
	// One workspace for all: each call is refused, and changes nothing.
	dir := t.TempDir()
	files := map[string]string{"calc.go": calcGo, "twice.txt": "x\nx\n", "unread.go": "package unread\n", "changed.go": "package changed\n",
		// Larger than the file tools take whole.
		"big.log": strings.Repeat("a log line\n", (10<<20)/10)}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := readLedger(t, dir, "calc.go", "twice.txt", "changed.go", "big.log")
	if err := os.WriteFile(filepath.Join(dir, "changed.go"), []byte("package changed // by someone else\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, dir)

			p := &person{t: t, fail: true}
			s := runTurn(t, askingRuntime(t, dir, permission.Default, everyToolAsks, p), st, call{tt.tool, tt.input})
			if d := cmp.Diff([]string{contract.TypeToolValidation, contract.TypeToolObservation}, s.stages("int_0")); d != "" {
				t.Errorf("stages (-want +got):\n%s", d)
			}
			v := s.validation("int_0")
			if v == nil || v.OK || v.Code != tt.code || !strings.Contains(strings.Join(v.Errors, "; "), tt.says) {
				t.Errorf("tool.validation = %+v; want ok=false, code %s, saying %q", v, tt.code, tt.says)
			}
			obs := s.observationOf(t, "int_0")
			if obs.OK || obs.Phase != contract.PhaseValidation || obs.Code != tt.code || !strings.Contains(obs.Text, tt.says) {
				t.Errorf("observation = %+v; want the refusal of the validation stage, saying %q", obs, tt.says)
			}
			if d := cmp.Diff(before, snapshot(t, dir)); d != "" {
				t.Errorf("the workspace changed (-before +after):\n%s", d)
			}
		})
	}
}

// snapshot returns the names of the entries below dir with their sizes
// and modes.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[path] = fmt.Sprintf("%d %s", fi.Size(), fi.Mode())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A precondition about the world as it is now is refused at validation
// only when no call admitted before it in the turn could make it hold; the
// others are asked about, and the tool checks them again when it runs,
// where the refusal stays for what still does not apply.
func TestValidationLeavesToExecutionWhatAnEarlierCallMayChange(t *testing.T) {
	setup := func(t *testing.T) (string, *state.State) {
		dir := t.TempDir()
		for name, content := range map[string]string{"calc.go": calcGo, "unread.go": "package unread\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir, readLedger(t, dir, "calc.go")
	}
	content := func(t *testing.T, dir, name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	t.Run("an edit of what the edit before it adds", func(t *testing.T) {
		dir, st := setup(t)
		p := &person{t: t, answer: tool.Yes}
		s := runTurn(t, askingRuntime(t, dir, permission.Default, nil, p), st,
			call{"edit_file", `{"path":"calc.go","old_string":"a - b","new_string":"a + b"}`},
			call{"edit_file", `{"path":"calc.go","old_string":"a + b","new_string":"b + a"}`})
		if d := cmp.Diff([]string{"edit_file", "edit_file"}, p.asked()); d != "" {
			t.Errorf("questions (-want +got):\n%s", d)
		}
		for _, id := range []string{"int_0", "int_1"} {
			if o := s.observationOf(t, id); !o.OK {
				t.Errorf("%s: %s", id, o.Text)
			}
		}
		if got := content(t, dir, "calc.go"); !strings.Contains(got, "return b + a") {
			t.Errorf("calc.go = %q; want both edits", got)
		}
	})

	t.Run("a read, then an edit of the file read", func(t *testing.T) {
		dir, st := setup(t)
		p := &person{t: t, answer: tool.Yes}
		s := runTurn(t, askingRuntime(t, dir, permission.Default, nil, p), st,
			call{"read_file", `{"path":"unread.go"}`},
			call{"edit_file", `{"path":"unread.go","old_string":"unread","new_string":"read"}`})
		if o := s.observationOf(t, "int_1"); !o.OK || content(t, dir, "unread.go") != "package read\n" {
			t.Errorf("edit after a read of the same turn: %+v", o)
		}
	})

	t.Run("a read does not change the files", func(t *testing.T) {
		dir, st := setup(t)
		p := &person{t: t, fail: true}
		s := runTurn(t, askingRuntime(t, dir, permission.Default, nil, p), st,
			call{"list_dir", `{}`},
			call{"edit_file", `{"path":"calc.go","old_string":"a * b","new_string":"a + b"}`})
		if v := s.validation("int_1"); v == nil || v.OK || v.Code != contract.CodePreconditionFailed {
			t.Errorf("tool.validation = %+v; want old_string refused after a listing", v)
		}
	})

	t.Run("a command changes the file: refused when the edit runs", func(t *testing.T) {
		dir, st := setup(t)
		p := &person{t: t, answer: tool.Yes}
		s := runTurn(t, askingRuntime(t, dir, permission.Default, nil, p), st,
			call{"bash", `{"command":"printf 'package calc\\n' > calc.go"}`},
			call{"edit_file", `{"path":"calc.go","old_string":"a - b","new_string":"a + b"}`})
		if d := cmp.Diff([]string{"bash", "edit_file"}, p.asked()); d != "" {
			t.Errorf("questions (-want +got):\n%s", d)
		}
		// Asked about before the command ran, the edit could still apply:
		// it has no preview only if it could not be made then.
		if p.questions[1].Preview == "" {
			t.Errorf("the edit's question has no preview; the file was as read when it was asked")
		}
		o := s.observationOf(t, "int_1")
		if o.OK || o.Phase != contract.PhaseExecution || !strings.Contains(o.Text, "changed on disk since you last read it") {
			t.Errorf("observation = %+v; want the refusal at execution", o)
		}
		if got := content(t, dir, "calc.go"); got != "package calc\n" {
			t.Errorf("calc.go = %q; want the command's content, not edited", got)
		}
	})
}
