package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// testServerEnv, set in the environment of the test binary, makes it an
// MCP server on its standard input and output (see TestMain): a real
// server for rein to start, speak to, and see crash.
const testServerEnv = "REIN_TEST_MCP_SERVER"

// serveTestMCP runs the test MCP server until its input ends. Its tools:
// echo (reads: says back its text), env (says whether the variables it is
// asked about are set), big (returns N megabytes of text), crash (exits
// the process in the middle of the call), fail (a tool error), grow
// (adds the tool grown, so that the server says its tools changed). Set
// REIN_TEST_MCP_DELAY or REIN_TEST_MCP_WAIT to start slowly.
func serveTestMCP() {
	if d, err := time.ParseDuration(os.Getenv("REIN_TEST_MCP_DELAY")); err == nil {
		time.Sleep(d)
	}
	// REIN_TEST_MCP_WAIT names a file the server waits for before it
	// answers: a server as slow as a test wants.
	if f := os.Getenv("REIN_TEST_MCP_WAIT"); f != "" {
		for _, err := os.Stat(f); err != nil; _, err = os.Stat(f) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "rein-test", Version: "1"}, nil)
	type text struct {
		Text string `json:"text"`
	}
	reply := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "say the text back", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in text) (*mcp.CallToolResult, any, error) {
			return reply("echo: " + in.Text), nil, nil
		})
	type names struct {
		Names []string `json:"names"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "say which of the variables are set"},
		func(_ context.Context, _ *mcp.CallToolRequest, in names) (*mcp.CallToolResult, any, error) {
			var b strings.Builder
			for _, n := range in.Names {
				_, set := os.LookupEnv(n)
				fmt.Fprintf(&b, "%s set=%v\n", n, set)
			}
			return reply(b.String()), nil, nil
		})
	type size struct {
		MB int `json:"mb"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "return mb megabytes of text"},
		func(_ context.Context, _ *mcp.CallToolRequest, in size) (*mcp.CallToolResult, any, error) {
			return reply(strings.Repeat("0123456789abcdef\n", in.MB<<16)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "exit in the middle of the call"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "rein-test: crashing as asked")
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "fail as a tool"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the widget is broken"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "grow", Description: "add the tool grown (the server says its tools changed)"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(s, &mcp.Tool{Name: "grown", Description: "a tool added while the server runs"},
				func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
					return reply("grown here"), nil, nil
				})
			return reply("grew"), nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "rein-test:", err)
		os.Exit(1)
	}
}
