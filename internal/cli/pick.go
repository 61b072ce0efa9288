package cli

import (
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
)

// pickShown is how many of a server's models the question lists; the
// others are named by typing them.
const pickShown = 30

// modelAsker returns the asker of Spec.PickModel for an interactive
// session whose answers next reads, or nil when stdin is no terminal (a
// pipe's lines are prompts, not answers): on stderr, a numbered list of
// the server's models; the answer is a number, a name, or nothing for the
// first.
func (a *app) modelAsker(next func(ctx context.Context) (string, bool)) func(ctx context.Context, q ModelQuestion) (string, error) {
	if !ttyOf(a.deps.Stdin) {
		return nil
	}
	return pickAsker(a.deps.Stderr, next)
}

// pickAsker asks on w, reading the answers with next.
func pickAsker(w io.Writer, next func(ctx context.Context) (string, bool)) func(ctx context.Context, q ModelQuestion) (string, error) {
	return func(ctx context.Context, q ModelQuestion) (string, error) {
		printf(w, "\n? %s offers %d models; which one should rein use?\n", q.Server, len(q.Models))
		for i, m := range q.Models[:min(len(q.Models), pickShown)] {
			printf(w, "  %2d  %s\n", i+1, m)
		}
		if more := len(q.Models) - pickShown; more > 0 {
			printf(w, "      … and %d more: type a name\n", more)
		}
		printf(w, "  (--model NAME, or model = \"NAME\" in config.toml, picks one without asking)\n")
		printf(w, "  Number or name [1]: ")
		for {
			line, ok := next(ctx)
			if !ok {
				printf(w, "\n")
				if ctx.Err() != nil {
					return "", ctx.Err()
				}
				return "", errors.New("no model chosen")
			}
			if m, ok := chosen(strings.TrimSpace(line), q.Models); ok {
				return m, nil
			}
			printf(w, "  a number from 1 to %d, or a name of the list? ", len(q.Models))
		}
	}
}

// chosen reads an answer to a model question: nothing is the first of
// models, a number its place in the list, else a name of the list.
func chosen(answer string, models []string) (string, bool) {
	if answer == "" {
		return models[0], true
	}
	if n, err := strconv.Atoi(answer); err == nil {
		if n >= 1 && n <= len(models) {
			return models[n-1], true
		}
		return "", false
	}
	if slices.Contains(models, answer) {
		return answer, true
	}
	return "", false
}
