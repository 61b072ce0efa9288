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
	ch := make(changes, 4)
	m := New(&Options{Servers: []Server{{Name: "b"}}, Connect: inMemory(testServer), OnChange: ch.on})
	m.Start(context.Background())
	defer m.Close()
	c := <-ch
	var echo registry.Tool
	for _, t := range c.Tools {
		if t.Name == "mcp__b__echo" {
			echo = t
		}
	}
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
// profile: go test -bench StdioLargeResult -memprofile mem.out).
func BenchmarkStdioLargeResult(b *testing.B) {
	ch := make(changes, 4)
	m := New(&Options{Servers: []Server{stdio("b", nil)}, Environ: os.Environ(), OnChange: ch.on})
	m.Start(context.Background())
	defer m.Close()
	c := <-ch
	var big registry.Tool
	for _, t := range c.Tools {
		if t.Name == "mcp__b__big" {
			big = t
		}
	}
	call := &registry.Call{InvocationID: "inv", Input: json.RawMessage(`{"mb":15}`), Output: io.Discard}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := big.Execute(context.Background(), call); err != nil {
			b.Fatal(err)
		}
	}
}
