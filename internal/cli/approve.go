package cli

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync"

	"github.com/rein-agent/rein/internal/kernel"
)

// lineReader reads the person's lines in one goroutine, so that both the
// session's prompt and an approval question can wait for a line and give
// up when the run is cancelled. The goroutine ends when input does (a
// read from a terminal cannot be interrupted; it is left blocked when the
// process exits).
type lineReader struct {
	ch   chan string
	mu   sync.Mutex
	fail error
}

func readLines(r io.Reader) *lineReader {
	l := &lineReader{ch: make(chan string)}
	go func() {
		defer close(l.ch)
		in := bufio.NewScanner(r)
		in.Buffer(make([]byte, 64*1024), 16*1024*1024)
		for in.Scan() {
			l.ch <- in.Text()
		}
		l.mu.Lock()
		l.fail = in.Err()
		l.mu.Unlock()
	}()
	return l
}

// next returns the next line; false at the end of input or when ctx is
// done.
func (l *lineReader) next(ctx context.Context) (string, bool) {
	select {
	case s, ok := <-l.ch:
		return s, ok
	case <-ctx.Done():
		return "", false
	}
}

// err returns the error that ended input, if any.
func (l *lineReader) err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fail
}

// prompter asks the person whether a tool may run: y (yes, this once),
// n (no), a (always: save the allow rule), d (never: save the deny rule).
type prompter struct {
	lines *lineReader
	w     io.Writer
}

// Approve asks q of the person. Everything in the question came from the
// model or the policy: it is shown printable, so no character in a command
// (a carriage return, an override, an escape sequence) can change what the
// person reads before answering.
func (p *prompter) Approve(ctx context.Context, q kernel.Question) (kernel.Answer, error) {
	what := text(q.Subject) // a script may have several lines
	if what == "" {
		what = compact(q.Input)
	}
	verb := "use " + field(q.Tool) + " on"
	if q.Tool == "bash" {
		verb = "run"
	}
	printf(p.w, "\n? rein wants to %s: %s\n", verb, what)
	if q.Reason != "" {
		printf(p.w, "  (%s)\n", q.Reason)
	}
	rules := field(strings.Join(q.Rules, ", "))
	options := shown("  [y] yes  [n] no")
	if rules != "" {
		options += "  [a] always allow " + rules + "  [d] never: deny " + rules
	}
	for {
		say(p.w, options+"\n  › ")
		line, ok := p.lines.next(ctx)
		if !ok {
			say(p.w, "\n")
			if err := ctx.Err(); err != nil {
				return kernel.No, err
			}
			return kernel.No, io.EOF
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return kernel.Yes, nil
		case "n", "no":
			return kernel.No, nil
		case "a", "always":
			if rules != "" {
				return kernel.Always, nil
			}
		case "d", "never":
			if rules != "" {
				return kernel.Never, nil
			}
		}
		if rules != "" {
			say(p.w, "  Answer y, n, a or d.\n")
		} else {
			say(p.w, "  Answer y or n.\n")
		}
	}
}
