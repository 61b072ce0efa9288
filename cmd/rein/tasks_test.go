package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

// A briefServer is an OpenAI-compatible Chat server on 127.0.0.1 that
// answers each conversation by its brief: the first user message names
// the script (the first script whose key it starts with), and the number
// of the model's messages so far is the step. So a parent and its
// children, which share the server, each get their own script.
type briefServer struct {
	*localServer
	scripts map[string][]step
	mu      sync.Mutex
	// requests are the bodies of the chat requests, in order.
	requests []chatRequest
	// gate, when set, holds the first request of each brief in gated
	// until all of them have come (or 20 s passed): it shows they run
	// at once, with no clock in the test.
	gated    []string
	arrived  map[string]bool
	released chan struct{}
	together bool
	// holdKey and holdAt, when set, hold the request of that brief at
	// that step until the client goes away (is killed), once; held is
	// closed when it came.
	holdKey  string
	holdAt   int
	held     chan struct{}
	heldOnce sync.Once
	// failing is how many of the next requests of a brief fail with a
	// 503, by brief.
	failing map[string]int
	// usage, when set, ends every answer with the usage of 1,000 input
	// tokens.
	usage bool
}

// step is one answer: text, then tool calls.
type step struct {
	text  string
	calls []call
}

type call struct {
	name string
	args any
}

// chatRequest is what the test reads of a request.
type chatRequest struct {
	Messages []struct {
		Role      string `json:"role"`
		Content   any    `json:"content"`
		ToolCalls []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	// raw is the whole body.
	raw string
}

// brief is the first user message of r.
func (r *chatRequest) brief() string {
	for _, m := range r.Messages {
		if m.Role != "user" {
			continue
		}
		switch c := m.Content.(type) {
		case string:
			return c
		case []any: // content parts
			for _, p := range c {
				if part, ok := p.(map[string]any); ok {
					if s, ok := part["text"].(string); ok {
						return s
					}
				}
			}
		}
		return ""
	}
	return ""
}

// text is everything r holds, as one string.
func (r *chatRequest) text() string {
	b, _ := json.Marshal(r.Messages)
	return string(b)
}

func (r *chatRequest) tools() []string {
	var names []string
	for _, t := range r.Tools {
		names = append(names, t.Function.Name)
	}
	return names
}

func newBriefServer(t testing.TB, scripts map[string][]step, gated ...string) *briefServer {
	t.Helper()
	s := &briefServer{scripts: scripts, gated: gated, arrived: map[string]bool{}, released: make(chan struct{})}
	s.localServer = newLocalServer(t, []string{"m"}, s.chat)
	return s
}

func (s *briefServer) chat(w http.ResponseWriter, r *http.Request, _ string) {
	body, _ := io.ReadAll(r.Body)
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		panic(fmt.Sprintf("%v: %s", err, body))
	}
	req.raw = string(body)
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	brief := req.brief()
	key := ""
	for k := range s.scripts {
		if strings.HasPrefix(brief, k) && len(k) > len(key) {
			key = k
		}
	}
	script := s.scripts[key]
	n := 0
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	if n == 0 && slices.Contains(s.gated, key) {
		s.wait(key)
	}
	s.mu.Lock()
	fail := s.failing[key] > 0
	if fail {
		s.failing[key]--
	}
	hold := s.held != nil && key == s.holdKey && n == s.holdAt
	held, usage := s.held, s.usage
	s.mu.Unlock()
	if fail {
		w.Header().Set("Retry-After", "0")
		http.Error(w, `{"error":{"message":"overloaded","type":"server_error"}}`, http.StatusServiceUnavailable)
		return
	}
	if hold {
		holding := false
		s.heldOnce.Do(func() { holding = true })
		if holding {
			close(held)
			<-r.Context().Done()
			return
		}
	}
	st := step{text: "I have nothing more to do."}
	if n < len(script) {
		st = script[n]
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "model": "m",
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	if st.text != "" {
		chunk(map[string]any{"role": "assistant", "content": st.text}, nil)
	}
	for i, c := range st.calls {
		args, _ := json.Marshal(c.args)
		chunk(map[string]any{"tool_calls": []map[string]any{{"index": i, "id": fmt.Sprintf("call_%d_%d", n, i), "type": "function",
			"function": map[string]any{"name": c.name, "arguments": string(args)}}}}, nil)
	}
	finish := "stop"
	if len(st.calls) > 0 {
		finish = "tool_calls"
	}
	chunk(map[string]any{}, finish)
	if usage {
		fmt.Fprint(w, `data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":1000,"completion_tokens":0,"total_tokens":1000}}`+"\n\n")
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// hold makes the server hold the request of brief key at step at until
// its client goes away, once; the channel is closed when it came.
func (s *briefServer) hold(key string, at int) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holdKey, s.holdAt, s.held = key, at, make(chan struct{})
	return s.held
}

// fail makes the next n requests of brief key fail with a 503.
func (s *briefServer) fail(key string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failing == nil {
		s.failing = map[string]int{}
	}
	s.failing[key] = n
}

// withUsage makes every answer end with its usage.
func (s *briefServer) withUsage() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.usage = true
}

// wait holds the first request of a gated brief until every gated brief
// has sent its own.
func (s *briefServer) wait(key string) {
	s.mu.Lock()
	s.arrived[key] = true
	if len(s.arrived) == len(s.gated) && !s.together {
		s.together = true
		close(s.released)
	}
	s.mu.Unlock()
	select {
	case <-s.released:
	case <-time.After(20 * time.Second):
	}
}

// all returns the requests so far.
func (s *briefServer) all() []chatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// byBrief returns the requests of the conversation whose brief starts
// with key.
func (s *briefServer) byBrief(key string) []chatRequest {
	var out []chatRequest
	for _, r := range s.all() {
		if strings.HasPrefix(r.brief(), key) {
			out = append(out, r)
		}
	}
	return out
}

// taskArgs is a task call's input.
func taskArgs(agent, description, prompt string) call {
	return call{name: "task", args: map[string]string{"agent": agent, "description": description, "prompt": prompt}}
}

// runTasks runs rein exec --json against srv in dir, with more flags.
func runTasks(t *testing.T, dir string, env []string, srv *briefServer, prompt string, flags ...string) (result, []contract.Envelope) {
	t.Helper()
	args := append([]string{"exec", "--json", "--provider", "openai", "--base-url", srv.URL + "/v1", "--model", "m"}, flags...)
	r := reinIn(t, dir, env, append(args, prompt)...)
	return r, decode(t, r.stdout)
}

// childLogs returns the logs of the children of the one session under
// state's sessions directory, by child id.
func childLogs(t *testing.T, env []string) map[string][]contract.Envelope {
	t.Helper()
	var state string
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "XDG_STATE_HOME="); ok {
			state = v
		}
	}
	logs, err := filepath.Glob(filepath.Join(state, "rein", "sessions", "*", "tasks", "*", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]contract.Envelope{}
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(filepath.Dir(l))] = decodeLog(t, b)
	}
	return out
}

// Three explore children of one turn run at once (the server holds each
// one's first request until all three have come), each in a session of
// its own that names its parent; the parent's next request holds their
// answers and none of their tool outputs; a child is offered no task
// tool, nor any tool that writes.
func TestTasksRunInParallel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "auth.go"), []byte("package auth\n\nfunc Login() {} // SECRET-OUTPUT-MARK\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	child := func(answer string) []step {
		return []step{{calls: []call{{name: "read_file", args: map[string]string{"path": "auth.go"}}}}, {text: answer}}
	}
	srv := newBriefServer(t, map[string][]step{
		"survey": {
			{text: "I will ask three explorers.", calls: []call{
				taskArgs("explore", "find login", "brief A: find Login"),
				taskArgs("explore", "find logout", "brief B: find Logout"),
				taskArgs("explore", "find session", "brief C: find Session"),
			}},
			{text: "All three reported."},
		},
		"brief A": child("Login is at auth.go:3."),
		"brief B": child("There is no Logout."),
		"brief C": child("There is no Session type."),
	}, "brief A", "brief B", "brief C")
	env := chatEnv(t, "")
	r, events := runTasks(t, dir, env, srv, "survey the auth code")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if testing.Verbose() {
		t.Log(r.stdout, r.stderr)
	}
	srv.mu.Lock()
	together := srv.together
	srv.mu.Unlock()
	if !together {
		t.Error("the three children did not run at once: their first requests never were all in flight")
	}
	var finished []*contract.TaskFinished
	var starts []*contract.TaskStarted
	for _, e := range events {
		switch d := e.Data.(type) {
		case *contract.TaskFinished:
			finished = append(finished, d)
		case *contract.TaskStarted:
			starts = append(starts, d)
		}
	}
	if len(starts) != 3 || len(finished) != 3 {
		t.Fatalf("%d task.started and %d task.finished, want 3 each", len(starts), len(finished))
	}
	for _, f := range finished {
		if f.Outcome != contract.TaskCompleted || f.Turns != 2 || f.ToolCalls != 1 || len(f.FilesRead) != 1 || f.Usage == nil {
			t.Errorf("task.finished %+v, want completed in 2 turns with 1 call reading 1 file", f)
		}
	}
	logs := childLogs(t, env)
	if len(logs) != 3 {
		t.Fatalf("%d child logs, want 3", len(logs))
	}
	for id, log := range logs {
		s, ok := log[0].Data.(*contract.SessionStarted)
		if !ok || s.Parent == nil || s.Parent.Agent != "explore" || s.Parent.Depth != 1 || s.Parent.Seq == 0 || s.Parent.IntentID == "" {
			t.Errorf("child %s starts with %+v, want a session.started naming its parent", id, log[0].Data)
		}
	}
	for _, brief := range []string{"brief A", "brief B", "brief C"} {
		for _, req := range srv.byBrief(brief) {
			tools := req.tools()
			if slices.Contains(tools, "task") || slices.Contains(tools, "write_file") || slices.Contains(tools, "edit_file") {
				t.Errorf("%s's child was offered %v", brief, tools)
			}
			if strings.Contains(req.text(), "survey the auth code") {
				t.Errorf("%s's child saw the parent's conversation", brief)
			}
		}
	}
	parent := srv.byBrief("survey")
	if len(parent) != 2 {
		t.Fatalf("the parent made %d requests, want 2", len(parent))
	}
	last := parent[1].text()
	for _, answer := range []string{"Login is at auth.go:3.", "There is no Logout.", "There is no Session type."} {
		if !strings.Contains(last, answer) {
			t.Errorf("the parent's next request does not hold the answer %q:\n%s", answer, last)
		}
	}
	if strings.Contains(last, "SECRET-OUTPUT-MARK") {
		t.Errorf("the parent's next request holds a child's tool output:\n%s", last)
	}
}

// signalled runs rein exec --json with args in dir against srv until held
// is closed (the request the test waits for came), then sends it sig and
// returns what it printed.
func signalled(t *testing.T, dir string, env []string, held chan struct{}, sig syscall.Signal, args ...string) string {
	t.Helper()
	cmd := exec.Command(rein, append([]string{"exec", "--json"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(cleanEnv(), "NO_COLOR=1"), env...)
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-held:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the request the test waits for never came")
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	return out.String()
}

// events returns the envelopes of the given types from envs.
func ofType[T any](envs []contract.Envelope) []T {
	var out []T
	for _, e := range envs {
		if d, ok := e.Data.(T); ok {
			out = append(out, d)
		}
	}
	return out
}

// A child runs under its ceiling: an explore child's edit, command that
// writes and write_file are refused and change nothing; a plan-mode
// parent's general child cannot write either; a child that goes on past
// its turns stops at its agent's limit, and its parent's observation
// says so, as a failed call.
func TestTaskCeiling(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(target, []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := newBriefServer(t, map[string][]step{
		"look": {{calls: []call{taskArgs("explore", "try to write", "explore brief: change notes")}}, {text: "done"}},
		"explore brief": {
			{calls: []call{{name: "read_file", args: map[string]string{"path": "notes.txt"}}}},
			{calls: []call{
				{name: "write_file", args: map[string]string{"path": "notes.txt", "content": "changed"}},
				{name: "bash", args: map[string]string{"command": "echo changed > notes.txt"}},
				{name: "bash", args: map[string]string{"command": "rm notes.txt"}},
			}},
			{text: "I could not change it."},
		},
		"plan": {{calls: []call{taskArgs("general", "write in plan", "general brief: change notes")}}, {text: "done"}},
		"general brief": {
			{calls: []call{{name: "read_file", args: map[string]string{"path": "notes.txt"}}}},
			{calls: []call{{name: "edit_file", args: map[string]string{"path": "notes.txt", "old_string": "original", "new_string": "changed"}}}},
			{text: "I could not change it."},
		},
	})
	for _, tc := range []struct{ prompt, mode string }{{"look", "yolo"}, {"plan", "plan"}} {
		env := chatEnv(t, "")
		r, events := runTasks(t, dir, env, srv, tc.prompt, "--permission-mode", tc.mode)
		if r.code != 0 {
			t.Fatalf("%s: exit %d:\n%s", tc.prompt, r.code, r.stderr)
		}
		if b, _ := os.ReadFile(target); string(b) != "original\n" {
			t.Fatalf("%s: a child changed notes.txt to %q", tc.prompt, b)
		}
		fins := ofType[*contract.TaskFinished](events)
		if len(fins) != 1 || fins[0].Outcome != contract.TaskCompleted || len(fins[0].FilesChanged) != 0 {
			t.Errorf("%s: task.finished %+v", tc.prompt, fins)
		}
		for _, log := range childLogs(t, env) {
			for _, p := range ofType[*contract.ToolPermission](log) {
				if p.Decision == contract.Allow && p.By != "mode" {
					t.Errorf("%s: a child's call was allowed by %s", tc.prompt, p.By)
				}
			}
			for _, o := range ofType[*contract.ToolObservation](log) {
				if o.ToolName != "read_file" && o.OK {
					t.Errorf("%s: the child's %s succeeded: %s", tc.prompt, o.ToolName, o.Text)
				}
			}
		}
	}
}

// A child that never stops calling tools stops at its agent's turn
// limit (25), and the parent is told it did not complete, what it did,
// and as a failed call.
func TestTaskMaxTurns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	forever := make([]step, 40)
	for i := range forever {
		forever[i] = step{text: fmt.Sprintf("still looking %d", i), calls: []call{{name: "list_dir", args: map[string]string{"path": "."}}}}
	}
	srv := newBriefServer(t, map[string][]step{
		"go":         {{calls: []call{taskArgs("explore", "loop", "loop brief")}}, {text: "it stopped"}},
		"loop brief": forever,
	})
	env := chatEnv(t, "")
	r, events := runTasks(t, dir, env, srv, "go")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	fins := ofType[*contract.TaskFinished](events)
	if len(fins) != 1 || fins[0].Outcome != contract.TaskMaxTurns || fins[0].Turns != 25 {
		t.Fatalf("task.finished %+v, want max_turns after 25 turns", fins)
	}
	if n := len(srv.byBrief("loop brief")); n != 25 {
		t.Errorf("the child asked the model %d times, want 25", n)
	}
	var obs *contract.ToolObservation
	for _, o := range ofType[*contract.ToolObservation](events) {
		if o.ToolName == "task" {
			obs = o
		}
	}
	if obs == nil || obs.OK || !strings.Contains(obs.Text, "max_turns") || !strings.Contains(obs.Text, "25 turns") || !strings.Contains(obs.Text, "still looking 24") {
		t.Errorf("the task's observation does not say it stopped at its limit, and what it did: %+v", obs)
	}
}

// kill -9 while a child runs, then rein resume: the child's run goes on
// where it stopped (its command, which ran, does not run again), the
// parent gets its answer, and a child that had finished is not run again.
func TestTaskResumesAfterKill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := newBriefServer(t, map[string][]step{
		"work": {{calls: []call{
			taskArgs("explore", "quick look", "done brief: look"),
			taskArgs("general", "count", "count brief: append a line"),
		}}, {text: "both reported"}},
		"done brief":  {{text: "nothing to see"}},
		"count brief": {{calls: []call{{name: "bash", args: map[string]string{"command": "echo ran >> counter.txt"}}}}, {text: "appended once"}},
	})
	held := srv.hold("count brief", 1)
	env := chatEnv(t, "")
	signalled(t, dir, env, held, syscall.SIGKILL, "--provider", "openai", "--base-url", srv.URL+"/v1", "--model", "m", "--permission-mode", "accept-edits", "work")
	if b, _ := os.ReadFile(filepath.Join(dir, "counter.txt")); string(b) != "ran\n" {
		for id, log := range childLogs(t, env) {
			for _, o := range ofType[*contract.ToolObservation](log) {
				t.Logf("%s: %s %s", id, o.ToolName, o.Text)
			}
		}
		t.Fatalf("before the resume counter.txt holds %q", b)
	}
	before := len(srv.byBrief("done brief"))

	r := reinIn(t, dir, env, "resume", "--last", "--json", "--provider", "openai", "--base-url", srv.URL+"/v1", "--model", "m", "--permission-mode", "accept-edits")
	if r.code != 0 {
		t.Fatalf("resume: exit %d:\n%s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "counter.txt")); string(b) != "ran\n" {
		t.Errorf("after the resume counter.txt holds %q: the child's command ran again", b)
	}
	if n := len(srv.byBrief("done brief")); n != before {
		t.Errorf("the finished child asked the model again (%d requests, %d before)", n, before)
	}
	events := decode(t, r.stdout)
	fins := ofType[*contract.TaskFinished](events)
	if len(fins) != 1 || fins[0].Outcome != contract.TaskCompleted || fins[0].Agent != "general" {
		t.Fatalf("after resume task.finished %+v, want the general child completed", fins)
	}
	parent := srv.byBrief("work")
	last := parent[len(parent)-1].text()
	if !strings.Contains(last, "appended once") || !strings.Contains(last, "nothing to see") {
		t.Errorf("the parent's request after the resume does not hold both answers:\n%s", last)
	}
	runs := ofType[*contract.RunFinished](events)
	if len(runs) == 0 || runs[len(runs)-1].Outcome != contract.OutcomeCompleted {
		t.Errorf("the resumed run did not complete: %+v", runs)
	}
}

// Red team: a child that calls task anyway (its model was never offered
// it) starts no grandchild: the call is refused as a tool it does not
// have, and only the one child session exists.
func TestTaskChildCannotDelegate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := newBriefServer(t, map[string][]step{
		"spawn": {{calls: []call{taskArgs("general", "try nesting", "nest brief")}}, {text: "done"}},
		"nest brief": {
			{calls: []call{taskArgs("general", "grandchild", "grandchild brief")}},
			{text: "I could not delegate."},
		},
		"grandchild brief": {{text: "a grandchild ran"}},
	})
	env := chatEnv(t, "")
	r, _ := runTasks(t, dir, env, srv, "spawn", "--permission-mode", "yolo")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if n := len(srv.byBrief("grandchild brief")); n != 0 {
		t.Errorf("a grandchild asked the model %d times", n)
	}
	logs := childLogs(t, env)
	if len(logs) != 1 {
		t.Fatalf("%d child sessions, want 1", len(logs))
	}
	for _, log := range logs {
		vals := ofType[*contract.ToolValidation](log)
		if len(vals) != 1 || vals[0].OK || vals[0].Code != contract.CodeUnknownTool {
			t.Errorf("the child's task call was not refused as an unknown tool: %+v", vals)
		}
	}
}

// BenchmarkEightChildren runs a session whose one turn starts 8 explore
// children at once (max_parallel_agents = 8), each reading a file and
// answering, and reports rein's peak memory (maxrss-KB) beside a session
// with no child (maxrss-KB-alone).
func BenchmarkEightChildren(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	scripts := map[string][]step{"alone": {{text: "nothing to delegate"}}}
	var calls []call
	for i := range 8 {
		brief := fmt.Sprintf("brief %d", i)
		calls = append(calls, taskArgs("explore", "look", brief))
		scripts[brief] = []step{{calls: []call{{name: "read_file", args: map[string]string{"path": "a.go"}}}}, {text: "a.go is a package"}}
	}
	scripts["fan out"] = []step{{calls: calls}, {text: "all done"}}
	srv := newBriefServer(b, scripts)
	peak := func(prompt string) int64 {
		env := chatEnv(b, "max_parallel_agents = 8\n")
		cmd := exec.Command(rein, "exec", "--provider", "openai", "--base-url", srv.URL+"/v1", "--model", "m", prompt)
		cmd.Dir = dir
		cmd.Env = append(append(cleanEnv(), "NO_COLOR=1"), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		if want := map[string]string{"alone": "nothing to delegate", "fan out": "all done"}[prompt]; !strings.Contains(string(out), want) {
			b.Fatalf("%s: %s", prompt, out)
		}
		return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	}
	var with, alone int64
	for b.Loop() {
		with += peak("fan out")
		alone += peak("alone")
	}
	b.ReportMetric(float64(with)/float64(b.N), "maxrss-KB")
	b.ReportMetric(float64(alone)/float64(b.N), "maxrss-KB-alone")
}

// Ctrl-C while two children run stops both: each child's run is recorded
// cancelled in its own log, each task ends cancelled in the parent's, and
// the parent's run is cancelled.
func TestTasksStopWithTheRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := newBriefServer(t, map[string][]step{
		"two":          {{calls: []call{taskArgs("explore", "first", "first brief"), taskArgs("explore", "second", "second brief")}}, {text: "done"}},
		"first brief":  {{calls: []call{{name: "list_dir", args: map[string]string{"path": "."}}}}, {text: "first done"}},
		"second brief": {{text: "second done"}},
	}, "first brief", "second brief")
	held := srv.hold("first brief", 1)
	env := chatEnv(t, "")
	out := signalled(t, dir, env, held, syscall.SIGINT, "--provider", "openai", "--base-url", srv.URL+"/v1", "--model", "m", "two")
	events := decode(t, out)
	fins := ofType[*contract.TaskFinished](events)
	var outcomes []string
	for _, f := range fins {
		outcomes = append(outcomes, f.Agent+":"+f.Outcome)
	}
	slices.Sort(outcomes)
	// The second child had answered before the first was stopped.
	if !slices.Equal(outcomes, []string{"explore:cancelled", "explore:completed"}) {
		t.Errorf("tasks ended %v, want one cancelled and the one that had answered completed", outcomes)
	}
	runs := ofType[*contract.RunFinished](events)
	if len(runs) != 1 || runs[0].Outcome != contract.OutcomeCancelled {
		t.Errorf("the parent's run ended %+v, want cancelled", runs)
	}
	cancelled := 0
	for _, log := range childLogs(t, env) {
		for _, f := range ofType[*contract.RunFinished](log) {
			if f.Outcome == contract.OutcomeCancelled {
				cancelled++
			}
		}
	}
	if cancelled != 1 {
		t.Errorf("%d child runs recorded cancelled, want 1", cancelled)
	}
}

// A provider failure in a child is retried as the parent's would be: the
// child's log records the error and the retry, and the task completes.
func TestTaskRetriesLikeItsParent(t *testing.T) {
	t.Parallel()
	srv := newBriefServer(t, map[string][]step{
		"ask":         {{calls: []call{taskArgs("explore", "flaky", "flaky brief")}}, {text: "done"}},
		"flaky brief": {{text: "answered after a retry"}},
	})
	srv.fail("flaky brief", 1)
	env := chatEnv(t, "")
	r, events := runTasks(t, t.TempDir(), env, srv, "ask")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	fins := ofType[*contract.TaskFinished](events)
	if len(fins) != 1 || fins[0].Outcome != contract.TaskCompleted {
		t.Fatalf("task.finished %+v", fins)
	}
	for _, log := range childLogs(t, env) {
		if len(ofType[*contract.ProviderError](log)) != 1 || len(ofType[*contract.RetryScheduled](log)) != 1 {
			t.Errorf("the child's log does not hold one provider error and one retry")
		}
	}
}

// An agent file of Claude Code's, from the project's .claude/agents,
// unchanged: its child gets the file's body as its prompt and exactly
// its mapped tools. Red team: a project's agent asking for
// bypassPermissions runs in its parent's mode, not yolo, so its rm is
// refused (headless, as the parent's would be).
func TestTaskAgentFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	reviewer, err := os.ReadFile(filepath.Join("..", "..", "internal", "agent", "testdata", "code-reviewer.md"))
	if err != nil {
		t.Fatal(err)
	}
	agents := filepath.Join(dir, ".claude", "agents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"code-reviewer.md": string(reviewer),
		"wrecker.md": "---\nname: wrecker\ndescription: cleans up\ntools: Bash, Write\npermissionMode: bypassPermissions\n---\n" +
			"Delete what the brief says.\n",
	} {
		if err := os.WriteFile(filepath.Join(agents, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := newBriefServer(t, map[string][]step{
		"review": {{calls: []call{taskArgs("code-reviewer", "review", "review brief")}}, {text: "reviewed"}},
		"review brief": {
			{calls: []call{{name: "edit_file", args: map[string]string{"path": "notes.txt", "old_string": "keep", "new_string": "gone"}}}},
			{text: "The code looks fine."},
		},
		"wreck":       {{calls: []call{taskArgs("wrecker", "wreck", "wreck brief")}}, {text: "wrecked?"}},
		"wreck brief": {{calls: []call{{name: "bash", args: map[string]string{"command": "rm notes.txt"}}}}, {text: "I tried."}},
	})
	env := chatEnv(t, "")
	r, _ := runTasks(t, dir, env, srv, "review", "--trust-project")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	reqs := srv.byBrief("review brief")
	if len(reqs) == 0 {
		t.Fatal("the reviewer never asked the model")
	}
	body := "You are a senior code reviewer ensuring high standards of code quality and security."
	if !strings.Contains(reqs[0].text(), body) {
		t.Errorf("the reviewer's request does not hold its file's body:\n%s", reqs[0].text())
	}
	if got, want := reqs[0].tools(), []string{"read_file", "glob", "grep", "bash"}; !slices.Equal(got, want) {
		t.Errorf("the reviewer was offered %v, want exactly %v", got, want)
	}

	r, events := runTasks(t, dir, env, srv, "wreck", "--trust-project")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("the bypassPermissions agent removed notes.txt: %v", err)
	}
	if fins := ofType[*contract.TaskFinished](events); len(fins) != 1 || len(fins[0].FilesChanged) != 0 {
		t.Errorf("task.finished %+v", fins)
	}
}

// What a child did is found where a person looks: rein replay shows its
// command under its task, rein why finds its edit and names the task,
// and rein sessions lists it under its parent, not at the top.
func TestTaskReadBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("old line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := newBriefServer(t, map[string][]step{
		"fix": {{calls: []call{taskArgs("general", "fix the notes", "fix brief")}}, {text: "fixed"}},
		"fix brief": {
			{calls: []call{{name: "bash", args: map[string]string{"command": "wc -l notes.txt"}}, {name: "read_file", args: map[string]string{"path": "notes.txt"}}}},
			{calls: []call{{name: "edit_file", args: map[string]string{"path": "notes.txt", "old_string": "old line", "new_string": "new line"}}}},
			{text: "I changed notes.txt."},
		},
	})
	env := chatEnv(t, "")
	r, events := runTasks(t, dir, env, srv, "fix", "--permission-mode", "accept-edits")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "new line\n" {
		t.Fatalf("notes.txt holds %q", b)
	}
	// A background job belongs to the session that starts it: a child is
	// offered none of the job tools its parent has.
	if tools := srv.byBrief("fix brief")[0].tools(); slices.Contains(tools, "job_output") || slices.Contains(tools, "job_kill") ||
		!slices.Contains(srv.byBrief("fix")[0].tools(), "job_output") {
		t.Errorf("the child was offered %v", tools)
	}
	if strings.Contains(srv.byBrief("fix brief")[0].raw, "run_in_background") {
		t.Error("the child's bash takes run_in_background")
	}
	parent := events[0].Session
	var child string
	for _, s := range ofType[*contract.TaskStarted](events) {
		child = s.Child
	}
	replay := reinIn(t, dir, env, "replay", parent)
	for _, want := range []string{"task general", "wc -l notes.txt", "I changed notes.txt."} {
		if replay.code != 0 || !strings.Contains(replay.stdout, want) {
			t.Errorf("rein replay lacks %q (exit %d):\n%s%s", want, replay.code, replay.stdout, replay.stderr)
		}
	}
	why := reinIn(t, dir, env, "why", "notes.txt")
	if why.code != 0 || !strings.Contains(why.stdout, "edit_file") || !strings.Contains(why.stdout, `the task "fix the notes" (agent general)`) {
		t.Errorf("rein why does not find the child's edit (exit %d):\n%s%s", why.code, why.stdout, why.stderr)
	}
	list := reinIn(t, dir, env, "sessions")
	rows := strings.Split(strings.TrimSpace(list.stdout), "\n")
	top := 0
	for _, row := range rows {
		if strings.HasPrefix(row, "ses_") {
			top++
		}
	}
	if list.code != 0 || top != 1 || !strings.Contains(list.stdout, child) {
		t.Errorf("rein sessions does not list the child under its parent:\n%s%s", list.stdout, list.stderr)
	}
}

// A fork of a session killed while its child ran holds the task call but
// not the child: resuming the fork does not begin the child again (its
// command ran once and stays so), the task fails saying why, and the
// session it was forked from still resumes its own child.
func TestTaskForkDoesNotRerunTheChild(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := newBriefServer(t, map[string][]step{
		"work":        {{calls: []call{taskArgs("general", "count", "count brief: append a line")}}, {text: "reported"}},
		"count brief": {{calls: []call{{name: "bash", args: map[string]string{"command": "echo ran >> counter.txt"}}}}, {text: "appended once"}},
	})
	held := srv.hold("count brief", 1)
	env := chatEnv(t, "")
	flags := []string{"--provider", "openai", "--base-url", srv.URL + "/v1", "--model", "m", "--permission-mode", "accept-edits"}
	out := signalled(t, dir, env, held, syscall.SIGKILL, append(flags, "work")...)
	parent := decode(t, out)[0].Session
	f := reinIn(t, dir, env, "fork", parent, "--json")
	var forked struct {
		Session string `json:"session"`
	}
	_ = json.Unmarshal([]byte(f.stdout), &forked) // checked below
	fork := forked.Session
	if f.code != 0 || fork == "" || fork == parent {
		t.Fatalf("fork: exit %d, %q:\n%s", f.code, f.stdout, f.stderr)
	}
	r := reinIn(t, dir, env, append([]string{"resume", fork, "--json"}, flags...)...)
	if b, _ := os.ReadFile(filepath.Join(dir, "counter.txt")); string(b) != "ran\n" {
		t.Fatalf("after resuming the fork counter.txt holds %q: the child was begun again", b)
	}
	var obs *contract.ToolObservation
	for _, o := range ofType[*contract.ToolObservation](decode(t, r.stdout)) {
		if o.ToolName == "task" {
			obs = o
		}
	}
	if obs == nil || obs.OK || !strings.Contains(obs.Text, "does not begin it again") {
		t.Errorf("the fork's task: %+v\n%s", obs, r.stderr)
	}
	r = reinIn(t, dir, env, append([]string{"resume", parent, "--json"}, flags...)...)
	fins := ofType[*contract.TaskFinished](decode(t, r.stdout))
	if b, _ := os.ReadFile(filepath.Join(dir, "counter.txt")); string(b) != "ran\n" || len(fins) != 1 || fins[0].Outcome != contract.TaskCompleted {
		t.Errorf("resuming the original: counter.txt %q, task.finished %+v\n%s", b, fins, r.stderr)
	}
}

// kill -9 while a command of a turn runs, before the task proposed after
// it started: the resume does not start the task (the model decides
// again, as for any call that never ran).
func TestTaskNotStartedIsNotRunOnResume(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := newBriefServer(t, map[string][]step{
		"work": {{calls: []call{
			{name: "bash", args: map[string]string{"command": "touch started.txt; sleep 30; touch switched.txt"}},
			taskArgs("general", "after switch", "after brief: work on the switched tree"),
		}}, {text: "done"}},
		"after brief": {{text: "worked on it"}},
	})
	env := chatEnv(t, "")
	flags := []string{"--provider", "openai", "--base-url", srv.URL + "/v1", "--model", "m", "--permission-mode", "yolo"}
	cmd := exec.Command(rein, append(append([]string{"exec", "--json"}, flags...), "work")...)
	cmd.Dir = dir
	cmd.Env = append(append(cleanEnv(), "NO_COLOR=1"), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "started.txt")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	r := reinIn(t, dir, env, append([]string{"resume", "--last", "--json"}, flags...)...)
	if r.code != 0 {
		t.Fatalf("resume: exit %d:\n%s", r.code, r.stderr)
	}
	if n := len(srv.byBrief("after brief")); n != 0 {
		t.Errorf("the resume started the task the run never reached (%d requests)", n)
	}
	var codes []contract.Code
	for _, o := range ofType[*contract.ToolObservation](decode(t, r.stdout)) {
		codes = append(codes, o.Code)
	}
	if !slices.Contains(codes, contract.CodeNotExecuted) || !slices.Contains(codes, contract.CodeInterrupted) {
		t.Errorf("the resume's observations have codes %v, want the command interrupted and the task not executed", codes)
	}
}

// --max-cost bounds the tree: children running side by side stop once
// what they spent together reaches what their parent had left, and the
// parent asks the model nothing after its tools spent its budget.
func TestTasksShareTheBudget(t *testing.T) {
	t.Parallel()
	looping := make([]step, 6)
	for i := range looping {
		looping[i] = step{calls: []call{{name: "list_dir", args: map[string]string{"path": "."}}}}
	}
	srv := newBriefServer(t, map[string][]step{
		"spend": {{calls: []call{taskArgs("explore", "a", "loop a"), taskArgs("explore", "b", "loop b"), taskArgs("explore", "c", "loop c")}},
			{text: "after the children"}},
		"loop a": looping, "loop b": looping, "loop c": looping,
	})
	srv.withUsage()
	// Each call costs $1: 1,000 input tokens at $1,000 a million.
	env := chatEnv(t, "[models.\"m\"]\ncontext_window = 100000\ninput_price = 1000\noutput_price = 1000\n")
	r, events := runTasks(t, t.TempDir(), env, srv, "spend", "--max-cost", "2.5")
	runs := ofType[*contract.RunFinished](events)
	if len(runs) != 1 || runs[0].Outcome != contract.OutcomeBudget {
		t.Fatalf("the run ended %+v, want budget:\n%s", runs, r.stderr)
	}
	if n := len(srv.byBrief("spend")); n != 1 {
		t.Errorf("the parent asked the model %d times, want once: its children spent its budget", n)
	}
	// The parent's call ($1) left $1.50; three children may each be in
	// a call when the others' spending passes it: at most $1 + $1.50 +
	// $3. Each on its own budget of $1.50 they would spend $6.
	t.Logf("the tree spent $%.2f", runs[0].Usage.CostUSD)
	if cost := runs[0].Usage.CostUSD; cost > 5.5 {
		t.Errorf("the tree spent $%.2f, over what its budget allows", cost)
	}
	for _, f := range ofType[*contract.TaskFinished](events) {
		if f.Outcome != contract.TaskBudget {
			t.Errorf("task %s ended %s, want budget", f.Child, f.Outcome)
		}
	}
}

// With max_depth = 2 in the person's configuration, the built-in general
// agent's child may start children of its own, which live under its
// session and are offered no task tool.
func TestTaskMaxDepth(t *testing.T) {
	t.Parallel()
	srv := newBriefServer(t, map[string][]step{
		"deep":        {{calls: []call{taskArgs("general", "outer", "outer brief")}}, {text: "done"}},
		"outer brief": {{calls: []call{taskArgs("general", "inner", "inner brief")}}, {text: "outer done"}},
		"inner brief": {{calls: []call{taskArgs("general", "innermost", "innermost brief")}}, {text: "inner done"}},
	})
	env := chatEnv(t, "max_depth = 2\n")
	r, events := runTasks(t, t.TempDir(), env, srv, "deep")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if tools := srv.byBrief("outer brief")[0].tools(); !slices.Contains(tools, "task") {
		t.Errorf("the child was offered %v, want task among them", tools)
	}
	if reqs := srv.byBrief("inner brief"); len(reqs) == 0 || slices.Contains(reqs[0].tools(), "task") {
		t.Errorf("the grandchild ran %d times, offered task", len(reqs))
	}
	if n := len(srv.byBrief("innermost brief")); n != 0 {
		t.Errorf("a great-grandchild ran")
	}
	var state string
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "XDG_STATE_HOME="); ok {
			state = v
		}
	}
	logs, _ := filepath.Glob(filepath.Join(state, "rein", "sessions", events[0].Session, "tasks", "*", "tasks", "*", "events.jsonl"))
	if len(logs) != 1 {
		t.Errorf("grandchildren under the child: %v", logs)
	}
}

// In the line mode, /jobs lists a background job, and /clear, which ends
// the session's jobs with it, says so; nothing of the job is left.
func TestLineModeJobsEndWithClear(t *testing.T) {
	w := newRepoWorld(t)
	marker := "rein-line-job-" + filepath.Base(t.TempDir())
	script := writeScript(t, `{"turns":[{"steps":[{"tool":{"index":0,"id":"c0","name":"bash","input":{"command":"sleep 300 # `+marker+`","run_in_background":true}}},{"finish":"tool_use"}]},`+
		`{"steps":[{"text":"started"},{"finish":"stop"}]}]}`)
	r := reinFed(t, w.repo, w.env, "start it\n/jobs\n/clear\n/exit\n", "--provider", "scripted", "--script", script, "--permission-mode", "yolo")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"running", "sleep 300", "rein: ended the background jobs of the session left (1)"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if out, _ := exec.Command("pgrep", "-f", marker).Output(); len(out) > 0 {
		t.Errorf("the job is still running: %s", out)
	}
}
