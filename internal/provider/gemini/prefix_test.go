package gemini

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

// TestRequestPrefix checks that over a 20-turn session (a thought
// signature sent back on every call) each request repeats the one before
// it byte for byte up to the end of the last part of its last content:
// the body less the "]}]}" that closes that content's parts, the content,
// the contents and the body. The cut is inside the last content because a
// user message after tool results joins the same content, as Gemini wants
// the turns to alternate.
func TestRequestPrefix(t *testing.T) {
	providertest.CheckPrefix(t, providertest.Prefix{
		Build: func(req *contract.ModelRequest) ([]byte, error) { return BuildRequest(req, "gemini-2.5-flash") },
		Cut:   providertest.CutSuffix("]}]}"),
		State: func(turn int) json.RawMessage {
			return json.RawMessage(fmt.Sprintf(`{"provider":"gemini","parts":[{"kind":"call","call_id":"call_%02d","signature":"c2ln%02d"}]}`, turn, turn))
		},
	})
}
