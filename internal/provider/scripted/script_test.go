package scripted

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

func TestParseExample(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "example.json"))
	if err != nil {
		t.Fatalf("Load() error: %v", err)
	}
	if s.Turns() != 4 {
		t.Errorf("Turns() = %d, want 4", s.Turns())
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   []string // substrings of the error
	}{
		{"empty", ``, []string{"the script is empty"}},
		{"not an object", `[1]`, []string{"expected a JSON object"}},
		{"syntax error has a position", "{\n  \"turns\": [\n    {\"steps\": [}\n  ]\n}", []string{"line 3, column 16", "invalid character"}},
		{"truncated", `{"turns": [{"steps": [{"text": "a"}]}]`, []string{"ends too soon"}},
		{"fraction for a count", `{"turns": [{"steps": [{"usage": {"input_tokens": 1.5}}]}]}`, []string{"usage.input_tokens", "cannot be a whole number"}},
		{"trailing data", `{"turns": [{"steps": [{"finish": "stop"}]}]} {}`, []string{"unexpected data after the JSON object"}},
		{"unknown top-level field", `{"modle": "x", "turns": []}`, []string{`unknown field "modle"`}},
		{"no turns", `{"turns": []}`, []string{"no turns"}},
		{"negative delay", `{"chunk_delay_ms": -1, "turns": [{}]}`, []string{"chunk_delay_ms is -1"}},
		{"wrong type", `{"turns": [{"steps": [{"text": 3}]}]}`, []string{"turn 1: step 1", "text", "number cannot be a string"}},
		{"null turn", `{"turns": [{"steps": []}, null]}`, []string{"turn 2", "expected a JSON object, found null"}},
		{"unknown turn field", `{"turns": [{"step": []}]}`, []string{"turn 1:", `unknown field "step"`}},
		{"unknown step field", `{"turns": [{"steps": [{"text": "a"}, {"txt": "b"}]}]}`, []string{"turn 1: step 2", `unknown field "txt"`}},
		{"unknown tool field", `{"turns": [{"steps": [{"tool": {"nme": "bash"}}]}]}`, []string{"turn 1: step 1", `unknown field "nme"`}},
		{"no action", `{"turns": [{"steps": [{}]}]}`, []string{"turn 1: step 1", "no action", "exactly one of"}},
		{"two actions", `{"turns": [{}, {"steps": [{"text": "a", "reasoning": "b"}]}]}`, []string{"turn 2: step 1", "2 actions (reasoning, text)"}},
		{"bad finish reason", `{"turns": [{"steps": [{"finish": "done"}]}]}`, []string{"turn 1: step 1", `finish "done" is not a finish reason`, "stop, tool_use"}},
		{"provider state without finish", `{"turns": [{"steps": [{"text": "a", "provider_state": {}}]}]}`, []string{"provider_state belongs with finish"}},
		{"step after finish", `{"turns": [{"steps": [{"finish": "stop"}, {"text": "late"}]}]}`, []string{"turn 1: step 2", "nothing may follow the finish of step 1"}},
		{"step after error", `{"turns": [{"steps": [{"error": {"kind": "server"}}, {"text": "late"}]}]}`, []string{"step 2", "nothing may follow the error of step 1"}},
		{"bad error kind", `{"turns": [{"steps": [{"error": {"kind": "oops"}}]}]}`, []string{"turn 1: step 1", `kind "oops" is not an error kind`, "rate_limit"}},
		{"missing error kind", `{"turns": [{"steps": [{"error": {"message": "x"}}]}]}`, []string{"kind is missing"}},
		{"bad http status", `{"turns": [{"steps": [{"error": {"kind": "server", "http_status": 42}}]}]}`, []string{"http_status 42"}},
		{"bad fail kind", `{"turns": [{"fail": [{"kind": "rate_limit"}, {"kind": "nope"}]}]}`, []string{"turn 1: fail 2", `kind "nope"`}},
		{"finish inside a failure", `{"turns": [{"fail": [{"kind": "server", "steps": [{"finish": "stop"}]}]}]}`, []string{"turn 1: fail 1: step 1", "cannot have a finish"}},
		{"tool_end without a call", `{"turns": [{"steps": [{"tool": {"index": 0, "name": "bash"}}, {"tool_end": {"index": 1}}]}]}`, []string{"turn 1: step 2", "tool_end {index 1} matches no open tool call"}},
		{"tool_end twice", `{"turns": [{"steps": [{"tool": {"id": "a", "name": "bash"}}, {"tool_end": {"id": "a"}}, {"tool_end": {"id": "a"}}]}]}`, []string{"step 3", `tool_end {id "a"}`}},
		{"args and input", `{"turns": [{"steps": [{"tool": {"name": "bash", "args": "{}", "input": {}}}]}]}`, []string{"args or input, not both"}},
		{"unknown usage field", `{"turns": [{"steps": [{"usage": {"tokens": 1}}]}]}`, []string{`unknown field "tokens"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.script))
			if err == nil {
				t.Fatalf("Parse() succeeded, want an error containing %q", tt.want)
			}
			if !strings.HasPrefix(err.Error(), "scripted: ") {
				t.Errorf("error %q does not start with scripted:", err)
			}
			for _, s := range tt.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("Load(missing) error = %v, want one naming the file", err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"turns": [{"steps": [{"finish": "done"}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(bad)
	if err == nil || !strings.Contains(err.Error(), "bad.json: turn 1: step 1") {
		t.Errorf("Load(bad) error = %v, want one naming the file, turn and step", err)
	}
}

func TestParseAcceptsValidShapes(t *testing.T) {
	for name, script := range map[string]string{
		"steps without finish (interrupted)": `{"turns": [{"steps": [{"text": "a"}]}]}`,
		"empty steps":                        `{"turns": [{}]}`,
		"tool_end by id":                     `{"turns": [{"steps": [{"tool": {"id": "a", "name": "x", "args": "{}"}}, {"tool_end": {"id": "a"}}, {"finish": "stop"}]}]}`,
		"null provider state":                `{"turns": [{"steps": [{"finish": "stop", "provider_state": null}]}]}`,
		"every finish reason": `{"turns": [
			{"steps": [{"finish": "stop"}]}, {"steps": [{"finish": "tool_use"}]}, {"steps": [{"finish": "length"}]},
			{"steps": [{"finish": "content_filter"}]}, {"steps": [{"finish": "aborted"}]}, {"steps": [{"finish": "error"}]}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse([]byte(script)); err != nil {
				t.Errorf("Parse() error: %v", err)
			}
		})
	}
}

// FuzzParse feeds arbitrary bytes to the script parser: a script is a file
// a person writes, so it must get an error, never a panic, and whatever
// parses must play without panicking.
func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("testdata/example.json"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"turns":[{"steps":[{"tool":{"id":"c","name":"x","args":"{"}},{"tool_end":{"id":"c"}},{"finish":"tool_use"}]}]}`))
	f.Add([]byte(`{"turns":[{"fail":[{"kind":"overloaded","steps":[{"text":"a"}]}],"steps":[{"finish":"stop"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		zero := time.Duration(0)
		p := New(s, &Options{ChunkDelay: &zero})
		req := &contract.ModelRequest{}
		for range s.Turns() + 1 {
			for _, err := range p.Stream(t.Context(), req) {
				if err != nil {
					break
				}
			}
			req.Messages = append(req.Messages, contract.ModelMessage{Role: contract.RoleAssistant})
		}
	})
}
