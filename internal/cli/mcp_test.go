package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMCPCommands(t *testing.T) {
	var added []MCPServer
	var removed, listed []string
	var trusted []bool
	ext := Extensions{
		List: func(_ context.Context, spec Spec, kind string) ([]Fact, error) {
			listed = append(listed, kind)
			trusted = append(trusted, spec.TrustProject)
			if kind == "skills" {
				return nil, nil
			}
			return []Fact{{Key: "github", Value: "ready · 2 tools"}, {Key: "!slow", Value: "did not start within 30s"}}, nil
		},
		Add: func(_ Spec, s MCPServer) (string, error) {
			added = append(added, s)
			return "added " + s.Name, nil
		},
		Remove: func(_ Spec, name string) (string, error) {
			removed = append(removed, name)
			return "removed " + name, nil
		},
	}
	run := func(args ...string) (int, string, string) {
		var out, errw bytes.Buffer
		code := Execute(t.Context(), args, Deps{Extensions: ext, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errw})
		return code, out.String(), errw.String()
	}
	code, out, errw := run("mcp", "list", "--trust-project")
	if code != 0 || !strings.Contains(out, "github") || !strings.Contains(errw, "warning: slow: did not start") || strings.Contains(out, "slow") {
		t.Errorf("mcp list: %d\n%s\n%s", code, out, errw)
	}
	if code, _, errw = run("skills"); code != 0 || !strings.Contains(errw, "no skills") {
		t.Errorf("skills with none: %d %s", code, errw)
	}
	run("mcp", "get", "github")
	run("hooks")
	if d := cmp.Diff([]string{"mcp", "skills", "mcp:github", "hooks"}, listed); d != "" {
		t.Errorf("listed (-want +got):\n%s", d)
	}
	if !trusted[0] || trusted[1] {
		t.Errorf("--trust-project reached the wiring as %v", trusted)
	}
	run("mcp", "add", "fs", "--env", "ROOT=/tmp", "--", "npx", "-y", "server-filesystem", "/tmp")
	run("mcp", "add", "gh", "--url", "https://example.com/mcp", "--bearer-env", "GH_TOKEN", "--header", "X-Team: core")
	want := []MCPServer{
		{Name: "fs", Command: "npx", Args: []string{"-y", "server-filesystem", "/tmp"}, Env: map[string]string{"ROOT": "/tmp"}},
		{Name: "gh", URL: "https://example.com/mcp", BearerEnv: "GH_TOKEN", Headers: map[string]string{"X-Team": "core"}},
	}
	if d := cmp.Diff(want, added); d != "" {
		t.Errorf("added (-want +got):\n%s", d)
	}
	for _, bad := range [][]string{{"mcp", "add", "x"}, {"mcp", "add", "x", "--url", "u", "cmd"}, {"mcp", "add", "x", "--env", "NOEQUALS", "cmd"}} {
		if code, _, _ := run(bad...); code != ExitUsage {
			t.Errorf("%q: exit %d, want usage", bad, code)
		}
	}
	if code, _, errw := run("mcp", "remove", "fs"); code != 0 || removed[0] != "fs" || !strings.Contains(errw, "removed fs") {
		t.Errorf("remove: %d %s %v", code, errw, removed)
	}
}

// The trust question names the file and what it would start, and only
// y or yes trusts it.
func TestTrustAsker(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{{"y\n", true}, {"yes\n", true}, {"\n", false}, {"maybe\nn\n", false}, {"", false}} {
		var w bytes.Buffer
		ask := trustAsker(&w, byteLines(strings.NewReader(c.in)))
		got, _ := ask(t.Context(), TrustQuestion{Path: "/w/.mcp.json", What: []string{"server fs: npx -y server-filesystem"}})
		if got != c.want || !strings.Contains(w.String(), "/w/.mcp.json") || !strings.Contains(w.String(), "server fs: npx") {
			t.Errorf("%q: %v, %s", c.in, got, w.String())
		}
	}
}
