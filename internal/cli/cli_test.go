package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/eventlog/memstore"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/providertest"
	"github.com/rein-agent/rein/internal/state"
)

// model returns a provider that streams the same events on every call.
func model(events ...contract.ModelEvent) provider.Provider {
	return providertest.Func(func(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
		return func(yield func(contract.ModelEvent, error) bool) {
			for _, e := range events {
				if pe, ok := e.(*contract.ProviderError); ok {
					yield(nil, pe)
					return
				}
				if !yield(e, nil) {
					return
				}
			}
		}
	})
}

var answer = []contract.ModelEvent{
	&contract.ModelStarted{Provider: "fake"},
	&contract.ReasoningDelta{Text: "thinking"},
	&contract.TextDelta{Text: "The test "},
	&contract.TextDelta{Text: "fails."},
	&contract.ModelFinished{Reason: contract.FinishStop},
}

type result struct {
	code           int
	stdout, stderr string
}

// run executes the CLI with a kernel over an in-memory log.
func run(t *testing.T, p provider.Provider, stdin string, args ...string) result {
	t.Helper()
	var out, errw bytes.Buffer
	deps := Deps{
		Version: "rein test",
		Open: func(ctx context.Context, spec Spec) (*Session, error) {
			if spec.Provider == "nope" {
				return nil, fmt.Errorf("%w: unknown provider %q (known: fake)", ErrUsage, spec.Provider)
			}
			log := eventlog.New(memstore.New(), nil)
			k, err := kernel.New(p, log, &kernel.Options{ProviderName: "fake", Cwd: spec.Cwd})
			if err != nil {
				return nil, err
			}
			return &Session{Runtime: k, Dir: "/sessions/x", Close: log.Close}, nil
		},
		Demo: func(ctx context.Context, _ DemoOptions) (*Demo, error) {
			log := eventlog.New(memstore.New(), nil)
			k, err := kernel.New(p, log, &kernel.Options{ProviderName: "scripted"})
			if err != nil {
				return nil, err
			}
			return &Demo{Session: Session{Runtime: k, Close: log.Close}, Workspace: "/tmp/demo", Prompt: "fix the tests", Want: state.WaitingForTool, Explain: "EXPLAINED"}, nil
		},
		Stdin:  strings.NewReader(stdin),
		Stdout: &out,
		Stderr: &errw,
	}
	code := Execute(t.Context(), args, deps)
	return result{code, out.String(), errw.String()}
}

func TestExecAnswerOnStdoutProgressOnStderr(t *testing.T) {
	r := run(t, model(answer...), "", "exec", "why", "do", "tests", "fail")
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if r.stdout != "The test fails.\n" {
		t.Errorf("stdout = %q, want the answer only", r.stdout)
	}
	if !strings.Contains(r.stderr, "thinking") || !strings.Contains(r.stderr, "session: /sessions/x") {
		t.Errorf("stderr = %q, want the reasoning and the session", r.stderr)
	}
}

func TestJSONPrintsOnlyDurableEvents(t *testing.T) {
	for _, deltas := range []bool{false, true} {
		t.Run(fmt.Sprint("deltas=", deltas), func(t *testing.T) {
			args := []string{"exec", "--json", "hi"}
			if deltas {
				args = append(args, "--deltas")
			}
			r := run(t, model(answer...), "", args...)
			if r.code != ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var seq uint64
			sawDelta := false
			for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
				var raw map[string]any
				if err := json.Unmarshal([]byte(line), &raw); err != nil {
					t.Fatalf("stdout line is not JSON: %q", line)
				}
				var env contract.Envelope
				if err := json.Unmarshal([]byte(line), &env); err != nil {
					t.Fatalf("stdout line is not an envelope: %v", err)
				}
				if contract.IsDelta(env.Type()) {
					sawDelta = true
					if _, has := raw["seq"]; has {
						t.Errorf("delta with a seq: %s", line)
					}
					continue
				}
				seq++
				if env.Seq != seq {
					t.Errorf("seq %d, want %d (dense): %s", env.Seq, seq, line)
				}
			}
			if sawDelta != deltas {
				t.Errorf("deltas printed = %v, want %v", sawDelta, deltas)
			}
			if seq < 6 {
				t.Errorf("only %d durable events printed", seq)
			}
		})
	}
}

func TestDeltasNeedJSON(t *testing.T) {
	if r := run(t, model(answer...), "", "exec", "--deltas", "hi"); r.code != ExitUsage {
		t.Errorf("exit %d, want %d", r.code, ExitUsage)
	}
}

func TestUnknownProvider(t *testing.T) {
	r := run(t, model(answer...), "", "exec", "--provider", "nope", "hi")
	if r.code != ExitUsage || !strings.Contains(r.stderr, `unknown provider "nope"`) {
		t.Errorf("exit %d, stderr %q; want 2 and a clear message", r.code, r.stderr)
	}
}

func TestExecFailureExitsOne(t *testing.T) {
	r := run(t, model(&contract.ProviderError{Kind: contract.KindAuth, HTTPStatus: 401, Message: "invalid key"}), "", "exec", "hi")
	if r.code != ExitFailed || !strings.Contains(r.stderr, "auth: invalid key") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestInteractiveLineMode(t *testing.T) {
	r := run(t, model(answer...), "first\n\nsecond\n", "hello")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if n := strings.Count(r.stdout, "The test fails."); n != 3 {
		t.Errorf("%d answers on stdout, want 3 (the argument and two lines):\n%s", n, r.stdout)
	}
	if !strings.Contains(r.stderr, "Ctrl-D") {
		t.Errorf("stderr %q does not say how to leave", r.stderr)
	}
}

func TestDemo(t *testing.T) {
	withIntent := []contract.ModelEvent{
		&contract.TextDelta{Text: "Running the tests."},
		&contract.IntentProposed{ToolIntent: contract.ToolIntent{ToolName: "bash", Input: json.RawMessage(`{"command":"go test ./..."}`)}},
		&contract.ModelFinished{Reason: contract.FinishToolUse},
	}
	r := run(t, model(withIntent...), "", "demo")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"SCRIPTED", "● bash go test ./...\n", "EXPLAINED"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if !strings.Contains(r.stdout, "Running the tests.") {
		t.Errorf("stdout = %q", r.stdout)
	}
	// A demo that does not end as designed fails.
	if r := run(t, model(answer...), "", "demo"); r.code != ExitFailed {
		t.Errorf("demo ending completed instead of waiting_for_tool: exit %d", r.code)
	}
	// --json leaves stdout to JSON lines.
	r = run(t, model(withIntent...), "", "demo", "--json")
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("demo --json printed a non-JSON line: %q", line)
		}
	}
}

func TestVersionAndUsage(t *testing.T) {
	if r := run(t, model(), "", "version"); r.code != 0 || r.stdout != "rein test\n" {
		t.Errorf("version: %d %q", r.code, r.stdout)
	}
	if r := run(t, model(), "", "exec", "--bogus", "x"); r.code != ExitUsage {
		t.Errorf("unknown flag: exit %d, want 2", r.code)
	}
	if r := run(t, model(), "", "exec"); r.code != ExitUsage {
		t.Errorf("exec without prompt: exit %d, want 2", r.code)
	}
}

func TestOpenErrorIsNotUsage(t *testing.T) {
	var errw bytes.Buffer
	code := Execute(t.Context(), []string{"exec", "hi"}, Deps{
		Open:   func(context.Context, Spec) (*Session, error) { return nil, errors.New("disk full") },
		Stdout: &bytes.Buffer{}, Stderr: &errw,
	})
	if code != ExitFailed || !strings.Contains(errw.String(), "disk full") {
		t.Errorf("exit %d, stderr %q", code, errw.String())
	}
}

func TestDebugNormalize(t *testing.T) {
	var gotAPI, gotBody string
	var out, errw bytes.Buffer
	deps := Deps{
		Normalize: func(ctx context.Context, api string, r io.Reader, w io.Writer) error {
			b, _ := io.ReadAll(r)
			gotAPI, gotBody = api, string(b)
			_, err := io.WriteString(w, "{\"type\":\"model.started\"}\n")
			return err
		},
		Stdin: strings.NewReader("data: [DONE]\n\n"), Stdout: &out, Stderr: &errw,
	}
	if code := Execute(t.Context(), []string{"debug", "normalize", "--api", "chat", "-"}, deps); code != 0 {
		t.Fatalf("exit %d: %s", code, errw.String())
	}
	if gotAPI != "chat" || gotBody != "data: [DONE]\n\n" || out.String() != "{\"type\":\"model.started\"}\n" {
		t.Errorf("api %q body %q out %q", gotAPI, gotBody, out.String())
	}
	if code := Execute(t.Context(), []string{"debug", "normalize", "-"}, deps); code != ExitUsage {
		t.Errorf("without --api: exit %d, want 2", code)
	}
	if code := Execute(t.Context(), []string{"debug", "normalize", "--api", "chat", "/no/such/file"}, deps); code != ExitUsage {
		t.Errorf("missing file: exit %d, want 2", code)
	}
}

func TestFlagsReachTheWiring(t *testing.T) {
	var got Spec
	deps := Deps{
		Open: func(ctx context.Context, spec Spec) (*Session, error) {
			got = spec
			return nil, fmt.Errorf("%w: stop here", ErrUsage)
		},
		Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{},
	}
	Execute(t.Context(), []string{"exec", "--provider", "openai", "--model", "llama3:8b", "--base-url", "http://127.0.0.1:11434/v1", "--fallback", "anthropic,openai:gpt-4.1-mini", "hi"}, deps)
	want := Spec{Provider: "openai", Model: "llama3:8b", BaseURL: "http://127.0.0.1:11434/v1", Fallback: []string{"anthropic", "openai:gpt-4.1-mini"}}
	got.Cwd = ""
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("spec (-want +got):\n%s", d)
	}
	// --fallback= says "no fallback": an empty list, which overrides the
	// configuration's, where nil would leave it to it.
	Execute(t.Context(), []string{"exec", "--fallback=", "hi"}, deps)
	if got.Fallback == nil || len(got.Fallback) != 0 {
		t.Errorf("--fallback= gave %#v, want an empty list, not nil", got.Fallback)
	}
}

func TestRetriesAndFallbacksAreShown(t *testing.T) {
	var errw bytes.Buffer
	term := newTerminal(&bytes.Buffer{}, &errw)
	for _, e := range []contract.Event{
		&contract.ProviderError{Kind: contract.KindRateLimit, Retryable: true, Message: "slow down"},
		&contract.RetryScheduled{Attempt: 2, DelayMS: 1500, Kind: contract.KindRateLimit},
		&contract.FallbackSelected{From: "anthropic:claude", To: "openai:gpt-4.1-mini", Reason: "overloaded after 4 attempt(s)"},
	} {
		if err := term.event(contract.Envelope{Data: e}); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"  retrying in 1.5s (rate limited, attempt 2)\n", "switching from anthropic:claude to openai:gpt-4.1-mini: overloaded after 4 attempt(s)"} {
		if !strings.Contains(errw.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errw.String())
		}
	}
}

// --max-cost and --reasoning-effort reach the Spec wherever --model is
// taken; a value that is no amount or no level is a usage error that
// says what is wanted.
func TestCostAndEffortFlags(t *testing.T) {
	for _, c := range []struct {
		args   []string
		want   Spec
		code   int
		stderr string
	}{
		{args: []string{"exec", "--max-cost", "0.50", "--reasoning-effort", "High", "hi"}, want: Spec{MaxCost: 0.5, ReasoningEffort: "high"}, code: ExitUsage},
		{args: []string{"exec", "--max-cost", "$2", "hi"}, want: Spec{MaxCost: 2}, code: ExitUsage},
		{args: []string{"exec", "--max-cost", "0", "hi"}, code: ExitUsage},
		{args: []string{"--max-cost", "1.25", "hi"}, want: Spec{MaxCost: 1.25}, code: ExitUsage},
		{args: []string{"exec", "--max-cost", "-1", "hi"}, code: ExitUsage, stderr: "--max-cost \"-1\": want a positive number of US dollars"},
		{args: []string{"exec", "--max-cost", "lots", "hi"}, code: ExitUsage, stderr: "want a positive number of US dollars, such as 0.50"},
		{args: []string{"exec", "--max-cost", "Inf", "hi"}, code: ExitUsage, stderr: "want a positive number"},
		{args: []string{"exec", "--reasoning-effort", "very high", "hi"}, code: ExitUsage, stderr: "want one level of the model's, such as low, medium or high"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var got Spec
			opened := false
			var errw bytes.Buffer
			deps := Deps{
				Open: func(ctx context.Context, spec Spec) (*Session, error) {
					got, opened = spec, true
					return nil, fmt.Errorf("%w: stop here", ErrUsage)
				},
				Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &errw,
			}
			if code := Execute(t.Context(), c.args, deps); code != c.code {
				t.Errorf("exit %d, want %d: %s", code, c.code, errw.String())
			}
			if c.stderr != "" {
				if opened || !strings.Contains(errw.String(), c.stderr) {
					t.Errorf("opened %v, stderr %q; want no session and %q", opened, errw.String(), c.stderr)
				}
				return
			}
			got.Cwd, got.Approver, got.Trust = "", nil, nil
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("spec (-want +got):\n%s", d)
			}
		})
	}
}

// The JSON lines keep run.finished's usage as the runtime recorded it.
func TestJSONKeepsTheUsage(t *testing.T) {
	var out bytes.Buffer
	j := &jsonLines{w: &out}
	u := &contract.Totals{InputTokens: 1200, OutputTokens: 60, CacheReadTokens: 800, CacheWriteTokens: 100, Calls: 2, CostUSD: 0.0125, Unpriced: 1}
	if err := j.event(contract.Envelope{Seq: 9, Session: "ses_x", Data: &contract.RunFinished{Outcome: contract.OutcomeBudget, Usage: u}}); err != nil {
		t.Fatal(err)
	}
	var env contract.Envelope
	if err := json.Unmarshal(out.Bytes(), &env); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	f, ok := env.Data.(*contract.RunFinished)
	if !ok || f.Usage == nil {
		t.Fatalf("got %s", out.String())
	}
	if d := cmp.Diff(u, f.Usage); d != "" {
		t.Errorf("usage (-want +got):\n%s", d)
	}
}
