package openai

import (
	"encoding/json"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

// TestRequestPrefix checks that over a 20-turn session (reasoning sent
// back as reasoning_content, as to a server that streams it) each request
// repeats the one before it byte for byte up to the end of its last
// message: the body less the "]}" that closes the messages and the body.
func TestRequestPrefix(t *testing.T) {
	providertest.CheckPrefix(t, providertest.Prefix{
		Build: func(req *contract.ModelRequest) ([]byte, error) { return buildRequest(req, "gpt-5", openAIDialect) },
		Cut:   providertest.CutSuffix("]}"),
		State: func(int) json.RawMessage { return json.RawMessage(`{"provider":"openai","reasoning_content":true}`) },
	})
}
