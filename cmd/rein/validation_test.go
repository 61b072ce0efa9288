package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// An edit_file whose old_string is not in the file is refused at
// validation, through the binary: the log holds its tool.validation
// (ok=false, precondition_failed, the reason) and no tool.permission at
// all, the model is told why, and the file is as it was. In the line mode a
// person is there, ready to answer yes, and is never asked (their "y"
// becomes the next message); a headless exec records no denial either.
func TestAnEditThatCannotApplyIsNeverAskedAbout(t *testing.T) {
	const calc = "package calc\n\nfunc Add(a, b int) int { return a - b }\n"
	const notFound = "old_string was not found in calc.go"
	script := writeScript(t, `{"turns":[
		{"steps":[{"tool":{"index":0,"id":"c0","name":"read_file","input":{"path":"calc.go"}}},{"finish":"tool_use"}]},
		{"steps":[{"tool":{"index":0,"id":"c1","name":"edit_file","input":{"path":"calc.go","old_string":"return a * b","new_string":"return a + b"}}},{"finish":"tool_use"}]},
		{"expect":[{"tool":"edit_file","ok":false,"contains":["`+notFound+`"]}],"steps":[{"text":"That text is not there."},{"finish":"stop"}]},
		{"steps":[{"text":"Noted."},{"finish":"stop"}]}]}`)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"line mode", []string{"--plain", "--permission-mode", "default"}},
		{"exec", []string{"exec", "--permission-mode", "default"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work, stateDir := t.TempDir(), t.TempDir()
			if err := os.WriteFile(filepath.Join(work, "calc.go"), []byte(calc), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(rein, append(tc.args, "--provider", "scripted", "--script", script, "fix Add")...)
			cmd.Dir = work
			cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+stateDir, "XDG_CONFIG_HOME="+t.TempDir(), "HOME="+t.TempDir(), "NO_COLOR=1")
			cmd.Stdin = strings.NewReader("y\n")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("rein: %v\n%s", err, out)
			}
			if strings.Contains(string(out), "rein wants to use edit_file") {
				t.Errorf("the edit was asked about:\n%s", out)
			}
			if !strings.Contains(string(out), "✗ refused (precondition_failed): "+notFound) {
				t.Errorf("the trace does not show the refusal:\n%s", out)
			}
			var edit string
			var validation *contract.ToolValidation
			var decisions []string
			for _, e := range events(t, stateDir) {
				switch d := e.Data.(type) {
				case *contract.IntentProposed:
					if d.ToolName == "edit_file" {
						edit = d.ID
					}
				case *contract.ToolValidation:
					if d.IntentID == edit {
						validation = d
					}
				case *contract.ToolPermission:
					if d.IntentID == edit {
						decisions = append(decisions, string(d.Decision)+" by "+d.By)
					}
				}
			}
			if validation == nil || validation.OK || validation.Code != contract.CodePreconditionFailed ||
				!strings.Contains(strings.Join(validation.Errors, " "), notFound) {
				t.Errorf("tool.validation of the edit = %+v; want ok=false, precondition_failed, %q", validation, notFound)
			}
			if len(decisions) != 0 {
				t.Errorf("tool.permission of the edit: %v; want none", decisions)
			}
			if b, err := os.ReadFile(filepath.Join(work, "calc.go")); err != nil || string(b) != calc {
				t.Errorf("calc.go = %q, %v; want it unchanged", b, err)
			}
		})
	}
}
