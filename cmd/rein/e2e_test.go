package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
)

// chatTurn is one reply of the model server: text, then at most one tool
// call, or a final answer.
type chatTurn struct {
	// expect is text the request's last tool result must contain.
	expect []string
	text   string
	tool   string
	args   string
	// argsOf, when set, makes the call's arguments of the request's last
	// tool result (an id a tool returned), in place of args.
	argsOf func(last string) string
	// before, when set, runs before the turn is answered (to wait for
	// what a background job prints).
	before func()
}

// chatServer is an OpenAI Chat Completions server that plays turns: the
// turn is the number of assistant messages in the request, as a real
// conversation would have it. What it did not like goes to problems.
type chatServer struct {
	*httptest.Server
	mu       sync.Mutex
	turns    []chatTurn
	problems []string
	requests int
	system   string   // the system message of the first request
	auth     []string // the Authorization header of every request
}

func serveChat(t *testing.T, turns []chatTurn) *chatServer {
	s := &chatServer{turns: turns}
	s.Server = httptest.NewServer(servesWindow(http.HandlerFunc(s.serve)))
	t.Cleanup(s.Close)
	return s
}

func (s *chatServer) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	n, last := 0, ""
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			if s.requests == 1 {
				s.system = fmt.Sprint(m.Content)
			}
		case "assistant":
			n++
		case "tool":
			last = fmt.Sprint(m.Content)
		}
	}
	if n >= len(s.turns) {
		s.problems = append(s.problems, fmt.Sprintf("request for turn %d of %d", n+1, len(s.turns)))
		http.Error(w, `{"error":{"message":"no such turn"}}`, http.StatusBadRequest)
		return
	}
	t := s.turns[n]
	for _, e := range t.expect {
		if !strings.Contains(last, e) {
			s.problems = append(s.problems, fmt.Sprintf("turn %d: the last tool result lacks %q:\n%s", n+1, e, last))
		}
	}
	if t.before != nil {
		t.before()
	}
	if t.argsOf != nil {
		t.args = t.argsOf(last)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta string, finish string) {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		fmt.Fprintf(w, "data: {\"id\":\"c%d\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", n, delta, f)
	}
	text, _ := json.Marshal(t.text)
	chunk(`{"role":"assistant","content":`+string(text)+`}`, "")
	finish := "stop"
	if t.tool != "" {
		// The arguments in two fragments, as vendors stream them.
		half := len(t.args) / 2
		first, _ := json.Marshal(t.args[:half])
		second, _ := json.Marshal(t.args[half:])
		chunk(fmt.Sprintf(`{"tool_calls":[{"index":0,"id":"call_%d","type":"function","function":{"name":%q,"arguments":""}}]}`, n, t.tool), "")
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":`+string(first)+`}}]}`, "")
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":`+string(second)+`}}]}`, "")
		finish = "tool_calls"
	}
	chunk(`{}`, finish)
	fmt.Fprint(w, "data: {\"id\":\"u\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":20,\"total_tokens\":120}}\n\ndata: [DONE]\n\n")
}

// End to end: the binary, over HTTP through the openai adapter, fixes a
// failing Go test in a temporary repository. Afterwards go test passes
// there, and for every tool call the log holds proposed, validation,
// permission, invocation started, invocation completed and observation,
// in that order.
func TestEndToEndFixesAFailingTest(t *testing.T) {
	repo := t.TempDir()
	files := map[string]string{
		"go.mod":       "module calc\n\ngo 1.22\n",
		"calc.go":      "package calc\n\n// Add returns a plus b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n",
		"AGENTS.md":    "Keep the package free of dependencies.\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Errorf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := serveChat(t, []chatTurn{
		{text: "Running the tests.", tool: "bash", args: `{"command":"go test ./..."}`},
		{expect: []string{"Add(2, 3) = -1, want 5", "exit code: 1"}, text: "Reading Add.", tool: "read_file", args: `{"path":"calc.go"}`},
		{expect: []string{"return a - b"}, text: "Fixing the operator.", tool: "edit_file",
			args: `{"path":"calc.go","old_string":"return a - b","new_string":"return a + b"}`},
		{expect: []string{"+\treturn a + b"}, text: "Checking.", tool: "bash", args: `{"command":"go test ./..."}`},
		{expect: []string{"ok", "exit code: 0"}, text: "Fixed: Add subtracted instead of adding."},
	})
	stateDir := t.TempDir()
	cmd := exec.Command(rein, "exec", "--provider", "openai", "--model", "m", "--base-url", srv.URL+"/v1",
		"--permission-mode", "accept-edits", "--allow", "bash(go test:*)", "fix the failing test")
	cmd.Dir = repo
	cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+stateDir, "XDG_CONFIG_HOME="+t.TempDir(), "OPENAI_API_KEY=sk-e2e-test-key", "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rein exec: %v\n%s", err, out)
	}
	srv.mu.Lock()
	for _, p := range srv.problems {
		t.Error(p)
	}
	srv.mu.Unlock()
	for _, want := range []string{"You are rein", repoReal(t, repo), "Keep the package free of dependencies.", "Today's date"} {
		if !strings.Contains(srv.system, want) {
			t.Errorf("the system prompt lacks %q:\n%s", want, srv.system)
		}
	}
	if !strings.Contains(string(out), "Fixed: Add subtracted") {
		t.Errorf("output lacks the answer:\n%s", out)
	}

	test := exec.Command("go", "test", "./...")
	test.Dir = repo
	test.Env = append(cleanEnv(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := test.CombinedOutput(); err != nil {
		t.Errorf("go test in the repository after rein: %v\n%s", err, out)
	}

	logs, _ := filepath.Glob(filepath.Join(stateDir, "rein", "sessions", "*", "events.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("%d session logs", len(logs))
	}
	data, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	stages := map[string][]string{} // intent id -> event types
	var intents []string
	invocations := map[string]string{} // invocation id -> intent id
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var env contract.Envelope
		if err := json.Unmarshal([]byte(line), &env); err != nil {
			t.Fatal(err)
		}
		var intent string
		switch e := env.Data.(type) {
		case *contract.IntentProposed:
			intent = e.ID
			intents = append(intents, intent)
		case *contract.ToolValidation:
			intent = e.IntentID
		case *contract.ToolPermission:
			intent = e.IntentID
		case *contract.InvocationStarted:
			intent = e.IntentID
			invocations[e.InvocationID] = e.IntentID
		case *contract.InvocationCompleted:
			intent = invocations[e.InvocationID]
		case *contract.ToolObservation:
			intent = e.IntentID
		case *contract.RunFinished:
			if e.Outcome != contract.OutcomeCompleted {
				t.Errorf("run finished %s: %s", e.Outcome, e.Reason)
			}
		}
		if intent != "" {
			stages[intent] = append(stages[intent], env.Type())
		}
	}
	if len(intents) != 4 {
		t.Fatalf("%d intents in the log, want 4", len(intents))
	}
	want := []string{contract.TypeIntentProposed, contract.TypeToolValidation, contract.TypeToolPermission,
		contract.TypeInvocationStarted, contract.TypeInvocationCompleted, contract.TypeToolObservation}
	for i, id := range intents {
		if d := cmp.Diff(want, stages[id]); d != "" {
			t.Errorf("tool call %d: stages mismatch (-want +got):\n%s", i+1, d)
		}
	}
	if strings.Contains(string(data), "sk-e2e-test-key") {
		t.Error("the API key reached the session log")
	}
}

// repoReal is dir with its symbolic links resolved, as rein reports the
// workspace.
func repoReal(t *testing.T, dir string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}
