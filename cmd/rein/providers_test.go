package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// Streams in each API's wire format, answering with text and a tool call.
var apiStreams = map[string]string{
	"openai": `data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Mean divides "}}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"by len-1."}}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"bash","arguments":""}}]}}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"command\":"}}]}}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"go test ./...\"}"}}]}}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150}}

data: [DONE]

`,
	"responses": `event: response.created
data: {"type":"response.created","response":{"id":"resp_1","status":"in_progress","output":[]}}

event: response.output_item.added
data: {"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message","role":"assistant","content":[]}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Mean divides "}

event: response.output_text.delta
data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"by len-1."}

event: response.output_item.done
data: {"type":"response.output_item.done","output_index":0,"item":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"output_text","text":"Mean divides by len-1."}]}}

event: response.output_item.added
data: {"type":"response.output_item.added","output_index":1,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"bash","arguments":""}}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"{\"command\":"}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"\"go test ./...\"}"}

event: response.output_item.done
data: {"type":"response.output_item.done","output_index":1,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"bash","arguments":"{\"command\":\"go test ./...\"}"}}

event: response.completed
data: {"type":"response.completed","response":{"id":"resp_1","status":"completed","usage":{"input_tokens":120,"output_tokens":30,"total_tokens":150}}}

`,
	"anthropic": `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":120,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Mean divides "}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"by len-1."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"bash","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"command\":"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"go test ./...\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":30}}

event: message_stop
data: {"type":"message_stop"}

`,
	"gemini": "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Mean divides \"}]}}],\"usageMetadata\":{\"promptTokenCount\":120,\"candidatesTokenCount\":3}}\r\n\r\n" +
		"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"by len-1.\"},{\"functionCall\":{\"name\":\"bash\",\"args\":{\"command\":\"go test ./...\"}}}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":120,\"candidatesTokenCount\":30}}\r\n\r\n",
}

// apiServer speaks one API on 127.0.0.1 and records what it was sent.
type apiServer struct {
	*httptest.Server
	mu     sync.Mutex
	path   string
	header http.Header
	body   []byte
}

func serveAPI(t *testing.T, stream string) *apiServer {
	s := &apiServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.path, s.header, s.body = r.URL.RequestURI(), r.Header.Clone(), body
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(stream))
	}))
	t.Cleanup(s.Close)
	return s
}

// Each API works end to end through the binary against a local server
// speaking it: the answer streams to stdout, the tool call is proposed and,
// in a headless run in default mode, denied without waiting for anyone;
// the key goes where it belongs, and nowhere into the session or the
// tools' environment. The server answers every request with the same
// call, so the run ends at its turn limit.
func TestExecAgainstLocalServers(t *testing.T) {
	for _, tc := range []struct {
		provider, keyVar, baseSuffix, path, authHeader string
	}{
		{"openai", "OPENAI_API_KEY", "/v1", "/v1/chat/completions", "Authorization"},
		{"responses", "OPENAI_API_KEY", "/v1", "/v1/responses", "Authorization"},
		{"anthropic", "ANTHROPIC_API_KEY", "", "/v1/messages", "X-Api-Key"},
		{"gemini", "GEMINI_API_KEY", "/v1beta", "/v1beta/models/test-model:streamGenerateContent?alt=sse", "X-Goog-Api-Key"},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			srv := serveAPI(t, apiStreams[tc.provider])
			const key = "test-key-0123456789-SECRET"
			stateDir := t.TempDir()
			cmd := exec.Command(rein, "exec", "--json", "--provider", tc.provider, "--model", "test-model", "--max-turns", "1",
				"--permission-mode", "default", "--base-url", srv.URL+tc.baseSuffix, "look at why this project's tests fail and fix them")
			cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+stateDir, "XDG_CONFIG_HOME="+t.TempDir(), tc.keyVar+"="+key)
			cmd.Dir = t.TempDir()
			out, err := cmd.Output()
			if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.ExitCode() != 1 {
				t.Fatalf("rein exec: %v, want exit 1 (max_turns)\n%s", err, out)
			}
			if srv.path != tc.path {
				t.Errorf("request path %q, want %q", srv.path, tc.path)
			}
			if got := srv.header.Get(tc.authHeader); !strings.Contains(got, key) {
				t.Errorf("%s header %q does not carry the key", tc.authHeader, got)
			}
			if !strings.Contains(string(srv.body), "look at why this project's tests fail") || !strings.Contains(string(srv.body), `"bash"`) {
				t.Errorf("request body lacks the prompt or the bash tool:\n%s", srv.body)
			}
			var text strings.Builder
			var proposed *contract.IntentProposed
			var denied bool
			var outcome contract.Outcome
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				var env contract.Envelope
				if err := json.Unmarshal([]byte(line), &env); err != nil {
					t.Fatalf("bad JSON line %q: %v", line, err)
				}
				switch e := env.Data.(type) {
				case *contract.ModelText:
					text.WriteString(e.Text)
				case *contract.IntentProposed:
					proposed = e
				case *contract.ToolPermission:
					denied = e.Decision == contract.Deny && e.By == "headless" && strings.Contains(e.Reason, "--allow 'bash(go test:*)'")
				case *contract.RunFinished:
					outcome = e.Outcome
				case *contract.ProviderError:
					t.Errorf("provider error: %v", e)
				}
			}
			if text.String() != "Mean divides by len-1." {
				t.Errorf("answer %q", text.String())
			}
			if proposed == nil || proposed.ToolName != "bash" || string(proposed.Input) != `{"command":"go test ./..."}` {
				t.Errorf("proposed intent %+v", proposed)
			}
			if !denied || outcome != contract.OutcomeMaxTurns {
				t.Errorf("denied by headless with a hint: %v; outcome %s, want max_turns", denied, outcome)
			}
			// The key never reaches the session's files.
			filepath.WalkDir(stateDir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					if b, _ := os.ReadFile(p); strings.Contains(string(b), key) {
						t.Errorf("%s contains the API key", p)
					}
				}
				return nil
			})
		})
	}
}

func TestDebugNormalize(t *testing.T) {
	for api, provider := range map[string]string{"chat": "openai", "responses": "responses", "messages": "anthropic", "anthropic": "anthropic", "gemini": "gemini"} {
		t.Run(api, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "body.sse")
			if err := os.WriteFile(file, []byte(apiStreams[provider]), 0o600); err != nil {
				t.Fatal(err)
			}
			r := run(t, "debug", "normalize", "--api", api, file)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var types []string
			for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
				var ev struct {
					Type string          `json:"type"`
					Data json.RawMessage `json:"data"`
				}
				if err := json.Unmarshal([]byte(line), &ev); err != nil {
					t.Fatalf("bad line %q", line)
				}
				types = append(types, ev.Type)
			}
			for _, want := range []string{contract.TypeModelStarted, contract.TypeTextDelta, contract.TypeIntentDelta, contract.TypeIntentProposed, contract.TypeModelUsage, contract.TypeModelFinished} {
				if !strings.Contains(strings.Join(types, " "), want) {
					t.Errorf("normalize printed %v, lacking %s", types, want)
				}
			}
			if types[len(types)-1] != contract.TypeModelFinished {
				t.Errorf("last is %s", types[len(types)-1])
			}
		})
	}
	// A truncated body ends in the error, printed as the last line.
	file := filepath.Join(t.TempDir(), "cut.sse")
	os.WriteFile(file, []byte(apiStreams["openai"][:300]), 0o600)
	r := run(t, "debug", "normalize", "--api", "chat", file)
	if r.code != 0 || !strings.Contains(r.stdout, `"kind":"stream_interrupted"`) {
		t.Errorf("cut body: exit %d, stdout %s", r.code, r.stdout)
	}
	if r := run(t, "debug", "normalize", "--api", "soap", file); r.code != 2 {
		t.Errorf("unknown api: exit %d", r.code)
	}
}
