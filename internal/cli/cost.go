package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
)

// How tokens and costs read: counts with thousands separators (14,000),
// dollars to four places under a dollar ($0.0123) and to the cent above,
// and "cost unknown" whenever a call's price was unknown: a total with a
// part missing is never shown as if it were whole.

// thousands shows n with a comma between each group of three digits.
func thousands[N int | int64](n N) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// dollars shows an amount of US dollars.
func dollars(usd float64) string {
	switch {
	case usd == 0:
		return "$0"
	case usd < 0.0001:
		return "<$0.0001"
	case usd < 1:
		return fmt.Sprintf("$%.4f", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}

// callCost shows what one model call cost: its price, or "cost unknown"
// when the model's prices are not known.
func callCost(u *contract.ModelUsage) string {
	if u.CostUSD == nil {
		return "cost unknown"
	}
	return dollars(*u.CostUSD)
}

// totalCost shows what calls cost in all, or "cost unknown" when any
// call's price was unknown.
func totalCost(t *contract.Totals) string {
	if !t.CostKnown() {
		return "cost unknown"
	}
	return dollars(t.CostUSD)
}

// tokens shows the tokens of calls: in, the cache's share of it when
// there is one, and out ("1,500 in (1,400 cache read, 100 cache write),
// 48 out").
func tokens(in, out, cacheRead, cacheWrite int64) string {
	var cache []string
	if cacheRead > 0 {
		cache = append(cache, thousands(cacheRead)+" cache read")
	}
	if cacheWrite > 0 {
		cache = append(cache, thousands(cacheWrite)+" cache write")
	}
	s := thousands(in) + " in"
	if len(cache) > 0 {
		s += " (" + strings.Join(cache, ", ") + ")"
	}
	return s + ", " + thousands(out) + " out"
}

// totals shows the tokens and the cost of calls on one line.
func totals(t *contract.Totals) string {
	if t.Calls == 0 {
		return "no usage reported"
	}
	return "tokens " + tokens(t.InputTokens, t.OutputTokens, t.CacheReadTokens, t.CacheWriteTokens) + " · " + totalCost(t)
}

// tally sums the usage of a run as its events come: run.finished's
// usage when the kernel recorded it, else the sum of its model.usage
// events. It keeps run.finished's reason too.
type tally struct {
	calls  contract.Totals
	run    *contract.Totals
	active bool
	reason string
}

// see takes in one event.
func (t *tally) see(e contract.Event) {
	switch e := e.(type) {
	case *contract.RunStarted:
		t.calls, t.run, t.active, t.reason = contract.Totals{}, nil, false, ""
	case *contract.ModelUsage:
		t.calls.Add(e)
		t.active = true
	case *contract.RunFinished:
		t.run, t.reason = e.Usage, e.Reason
	}
}

// total is the run's usage; ok is false when no model call reported any.
func (t *tally) total() (contract.Totals, bool) {
	if t.run != nil {
		return *t.run, true
	}
	return t.calls, t.active
}
