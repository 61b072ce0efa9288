package anthropic

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// testModel is the model every test request names.
const testModel = "claude-test"

// ref is the provider reference of a stream served by a test server.
func ref(requestID string) contract.ProviderRef {
	return contract.ProviderRef{Name: "anthropic", Model: testModel, RequestID: requestID}
}

// readFile returns the content of testdata/name.
func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// serve answers every request with body, as an SSE stream (or as JSON when
// name ends in .json), with a request id header.
func serve(t *testing.T, name, body string) string {
	t.Helper()
	ct := "text/event-stream"
	if strings.HasSuffix(name, ".json") {
		ct = "application/json"
	}
	srv := providertest.Serve(t, http.StatusOK, http.Header{"Content-Type": {ct}, "Request-Id": {"req_fixture"}}, body)
	return srv.URL
}

// streamBody runs a real Stream against a server answering body.
func streamBody(t *testing.T, name, body string) providertest.Result {
	t.Helper()
	a := New(&Options{BaseURL: serve(t, name, body), APIKey: "sk-ant-test"})
	return providertest.Collect(t, t.Context(), a, &contract.ModelRequest{
		Model:    testModel,
		Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "fix the tests"}},
	})
}

// render turns a stream's result into JSON lines: each event with its type,
// then the error, if any.
func render(r providertest.Result) string {
	lines := providertest.JSON(r.Events)
	if r.Err != nil {
		b, _ := json.Marshal(r.Err) // a ProviderError always marshals
		lines = append(lines, "error "+string(b))
	}
	return strings.Join(lines, "\n") + "\n"
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, d)
	}
}

// indent pretty-prints JSON for golden files; the bytes compared are the
// exact bytes, indented.
func indent(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// types lists the event types of events.
func types(events []contract.ModelEvent) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.EventType()
	}
	return out
}

// proposed returns the intents proposed in events.
func proposed(events []contract.ModelEvent) []*contract.IntentProposed {
	var out []*contract.IntentProposed
	for _, e := range events {
		if p, ok := e.(*contract.IntentProposed); ok {
			out = append(out, p)
		}
	}
	return out
}
