package projection

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

// Plan is what a compaction replaces and how it is summarised: messages
// [0, Replaced) of the state (the events FromSeq to ToSeq) go into the
// summary, the rest is kept verbatim. Chunks is the transcript of what is
// replaced, cut so that each summary request fits the budget: one summary
// request per chunk, each carrying the summary so far.
type Plan struct {
	Replaced       int
	FromSeq, ToSeq uint64
	Chunks         []string
	// TokensBefore is the estimate of the request before the compaction.
	TokensBefore int
	// budget and ratio size the summary requests.
	budget Budget
	ratio  float64
}

// assumedWindow is the window a compaction plans with when the model's is
// unknown: small enough for any model rein may talk to.
const assumedWindow = 32000

// The cuts of a transcript: a message's text, a tool call's input and a
// tool result are cut to these many bytes (a result keeps its head and
// its tail, where the outcome usually is).
const (
	maxTranscriptText   = 8 << 10
	maxTranscriptInput  = 1 << 10
	maxTranscriptResult = 4 << 10
	minChunk            = 2 << 10
)

// minReplaced is the least a compaction must take out of the request, in
// bytes, to be worth a summary: below it the summary would weigh about
// as much as what it replaces.
const minReplaced = 4 << 10

// ErrNothingToCompact is what [PlanCompaction]'s error wraps when there
// is nothing to compact; the error says why.
var ErrNothingToCompact = errors.New("nothing to compact")

// PlanCompaction plans the compaction of s: it keeps a recent tail of
// about Budget.Tail tokens, beginning at a user or an assistant message and
// holding at least the latest assistant message with its results, and
// renders the rest (after the summary of an earlier compaction) as a plain
// transcript cut into chunks. Its error wraps [ErrNothingToCompact] and
// says why when there is nothing to compact: the conversation is empty,
// the tail is the whole of it (the latest user message stays verbatim
// anyway), or, unless a person asked (Asked), what it would replace is
// too little to be worth a summary.
func PlanCompaction(s *state.State, reg *registry.Registry, opts *Options) (*Plan, error) {
	if opts == nil {
		opts = &Options{}
	}
	b := opts.Budget
	if !b.Known() {
		tail := b.Tail
		b = NewBudget(&contract.ModelInfo{ContextWindow: assumedWindow}, b.CompactAt)
		b.Tail = tail
	}
	if len(s.Messages) == 0 {
		return nil, fmt.Errorf("%w: the conversation is empty", ErrNothingToCompact)
	}
	k := keptFrom(s, b.tail())
	n := 0
	if k > 0 {
		n = replacedSize(s, k)
	}
	switch {
	case n == 0:
		return nil, fmt.Errorf("%w: the conversation is only its latest turn, which is kept verbatim", ErrNothingToCompact)
	case n < minReplaced && !opts.Asked:
		return nil, fmt.Errorf("%w: what comes before the recent turns (%d bytes) weighs less than a summary would (%d KiB)",
			ErrNothingToCompact, n, minReplaced>>10)
	}
	p := &Plan{Replaced: k, FromSeq: seqOf(s, 0), ToSeq: seqOf(s, k-1), budget: b, ratio: s.Calib.Ratio()}
	p.TokensBefore = Project(s, reg, opts).Tokens
	p.Chunks = chunk(transcript(s, k, opts.SessionDir), p.chunkBytes())
	return p, nil
}

// keptFrom returns the index of the first message a compaction keeps: the
// latest messages that make up at most tail tokens, and at least the
// latest assistant message with its results, moved forward to a user or
// an assistant message (a kept tail never begins with a result cut off
// from its call).
func keptFrom(s *state.State, tail int) int {
	elided := elidedSet(s)
	last := len(s.Messages)
	for j := len(s.Messages) - 1; j >= 0; j-- {
		if s.Messages[j].Role == contract.RoleAssistant {
			last = j
			break
		}
	}
	want := int(float64(tail) * s.Calib.Ratio())
	i := tailFrom(len(s.Messages), last, want, func(i int) int { return sentSize(s, i, elided) })
	for i < last && s.Messages[i].Role == contract.RoleTool {
		i++
	}
	return i
}

// sentSize returns the bytes message i of s weighs in a request: an
// elided result's are its stub's.
func sentSize(s *state.State, i int, elided map[string]bool) int {
	m := &s.Messages[i]
	if m.Result == nil || !elided[m.Result.IntentID] {
		return messageSize(m)
	}
	stub := stubText(m.Result, callOf(s.Messages[:i], m.Result.IntentID), seqOf(s, i), "")
	return len(stub) + messageSize(&contract.ModelMessage{})
}

// replacedSize returns the bytes that replacing messages [0, k) of s
// takes out of the request: their own (an elided result's at the size of
// its stub) and the earlier summary's, less the latest user message's,
// which stays.
func replacedSize(s *state.State, k int) int {
	elided := elidedSet(s)
	n := len(s.Summary)
	latest := -1
	for i := k - 1; i >= 0 && latest < 0; i-- {
		if s.Messages[i].Role == contract.RoleUser {
			latest = i
		}
	}
	for i := range k {
		if i != latest || hasUserFrom(s.Messages, k) {
			// (The latest user message stays, after the summary.)
			n += sentSize(s, i, elided)
		}
	}
	return n
}

// hasUserFrom reports whether msgs[k:] holds a user message.
func hasUserFrom(msgs []contract.ModelMessage, k int) bool {
	return slices.ContainsFunc(msgs[k:], func(m contract.ModelMessage) bool { return m.Role == contract.RoleUser })
}

// chunkBytes returns how many bytes of transcript one summary request may
// carry: the input budget less the summary prompt and the summary so far
// (at most the summary's own output), at the calibrated ratio.
func (p *Plan) chunkBytes() int {
	prompt := len(summaryPrompt) + 1024 // the framing of the request and a focus
	room := p.budget.Input() - summaryTokens(p.budget) - int(float64(prompt)/p.ratio)
	return max(int(float64(room)*p.ratio), minChunk)
}

// summaryTokens is the output a summary request reserves, and so the
// most a summary carried into the next chunk's request may take.
func summaryTokens(b Budget) int {
	n := min(max(b.Input()/8, 1024), 8000)
	if b.Reserved > 0 {
		n = min(n, b.Reserved)
	}
	return n
}

// transcript renders messages [0, k) of s, after the summary of an
// earlier compaction, as plain text entries: a header for each message
// with its role and seq, its text, its tool calls with their input, and
// tool results cut to a few KB (elided ones as their stubs).
func transcript(s *state.State, k int, dir string) []string {
	elided := elidedSet(s)
	var out []string
	if s.Summary != "" {
		out = append(out, "## summary of the conversation before (an earlier compaction)\n"+s.Summary)
	}
	for i := range k {
		out = append(out, entry(s, i, elided[resultID(&s.Messages[i])], dir))
	}
	return out
}

// elidedSet returns the intents of s.Elided as a set.
func elidedSet(s *state.State) map[string]bool {
	set := make(map[string]bool, len(s.Elided))
	for _, id := range s.Elided {
		set[id] = true
	}
	return set
}

func resultID(m *contract.ModelMessage) string {
	if m.Result == nil {
		return ""
	}
	return m.Result.IntentID
}

// entry renders message i of s for a transcript.
func entry(s *state.State, i int, elided bool, dir string) string {
	m := &s.Messages[i]
	var b strings.Builder
	b.WriteString("## " + string(m.Role))
	if m.Result != nil {
		b.WriteString(" (result of " + m.Result.ToolName)
		if m.Result.IsError {
			b.WriteString(", failed")
		}
		b.WriteString(")")
	}
	if seq := seqOf(s, i); seq > 0 {
		b.WriteString(", seq " + strconv.FormatUint(seq, 10))
	}
	b.WriteString("\n")
	if m.Text != "" {
		b.WriteString(excerpt.Text(m.Text, maxTranscriptText) + "\n")
	}
	for _, c := range m.ToolCalls {
		b.WriteString("-> " + c.ToolName + " " + excerpt.Bytes(c.Input, maxTranscriptInput) + "\n")
	}
	if m.Result != nil {
		text := headTail(m.Result.Text, maxTranscriptResult)
		if elided {
			text = stubText(m.Result, callOf(s.Messages[:i], m.Result.IntentID), seqOf(s, i), dir)
		}
		b.WriteString(text + "\n")
	}
	return b.String()
}

// headTail returns s cut to about n bytes: its head and its tail, with a
// line between them that says how much was left out.
func headTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head := excerpt.Prefix(s, n/2)
	tail := s[len(s)-n/2:]
	for len(tail) > 0 && !isRuneStart(tail[0]) {
		tail = tail[1:]
	}
	return fmt.Sprintf("%s\n[... %s bytes left out ...]\n%s", head, thousands(len(s)-len(head)-len(tail)), tail)
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// chunk groups entries into chunks of at most n bytes, an entry longer
// than n cut to it.
func chunk(entries []string, n int) []string {
	var out []string
	var cur strings.Builder
	for _, e := range entries {
		e = excerpt.Text(e, n-len(excerpt.Marker))
		if cur.Len() > 0 && cur.Len()+len(e)+1 > n {
			out = append(out, cur.String())
			cur.Reset()
		}
		cur.WriteString(e)
		cur.WriteString("\n")
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}
