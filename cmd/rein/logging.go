package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rein-agent/rein/internal/printable"
)

// warnings is the logger of what a person should know about: warnings and
// errors, one line each on stderr, "rein: warning: what happened (key=value, ...)",
// or to where routeWarnings sends them.
func warnings() *slog.Logger {
	return slog.New(&lineHandler{w: warnSink{}, mu: new(sync.Mutex), redact: redactText})
}

// warnTo, when set, takes rein's warnings instead of stderr: the terminal
// UI's, which a line written to the terminal under it would tear.
var warnTo atomic.Pointer[func(line string)]

// warnSink writes a warning's line to warnTo, else to stderr.
type warnSink struct{}

func (warnSink) Write(b []byte) (int, error) {
	if to := warnTo.Load(); to != nil {
		(*to)(strings.TrimSuffix(string(b), "\n"))
		return len(b), nil
	}
	return os.Stderr.Write(b)
}

// routeWarnings sends rein's warnings to to until restore is called
// (cli.Deps.Warnings).
func routeWarnings(to func(line string)) (restore func()) {
	warnTo.Store(&to)
	return func() { warnTo.Store(nil) }
}

// lineHandler writes records at warning level and above as one line for
// a person: no timestamp, the message first, the attributes after it.
type lineHandler struct {
	w     io.Writer
	mu    *sync.Mutex
	attrs []slog.Attr
	group string
	// redact cuts the secrets out of a line before it is written (those
	// the log cuts); nil means none.
	redact func(string) string
}

func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString("rein: ")
	if r.Level >= slog.LevelError {
		b.WriteString("error: ")
	} else {
		b.WriteString("warning: ")
	}
	b.WriteString(r.Message)
	var kv []string
	add := func(a slog.Attr) bool {
		if !a.Equal(slog.Attr{}) {
			key := a.Key
			if h.group != "" {
				key = h.group + "." + key
			}
			kv = append(kv, fmt.Sprintf("%s=%v", key, a.Value.Resolve()))
		}
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	if len(kv) > 0 {
		b.WriteString(" (" + strings.Join(kv, ", ") + ")")
	}
	// A message or a value may quote a log, a file or a provider: secrets
	// are cut, then the line is made printable, and stays one line.
	text := b.String()
	if h.redact != nil {
		text = h.redact(text)
	}
	line := printable.Line(text) + "\n"
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, line)
	return err
}

func (h *lineHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), attrs...)
	return &c
}

func (h *lineHandler) WithGroup(name string) slog.Handler {
	c := *h
	if c.group != "" {
		name = c.group + "." + name
	}
	c.group = name
	return &c
}
