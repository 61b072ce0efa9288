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
	hooks, problems, err := LoadClaudeSettings(good)
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

	if hooks, problems, err := LoadClaudeSettings(filepath.Join(dir, "missing.json")); err != nil || hooks != nil || problems != nil {
		t.Errorf("a missing file: %v, %v, %v; want nothing", hooks, problems, err)
	}
	broken := write("broken.json", "{\n  \"hooks\": {\n    \"PreToolUse\": [,]\n  }\n}")
	if _, _, err := LoadClaudeSettings(broken); err == nil || !strings.Contains(err.Error(), broken+":3:") {
		t.Errorf("a broken file: %v; want an error at %s:3", err, broken)
	}
	off := write("off.json", `{"disableAllHooks": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}`)
	if hooks, problems, err := LoadClaudeSettings(off); err != nil || len(hooks) != 0 || len(problems) != 1 {
		t.Errorf("disableAllHooks: %v, %v, %v; want no hooks and one problem", hooks, problems, err)
	}
}
