package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/why"
)

// deniedWithMessage is a person's denial that says what to do instead,
// over two lines, one with a control sequence a log may hold.
var deniedWithMessage = &contract.ToolPermission{IntentID: "int_1", Decision: contract.Deny, By: "user",
	Reason:  "The user said no, and said what to do instead. Do that rather than retrying the same call.",
	Message: "use the testutil helper\nand \x1b]0;x\x07 run it twice"}

const saidShown = "    said: use the testutil helper\n          and \\x1b]0;x\\x07 run it twice"

// The live trace and the replay show what the person said with their
// denial, under the decision, printable.
func TestTraceAndReplayShowWhatThePersonSaid(t *testing.T) {
	events := []contract.Event{
		&contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: "int_1", ToolName: "bash", Input: json.RawMessage(`{"command":"go test ./..."}`)}},
		&contract.ToolValidation{IntentID: "int_1", OK: true},
		deniedWithMessage,
	}
	var live strings.Builder
	term := &terminal{out: &live, errw: &live, settle: true}
	var replayed strings.Builder
	r := newReplayer(&replayed)
	for _, e := range events {
		env := contract.Envelope{Data: e, Time: time.Now()}
		if err := term.event(env); err != nil {
			t.Fatal(err)
		}
		if err := r.event(env); err != nil {
			t.Fatal(err)
		}
	}
	term.end()
	r.end()
	for name, out := range map[string]string{"live": live.String(), "replay": replayed.String()} {
		if !strings.Contains(out, "✗ deny by user: The user said no, and said what to do instead.") || !strings.Contains(out, saidShown) {
			t.Errorf("%s trace lacks the denial and what was said:\n%s", name, out)
		}
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("%s trace holds a raw control: %q", name, out)
		}
	}
}

// rein why shows it too, and its JSON carries it as the log does.
func TestWhyShowsWhatThePersonSaid(t *testing.T) {
	touch := why.Touch{
		Session: "ses_A", Cwd: "/ws", Seq: 9, Time: time.Date(2026, 11, 30, 7, 41, 2, 0, time.UTC), Turn: 1, Access: why.Command,
		Intent:     contract.ToolIntent{ID: "int_1", ToolName: "bash", Input: json.RawMessage(`{"command":"go test ./..."}`)},
		Validation: &contract.ToolValidation{IntentID: "int_1", OK: true},
		Permission: deniedWithMessage,
	}
	var out bytes.Buffer
	if err := writeWhy(&out, "x", []why.Touch{touch}, false); err != nil {
		t.Fatal(err)
	}
	if want := "  ✗ deny by user: The user said no, and said what to do instead. Do that rather than retrying the same call.\n" + saidShown + "\n"; !strings.Contains(out.String(), want) {
		t.Errorf("rein why lacks %q:\n%s", want, out.String())
	}
	out.Reset()
	if err := writeWhyJSON(&out, []why.Touch{touch}); err != nil {
		t.Fatal(err)
	}
	var line struct {
		Permission struct{ Message string }
	}
	if err := json.Unmarshal(out.Bytes(), &line); err != nil || line.Permission.Message != deniedWithMessage.Message {
		t.Errorf("rein why --json permission message = %q, %v; want it as the log holds it", line.Permission.Message, err)
	}
}
