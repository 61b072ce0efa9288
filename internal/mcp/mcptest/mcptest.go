// Package mcptest is an MCP server for rein's tests, written with the
// go-sdk: served in memory, or by a test binary run as a stdio server
// (Env set in its environment; see Serve).
package mcptest

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Env, set in the environment of a test binary whose TestMain calls
// Serve, makes it the test server on its standard input and output: a
// real program for rein to start, speak to, and see crash.
const Env = "REIN_TEST_MCP_SERVER"

// Serve runs the server on stdin and stdout until its input ends, and
// reports true, when Env is set; false otherwise, at once. Before it
// answers, REIN_TEST_MCP_DELAY (a duration) makes it wait, and
// REIN_TEST_MCP_WAIT (a file) makes it wait until that file exists.
// REIN_TEST_MCP_CHILD (a number of seconds) makes it start `sleep N` in
// its process group first, which it never waits for: a server's child
// that outlives it unless its group is killed.
func Serve() bool {
	if os.Getenv(Env) == "" {
		return false
	}
	if n := os.Getenv("REIN_TEST_MCP_CHILD"); n != "" {
		if err := exec.Command("sleep", n).Start(); err != nil {
			fmt.Fprintln(os.Stderr, "rein-test:", err)
			os.Exit(1)
		}
	}
	if d, err := time.ParseDuration(os.Getenv("REIN_TEST_MCP_DELAY")); err == nil {
		time.Sleep(d)
	}
	if f := os.Getenv("REIN_TEST_MCP_WAIT"); f != "" {
		for _, err := os.Stat(f); err != nil; _, err = os.Stat(f) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	fmt.Fprintln(os.Stderr, "rein-test: serving")
	if err := NewServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "rein-test:", err)
		os.Exit(1)
	}
	return true
}

// PNG is a 1x1 PNG, the image the image tool returns.
var PNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

// NewServer is a server with the tools the tests call: echo (read-only,
// closed world: says back its text), env (says which of the variables it
// is asked about are set), big (returns mb megabytes of text), crash
// (exits the process in the middle of the call), fail (a tool error),
// image (a PNG), data (structured content only), grow (adds the tool
// grown, so that the server says its tools changed).
func NewServer() *sdk.Server {
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
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a pixel:"}, &sdk.ImageContent{Data: PNG, MIMEType: "image/png"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "data", Description: "structured content"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"answer": 42}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "grow", Description: "add the tool grown (the server says its tools changed)"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			sdk.AddTool(s, &sdk.Tool{Name: "grown", Description: "a tool added while the server runs"},
				func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
					return reply("grown here"), nil, nil
				})
			return reply("grew"), nil, nil
		})
	return s
}
