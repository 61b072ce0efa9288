package mcp

import (
	"context"
	"encoding/json"
	"io"
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
