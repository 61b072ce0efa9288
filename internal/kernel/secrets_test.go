package kernel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/registry"
)

// The secrets of these tests: a key of rein's environment, a database
// password, and the model's own key.
const (
	envKey   = "sk-test-0123456789abcdef"
	password = "correct-horse-battery"
	modelKey = "sk-model-key-42"
)

// secretSession is a kernel over a file-backed log that cuts the secrets
// out, as rein's wiring makes it, with a subscription to that log taken
// before anything was appended.
type secretSession struct {
	k   *Kernel
	log *eventlog.Log
	sub *eventlog.Subscription
	dir string // the session directory
}

func secretKernel(t *testing.T, p provider.Provider) secretSession {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ses")
	secrets := []string{envKey, password}
	store, err := eventlog.OpenFile(dir, &eventlog.FileOptions{Secrets: append(secrets, modelKey)})
	if err != nil {
		t.Fatal(err)
	}
	log := eventlog.New(store, nil)
	t.Cleanup(func() { log.Close() })
	reg, err := registry.New(runTests(t))
	if err != nil {
		t.Fatal(err)
	}
	k, err := New(p, log, &Options{ProviderName: "fake", Model: "m", Registry: reg, Secret: modelKey, Secrets: secrets,
		Capabilities: provider.Capabilities{Streaming: true, Tools: true}, Retry: RetryPolicy{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return secretSession{k: k, log: log, sub: log.Subscribe(), dir: dir}
}

// pieces cuts s into pieces of n bytes.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// TestNothingPublishedHoldsASecret streams a text and a reasoning block
// and a tool call whose pieces split the secrets at every width, and
// checks every envelope the caller and a subscriber get: none holds a
// secret, the deltas of each block put together say what the log's block
// says, and the durable events are the log's own.
func TestNothingPublishedHoldsASecret(t *testing.T) {
	text := "The key is " + envKey + " and the password " + password + "; the model's own is " + modelKey + "."
	reasoning := "I should not print " + password + " again"
	args := `{"command":"echo ` + envKey + ` | rev"}`
	for _, width := range []int{1, 2, 3, 5, 7, 16, 100} {
		t.Run(fmt.Sprintf("pieces of %d", width), func(t *testing.T) {
			var events []contract.ModelEvent
			for _, p := range pieces(text, width) {
				events = append(events, &contract.TextDelta{Text: p})
			}
			for _, p := range pieces(reasoning, width) {
				events = append(events, &contract.ReasoningDelta{Text: p})
			}
			so := ""
			for _, p := range pieces(args, width) {
				so += p
				events = append(events, &contract.IntentDelta{Index: 0, ProviderCallID: "call_1", ToolName: "run_tests", RawInput: so})
			}
			events = append(events, intent("run_tests", args), &contract.ModelFinished{Reason: contract.FinishToolUse})
			ss := secretKernel(t, stream(nil, nil, events...))
			k := ss.k
			sent := collect(t, k.Send(context.Background(), Input{Text: "go"}))
			stored := collect(t, k.Events())
			if err := ss.log.Close(); err != nil {
				t.Fatal(err)
			}
			// A subscriber may get consecutive deltas coalesced; what
			// they say and every durable event are the same.
			published := drain(t, ss.sub)
			for _, got := range [][]contract.Envelope{sent, published} {
				checkNoSecret(t, got)
				checkDeltasSayTheBlocks(t, got)
				if d := cmp.Diff(stored, durableOf(got)); d != "" {
					t.Errorf("published durable events differ from the log's (-log +published):\n%s", d)
				}
			}
			file, err := os.ReadFile(filepath.Join(ss.dir, eventlog.FileName))
			if err != nil {
				t.Fatal(err)
			}
			for _, secret := range []string{envKey, password, modelKey} {
				if bytes.Contains(file, []byte(secret)) {
					t.Errorf("the log holds %q", secret)
				}
			}
			// The kernel's own state is the log's: the conversation the
			// model is sent next holds no secret either.
			for _, m := range k.State().Messages {
				for _, secret := range []string{envKey, password, modelKey} {
					if strings.Contains(m.Text, secret) {
						t.Errorf("the state's %s message holds %q", m.Role, secret)
					}
				}
			}
		})
	}
}

// durableOf returns the durable envelopes of envs.
func durableOf(envs []contract.Envelope) []contract.Envelope {
	var out []contract.Envelope
	for _, env := range envs {
		if env.Durable() {
			out = append(out, env)
		}
	}
	return out
}

// checkNoSecret fails when an envelope, or the deltas of one block put
// together, hold a secret.
func checkNoSecret(t *testing.T, envs []contract.Envelope) {
	t.Helper()
	var joined strings.Builder
	for _, env := range envs {
		b, err := env.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		switch e := env.Data.(type) {
		case *contract.TextDelta:
			joined.WriteString(e.Text)
		case *contract.ReasoningDelta:
			joined.WriteString(e.Text)
		case *contract.IntentDelta:
			joined.WriteString(e.RawInput)
		}
		for _, secret := range []string{envKey, password, modelKey} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds %q: %s", env.Type(), secret, b)
			}
		}
	}
	for _, secret := range []string{envKey, password, modelKey} {
		if strings.Contains(joined.String(), secret) {
			t.Errorf("the deltas put together hold %q", secret)
		}
	}
}

// checkDeltasSayTheBlocks checks that the text deltas put together are
// the model.text that follows them, the reasoning deltas the
// model.reasoning, and that every tool_intent.delta's input is the start
// of the proposed intent's.
func checkDeltasSayTheBlocks(t *testing.T, envs []contract.Envelope) {
	t.Helper()
	var text, reasoning strings.Builder
	var lastRaw string
	for _, env := range envs {
		switch e := env.Data.(type) {
		case *contract.TextDelta:
			text.WriteString(e.Text)
		case *contract.ReasoningDelta:
			reasoning.WriteString(e.Text)
		case *contract.ModelText:
			if text.String() != e.Text {
				t.Errorf("text deltas say %q, model.text %q", text.String(), e.Text)
			}
		case *contract.ModelReasoning:
			if reasoning.String() != e.Text {
				t.Errorf("reasoning deltas say %q, model.reasoning %q", reasoning.String(), e.Text)
			}
		case *contract.IntentDelta:
			if !strings.HasPrefix(e.RawInput, lastRaw) {
				t.Errorf("tool_intent.delta %q does not continue %q", e.RawInput, lastRaw)
			}
			lastRaw = e.RawInput
		case *contract.IntentProposed:
			if !strings.HasPrefix(e.RawInput, lastRaw) || !strings.Contains(e.RawInput, "[REDACTED]") {
				t.Errorf("proposed %q, after deltas ending with %q", e.RawInput, lastRaw)
			}
		}
	}
}

// A provider's error message that echoes a secret of rein's environment
// (not the model's key) is cut, in the event and in the run's reason.
func TestProviderErrorMessagesAreRedacted(t *testing.T) {
	perr := &contract.ProviderError{Kind: contract.KindAuth, Message: "invalid key " + envKey + " (password " + password + ")", HTTPStatus: 401}
	sent := collect(t, secretKernel(t, stream(nil, perr)).k.Send(context.Background(), Input{Text: "go"}))
	checkNoSecret(t, sent)
	var got *contract.ProviderError
	for _, env := range sent {
		if e, ok := env.Data.(*contract.ProviderError); ok {
			got = e
		}
	}
	if got == nil || got.Message != "invalid key [REDACTED] (password [REDACTED])" {
		t.Errorf("provider.error %+v, want the message with both secrets cut", got)
	}
}

// Without secrets, the deltas the provider yields are published as they
// are: no copy, no held back tail.
func TestDeltasWithoutSecretsPassThrough(t *testing.T) {
	d := &contract.TextDelta{Text: "sk-"}
	k, _ := newKernel(t, stream(nil, nil, d, &contract.ModelFinished{Reason: contract.FinishStop}))
	sent := collect(t, k.Send(context.Background(), Input{Text: "go"}))
	for _, env := range sent {
		if e, ok := env.Data.(*contract.TextDelta); ok && e != d {
			t.Errorf("the delta was copied: %+v", e)
		}
	}
}

// drain reads what sub received until the log closed it.
func drain(t *testing.T, sub *eventlog.Subscription) []contract.Envelope {
	t.Helper()
	var out []contract.Envelope
	for {
		env, err := sub.Next(t.Context())
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, env)
	}
}
