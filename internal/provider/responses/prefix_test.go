package responses

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

// TestRequestPrefix checks that over a 20-turn session (encrypted
// reasoning items sent back before every assistant message) each request
// repeats the one before it byte for byte up to the end of its last input
// item: the body less the "]}" that closes the input and the body.
func TestRequestPrefix(t *testing.T) {
	providertest.CheckPrefix(t, providertest.Prefix{
		Build: func(req *contract.ModelRequest) ([]byte, error) { return buildRequest(req, "gpt-5", true) },
		Cut:   providertest.CutSuffix("]}"),
		State: func(turn int) json.RawMessage {
			return json.RawMessage(fmt.Sprintf(`{"provider":"responses","reasoning":[{"type":"reasoning","summary":[],"encrypted_content":"gAAAAB%02d=="}]}`, turn))
		},
	})
}

// TestPromptCacheKeyByHost checks that only OpenAI's own API and Azure
// OpenAI get prompt_cache_key.
func TestPromptCacheKeyByHost(t *testing.T) {
	for base, want := range map[string]bool{
		"":                          true, // the default, OpenAI's API
		"https://api.openai.com/v1": true,
		"https://acme.openai.azure.com/openai/v1": true,
		"http://127.0.0.1:8000/v1":                false,
		"https://openrouter.ai/api/v1":            false,
	} {
		a := New(&Options{BaseURL: base})
		call, err := a.Request(&contract.ModelRequest{CacheKey: "ses_1", Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "hi"}}}, "gpt-5")
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Key string `json:"prompt_cache_key"`
		}
		if err := json.Unmarshal(call.Body, &body); err != nil {
			t.Fatal(err)
		}
		if got := body.Key == "ses_1"; got != want {
			t.Errorf("%q: prompt_cache_key %q, want it sent: %v", base, body.Key, want)
		}
	}
}
