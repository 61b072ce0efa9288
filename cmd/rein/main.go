// Command rein is a terminal coding agent. This file is the wiring: it
// builds the runtime (provider, tools, event log) for what the command line
// asks and hands it to internal/cli, which never imports a provider or a
// tool itself.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/rein-agent/rein/internal/cli"
	"github.com/rein-agent/rein/internal/tool/builtin"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "0.1.0-dev"

func main() {
	// First, before a tool can start: no process of the user's may read
	// rein's environment or memory, where the keys are.
	if err := nonDumpable(); err != nil {
		warnings().Warn("could not keep tools out of rein's memory (prctl PR_SET_DUMPABLE); a tool may read the keys in its environment", "err", err)
	}
	protect(builtin.Credentials(os.Environ()))
	// A closed stdout (rein ... | head) must fail a write, not kill rein
	// before the session's log is synced.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(cli.Execute(context.Background(), os.Args[1:], guarded(cli.Deps{
		Version:    "rein " + version + " (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")",
		Open:       openSession,
		Demo:       openDemo,
		Resume:     resumeSession,
		Store:      readStore,
		Normalize:  normalize,
		Interrupts: interrupts,
		Warnings:   routeWarnings,
		Extensions: cli.Extensions{List: listExtensions, Add: addServer, Remove: removeServer},
	})))
}

// interrupts makes Ctrl-C, SIGTERM and SIGHUP (the terminal closed) cancel
// ctx instead of killing rein, so a run can record how it ended and the
// tool runtime can kill a command's process group; the cause says which
// signal it was.
// The goroutine it starts ends when the returned stop function is called.
func interrupts(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-signals:
			code := 130
			if s, ok := sig.(syscall.Signal); ok {
				code = 128 + int(s)
			}
			cancel(&cli.Interrupt{Signal: sig.String(), Code: code})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(signals)
		close(done)
		cancel(context.Canceled)
	}
}
