package cli

import (
	"bufio"
	"cmp"
	"context"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/kernel"
)

// lineReader reads the person's lines in one goroutine, so that both the
// session's prompt and an approval question can wait for a line and give
// up when the run is cancelled. The goroutine ends when input does (a
// read from a terminal cannot be interrupted; it is left blocked when the
// process exits).
type lineReader struct {
	ch chan line
	// tty says the lines are typed (stdin is a terminal): a line typed
	// before a question was asked is no answer to it.
	tty  bool
	mu   sync.Mutex
	fail error
	// held are lines typed ahead of a question, handed out first by next.
	held []string
}

// line is a line read and when it was.
type line struct {
	text string
	at   time.Time
}

// typedAhead is how many typed lines are read ahead of their reader: each
// is timed as it is typed, not as it is taken.
const typedAhead = 64

func readLines(r io.Reader) *lineReader {
	l := &lineReader{ch: make(chan line)}
	if ttyOf(r) {
		l.tty, l.ch = true, make(chan line, typedAhead)
	}
	go func() {
		defer close(l.ch)
		in := bufio.NewScanner(r)
		in.Buffer(make([]byte, 64*1024), 16*1024*1024)
		for in.Scan() {
			l.ch <- line{text: in.Text(), at: time.Now()}
		}
		l.mu.Lock()
		l.fail = in.Err()
		l.mu.Unlock()
	}()
	return l
}

// next returns the next line, the ones held back from a question first;
// false at the end of input or when ctx is done.
func (l *lineReader) next(ctx context.Context) (string, bool) {
	l.mu.Lock()
	if len(l.held) > 0 {
		s := l.held[0]
		l.held = l.held[1:]
		l.mu.Unlock()
		return s, true
	}
	l.mu.Unlock()
	select {
	case ln, ok := <-l.ch:
		return ln.text, ok
	case <-ctx.Done():
		return "", false
	}
}

// answer returns the next line typed after since, when a question was
// asked. On a terminal a line typed before it is the person's next
// message, typed ahead while the model worked, not an answer: it is held
// for next, and said so on w.
func (l *lineReader) answer(ctx context.Context, since time.Time, w io.Writer) (string, bool) {
	for {
		select {
		case ln, ok := <-l.ch:
			if !ok {
				return "", false
			}
			if l.tty && ln.at.Before(since) {
				l.mu.Lock()
				l.held = append(l.held, ln.text)
				l.mu.Unlock()
				printf(w, "(kept for after this run, not an answer: %s)\n  › ", excerpt.Text(ln.text, 60))
				continue
			}
			return ln.text, true
		case <-ctx.Done():
			return "", false
		}
	}
}

// err returns the error that ended input, if any.
func (l *lineReader) err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fail
}

// prompter asks the person whether a tool may run: y (yes, this once),
// n (no), a (always: save the allow rule), d (never: save the deny rule);
// and, when the sandbox refused a command something, whether to run it
// again with no sandbox: y or n only. A no (n, or d) may say what the model
// should do instead, typed after it on the same line: "n, use the test
// helper" (see parseReply).
type prompter struct {
	lines *lineReader
	w     io.Writer
}

// tellHint says how to say no and what to do instead.
const tellHint = "  (to say no and tell the model what to do instead, type it after the n: n, use the test helper)\n"

// Approve asks q of the person. Everything in the question came from the
// model, the policy or a command's output: it is shown printable, so no
// character in a command (a carriage return, an override, an escape
// sequence) can change what the person reads before answering.
func (p *prompter) Approve(ctx context.Context, q kernel.Question) (kernel.Reply, error) {
	if q.Kind == kernel.AskOutsideSandbox {
		return p.outside(ctx, q)
	}
	verb := "use " + field(q.Tool) + " on"
	if q.Tool == "bash" {
		verb = "run"
	}
	printf(p.w, "\n? %s wants to %s: %s\n", asker(q), verb, subjectOf(q))
	if q.Reason != "" {
		printf(p.w, "  (%s)\n", q.Reason)
	}
	if q.Undoable {
		printf(p.w, "  (%s)\n", kernel.UndoNote)
	}
	// The change an edit or a write would make, as a diff.
	for l := range strings.Lines(q.Preview) {
		printf(p.w, "  | %s\n", text(strings.TrimSuffix(l, "\n")))
	}
	rules := field(strings.Join(q.Rules, ", "))
	options := shown("  [y] yes  [n] no")
	offered := []kernel.Answer{kernel.Yes, kernel.No}
	again := shown("  Answer y or n; after n you may say what to do instead (n, use the test helper).\n")
	if rules != "" {
		where := shown(" (this session only)")
		if q.SaveTo != "" {
			where = " (saved in " + field(q.SaveTo) + ")"
		}
		options += "  [a] always allow " + rules + "  [d] never: deny " + field(cmp.Or(strings.Join(q.DenyRules, ", "), strings.Join(q.Rules, ", "))) + where
		offered = append(offered, kernel.Always, kernel.Never)
		again = "  Answer y, n, a or d; after n or d you may say what to do instead (n, use the test helper).\n"
	}
	say(p.w, options+"\n"+tellHint)
	return p.ask(ctx, offered, again)
}

// outside asks whether a command the sandbox refused something to may run
// again with no sandbox. Only y and n are offered: no rule is ever saved
// for it, so every such run is a person's decision of the moment.
func (p *prompter) outside(ctx context.Context, q kernel.Question) (kernel.Reply, error) {
	whose := shown("this command")
	if q.Agent != "" {
		whose = asker(q) + "'s command"
	}
	printf(p.w, "\n? the sandbox stopped part of %s: %s\n", whose, subjectOf(q))
	// The reason's lines are what the sandbox refused (paths taken from
	// the command's output) and the question.
	for l := range strings.Lines(q.Reason) {
		printf(p.w, "  %s\n", strings.TrimSuffix(l, "\n"))
	}
	say(p.w, "  Yes runs this one command again with no sandbox at all: it can then write anywhere you can,\n"+
		"  read your credentials (~/.ssh, ~/.aws, ...) and reach the network. Nothing is saved for next time.\n")
	say(p.w, "  [y] yes, run it again with no sandbox  [n] no, keep the refusal\n"+tellHint)
	return p.ask(ctx, []kernel.Answer{kernel.Yes, kernel.No}, "  Answer y or n; after n you may say what to do instead.\n")
}

// ask reads lines until one answers with one of offered, saying again
// after each that does not.
func (p *prompter) ask(ctx context.Context, offered []kernel.Answer, again shown) (kernel.Reply, error) {
	asked := time.Now()
	for {
		say(p.w, "  › ")
		line, ok := p.lines.answer(ctx, asked, p.w)
		if !ok {
			return p.unanswered(ctx)
		}
		if r, ok := parseReply(line, offered); ok {
			return r, nil
		}
		say(p.w, again)
	}
}

// parseReply reads a line typed at an approval prompt: an answer (y or
// yes, n or no, a or always, d or never, in any case) that is one of
// offered and, after a denial (n, d), what the person tells the model to
// do instead: the rest of the line, past a comma, colon or semicolon
// ("n, use the test helper", "no: run go vet first"). A space alone does
// not end the answer: "never mind the tests" is a sentence, not a never. A yes or an
// always says nothing more: one followed by text is not an answer, so
// that nothing typed is silently dropped. ok is false when the line is
// not an answer offered.
func parseReply(line string, offered []kernel.Answer) (r kernel.Reply, ok bool) {
	s := strings.TrimSpace(line)
	word, rest := s, ""
	if i := strings.IndexAny(s, ",:;"); i >= 0 {
		word, rest = strings.TrimSpace(s[:i]), strings.TrimSpace(strings.TrimLeft(s[i:], ",:; \t"))
	}
	switch strings.ToLower(word) {
	case "y", "yes":
		r.Answer = kernel.Yes
	case "n", "no":
		r.Answer = kernel.No
	case "a", "always":
		r.Answer = kernel.Always
	case "d", "never":
		r.Answer = kernel.Never
	default:
		return kernel.Reply{}, false
	}
	if !slices.Contains(offered, r.Answer) || rest != "" && (r.Answer == kernel.Yes || r.Answer == kernel.Always) {
		return kernel.Reply{}, false
	}
	r.Text = rest
	return r, true
}

// unanswered ends a question whose input ended (io.EOF) or whose run was
// cancelled (ctx's error).
func (p *prompter) unanswered(ctx context.Context) (kernel.Reply, error) {
	say(p.w, "\n")
	if err := ctx.Err(); err != nil {
		return kernel.Reply{Answer: kernel.No}, err
	}
	return kernel.Reply{Answer: kernel.No}, io.EOF
}

// asker is who asks: rein, or the child of a task call asking through
// its parent ("explore · find the auth code").
func asker(q kernel.Question) shown {
	if q.Agent == "" {
		return "rein"
	}
	return taskName(q.Agent, q.Task)
}

// subjectOf is what a question is about, printable: its command or path
// (a script may have several lines), or its input.
func subjectOf(q kernel.Question) shown {
	if q.Subject == "" {
		return compact(q.Input)
	}
	return text(q.Subject)
}
