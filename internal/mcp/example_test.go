package mcp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/tool/builtin"
)

// The go-sdk's own example server, everything, built from the module
// cache and started as a person's server: its tool names with spaces and
// parentheses made safe, a call, a resource link.
func TestSDKExampleServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the go-sdk's example server")
	}
	bin := filepath.Join(t.TempDir(), "everything")
	build := exec.Command("go", "build", "-o", bin, "github.com/modelcontextprotocol/go-sdk/examples/server/everything")
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("the example server does not build here: %v\n%s", err, out)
	}
	_, ch := start(t, &Options{Servers: []Server{{Name: "ex", Command: bin}}, Environ: os.Environ(), Strip: builtin.ToolEnv})
	c := ch.next(t)
	if len(c.Tools) < 5 {
		t.Fatalf("change = %q with %v", c.Reason, names(c))
	}
	find(t, c, "mcp__ex__greet__structured_")
	if out, err := run(t, find(t, c, "mcp__ex__greet"), `{"name":"rein"}`); err != nil || out != "Hi rein" {
		t.Errorf("greet = %q, %v", out, err)
	}
	if out, err := run(t, find(t, c, "mcp__ex__greet__content_with_ResourceLink_"), `{"name":"rein"}`); err != nil || !strings.Contains(out, "[resource link ") {
		t.Errorf("greet with a resource link = %q, %v", out, err)
	}
}
