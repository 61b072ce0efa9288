package kernel

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
)

// Model is one model the kernel may call: an adapter, the names it goes by
// in the record, what it can do, and where its credential came from.
type Model struct {
	Provider provider.Provider
	// Name is the provider's name ("openai"); Model is passed through as
	// given, empty meaning the adapter's default.
	Name, Model  string
	Capabilities provider.Capabilities
	// KeyHint names where the credential came from ("OPENAI_API_KEY"), so
	// that an auth failure can say what to fix; empty means none.
	KeyHint string
	// Secret is the credential itself, known to the kernel only so that it
	// can cut it out of anything it records (a server may echo a key in an
	// error message); empty means none.
	Secret string
	// BaseURL is the endpoint, for the record (session.started), so that a
	// resumed session reaches the same server; empty means the provider's
	// default. It must hold no credential.
	BaseURL string
	// Info is what rein knows of the model's window, output and prices,
	// and where it learned them (recorded in session.started); nil means
	// nothing: no context policy, cost unknown.
	Info *contract.ModelInfo
	// Explain, when set, is asked what more to tell the person when a run
	// stops on perr, a failure of this model that no retry or fallback
	// fixed (which models an OpenAI-compatible server offers, when it did
	// not find the one asked for): a sentence added to the run's reason,
	// "" for nothing. It may make a short request of its own, bounded by
	// ctx; it must be safe to call from the run's goroutine. nil means
	// nothing more.
	Explain func(ctx context.Context, perr *contract.ProviderError) string
}

// RetryPolicy is how the kernel retries a failed model call before it
// falls back to the next model. The zero value means the defaults of each
// field.
type RetryPolicy struct {
	// Attempts is how many calls one model gets for one turn, the first
	// included; zero means 4.
	Attempts int
	// BaseDelay is the first backoff; it doubles with every retry. Zero
	// means 1 s.
	BaseDelay time.Duration
	// MaxDelay caps the backoff; zero means 30 s.
	MaxDelay time.Duration
	// MaxRetryAfter caps how long a server's retry-after hint is honoured;
	// a longer hint moves on to the next model instead. Zero means 60 s.
	MaxRetryAfter time.Duration
	// Sleep waits d or until ctx is done; nil means a timer. Tests replace
	// it to run without waiting.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.Attempts <= 0 {
		p.Attempts = 4
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = time.Second
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 30 * time.Second
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = 60 * time.Second
	}
	if p.Sleep == nil {
		p.Sleep = sleep
	}
	return p
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// backoff returns the delay before retry number n (1-based) after err:
// capped exponential backoff with jitter (between half and all of it), or
// the server's hint when that is longer. ok is false when the hint is
// longer than the policy will wait.
func (p RetryPolicy) backoff(n int, err *contract.ProviderError) (d time.Duration, ok bool) {
	d = p.BaseDelay << min(n-1, 20)
	if d > p.MaxDelay || d <= 0 {
		d = p.MaxDelay
	}
	d = d/2 + rand.N(d/2+1)
	if hint := err.RetryAfter(); hint > 0 {
		if hint > p.MaxRetryAfter {
			return hint, false
		}
		d = max(d, hint)
	}
	return d, true
}

// modelCall makes the turn's model call under the failure policy: retries
// with backoff, then the fallback models in order. It returns the id of the
// event that ended it and, when the run ends here, the outcome and reason;
// an empty outcome means the run waits for its pending intents.
func (r *run) modelCall(ctx context.Context, cause string) (last string, outcome contract.Outcome, reason string) {
	k := r.k
	tries := 0
	compacted := false // a context_length error gets one compaction and one retry
	for {
		m := &k.models[k.current]
		var perr *contract.ProviderError
		last, perr = r.attempt(ctx, m, cause)
		if r.err != nil {
			return "", "", ""
		}
		if r.halt != nil {
			return last, r.halt.outcome, r.halt.reason
		}
		if perr == nil {
			if len(r.state().Pending) > 0 {
				return last, "", ""
			}
			return last, contract.OutcomeCompleted, ""
		}
		tries++
		cause = last
		switch perr.Kind {
		case contract.KindAborted:
			return last, contract.OutcomeCancelled, perr.Message
		case contract.KindAuth, contract.KindQuota, contract.KindPermission:
			// Waiting or switching will not fix a credential or an account.
			return last, contract.OutcomeFailed, stopReason(m, perr)
		case contract.KindContextLength:
			if compacted {
				return last, contract.OutcomeFailed, tooLong(m, perr, "even after a compaction and a retry")
			}
			compacted = true
			var retry bool
			cause, retry = r.makeRoom(ctx, m, last)
			if r.err != nil {
				return "", "", ""
			}
			if !retry {
				return cause, contract.OutcomeFailed, tooLong(m, perr, "and nothing could be compacted or elided to make room")
			}
			if over, why := r.overBudget(); over {
				return cause, contract.OutcomeBudget, why // the summary calls cost too
			}
			tries = 0
			continue
		}
		var again bool
		was := k.current
		cause, again, outcome, reason = r.recover(ctx, m, perr, tries, last)
		if r.err != nil || !again {
			return cause, outcome, reason
		}
		if k.current != was {
			// The next model gets its own attempts, and its own compaction
			// after a context_length error.
			tries, compacted = 0, false
		}
	}
}

// recover applies the failure policy to perr, the tries-th failure of m
// in a row, whose provider.error is last: a retry after a backoff, else
// the next model. It returns the id of the last event appended and whether
// to call again; when not, the outcome and reason that end the run.
func (r *run) recover(ctx context.Context, m *Model, perr *contract.ProviderError, tries int, last string) (string, bool, contract.Outcome, string) {
	k := r.k
	policy := k.opts.Retry
	if perr.Retryable && tries < policy.Attempts {
		if delay, ok := policy.backoff(tries, perr); ok {
			env, err := r.emit(&contract.RetryScheduled{Attempt: tries + 1, MaxAttempts: policy.Attempts,
				DelayMS: delay.Milliseconds(), Kind: perr.Kind}, last)
			if err != nil {
				return "", false, "", ""
			}
			if err := policy.Sleep(ctx, delay); err != nil {
				return env.ID, false, contract.OutcomeCancelled, "cancelled while waiting to retry"
			}
			return env.ID, true, "", ""
		}
	}
	if k.current+1 >= len(k.models) {
		return last, false, contract.OutcomeFailed, r.failure(ctx, m, perr, tries)
	}
	next := &k.models[k.current+1]
	env, err := r.emit(&contract.FallbackSelected{
		From: label(m), To: label(next),
		Reason: fmt.Sprintf("%s after %d attempt(s): %s", perr.Kind, tries, perr.Message),
	}, last)
	if err != nil {
		return "", false, "", ""
	}
	k.mu.Lock() // Current reads it from other goroutines
	k.current++
	k.mu.Unlock()
	return env.ID, true, "", ""
}

// failure is why a run stops on perr, the tries-th failure of m in a row
// that nothing else fixes: the error, how many attempts it took, and what
// m's Explain adds.
func (r *run) failure(ctx context.Context, m *Model, perr *contract.ProviderError, tries int) string {
	reason := perr.Error()
	if tries > 1 {
		reason += fmt.Sprintf("; gave up after %d attempts", tries)
	}
	if m.Explain != nil {
		if more := m.Explain(ctx, perr); more != "" {
			reason += "; " + r.k.redactor.String(more)
		}
	}
	return reason
}

// makeRoom answers a context_length error: the estimate was wrong (the
// state corrects its ratio from the error), so the conversation is
// compacted once, and the call is worth trying again if the compaction
// took something or the request, projected anew with the corrected
// estimate, elides more. It returns the id of the last event appended.
func (r *run) makeRoom(ctx context.Context, m *Model, cause string) (string, bool) {
	cause, ok := r.compact(ctx, m, contract.CompactContextLength, "", cause)
	if r.err != nil {
		return cause, false
	}
	return cause, ok || r.elides(m)
}

// tooLong is why a run stops when the provider finds the conversation too
// long for the model, and what was done about it.
func tooLong(m *Model, perr *contract.ProviderError, done string) string {
	return perr.Error() + "; the conversation is too long for this model (" + modelName(m) + ") " + done +
		": start a new session, or pick a model with a larger window (--model)"
}

// stopReason is the one line that says what failed and what fixes it.
func stopReason(m *Model, perr *contract.ProviderError) string {
	fix := "check the account and the credentials of " + m.Name
	switch {
	case perr.Kind == contract.KindQuota:
		fix = "the account of " + m.Name + " is out of quota or credit; top it up or pick another provider with --provider"
	case m.KeyHint != "":
		fix = "the key in " + m.KeyHint + " was refused; export a valid one, or pick another provider with --provider"
	}
	return perr.Error() + "; " + fix
}

// label names a model as the fallback list does: "provider:model".
func label(m *Model) string {
	if m.Model == "" {
		return m.Name
	}
	return m.Name + ":" + m.Model
}
