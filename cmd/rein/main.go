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
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "0.1.0-dev"

func main() {
	os.Exit(cli.Execute(context.Background(), os.Args[1:], cli.Deps{
		Version:    "rein " + version + " (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")",
		Open:       openSession,
		Demo:       openDemo,
		Interrupts: interrupts,
	}))
}

// interrupts makes Ctrl-C (and SIGTERM) cancel ctx instead of killing rein,
// so a run can record how it ended.
func interrupts(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}
