package cli

import (
	"context"
	"io"
	"strings"
)

// trustAsker asks the person, on w, whether to trust a project's file,
// reading the answer with next: a line, false when there is none.
func trustAsker(w io.Writer, next func(ctx context.Context) (string, bool)) func(ctx context.Context, q TrustQuestion) (bool, error) {
	return func(ctx context.Context, q TrustQuestion) (bool, error) {
		if q.Changed {
			printf(w, "\n? %s changed since you trusted it. It would now start:\n", q.Path)
		} else {
			printf(w, "\n? This project's %s would start, with your permissions:\n", q.Path)
		}
		for _, what := range q.What {
			printf(w, "    %s\n", what)
		}
		printf(w, "  Trust it? rein remembers a yes (in your config.toml) until the file changes. [y/N] ")
		for {
			line, ok := next(ctx)
			if !ok {
				printf(w, "\n")
				return false, ctx.Err()
			}
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "y", "yes":
				return true, nil
			case "", "n", "no":
				return false, nil
			}
			printf(w, "  y or n? ")
		}
	}
}

// byteLines reads lines from r a byte at a time, so that nothing after
// the answer's newline is taken from a terminal the UI reads next.
func byteLines(r io.Reader) func(ctx context.Context) (string, bool) {
	return func(ctx context.Context) (string, bool) {
		var b strings.Builder
		buf := make([]byte, 1)
		for ctx.Err() == nil {
			n, err := r.Read(buf)
			if n == 1 {
				if buf[0] == '\n' {
					return b.String(), true
				}
				b.WriteByte(buf[0])
			}
			if err != nil {
				return b.String(), b.Len() > 0
			}
		}
		return "", false
	}
}
