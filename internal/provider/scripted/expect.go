package scripted

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
)

// expectation is what a turn expects of one tool result the request
// carries: the observations of the calls of the turn before, in order.
type expectation struct {
	Tool     string   `json:"tool"`
	OK       *bool    `json:"ok"`
	Contains []string `json:"contains"`
	Excludes []string `json:"excludes"`
}

func parseExpect(raws []json.RawMessage) ([]expectation, error) {
	out := make([]expectation, len(raws))
	for i, raw := range raws {
		if err := decodeObject(raw, &out[i]); err != nil {
			return nil, fmt.Errorf("expect %d: %w", i+1, err)
		}
		if out[i].OK == nil && len(out[i].Contains) == 0 && len(out[i].Excludes) == 0 && out[i].Tool == "" {
			return nil, fmt.Errorf("expect %d: an expectation needs at least one of tool, ok, contains, excludes", i+1)
		}
	}
	return out, nil
}

// lastResults returns the tool results that follow the request's last
// assistant message: what came of the calls of the turn before.
func lastResults(req *contract.ModelRequest) []*contract.ToolResult {
	if req == nil {
		return nil
	}
	var out []*contract.ToolResult
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := &req.Messages[i]
		if m.Role == contract.RoleAssistant {
			break
		}
		if m.Result != nil {
			out = append(out, m.Result)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// check compares the results with what the turn expects and returns what
// differs, as a sentence for people; "" means everything is as expected.
func check(want []expectation, got []*contract.ToolResult) string {
	if len(want) == 0 {
		return ""
	}
	if len(got) != len(want) {
		return fmt.Sprintf("the script expected %d tool results before this turn, and the conversation has %d", len(want), len(got))
	}
	var problems []string
	for i, w := range want {
		r := got[i]
		var p []string
		if w.Tool != "" && r.ToolName != w.Tool {
			p = append(p, fmt.Sprintf("it came from %s, not %s", r.ToolName, w.Tool))
		}
		if w.OK != nil && *w.OK == r.IsError {
			p = append(p, fmt.Sprintf("it was %s, not %s", okWord(!r.IsError), okWord(*w.OK)))
		}
		for _, s := range w.Contains {
			if !strings.Contains(r.Text, s) {
				p = append(p, fmt.Sprintf("it does not contain %q", s))
			}
		}
		for _, s := range w.Excludes {
			if strings.Contains(r.Text, s) {
				p = append(p, fmt.Sprintf("it contains %q", s))
			}
		}
		if len(p) > 0 {
			problems = append(problems, fmt.Sprintf("result %d (%s): %s", i+1, r.ToolName, strings.Join(p, ", ")))
		}
	}
	if len(problems) == 0 {
		return ""
	}
	return "the real observations differ from what the script expects: " + strings.Join(problems, "; ") +
		". Observation received:\n" + excerpt.Text(got[len(got)-1].Text, 2000)
}

func okWord(ok bool) string {
	if ok {
		return "a success"
	}
	return "a failure"
}
