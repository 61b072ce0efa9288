package mcp

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"testing"

	"github.com/rein-agent/rein/internal/registry"
)

// BenchmarkCallInMemory is one tool call through the Manager to a server
// in this process: rein's side of the round trip (the SDK's JSON-RPC, the
// result's rendering), without a process or a pipe.
func BenchmarkCallInMemory(b *testing.B) {
	echo := benchTool(b, &Options{Servers: []Server{{Name: "b"}}, Connect: inMemory(testServer)}, "mcp__b__echo")
	call := &registry.Call{InvocationID: "inv", Input: json.RawMessage(`{"text":"hello"}`), Output: io.Discard}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := echo.Execute(context.Background(), call); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStdioLargeResult is a 15 MiB result from a stdio server (this
// test binary) through the Manager to an output that keeps nothing: what
// rein allocates to read, decode and render it (see the allocation
// profile: go test -bench StdioLargeResult -memprofile mem.out; most of
// it is the go-sdk's decoding, which copies a message into its decoder
// at each of its three unmarshals).
//
// rein's peak RSS is measured through the binary: build this test binary
// (go test -c -o /tmp/mcpsrv ./internal/mcp), give rein a server
// [mcp_servers.big] command = "/tmp/mcpsrv", env = {REIN_TEST_MCP_SERVER = "1"},
// run `rein exec --provider scripted` with a script whose turn calls
// mcp__big__big with {"mb":15} (or 50: refused at the default 16 MiB), and
// sample VmHWM in /proc/PID/status of rein itself (not /usr/bin/time,
// which counts the server too). Measured on a 2-core machine: 15 MiB,
// 143 MiB before the transport limit, 112 after; 50 MiB, 436 MiB before,
// 55 after (refused).
func BenchmarkStdioLargeResult(b *testing.B) {
	big := benchTool(b, &Options{Servers: []Server{stdio("b", nil)}, Environ: os.Environ()}, "mcp__b__big")
	call := &registry.Call{InvocationID: "inv", Input: json.RawMessage(`{"mb":15}`), Output: io.Discard}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := big.Execute(context.Background(), call); err != nil {
			b.Fatal(err)
		}
	}
}

// benchTool starts a Manager with opts (closed when b ends) and returns
// its tool called name, once the server has listed its tools.
func benchTool(b *testing.B, opts *Options, name string) registry.Tool {
	b.Helper()
	ch := make(changes, 4)
	opts.OnChange = ch.on
	m := New(opts)
	m.Start(context.Background())
	b.Cleanup(func() { _ = m.Close() }) // a benchmark's server: its close error says nothing of what was measured
	for _, t := range (<-ch).Tools {
		if t.Name == name {
			return t
		}
	}
	b.Fatalf("the server has no tool %s", name)
	return registry.Tool{}
}
