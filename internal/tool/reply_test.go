package tool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
)

// A denial may say what to do instead: the runtime records what the
// person said on the tool.permission event (its message) and tells the
// model in the observation, trimmed, printable and bounded; with an
// allow there is nothing to tell instead, and nothing is recorded.
func TestAReplySaysWhatToDoInstead(t *testing.T) {
	long := strings.Repeat("é", MaxReplyText) // twice the bound, in bytes
	tests := []struct {
		name     string
		reply    Reply
		decision contract.Decision
		reason   string // what the reason starts with
		message  string // what tool.permission records
		said     string // what the observation ends with; "" for no line
	}{
		{"no", Reply{Answer: No}, contract.Deny, "The user said no. Do not retry", "", ""},
		{"no, and what to do instead", Reply{Answer: No, Text: "  use the test helper instead\n"}, contract.Deny,
			saidNo, "use the test helper instead", "\nThe user said: use the test helper instead"},
		{"a message over lines, with controls", Reply{Answer: No, Text: "run go vet first,\nthen \x1b]52;c;aGk=\x07 test\u202e"}, contract.Deny,
			saidNo, `run go vet first,` + "\n" + `then \x1b]52;c;aGk=\x07 test<U+202E>`, "\nThe user said: run go vet first,\nthen \\x1b]52;c;aGk=\\x07 test<U+202E>"},
		{"a long message is cut", Reply{Answer: No, Text: long}, contract.Deny,
			saidNo, long[:MaxReplyText] + "…", "\nThe user said: " + long[:MaxReplyText] + "…"},
		{"never, and what to do instead", Reply{Answer: Never, Text: "never push; open a pull request"}, contract.Deny,
			"The user denied it and saved bash(git push:*)", "never push; open a pull request", "\nThe user said: never push; open a pull request"},
		{"yes says nothing more", Reply{Answer: Yes, Text: "and be quick"}, contract.Allow, "The user allowed it once.", "", ""},
		{"only white space is nothing", Reply{Answer: No, Text: " \n\t "}, contract.Deny, "The user said no. Do not retry", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shell := echo("bash", registry.RiskExecute, registry.Exclusive, nil)
			shell.InputSchema = json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)
			opts := &Options{Approver: ReplyFunc(func(context.Context, Question) (Reply, error) { return tt.reply, nil })}
			f := newFixture(t, permission.Default, nil, opts, shell)
			f.run(t, t.Context(), intent("int_1", "bash", `{"command":"git push origin main"}`))
			p := f.sink.permission("int_1")
			if p == nil || p.Decision != tt.decision || p.By != permission.ByUser || !strings.HasPrefix(p.Reason, tt.reason) || p.Message != tt.message {
				t.Fatalf("tool.permission = %+v; want %s by user, reason %q..., message %q", p, tt.decision, tt.reason, tt.message)
			}
			o := f.sink.observation(t, "int_1")
			if tt.decision == contract.Allow {
				if !o.OK || strings.Contains(o.Text, "The user said:") {
					t.Errorf("observation = %+v; want the tool's output alone", o)
				}
				return
			}
			want := "Blocked: rein did not run this bash call. " + p.Reason + tt.said
			if o.Text != want || o.Code != contract.CodeDenied {
				t.Errorf("observation text = %q;\nwant %q", o.Text, want)
			}
		})
	}
}
