package anthropic

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

// TestRequestPrefix checks that over a 20-turn session (thinking blocks
// sent back on every assistant message) each request repeats the one
// before it byte for byte, up to the breakpoint on the last block of its
// last message: the one part of an earlier request that a later one
// writes differently (see markCache).
func TestRequestPrefix(t *testing.T) {
	providertest.CheckPrefix(t, providertest.Prefix{
		Build: func(req *contract.ModelRequest) ([]byte, error) { return BuildRequest(req, "claude-sonnet-4-5") },
		Cut:   providertest.CutBefore(`,"cache_control":{"type":"ephemeral"}`),
		State: func(turn int) json.RawMessage {
			return json.RawMessage(fmt.Sprintf(`{"provider":"anthropic","blocks":[{"type":"thinking","thinking":"Turn %d: look at the next file.","signature":"EqQBCgIYAh%02d"}]}`, turn, turn))
		},
	})
}
