package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// The task list and the latest user request survive a compaction: a turn
// keeps a list, reads a file, then runs long steps until the 12,000-token
// window forces a compaction; the request after it holds, besides the
// summary, the list as it stood, the file read, and the person's message
// verbatim (long before the kept tail). rein replay shows the list where
// the call was, an item a line.
func TestPlotSurvivesACompaction(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prompt := "do the eight steps,\n  keeping   the list up to date"
	steps := []step{
		{text: "I'll keep a list.", calls: []call{{name: "todo_write", args: map[string]any{"todos": []map[string]string{
			{"content": "Read the notes", "status": "completed"},
			{"content": "Do the eight steps", "status": "in_progress", "activeForm": "Doing the eight steps"},
			{"content": "Report", "status": "pending"}}}}}},
		{calls: []call{{name: "read_file", args: map[string]string{"path": "notes.txt"}}}},
	}
	for i := 1; i <= 8; i++ {
		steps = append(steps, step{text: strings.Repeat(fmt.Sprintf("Step %d: looking at the numbers again and thinking aloud about them. ", i), 45),
			calls: []call{{name: "bash", args: map[string]string{"command": fmt.Sprintf("seq 1 1200; echo step-%d", i)}}}})
	}
	srv := newBriefServer(t, map[string][]step{"do the eight steps": steps})
	env := chatEnv(t, "[models.\"m\"]\ncontext_window = 12000\nmax_output = 1000\n")
	r, envs := runTasks(t, dir, env, srv, prompt, "--permission-mode", "yolo")
	if r.code != 0 {
		t.Fatalf("rein exec: exit %d\n%s", r.code, r.stderr)
	}
	var compacted uint64
	for _, e := range envs {
		if _, ok := e.Data.(*contract.ContextCompacted); ok && compacted == 0 {
			compacted = e.Seq
		}
	}
	if compacted == 0 {
		t.Fatalf("no compaction in the run:\n%s", r.stderr)
	}
	var after *chatRequest
	for _, req := range srv.all() {
		if strings.HasPrefix(req.brief(), "[rein: a summary of the earlier conversation") {
			after = &req
			break
		}
	}
	if after == nil {
		t.Fatalf("no request began with the summary")
	}
	text := after.text()
	for _, want := range []string{
		"The task list (todo_write) as it stood",
		`- [x] Read the notes\n- [ ] Do the eight steps (in progress)\n- [ ] Report`,
		"Files read and not changed by the session since",
		"notes.txt",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the request after the compaction lacks %q:\n%.3000s", want, text)
		}
	}
	verbatim := false
	for _, m := range after.Messages {
		if s, ok := m.Content.(string); ok && m.Role == "user" && s == prompt {
			verbatim = true
		}
	}
	if !verbatim {
		t.Errorf("the request after the compaction does not hold the person's message verbatim:\n%.3000s", text)
	}

	// rein replay shows the list where the call was.
	var id string
	for _, e := range envs {
		id = e.Session
		break
	}
	replay := reinIn(t, dir, env, "replay", id)
	if want := "  task list: 1 of 3 done\n    ☑ Read the notes\n    ◼ Do the eight steps\n    ☐ Report\n"; !strings.Contains(replay.stdout, want) {
		t.Errorf("rein replay lacks the list:\n%s", replay.stdout)
	}
}
