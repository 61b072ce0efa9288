package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// testServerEnv, set in the environment of the test binary, makes it an
// MCP server on its standard input and output (see TestMain): a real
// program for rein to start, speak to, and see crash.
const testServerEnv = "REIN_TEST_MCP_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(testServerEnv) != "" {
		serveStdio()
		return
	}
	os.Exit(m.Run())
}

// serveStdio runs the test server on stdin and stdout until its input
// ends. REIN_TEST_MCP_DELAY makes it start slowly.
func serveStdio() {
	if d, err := time.ParseDuration(os.Getenv("REIN_TEST_MCP_DELAY")); err == nil {
		time.Sleep(d)
	}
	fmt.Fprintln(os.Stderr, "rein-test: serving")
	if err := testServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "rein-test:", err)
		os.Exit(1)
	}
}

// pngPixel is a 1x1 PNG.
var pngPixel, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

// testServer is a server with the tools the tests call: echo (read-only,
// closed world: says back its text), env (says which of the variables it
// is asked about are set), big (returns mb megabytes of text), crash
// (exits the process in the middle of the call), fail (a tool error),
// image (a PNG), data (structured content only).
func testServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "rein-test", Version: "1"}, nil)
	reply := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	no := false
	type text struct {
		Text string `json:"text"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "say the text back", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no}},
		func(_ context.Context, _ *sdk.CallToolRequest, in text) (*sdk.CallToolResult, any, error) {
			return reply("echo: " + in.Text), nil, nil
		})
	type names struct {
		Names []string `json:"names"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "env", Description: "say which of the variables are set"},
		func(_ context.Context, _ *sdk.CallToolRequest, in names) (*sdk.CallToolResult, any, error) {
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
	sdk.AddTool(s, &sdk.Tool{Name: "big", Description: "return mb megabytes of text"},
		func(_ context.Context, _ *sdk.CallToolRequest, in size) (*sdk.CallToolResult, any, error) {
			return reply(strings.Repeat("0123456789abcdef", in.MB<<16)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "exit in the middle of the call"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "rein-test: crashing as asked")
			os.Exit(3)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "fail as a tool"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "the widget is broken"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "image", Description: "a picture"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a pixel:"}, &sdk.ImageContent{Data: pngPixel, MIMEType: "image/png"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "data", Description: "structured content"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"answer": 42}}, nil, nil
		})
	return s
}
