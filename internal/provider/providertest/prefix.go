package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// Prefix describes an adapter's request builder to CheckPrefix.
type Prefix struct {
	// Build returns the exact body the adapter sends for req.
	Build func(req *contract.ModelRequest) ([]byte, error)
	// Cut returns the length of the part of body, the request of one
	// turn, that the request of the next turn must repeat byte for byte:
	// the body up to the end of the content of its last message, or up to
	// whatever the adapter writes differently once that message is no
	// longer the last (a moving cache breakpoint). It returns -1 when it
	// does not find where to cut.
	Cut func(body []byte) int
	// State, when set, gives the provider state of the assistant message
	// of turn i (from 1), in the adapter's own format, so that what the
	// adapter sends back from it is part of the check.
	State func(turn int) json.RawMessage
}

// SessionTurns is the number of turns of the session CheckPrefix builds.
const SessionTurns = 20

// Session returns the request of each step of a scripted session: a
// system prompt, three tools and the user's task (step 0), then turns of
// an assistant message with a tool call (and text on every third turn),
// the call's result (a failure on every seventh), and, on every fifth
// turn, a few words from the user after the result. Every request has the
// same model, reasoning effort and cache key. The tool outputs are
// deterministic text of 1 to 8 KB. state, when not nil, gives the provider
// state of the assistant message of each turn.
func Session(turns int, state func(turn int) json.RawMessage) []*contract.ModelRequest {
	base := contract.ModelRequest{
		Model:           "test-model",
		System:          "You are rein, a coding agent. The workspace is /work/project; the date is 2026-12-02.",
		Tools:           sessionTools(),
		ReasoningEffort: "medium",
		CacheKey:        "ses_prefix_test",
		MaxOutputTokens: 32000,
	}
	messages := []contract.ModelMessage{{Role: contract.RoleUser, Text: "The tests of package sum fail: find out why and fix it."}}
	requests := []*contract.ModelRequest{snapshot(&base, messages)}
	for turn := 1; turn <= turns; turn++ {
		messages = append(messages, sessionTurn(turn, state)...)
		requests = append(requests, snapshot(&base, messages))
	}
	return requests
}

// snapshot returns a request of base with its own copy of messages.
func snapshot(base *contract.ModelRequest, messages []contract.ModelMessage) *contract.ModelRequest {
	r := *base
	r.Messages = append([]contract.ModelMessage(nil), messages...)
	return &r
}

func sessionTools() []contract.ToolSpec {
	return []contract.ToolSpec{
		{Name: "bash", Description: "Run a shell command in the workspace.", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string","description":"the command line"},"timeout_s":{"type":"integer"}},"required":["command"]}`)},
		{Name: "read_file", Description: "Read a file of the workspace.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"},"limit":{"type":"integer"}},"required":["path"]}`)},
		{Name: "edit_file", Description: "Replace text in a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"old":{"type":"string"},"new":{"type":"string"}},"required":["path","old","new"]}`)},
	}
}

// sessionTurn returns the messages one turn adds.
func sessionTurn(turn int, state func(turn int) json.RawMessage) []contract.ModelMessage {
	tools := []string{"bash", "read_file", "edit_file"}
	name := tools[turn%len(tools)]
	id := fmt.Sprintf("call_%02d", turn)
	input, _ := json.Marshal(map[string]string{"path": fmt.Sprintf("src/file_%02d.go", turn), "command": "go test ./..."}) // strings always marshal
	assistant := contract.ModelMessage{
		Role:      contract.RoleAssistant,
		Reasoning: fmt.Sprintf("Turn %d: look at the next file.", turn),
		ToolCalls: []contract.ToolCall{{IntentID: "in_" + id, ProviderCallID: id, ToolName: name, Input: input}},
	}
	if turn%3 == 0 {
		assistant.Text = fmt.Sprintf("Checking file %d <and> its tests & helpers.", turn)
	}
	if state != nil {
		assistant.ProviderState = state(turn)
	}
	result := contract.ModelMessage{Role: contract.RoleTool, Result: &contract.ToolResult{
		IntentID: "in_" + id, ProviderCallID: id, ToolName: name,
		Text: toolOutput(turn), IsError: turn%7 == 0,
	}}
	out := []contract.ModelMessage{assistant, result}
	if turn%5 == 0 {
		out = append(out, contract.ModelMessage{Role: contract.RoleUser, Text: fmt.Sprintf("Note %d: keep the public API as it is.", turn)})
	}
	return out
}

// toolOutput is a deterministic output of 1 to 8 KB, with the characters
// JSON escapes or HTML-escaping encoders would change.
func toolOutput(turn int) string {
	var b strings.Builder
	size := 1024 + (turn*2917)%(7*1024)
	for line := 0; b.Len() < size; line++ {
		fmt.Fprintf(&b, "file_%02d.go:%d: \"got\" %d <want> %d && tab\there\n", turn, line, line*turn, line+turn)
	}
	return b.String()
}

// PrefixShare is, for one pair of consecutive requests, the length of
// their common byte prefix as a share of each.
type PrefixShare struct {
	Turn                int // the later request's step
	Before, After       int // their lengths in bytes
	OfBefore, OfAfter   float64
	CommonPrefixInBytes int
}

// CheckPrefix builds the requests of Session(SessionTurns) and checks
// that each offers the tools in the order given with their schemas byte
// for byte (as compact JSON: what encoding/json writes of a raw message),
// and, for each pair of consecutive requests, that the earlier one cut by
// p.Cut is a byte prefix of the later one. It returns, and logs, the
// share of each request equal to a prefix of the other.
func CheckPrefix(t *testing.T, p Prefix) []PrefixShare {
	t.Helper()
	var bodies [][]byte
	for i, req := range Session(SessionTurns, p.State) {
		body, err := p.Build(req)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		checkTools(t, i, body, req.Tools)
		bodies = append(bodies, body)
	}
	var shares []PrefixShare
	for i := 1; i < len(bodies); i++ {
		before, after := bodies[i-1], bodies[i]
		cut := p.Cut(before)
		if cut < 0 || cut > len(before) {
			t.Fatalf("request %d: no cut in %d bytes ending %q", i-1, len(before), tail(before))
		}
		if n := commonPrefix(before, after); n < cut {
			t.Errorf("request %d is not a prefix of request %d up to byte %d: they differ from byte %d\nbefore: %q\nafter:  %q",
				i-1, i, cut, n, window(before, n), window(after, n))
		}
		n := commonPrefix(before, after)
		shares = append(shares, PrefixShare{
			Turn: i, Before: len(before), After: len(after), CommonPrefixInBytes: n,
			OfBefore: float64(n) / float64(len(before)), OfAfter: float64(n) / float64(len(after)),
		})
	}
	logShares(t, shares)
	return shares
}

// checkTools checks that body holds the schemas of tools, compact, in
// their order.
func checkTools(t *testing.T, i int, body []byte, tools []contract.ToolSpec) {
	t.Helper()
	at := 0
	for _, tool := range tools {
		var schema bytes.Buffer
		if err := json.Compact(&schema, tool.InputSchema); err != nil {
			t.Fatalf("tool %s: %v", tool.Name, err)
		}
		j := bytes.Index(body[at:], schema.Bytes())
		if j < 0 {
			t.Errorf("request %d: the schema of %s is not in the body after byte %d, as given: %s", i, tool.Name, at, schema.Bytes())
			return
		}
		at += j + schema.Len()
	}
}

func logShares(t *testing.T, shares []PrefixShare) {
	t.Helper()
	minBefore, minAfter, sumBefore, sumAfter := 1.0, 1.0, 0.0, 0.0
	for _, s := range shares {
		t.Logf("request %2d -> %2d: %6d -> %6d bytes, common prefix %6d: %6.2f%% of the first, %6.2f%% of the second",
			s.Turn-1, s.Turn, s.Before, s.After, s.CommonPrefixInBytes, 100*s.OfBefore, 100*s.OfAfter)
		minBefore, minAfter = min(minBefore, s.OfBefore), min(minAfter, s.OfAfter)
		sumBefore, sumAfter = sumBefore+s.OfBefore, sumAfter+s.OfAfter
	}
	n := float64(len(shares))
	t.Logf("common prefix over %d pairs: of request N min %.2f%% mean %.2f%%; of request N+1 min %.2f%% mean %.2f%%",
		len(shares), 100*minBefore, 100*sumBefore/n, 100*minAfter, 100*sumAfter/n)
	if len(shares) > 1 {
		last := shares[len(shares)-1]
		t.Logf("from the second pair on: of request N min %.2f%%; of the last request %.2f%%", 100*minOf(shares[1:]), 100*last.OfAfter)
	}
}

// minOf returns the least share of request N among shares.
func minOf(shares []PrefixShare) float64 {
	m := 1.0
	for _, s := range shares {
		m = min(m, s.OfBefore)
	}
	return m
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// window returns the bytes of b around offset i, for an error message.
func window(b []byte, i int) []byte {
	return b[max(0, i-60):min(len(b), i+60)]
}

func tail(b []byte) []byte { return b[max(0, len(b)-80):] }

// CutBefore returns a Cut that cuts a body just before the last occurrence
// of marker, or -1 when the body has none.
func CutBefore(marker string) func([]byte) int {
	return func(body []byte) int { return strings.LastIndex(string(body), marker) }
}

// CutSuffix returns a Cut that cuts suffix off the end of a body, or -1
// when the body does not end with it.
func CutSuffix(suffix string) func([]byte) int {
	return func(body []byte) int {
		if !strings.HasSuffix(string(body), suffix) {
			return -1
		}
		return len(body) - len(suffix)
	}
}
