package gemini

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

// testRef is the provider reference of the streams the tests serve: the
// adapter's default name and model, and the request id the server sends.
var testRef = contract.ProviderRef{Name: "gemini", Model: DefaultModel, RequestID: "req_1"}

// ignoreCause leaves out ProviderError.Err, the Go cause, which is not
// part of what an error says.
var ignoreCause = cmpopts.IgnoreFields(contract.ProviderError{}, "Err")

func started() contract.ModelEvent {
	return &contract.ModelStarted{Provider: testRef.Name, Model: testRef.Model, RequestID: testRef.RequestID}
}

func text(s string) contract.ModelEvent      { return &contract.TextDelta{Text: s} }
func reasoning(s string) contract.ModelEvent { return &contract.ReasoningDelta{Text: s} }

func delta(index int, id, name, raw string) contract.ModelEvent {
	return &contract.IntentDelta{Index: index, ProviderCallID: id, ToolName: name, RawInput: raw}
}

// proposed is an intent of testRef; input is compacted the way the
// Assembler compacts it.
func proposed(id, name, input, raw string, from contract.Assembly) contract.ModelEvent {
	return proposedBy(testRef, id, name, input, raw, from)
}

func proposedBy(ref contract.ProviderRef, id, name, input, raw string, from contract.Assembly) contract.ModelEvent {
	return &contract.IntentProposed{ToolIntent: contract.ToolIntent{
		ProviderCallID: id, ToolName: name, Input: json.RawMessage(input), RawInput: raw,
		Provider: ref, AssembledFrom: from,
	}}
}

func from(fragments, first, last int) contract.Assembly {
	return contract.Assembly{Fragments: fragments, FirstIndex: first, LastIndex: last}
}

func usage(in, out, cached, thoughts int64) contract.ModelEvent {
	return &contract.ModelUsage{InputTokens: in, OutputTokens: out, CacheReadTokens: cached, ReasoningTokens: thoughts}
}

func finished(reason contract.FinishReason, state string) contract.ModelEvent {
	f := &contract.ModelFinished{Reason: reason}
	if state != "" {
		f.ProviderState = json.RawMessage(state)
	}
	return f
}

func providerError(ref contract.ProviderRef, kind contract.ErrorKind, msg string) *contract.ProviderError {
	return &contract.ProviderError{Kind: kind, Retryable: kind.Retryable(), Provider: ref.Name, Model: ref.Model, RequestID: ref.RequestID, Message: msg}
}

func readFixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// serve returns an Adapter whose requests go to a server answering status
// and body, with the content type given and request id req_1.
func serve(t *testing.T, status int, contentType string, pieces ...string) *Adapter {
	t.Helper()
	srv := providertest.Serve(t, status, http.Header{"Content-Type": {contentType}, "X-Request-Id": {"req_1"}}, pieces...)
	return New(&Options{BaseURL: srv.URL, APIKey: "test-key"})
}

// userRequest is a request with one user message and no model named, so
// the adapter's default model is used.
func userRequest() *contract.ModelRequest {
	return &contract.ModelRequest{Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "hi"}}}
}

// diffEvents compares events, the Go cause of errors left out.
func diffEvents(want, got []contract.ModelEvent) string {
	return cmp.Diff(want, got, ignoreCause)
}
