package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool/builtin"
)

// changes collects a Manager's reports.
type changes chan Change

func (c changes) on(ch Change) { c <- ch }

// next waits for the next change of the manager.
func (c changes) next(t *testing.T) Change {
	t.Helper()
	select {
	case ch := <-c:
		return ch
	case <-time.After(30 * time.Second):
		t.Fatal("no change of the tools within 30s")
		return Change{}
	}
}

// start runs a manager of opts, closed at the end of the test.
func start(t *testing.T, opts *Options) (*Manager, changes) {
	t.Helper()
	ch := make(changes, 16)
	opts.OnChange = ch.on
	if opts.Backoff.Min == 0 {
		opts.Backoff = Backoff{Min: 10 * time.Millisecond, Max: 50 * time.Millisecond}
	}
	m := New(opts)
	m.Start(context.Background())
	t.Cleanup(func() { m.Close() })
	return m, ch
}

// inMemory connects every server to a fresh testServer in this process.
func inMemory(srv func() *sdk.Server) func(context.Context, Server) (sdk.Transport, error) {
	return func(ctx context.Context, _ Server) (sdk.Transport, error) {
		ct, st := sdk.NewInMemoryTransports()
		if _, err := srv().Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
}

// find returns the tool called name of c.
func find(t *testing.T, c Change, name string) registry.Tool {
	t.Helper()
	for _, tool := range c.Tools {
		if tool.Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %s in %s", name, names(c))
	return registry.Tool{}
}

func names(c Change) []string {
	var out []string
	for _, t := range c.Tools {
		out = append(out, t.Name)
	}
	return out
}

// run calls tool with input and returns its output and error.
func run(t *testing.T, tool registry.Tool, input string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	_, err := tool.Execute(context.Background(), &registry.Call{IntentID: "i1", InvocationID: "inv1", Input: json.RawMessage(input), Output: &out})
	return out.String(), err
}

func TestInMemoryServer(t *testing.T) {
	art := t.TempDir()
	m, ch := start(t, &Options{Servers: []Server{{Name: "test", Source: "config.toml:3"}}, Connect: inMemory(testServer), ArtifactDir: art})
	c := ch.next(t)
	if c.Server != "test" || c.Reason != "the server started" {
		t.Fatalf("first change = %s %q", c.Server, c.Reason)
	}
	want := []string{"mcp__test__big", "mcp__test__crash", "mcp__test__data", "mcp__test__echo", "mcp__test__env", "mcp__test__fail", "mcp__test__grow", "mcp__test__image"}
	if got := names(c); !slices.Equal(slices.Sorted(slices.Values(got)), want) {
		t.Fatalf("tools = %v, want %v", got, want)
	}
	echo := find(t, c, "mcp__test__echo")
	if echo.Source != "mcp:test" || !echo.ReadOnly || echo.Risk != registry.RiskRead || echo.Concurrency != registry.Safe {
		t.Errorf("echo = source %q read-only %v risk %s %s", echo.Source, echo.ReadOnly, echo.Risk, echo.Concurrency)
	}
	if env := find(t, c, "mcp__test__env"); env.ReadOnly || env.Risk != registry.RiskNetwork || env.Concurrency != registry.Exclusive {
		t.Errorf("env (no annotations) = read-only %v risk %s %s", env.ReadOnly, env.Risk, env.Concurrency)
	}
	if _, err := registry.New(c.Tools...); err != nil {
		t.Fatalf("the registry refuses the tools: %v", err)
	}
	st := m.Status()
	if len(st) != 1 || st[0].State != StateReady || len(st[0].Tools) != len(want) || st[0].Source != "config.toml:3" {
		t.Fatalf("status = %+v", st)
	}

	if out, err := run(t, echo, `{"text":"hi"}`); err != nil || out != "echo: hi" {
		t.Errorf("echo = %q, %v", out, err)
	}
	if out, err := run(t, find(t, c, "mcp__test__fail"), `{}`); !errors.Is(err, ErrToolFailed) || out != "the widget is broken" {
		t.Errorf("fail = %q, %v; want the text and ErrToolFailed", out, err)
	}
	out, err := run(t, find(t, c, "mcp__test__image"), `{}`)
	path := filepath.Join(art, "inv1-1.png")
	if err != nil || out != "a pixel:\n[image image/png, 70 B: "+path+"]" {
		t.Errorf("image = %q, %v", out, err)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, pngPixel) {
		t.Errorf("the image file: %v (%d bytes)", err, len(b))
	}
	if out, err := run(t, find(t, c, "mcp__test__data"), `{}`); err != nil || !strings.Contains(out, `"answer": 42`) {
		t.Errorf("data = %q, %v", out, err)
	}
	// The server checks the input against its own schema and says what
	// is wrong as a tool error.
	if out, err := run(t, echo, `{"text": 3}`); !errors.Is(err, ErrToolFailed) || !strings.Contains(out, "text") {
		t.Errorf("a bad input = %q, %v; want the server's complaint", out, err)
	}
}

func TestListChanged(t *testing.T) {
	srv := testServer()
	_, ch := start(t, &Options{Servers: []Server{{Name: "live"}}, Connect: inMemory(func() *sdk.Server { return srv })})
	if c := ch.next(t); len(c.Tools) != 8 {
		t.Fatalf("first change has %d tools", len(c.Tools))
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "later", Description: "a tool added later"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "here"}}}, nil, nil
		})
	c := ch.next(t)
	if c.Reason != "the server listed new tools" || len(c.Tools) != 9 {
		t.Fatalf("change = %q with %v", c.Reason, names(c))
	}
	if out, err := run(t, find(t, c, "mcp__live__later"), `{}`); err != nil || out != "here" {
		t.Errorf("later = %q, %v", out, err)
	}
}

// stdio is a server that is this test binary, run as serveStdio.
func stdio(name string, env map[string]string) Server {
	e := map[string]string{testServerEnv: "1"}
	for k, v := range env {
		e[k] = v
	}
	return Server{Name: name, Command: os.Args[0], Env: e}
}

func TestStdioServer(t *testing.T) {
	logs := t.TempDir()
	environ := append(os.Environ(), "GITHUB_TOKEN=ghp_secretsecret", "NAMED_TOKEN=xyz")
	s := stdio("local", map[string]string{"NAMED_TOKEN": "configured"})
	m, ch := start(t, &Options{Servers: []Server{s}, Environ: environ, Strip: builtin.ToolEnv, LogDir: logs, Dir: t.TempDir()})
	c := ch.next(t)
	if len(c.Tools) != 8 {
		t.Fatalf("change = %q with %v", c.Reason, names(c))
	}

	t.Run("environment", func(t *testing.T) {
		out, err := run(t, find(t, c, "mcp__local__env"), `{"names":["GITHUB_TOKEN","NAMED_TOKEN","PATH"]}`)
		if want := "GITHUB_TOKEN set=false\nNAMED_TOKEN set=true\nPATH set=true\n"; err != nil || out != want {
			t.Errorf("env = %q, %v; want %q", out, err, want)
		}
	})
	t.Run("15 MB", func(t *testing.T) {
		var n countingWriter
		_, err := find(t, c, "mcp__local__big").Execute(context.Background(), &registry.Call{InvocationID: "inv2", Input: json.RawMessage(`{"mb":15}`), Output: &n})
		if err != nil || n.bytes != 15<<20 || n.largest > piece {
			t.Errorf("big wrote %d bytes (at most %d at once), %v; want %d in pieces of at most %d", n.bytes, n.largest, err, 15<<20, piece)
		}
	})
	t.Run("crash", func(t *testing.T) {
		_, err := run(t, find(t, c, "mcp__local__crash"), `{}`)
		if err == nil || !strings.Contains(err.Error(), `the MCP server "local" stopped during the call`) {
			t.Fatalf("crash: %v", err)
		}
		gone := ch.next(t)
		if len(gone.Tools) != 0 || !strings.Contains(gone.Reason, "the server exited (exit status 3); rein tries again in") {
			t.Fatalf("after the crash: %q with %v", gone.Reason, names(gone))
		}
		back := ch.next(t)
		if back.Reason != "the server is back" || len(back.Tools) != 8 {
			t.Fatalf("after the reconnect: %q with %v", back.Reason, names(back))
		}
		if out, err := run(t, find(t, back, "mcp__local__echo"), `{"text":"again"}`); err != nil || out != "echo: again" {
			t.Errorf("echo after the reconnect = %q, %v", out, err)
		}
	})
	log, err := os.ReadFile(filepath.Join(logs, "mcp-local.log"))
	if err != nil || !strings.Contains(string(log), "rein-test: crashing as asked") || strings.Count(string(log), "rein-test: serving") != 2 {
		t.Errorf("the log file (%v):\n%s", err, log)
	}
	if st := m.Status(); st[0].Log != filepath.Join(logs, "mcp-local.log") || st[0].Transport != "stdio" {
		t.Errorf("status = %+v", st[0])
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if st := m.Status(); st[0].State != StateStopped {
		t.Errorf("after Close the state is %s", st[0].State)
	}
}

// countingWriter counts what is written to it, and the largest write,
// and keeps nothing.
type countingWriter struct{ bytes, largest int }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.bytes += len(p)
	c.largest = max(c.largest, len(p))
	return len(p), nil
}

func TestSlowAndFailingServers(t *testing.T) {
	slow := stdio("slow", map[string]string{"REIN_TEST_MCP_DELAY": "300ms"})
	stuck := stdio("stuck", map[string]string{"REIN_TEST_MCP_DELAY": "1h"})
	stuck.StartupTimeout = 200 * time.Millisecond
	missing := Server{Name: "missing", Command: filepath.Join(t.TempDir(), "no-such-program")}
	m, ch := start(t, &Options{Servers: []Server{slow, stuck, missing}, Environ: os.Environ(), Strip: builtin.ToolEnv,
		Backoff: Backoff{Min: time.Hour, Max: time.Hour}})
	for _, st := range m.Status() {
		if st.State != StateStarting {
			t.Errorf("%s is %s as Start returns, want starting", st.Name, st.State)
		}
	}
	seen := map[string]Change{}
	for range 3 {
		c := ch.next(t)
		seen[c.Server] = c
	}
	if c := seen["slow"]; len(c.Tools) != 8 {
		t.Errorf("slow: %q with %v", c.Reason, names(c))
	}
	if c := seen["stuck"]; len(c.Tools) != 0 || c.Reason != "the server did not start within 200ms; rein tries again in 1h0m0s" {
		t.Errorf("stuck: %q", c.Reason)
	}
	if c := seen["missing"]; len(c.Tools) != 0 || !strings.HasPrefix(c.Reason, "the server did not start: starting ") {
		t.Errorf("missing: %q", c.Reason)
	}
	if err := m.Settled(context.Background()); err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, st := range m.Status() {
		states[st.Name] = st.State
	}
	if want := map[string]string{"slow": StateReady, "stuck": StateFailed, "missing": StateFailed}; !mapsEqual(states, want) {
		t.Errorf("states = %v, want %v", states, want)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestStreamableHTTP(t *testing.T) {
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return testServer() }, nil)
	var bad []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Team") != "core" || r.Header.Get("Authorization") != "Bearer tok-123456" {
			bad = append(bad, r.Header.Get("X-Team")+" "+r.Header.Get("Authorization"))
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close) // after the manager's Close, which runs first
	s := Server{Name: "remote", URL: srv.URL, Headers: map[string]string{"X-Team": "core"}, BearerEnv: "REMOTE_TOKEN"}
	m, ch := start(t, &Options{Servers: []Server{s}, Environ: []string{"REMOTE_TOKEN=tok-123456"}})
	c := ch.next(t)
	if len(c.Tools) != 8 {
		t.Fatalf("change = %q with %v (refused: %v)", c.Reason, names(c), bad)
	}
	if out, err := run(t, find(t, c, "mcp__remote__echo"), `{"text":"over http"}`); err != nil || out != "echo: over http" {
		t.Errorf("echo = %q, %v", out, err)
	}
	if st := m.Status(); st[0].Transport != "http" || st[0].Log != "" {
		t.Errorf("status = %+v", st[0])
	}
	s.Env = map[string]string{"API_KEY": "key-abcdefgh", "ROOT": "/usr/local/bin", "PIN": "1"}
	s.Headers["Authorization"] = "Bearer hdr-token-xyz"
	got := s.Secrets(func(k string) string { return map[string]string{"REMOTE_TOKEN": "tok-123456"}[k] })
	slices.Sort(got)
	// Only what its name says is a credential, and long enough to cut
	// safely: not X-Team's "core", ROOT's path, nor PIN's "1".
	if want := []string{"Bearer hdr-token-xyz", "hdr-token-xyz", "key-abcdefgh", "tok-123456"}; !slices.Equal(got, want) {
		t.Errorf("secrets = %q, want %q", got, want)
	}
}

// A session's directory is made with its first event: what a server says
// before it exists is kept, and written once it does.
func TestLogBeforeItsDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "session")
	m, ch := start(t, &Options{Servers: []Server{stdio("early", nil)}, Environ: os.Environ(), Strip: builtin.ToolEnv, LogDir: dir})
	if c := ch.next(t); len(c.Tools) != 8 {
		t.Fatalf("change = %q", c.Reason)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("the manager made the session's directory")
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	m.Close()
	log, err := os.ReadFile(filepath.Join(dir, "mcp-early.log"))
	if err != nil || !strings.Contains(string(log), "--- rein starts early") || !strings.Contains(string(log), "rein-test: serving") {
		t.Errorf("the log (%v):\n%s", err, log)
	}
}

// The headers carry the server's credentials: a redirect to another
// origin gets none of them.
func TestHeadersStayWithTheServer(t *testing.T) {
	var seen []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Api-Key"))
	}))
	defer other.Close()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Api-Key"))
		http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+"/elsewhere", http.StatusTemporaryRedirect)
	}))
	defer origin.Close()
	m := New(&Options{Environ: []string{"T=secret-token"}})
	tr := m.httpTransport(Server{URL: origin.URL + "/mcp", Headers: map[string]string{"X-Api-Key": "k-123"}, BearerEnv: "T"}, newGuard(DefaultMaxMessage))
	client := tr.(*sdk.StreamableClientTransport).HTTPClient
	resp, err := client.Get(origin.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if want := []string{"Bearer secret-token|k-123", "|"}; !slices.Equal(seen, want) {
		t.Errorf("the headers each server saw: %q, want %q", seen, want)
	}
}

// A server's program that exits while something it left behind holds
// its output open still ends the session: its tools leave.
func TestExitWithOutputHeldOpen(t *testing.T) {
	s := Server{Name: "held", Command: "sh", Args: []string{"-c", `setsid sleep 5 & exec "$0"`, os.Args[0]}, Env: map[string]string{testServerEnv: "1"}}
	_, ch := start(t, &Options{Servers: []Server{s}, Environ: os.Environ(), Strip: builtin.ToolEnv, Backoff: Backoff{Min: time.Hour, Max: time.Hour}})
	c := ch.next(t)
	if len(c.Tools) != 8 {
		t.Fatalf("change = %q", c.Reason)
	}
	run(t, find(t, c, "mcp__held__crash"), `{}`)
	if gone := ch.next(t); len(gone.Tools) != 0 || !strings.Contains(gone.Reason, "exit status 3") {
		t.Errorf("after the crash: %q with %v", gone.Reason, names(gone))
	}
}

// A server's tool is refused at validation, before anyone is asked about
// it, while the server is not connected: its Check says so without
// calling it.
func TestCheckSaysTheServerIsNotConnected(t *testing.T) {
	m, ch := start(t, &Options{Servers: []Server{{Name: "test"}}, Connect: inMemory(testServer)})
	echo := find(t, ch.next(t), "mcp__test__echo")
	if err := echo.Check(json.RawMessage(`{"text":"hi"}`), state.Ledger{}); err != nil {
		t.Fatalf("Check while connected = %v", err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	err := echo.Check(json.RawMessage(`{"text":"hi"}`), state.Ledger{})
	ce, ok := errors.AsType[*registry.CheckError](err)
	if !ok || ce.Code != contract.CodePreconditionFailed || !strings.Contains(ce.Message, `the MCP server "test" is not connected now`) {
		t.Errorf("Check after Close = %v; want a precondition_failed saying the server is not connected", err)
	}
}
