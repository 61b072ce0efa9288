package kernel

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/workspace"
)

// What each mode is said to do (ModeMeaning: the UI's Shift+Tab line,
// /mode, the line mode) is what its policy decides: a read, a command that
// only reads, an edit in the workspace, a command that writes in it, one
// that runs code rein cannot see through, in a sandbox (network off).
// The words a description must hold stand beside the decisions they
// describe, so that neither changes without the other.
func TestModeMeaningIsWhatThePolicyDoes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	req := func(tool string, risk registry.Risk, readOnly bool, field, value string) permission.Request {
		in, _ := json.Marshal(map[string]string{field: value})
		return permission.Request{Tool: tool, Risk: risk, ReadOnly: readOnly, Input: in}
	}
	calls := []struct {
		what string
		req  permission.Request
	}{
		{"read", req("read_file", registry.RiskRead, true, "path", filepath.Join(dir, "notes.txt"))},
		{"read-only command", req("bash", registry.RiskExecute, false, "command", "ls -la")},
		{"edit", req("edit_file", registry.RiskWrite, false, "path", filepath.Join(dir, "notes.txt"))},
		{"writing command", req("bash", registry.RiskExecute, false, "command", "touch m1")},
		{"command that runs code rein cannot see", req("bash", registry.RiskExecute, false, "command", `python3 -c 'open("x", "w")'`)},
	}
	A, Q, D := contract.Allow, contract.Ask, contract.Deny
	for _, tc := range []struct {
		mode  permission.Mode
		want  []contract.Decision // in the order of calls
		words []string            // what the description must say
	}{
		{permission.Default, []contract.Decision{A, A, Q, Q, Q}, []string{"reads and read-only commands run", "edits and other commands ask"}},
		{permission.AcceptEdits, []contract.Decision{A, A, A, A, Q}, []string{"reads, edits in the workspace and the commands the sandbox contains run", "other commands ask"}},
		{permission.Plan, []contract.Decision{A, D, D, D, D}, []string{"read-only", "edits and commands are refused"}},
		{permission.Yolo, []contract.Decision{A, A, A, A, A}, []string{"everything runs without asking"}},
	} {
		p, err := permission.New(tc.mode, permission.Rules{}, ws)
		if err != nil {
			t.Fatal(err)
		}
		p = p.WithContainment(permission.Containment{Sandboxed: true})
		for i, c := range calls {
			if v := p.Decide(c.req); v.Decision != tc.want[i] {
				t.Errorf("%s: a %s is %s (%s), but the mode's description says %s", tc.mode, c.what, v.Decision, v.Reason, tc.want[i])
			}
		}
		meaning := ModeMeaning(tc.mode.String())
		for _, w := range tc.words {
			if !strings.Contains(meaning, w) {
				t.Errorf("%s: ModeMeaning = %q, which does not say %q", tc.mode, meaning, w)
			}
		}
	}
}
