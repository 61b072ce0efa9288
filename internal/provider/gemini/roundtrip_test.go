package gemini

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

// TestProviderStateRoundTrip plays two turns as the kernel would: the
// first answer's intents and ProviderState go back in the second request,
// through a JSON round trip as a resumed session would read them from its
// log, and the second request carries every signature on its call and
// leaves out the ids Gemini never gave.
func TestProviderStateRoundTrip(t *testing.T) {
	bodies := make(chan []byte, 2)
	var turn atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body) // a failed read shows as a mismatch below
		bodies <- b
		w.Header().Set("Content-Type", "text/event-stream")
		if turn.Add(1) == 1 {
			io.WriteString(w, readFixture(t, "parallel.sse"))
			return
		}
		io.WriteString(w, readFixture(t, "text.sse"))
	}))
	defer srv.Close()
	a := New(&Options{BaseURL: srv.URL, Model: "gemini-2.5-flash"})
	req := &contract.ModelRequest{Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "read a.go and b.go"}}}
	first := providertest.Collect(t, t.Context(), a, req)
	if first.Err != nil {
		t.Fatal(first.Err)
	}
	assistant := contract.ModelMessage{Role: contract.RoleAssistant}
	var results []contract.ModelMessage
	for i, e := range first.Events {
		switch e := e.(type) {
		case *contract.IntentProposed:
			in := e.ToolIntent
			in.ID = fmt.Sprintf("int_%d", i) // the kernel's id
			assistant.ToolCalls = append(assistant.ToolCalls, in.Call())
			results = append(results, contract.ModelMessage{Role: contract.RoleTool, Result: &contract.ToolResult{
				IntentID: in.ID, ProviderCallID: in.ProviderCallID, ToolName: in.ToolName, Text: "contents of " + string(in.Input)}})
		case *contract.ModelFinished:
			assistant.ProviderState = e.ProviderState
		}
	}
	req.Messages = append(req.Messages, assistant)
	req.Messages = append(req.Messages, results...)
	// A resumed session reads the conversation back from JSON.
	logged, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var resumed contract.ModelRequest
	if err := json.Unmarshal(logged, &resumed); err != nil {
		t.Fatal(err)
	}
	if second := providertest.Collect(t, t.Context(), a, &resumed); second.Err != nil {
		t.Fatal(second.Err)
	}
	<-bodies
	var got, want any
	if err := json.Unmarshal(<-bodies, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"contents":[
		{"role":"user","parts":[{"text":"read a.go and b.go"}]},
		{"role":"model","parts":[
			{"functionCall":{"name":"read_file","args":{"path":"a.go"}},"thoughtSignature":"c2lnLXBhcg=="},
			{"functionCall":{"name":"read_file","args":{"path":"b.go"}}},
			{"functionCall":{"id":"x9k2","name":"grep","args":{"pattern":"func main","path":"."}}}]},
		{"role":"user","parts":[
			{"functionResponse":{"name":"read_file","response":{"output":"contents of {\"path\":\"a.go\"}"}}},
			{"functionResponse":{"name":"read_file","response":{"output":"contents of {\"path\":\"b.go\"}"}}},
			{"functionResponse":{"id":"x9k2","name":"grep","response":{"output":"contents of {\"pattern\":\"func main\",\"path\":\".\"}"}}}]}],
		"generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`), &want); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("second request mismatch (-want +got):\n%s", d)
	}
}
