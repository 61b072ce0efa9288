package eventlog

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
)

// testSecrets are the secrets of the redaction tests: an API key, one
// that holds another, one that starts like another, and a password with
// a quote (which the log line escapes).
var testSecrets = []string{"sk-test-0123456789", "sk-test-0123456789-long", "sk-other-key", `pa"ssw0rd!`}

func TestRedactorString(t *testing.T) {
	r := NewRedactor(testSecrets)
	tests := []struct {
		name, in, want string
	}{
		{"nothing", "plain text, sk- but no key", "plain text, sk- but no key"},
		{"a key", "key=sk-test-0123456789.", "key=[REDACTED]."},
		{"the longer key whole", "sk-test-0123456789-long", "[REDACTED]"},
		{"every occurrence", "sk-other-key sk-other-key", "[REDACTED] [REDACTED]"},
		{"a quote", `pw pa"ssw0rd! end`, "pw [REDACTED] end"},
		{"only a start", "sk-test-01234", "sk-test-01234"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	for _, r := range []*Redactor{nil, NewRedactor(nil), NewRedactor([]string{"", "short"})} {
		if got := r.String("short sk-test-0123456789"); got != "short sk-test-0123456789" {
			t.Errorf("a redactor of no secrets changed the text to %q", got)
		}
	}
}

// Whatever the pieces a text arrives in, what the stream shows, put
// together, is what String makes of the whole text; and no piece shown,
// nor any run of pieces, holds a secret.
func TestStreamRedactorEverySplit(t *testing.T) {
	r := NewRedactor(testSecrets)
	texts := []string{
		"the key is sk-test-0123456789 and that is all",
		"sk-test-0123456789-long",
		"sk-test-0123456789-lon", // the start of the long one: the short one is cut
		"ends with the start sk-other-k",
		"sk-sk-sk-other-key",
		`quoted pa"ssw0rd!pa"ssw0rd!`,
		"no secret at all, only sk- and s and pa",
		"",
	}
	for _, text := range texts {
		want := r.String(text)
		// Every way of cutting text in two and in three.
		for i := 0; i <= len(text); i++ {
			for j := i; j <= len(text); j++ {
				pieces := []string{text[:i], text[i:j], text[j:]}
				s := r.Stream()
				var shown []string
				for _, p := range pieces {
					out := s.Write(p)
					if held := s.Held(); held > len("sk-test-0123456789-long")-1 {
						t.Fatalf("%q: holds back %d bytes, more than the longest secret less one", pieces, held)
					}
					shown = append(shown, out)
				}
				shown = append(shown, s.Flush())
				if got := strings.Join(shown, ""); got != want {
					t.Fatalf("%q: shown %q, want %q", pieces, got, want)
				}
				for k := range shown {
					for _, secret := range testSecrets {
						if strings.Contains(strings.Join(shown[:k+1], ""), secret) {
							t.Fatalf("%q: shown %q holds %q", pieces, shown[:k+1], secret)
						}
					}
				}
			}
		}
	}
}

// A stream holds back only what could start a secret, and tells when it
// cut one.
func TestStreamRedactorHoldsBackOnlyAStart(t *testing.T) {
	r := NewRedactor(testSecrets)
	s := r.Stream()
	steps := []struct {
		in, out string
		held    int
		cut     bool
	}{
		{"hello ", "hello ", 0, false},
		{"world s", "world ", 1, false},
		{"o", "so", 0, false},
		{" sk-te", " ", 5, false},
		{"st-0123456789!", "[REDACTED]!", 0, true},
	}
	for _, st := range steps {
		if got := s.Write(st.in); got != st.out || s.Held() != st.held || s.Cut() != st.cut {
			t.Errorf("Write(%q) = %q, held %d, cut %v; want %q, %d, %v", st.in, got, s.Held(), s.Cut(), st.out, st.held, st.cut)
		}
	}
	if got := s.Flush(); got != "" || s.Cut() {
		t.Errorf("Flush() = %q, cut %v after; want nothing", got, s.Cut())
	}
	var zero StreamRedactor
	if got := zero.Write("sk-test-0123456789"); got != "sk-test-0123456789" {
		t.Errorf("the zero stream changed the text to %q", got)
	}
}

// The fast path, text that neither holds nor ends like a secret, does not
// allocate.
func TestStreamRedactorFastPathDoesNotAllocate(t *testing.T) {
	r := NewRedactor(testSecrets)
	s := r.Stream()
	delta := "token token token "
	if n := testing.AllocsPerRun(100, func() {
		if s.Write(delta) != delta {
			t.Fatal("the text was changed")
		}
	}); n != 0 {
		t.Errorf("Write allocates %v times per delta, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { r.String(delta) }); n != 0 {
		t.Errorf("String allocates %v times, want 0", n)
	}
}

// A Log over a file store that redacts publishes, and returns, what the
// store wrote: no subscriber sees a secret the line does not hold.
func TestLogPublishesWhatTheStoreWrote(t *testing.T) {
	dir := t.TempDir()
	l := New(mustOpen(t, dir, &FileOptions{Secrets: testSecrets}), nil)
	sub := l.Subscribe()
	in := []contract.Envelope{
		durable("the key is sk-test-0123456789"),
		durable("nothing secret"),
		{ID: "ev-intent", Time: t0, Session: "s1", Run: "r1", Turn: 1, Data: &contract.IntentProposed{ToolIntent: contract.ToolIntent{
			ID: "int_1", ToolName: "bash", Input: []byte(`{"command":"echo sk-other-key"}`), RawInput: `{"command":"echo sk-other-key"}`,
		}}},
	}
	for i := range in {
		in[i].ID = "ev-" + string(rune('a'+i))
	}
	var returned []contract.Envelope
	for _, env := range in {
		got, err := l.Append(env)
		if err != nil {
			t.Fatal(err)
		}
		returned = append(returned, got)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	published := drain(t, sub)
	stored := collect(t, mustOpen(t, dir, &FileOptions{ReadOnly: true}).Events(1))
	if d := cmp.Diff(stored, published); d != "" {
		t.Errorf("published what the log does not hold (-stored +published):\n%s", d)
	}
	if d := cmp.Diff(stored, returned); d != "" {
		t.Errorf("Append returned what the log does not hold (-stored +returned):\n%s", d)
	}
	if text := published[0].Data.(*contract.ModelText).Text; text != "the key is [REDACTED]" {
		t.Errorf("published text %q, want the key redacted", text)
	}
	if raw := published[2].Data.(*contract.IntentProposed).RawInput; raw != `{"command":"echo [REDACTED]"}` {
		t.Errorf("published raw input %q, want the key redacted", raw)
	}
}

// BenchmarkRedactStreamDelta is the cost of a stream redactor per delta of
// a model's answer, with four secrets, for deltas that hold none (the fast
// path) and a text where a key is split across deltas.
func BenchmarkRedactStreamDelta(b *testing.B) {
	r := NewRedactor(testSecrets)
	for _, bc := range []struct {
		name   string
		deltas []string
	}{
		{"plain", []string{"I'll run ", "the test ", "suite to ", "see what ", "fails, ", "then fix ", "it.\n"}},
		{"split key", []string{"the key ", "is sk-te", "st-01234", "56789 so ", "keep it ", "secret.\n"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := r.Stream()
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				s.Write(bc.deltas[n%len(bc.deltas)])
				if n++; n%len(bc.deltas) == 0 {
					s.Flush()
				}
			}
		})
	}
}

// BenchmarkRedactString is the cost of redacting a warning line that holds
// no secret, and one that does.
func BenchmarkRedactString(b *testing.B) {
	r := NewRedactor(testSecrets)
	for _, bc := range []struct{ name, text string }{
		{"clean", "rein: warning: the provider is slow to answer (provider=openai, model=m, attempt=2)"},
		{"secret", "rein: error: 401 invalid key sk-test-0123456789 for this project"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.String(bc.text)
			}
		})
	}
}

// FuzzStreamRedactor cuts a text into pieces where the fuzzer says and
// checks the stream against String of the whole text.
func FuzzStreamRedactor(f *testing.F) {
	f.Add("the key is sk-test-0123456789-long, keep it", []byte{3, 9, 1, 1, 7})
	f.Add(`sk-sk-test-0123456789pa"ssw0rd!sk-other-key`, []byte{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2})
	r := NewRedactor(testSecrets)
	f.Fuzz(func(t *testing.T, text string, cuts []byte) {
		s := r.Stream()
		var shown strings.Builder
		rest := text
		for _, c := range cuts {
			n := min(int(c), len(rest))
			shown.WriteString(s.Write(rest[:n]))
			rest = rest[n:]
			if s.Held() > len("sk-test-0123456789-long")-1 {
				t.Fatalf("holds back %d bytes", s.Held())
			}
			for _, secret := range testSecrets {
				if strings.Contains(shown.String(), secret) {
					t.Fatalf("shown %q holds %q", shown.String(), secret)
				}
			}
		}
		shown.WriteString(s.Write(rest))
		shown.WriteString(s.Flush())
		if want := r.String(text); shown.String() != want {
			t.Fatalf("shown %q, want %q", shown.String(), want)
		}
	})
}
