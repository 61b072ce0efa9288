package mcp

import (
	"os"
	"testing"

	"github.com/rein-agent/rein/internal/mcp/mcptest"
)

// testServerEnv makes the test binary a stdio server (mcptest.Serve).
const testServerEnv = mcptest.Env

func TestMain(m *testing.M) {
	if mcptest.Serve() {
		return
	}
	os.Exit(m.Run())
}

// testServer is mcptest's server; pngPixel the image its image tool
// returns.
var (
	testServer = mcptest.NewServer
	pngPixel   = mcptest.PNG
)
