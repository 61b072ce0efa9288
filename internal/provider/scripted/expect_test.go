package scripted

import (
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

func TestExpectStopsAScriptWhosePremiseFailed(t *testing.T) {
	s := mustParse(t, `{"turns":[
		{"steps":[{"tool":{"index":0,"id":"c1","name":"bash","input":{"command":"go test ./..."}}},{"finish":"tool_use"}]},
		{"expect":[{"tool":"bash","ok":false,"contains":["FAIL","exit code: 1"],"excludes":["panic"]}],
		 "steps":[{"text":"The test fails."},{"finish":"stop"}]}]}`)
	result := func(tool, text string, isError bool) *contract.ModelRequest {
		req := request(1)
		req.Messages[2].Result = &contract.ToolResult{IntentID: "int_1", ToolName: tool, Text: text, IsError: isError}
		return req
	}
	for _, c := range []struct {
		name string
		req  *contract.ModelRequest
		want string // in the error; "" means the turn plays
	}{
		{"as expected", result("bash", "--- FAIL: TestMean\nexit code: 1", true), ""},
		{"passed instead", result("bash", "ok stats\nexit code: 0", false), "it was a success, not a failure"},
		{"missing text", result("bash", "FAIL\nexit code: 2", true), `does not contain "exit code: 1"`},
		{"excluded text", result("bash", "FAIL panic\nexit code: 1", true), `contains "panic"`},
		{"other tool", result("read_file", "FAIL\nexit code: 1", true), "not bash"},
		{"no result", request(1), `does not contain "FAIL"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			events, perr := collect(t, t.Context(), New(s, nil), c.req)
			if c.want == "" {
				if perr != nil {
					t.Fatalf("error %v, want the turn played", perr)
				}
				return
			}
			if perr == nil || perr.Kind != contract.KindBadRequest || !strings.Contains(perr.Message, c.want) {
				t.Fatalf("error = %v, want bad_request containing %q", perr, c.want)
			}
			if len(events) != 2 || !strings.Contains(events[1].(*contract.TextDelta).Text, "stops here") {
				t.Errorf("events = %v, want the model to say why it stops", events)
			}
		})
	}
	if _, err := Parse([]byte(`{"turns":[{"expect":[{}],"steps":[{"finish":"stop"}]}]}`)); err == nil {
		t.Error("an empty expectation parsed")
	}
}
