package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rein-agent/rein/internal/registry"
)

func TestToolName(t *testing.T) {
	long := strings.Repeat("x", 80)
	tests := []struct{ server, tool, want string }{
		{"github", "get_issue", "mcp__github__get_issue"},
		{"my.server", "list files/now", "mcp__my_server__list_files_now"},
		{"s", "ünï", "mcp__s___n_"},
		{"s", long, "mcp__s__" + long[:64-len("mcp__s__")-9] + "_" + hash8("s", long)},
	}
	for _, tt := range tests {
		got := ToolName(tt.server, tt.tool)
		if got != tt.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
		}
		if len(got) > 64 {
			t.Errorf("ToolName(%q, %q) is %d long", tt.server, tt.tool, len(got))
		}
	}
	if a, b := ToolName("s", long+"a"), ToolName("s", long+"b"); a == b {
		t.Errorf("two long names are both %q", a)
	}
	if a, b := toolName("s", "a.b", false), toolName("s", "a_b", true); a == b || len(b) > 64 {
		t.Errorf("a taken name is not made distinct: %q %q", a, b)
	}
}

// hash8 is the hash ToolName ends a long name with.
func hash8(server, tool string) string {
	n := toolName(server, tool, true)
	return n[len(n)-8:]
}

func TestClaims(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name     string
		a        *sdk.ToolAnnotations
		risk     registry.Risk
		readOnly bool
		conc     registry.Concurrency
	}{
		{"none: MCP's defaults", nil, registry.RiskNetwork, false, registry.Exclusive},
		{"read-only, open world by default", &sdk.ToolAnnotations{ReadOnlyHint: true}, registry.RiskNetwork, true, registry.Safe},
		{"read-only, closed world", &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no}, registry.RiskRead, true, registry.Safe},
		{"destructive, closed world", &sdk.ToolAnnotations{OpenWorldHint: &no}, registry.RiskExecute, false, registry.Exclusive},
		{"additive, closed world", &sdk.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &no}, registry.RiskWrite, false, registry.Exclusive},
		{"open world", &sdk.ToolAnnotations{OpenWorldHint: &yes}, registry.RiskNetwork, false, registry.Exclusive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			risk, ro, conc := claims(tt.a)
			if risk != tt.risk || ro != tt.readOnly || conc != tt.conc {
				t.Errorf("claims = %s %v %s, want %s %v %s", risk, ro, conc, tt.risk, tt.readOnly, tt.conc)
			}
		})
	}
}

func TestInputSchema(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string // "" when refused
	}{
		{"object", map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}}, `{"properties":{"a":{"type":"string"}},"type":"object"}`},
		{"no type", map[string]any{"properties": map[string]any{}}, `{"properties":{},"type":"object"}`},
		{"not an object schema", map[string]any{"type": "string"}, ""},
		{"not an object", []any{1}, ""},
		{"nothing", nil, ""},
		{"does not resolve", map[string]any{"type": "object", "$ref": "#/nowhere"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := inputSchema(tt.in)
			if tt.want == "" {
				if err == nil {
					t.Errorf("inputSchema = %s, want an error", got)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("inputSchema = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestLoadProjectFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".mcp.json")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HOME": "/home/ada", "API_TOKEN": "tok"}
	getenv := func(k string) string { return env[k] }

	write(`{"mcpServers": {
  "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/src"], "env": {"LEVEL": "${LOG_LEVEL:-info}"}},
  "api": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${API_TOKEN}"}, "oauth": {"ignored": true}},
  "old": {"type": "sse", "url": "https://example.com/sse"},
  "bad": {"command": "x", "env": {"K": "${NOT_SET}"}},
  "bad name!": {"command": "x"},
  "git__hub": {"command": "x"}
}}`)
	got, err := parseProjectFile(t, path, getenv)
	want := []Server{
		{Name: "api", Source: path, URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer tok"},
			Written: `{"type":"http","url":"https://example.com/mcp","headers":{"Authorization":"Bearer ${API_TOKEN}"},"oauth":{"ignored":true}}`},
		{Name: "files", Source: path, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/ada/src"}, Env: map[string]string{"LEVEL": "info"},
			Written: `{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","${HOME}/src"],"env":{"LEVEL":"${LOG_LEVEL:-info}"}}`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	for _, part := range []string{`server "old": type "sse" is not supported`, `server "bad": ${NOT_SET} is not set`, `server "bad name!": a server's name`, `server "git__hub": a server's name`} {
		if err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("error %v does not say %q", err, part)
		}
	}

	write("{\"mcpServers\": {\n  \"a\": {\"command\": \"x\",}\n}}")
	if _, err := parseProjectFile(t, path, getenv); err == nil || !strings.Contains(err.Error(), path+":2:") {
		t.Errorf("broken JSON: %v, want its line", err)
	}
}

// parseProjectFile is ParseProjectFile of the file at path.
func parseProjectFile(t *testing.T, path string, getenv func(string) string) ([]Server, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ParseProjectFile(path, data, getenv)
}
