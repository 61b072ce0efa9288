package eventlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
)

func TestOpenFileVisits(t *testing.T) {
	const n = 300 // several batches of a small decoder, and of the index
	for _, readOnly := range []bool{false, true} {
		t.Run(fmt.Sprint("read-only=", readOnly), func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, append(lines(t, n), `{"seq":301,"ty`...))
			var visited []contract.Envelope
			s := mustOpen(t, dir, &FileOptions{ReadOnly: readOnly, Visit: func(env contract.Envelope) error {
				// No lock: the race detector checks Visit runs on the
				// goroutine that reads visited below.
				visited = append(visited, env)
				return nil
			}})
			defer s.Close()
			want := collect(t, New(NewMemStoreOf(t, n), nil).Events(1))
			if d := cmp.Diff(want, visited); d != "" {
				t.Errorf("visited mismatch (-want +got):\n%s", d)
			}
			if d := cmp.Diff(want, collect(t, s.Events(1))); d != "" {
				t.Errorf("Events(1) mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestOpenFileVisitError(t *testing.T) {
	const n = 10
	stop := errors.New("state does not fold")
	torn := append(lines(t, n), `{"seq":11,"ty`...)
	for _, at := range []uint64{1, 4, n} {
		t.Run(fmt.Sprint(at), func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, torn)
			var seen uint64
			_, err := OpenFile(dir, &FileOptions{Visit: func(env contract.Envelope) error {
				seen = env.Seq
				if env.Seq == at {
					return stop
				}
				return nil
			}})
			want := fmt.Sprintf("eventlog: open %s: line %d: ", filepath.Join(dir, FileName), at)
			if !errors.Is(err, stop) || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("OpenFile() = %v, want the visit error prefixed %q", err, want)
			}
			if seen != at {
				t.Errorf("visited up to seq %d, want %d", seen, at)
			}
			if got := readFile(t, dir); !bytes.Equal(got, torn) {
				t.Error("OpenFile() modified the file after a visit error")
			}
		})
	}
}

func TestSecretsAreRedacted(t *testing.T) {
	tests := []struct {
		name    string
		secrets []string
		text    string
		want    string // the text as read back
	}{
		{"api key", []string{"sk-proj-abc123"}, "export KEY=sk-proj-abc123; curl", "export KEY=[REDACTED]; curl"},
		{"every occurrence", []string{"tok12345"}, "tok12345 tok12345,tok12345", "[REDACTED] [REDACTED],[REDACTED]"},
		{"several secrets", []string{"alpha-123", "beta-4567"}, "alpha-123 and beta-4567", "[REDACTED] and [REDACTED]"},
		{"one holding another", []string{"abcdefgh", "abcdefgh-PRIVATE"}, "key abcdefgh-PRIVATE and abcdefgh", "key [REDACTED] and [REDACTED]"},
		{"repeated", []string{"abcdefgh", "abcdefgh"}, "abcdefgh", "[REDACTED]"},
		{"a quote", []string{`abc"defg`}, `x abc"defg y`, "x [REDACTED] y"},
		{"a backslash", []string{`abc\defg`}, `x abc\defg y`, "x [REDACTED] y"},
		{"html characters", []string{"a<b&c>de"}, "x a<b&c>de y", "x [REDACTED] y"},
		{"not ASCII", []string{"clé-€"}, "la clé-€ ici", "la [REDACTED] ici"},
		{"a newline", []string{"abcd\nefg"}, "x abcd\nefg y", "x [REDACTED] y"},
		{"a secret after a backslash", []string{`\xyzabcd`}, `a\\xyzabcd`, `a\[REDACTED]`},
		{"an escape is not the secret", []string{"nfoo1234"}, "\nfoo1234", "\nfoo1234"},
		{"short values are not secrets", []string{"x", "ollama"}, "x ollama", "x ollama"},
		{"empty secrets are ignored", []string{"", ""}, "text", "text"},
		{"no secrets", nil, "text", "text"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := mustOpen(t, dir, &FileOptions{Secrets: tc.secrets})
			// A tool input as a model sends it: HTML characters as they are.
			var input bytes.Buffer
			enc := json.NewEncoder(&input)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(map[string]string{"command": tc.text}); err != nil {
				t.Fatal(err)
			}
			text := durable(tc.text)
			text.ID = "e1" // the envelope's own fields are not redacted
			envs := []contract.Envelope{
				withSeq(text, 1),
				withSeq(contract.Envelope{ID: "e2", Time: t0, Data: &contract.InvocationStarted{
					IntentID: "int_1", InvocationID: "inv_1", ToolName: "bash", Input: bytes.TrimSpace(input.Bytes()),
				}}, 2),
			}
			for _, env := range envs {
				if _, err := s.Append(env); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			file := readFile(t, dir)
			for _, secret := range NewRedactor(tc.secrets).encoded {
				if tc.want != tc.text && bytes.Contains(file, secret) {
					t.Errorf("the file holds the secret %s:\n%s", secret, file)
				}
			}
			got := collect(t, mustOpen(t, dir, &FileOptions{ReadOnly: true}).Events(1))
			if text := got[0].Data.(*contract.ModelText).Text; text != tc.want {
				t.Errorf("text read back = %q, want %q", text, tc.want)
			}
			var in map[string]string
			if err := json.Unmarshal(got[1].Data.(*contract.InvocationStarted).Input, &in); err != nil || in["command"] != tc.want {
				t.Errorf("input read back = %v (%v), want command %q", in, err, tc.want)
			}
		})
	}
}

func TestSecretThatCannotBeRedacted(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir, &FileOptions{Secrets: []string{"12345678"}})
	defer s.Close()
	_, err := s.Append(withSeq(contract.Envelope{Data: &contract.ModelUsage{InputTokens: 12345678}}, 1))
	if !errors.Is(err, errUnredactable) {
		t.Fatalf("Append() = %v, want the secret refused", err)
	}
	if _, err := s.Append(withSeq(durable("next"), 1)); err != nil {
		t.Fatalf("Append() after a refused line: %v", err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, dir); bytes.Contains(got, []byte("model.usage")) {
		t.Errorf("the refused line was written:\n%s", got)
	}
}

// A numeric secret that happens to occur in an envelope's own fields (t0's
// nanoseconds hold 12345678) is not cut out of them: they are rein's, and
// the line would no longer decode. The data is still redacted, and the
// event the store returns and the one read back agree.
func TestSecretsStayOutOfTheEnvelopeFields(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir, &FileOptions{Secrets: []string{"12345678"}})
	env := withSeq(durable("pin 12345678"), 1)
	env.ID = "evt_1"
	got, err := s.Append(env)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want := env
	want.Data = &contract.ModelText{Text: "pin [REDACTED]"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Append() returned (-want +got):\n%s", d)
	}
	read := collect(t, mustOpen(t, dir, &FileOptions{ReadOnly: true}).Events(1))
	if d := cmp.Diff([]contract.Envelope{want}, read); d != "" {
		t.Errorf("read back (-want +got):\n%s", d)
	}
}
