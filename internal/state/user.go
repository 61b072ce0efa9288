package state

import (
	"encoding/json"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
)

// ranByUser is the text of the user message that tells the model what a
// person ran themselves (an intent of Origin [contract.OriginUser], a
// command typed as !cmd) and what came of it: the observation's text, as
// bounded as any tool result's, whose last line says the exit code of a
// command.
//
//	I ran `go test ./...` myself:
//	--- FAIL: TestSum (0.00s)
//	...
//	exit code: 1
//
// It depends only on the intent and the observation, so the message is
// the same bytes in every later request.
func ranByUser(in contract.ToolIntent, o *contract.Observation) string {
	var cmd struct {
		Command string `json:"command"`
	}
	what := in.ToolName + " " + string(in.Input)
	if json.Unmarshal(in.Input, &cmd) == nil && cmd.Command != "" {
		what = "`" + cmd.Command + "`"
	}
	return "I ran " + what + " myself:\n" + strings.TrimRight(o.Text, "\n")
}
