package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLoadClaudeSettings(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{
  "permissions": {"allow": ["Bash(ls)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "check-bash", "timeout": 5}]},
      {"matcher": "Edit|Write", "hooks": [{"type": "prompt", "prompt": "is it fine?"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "go-on"}]}],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    "Nonsense": []
  }
}`)
	hooks, problems, err := parseSettingsFile(t, good)
	if err != nil {
		t.Fatal(err)
	}
	want := []Hook{
		{Event: "PreToolUse", Matcher: "Bash", Command: "check-bash", Timeout: 5 * time.Second, Source: good + ":5"},
		{Event: "Stop", Command: "go-on", Source: good + ":8"},
	}
	if d := cmp.Diff(want, hooks); d != "" {
		t.Errorf("hooks (-want +got):\n%s", d)
	}
	wantProblems := []string{
		good + `: a PreToolUse hook of type "prompt" is ignored: rein runs only command hooks`,
		good + ": rein does not run Notification hooks; they are ignored",
		good + ": there is no hook event named Nonsense; its hooks are ignored",
	}
	if d := cmp.Diff(wantProblems, problems); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}

	broken := write("broken.json", "{\n  \"hooks\": {\n    \"PreToolUse\": [,]\n  }\n}")
	if _, _, err := parseSettingsFile(t, broken); err == nil || !strings.Contains(err.Error(), broken+":3:") {
		t.Errorf("a broken file: %v; want an error at %s:3", err, broken)
	}
	off := write("off.json", `{"disableAllHooks": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}`)
	if hooks, problems, err := parseSettingsFile(t, off); err != nil || len(hooks) != 0 || len(problems) != 1 {
		t.Errorf("disableAllHooks: %v, %v, %v; want no hooks and one problem", hooks, problems, err)
	}
}

// parseSettingsFile is ParseClaudeSettings of the file at path.
func parseSettingsFile(t *testing.T, path string) ([]Hook, []string, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ParseClaudeSettings(path, data)
}
