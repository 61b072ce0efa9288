package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// rewindScript is a session of one message whose model runs a script that
// never names the files it deletes and rewrites, then answers.
const rewindScript = `{"turns":[
 {"steps":[{"text":"Cleaning up."},{"tool":{"index":0,"id":"c1","name":"bash","input":{"command":"sh clean.sh"}}},{"finish":"tool_use"}]},
 {"steps":[{"text":"Cleaned."},{"finish":"stop"}]}]}`

// cleanScript deletes a tracked file, an untracked one, a small ignored
// one and a directory, rewrites a file, takes a file's executable bit and
// creates one.
const cleanScript = "rm tracked.txt untracked.txt debug.log && rm -r dir && printf 'rewritten\\n' > rewrite.txt && chmod -x tool.sh && echo new > created.txt\n"

// rewindWorkspace is the workspace of a rewind test: a git repository with
// tracked, untracked and ignored files, and what each holds.
func rewindWorkspace(t *testing.T, ws string) map[string]string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the test needs a repository's index")
	}
	files := map[string]string{
		"tracked.txt": "tracked\n", "rewrite.txt": "original\n", "dir/a.txt": "a\n", "dir/sub/b.txt": "b\n",
		"tool.sh": "#!/bin/sh\necho hi\n", ".gitignore": "*.log\n", "untracked.txt": "untracked\n", "debug.log": "debug\n",
		"clean.sh": cleanScript,
	}
	for name, content := range files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(ws, "tool.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	git := exec.Command("sh", "-c", "git init -q && git add tracked.txt rewrite.txt dir tool.sh .gitignore")
	git.Dir = ws
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git: %v\n%s", err, out)
	}
	return files
}

// checkFiles fails the test for every file of want not as it says, and
// for tool.sh without its executable bit.
func checkFiles(t *testing.T, ws string, want map[string]string) {
	t.Helper()
	for name, content := range want {
		got, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(name)))
		if err != nil || string(got) != content {
			t.Errorf("%s = %q, %v; want %q", name, got, err, content)
		}
	}
	if fi, err := os.Stat(filepath.Join(ws, "tool.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("tool.sh: %v, %v; want mode 0755", fi.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(ws, "created.txt")); err == nil {
		t.Error("created.txt is still there")
	}
}

// A command that deletes tracked, untracked and ignored files and a
// directory and rewrites another, through a script that names none of
// them: rein why names it, a file changed since stops the rewind, which
// writes nothing, and rein rewind --code puts everything back byte for
// byte, modes kept.
func TestRewindRestoresWhatACommandChanged(t *testing.T) {
	c := &crashRun{t: t, ws: t.TempDir(), state: t.TempDir(), cfg: t.TempDir(), script: writeScript(t, rewindScript)}
	want := rewindWorkspace(t, c.ws)
	if out, err := c.command("exec", "clean up the workspace").CombinedOutput(); err != nil {
		t.Fatalf("rein exec: %v\n%s", err, out)
	}
	for _, gone := range []string{"tracked.txt", "untracked.txt", "debug.log", "dir"} {
		if _, err := os.Stat(filepath.Join(c.ws, gone)); err == nil {
			t.Fatalf("%s survived the command", gone)
		}
	}
	id := filepath.Base(filepath.Dir(c.logPath()))

	why, err := c.plain("why", "dir/sub/b.txt").CombinedOutput()
	if err != nil || !strings.Contains(string(why), "sh clean.sh") {
		t.Errorf("rein why dir/sub/b.txt: %v\n%s\nwant the command that deleted it", err, why)
	}

	// Someone else changes a file the command wrote: the rewind stops.
	rewrite := filepath.Join(c.ws, "rewrite.txt")
	if err := os.WriteFile(rewrite, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := c.plain("rewind", id, "--code").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "rewrite.txt") {
		t.Errorf("rein rewind over a file changed since: %v\n%s\nwant a refusal naming rewrite.txt", err, out)
	}
	if _, err := os.Stat(filepath.Join(c.ws, "tracked.txt")); err == nil {
		t.Error("the refused rewind restored tracked.txt")
	}
	if got, _ := os.ReadFile(rewrite); string(got) != "mine\n" {
		t.Errorf("the refused rewind changed rewrite.txt to %q", got)
	}

	out, err = c.plain("rewind", id, "--code", "--force").CombinedOutput()
	if err != nil {
		t.Fatalf("rein rewind --code --force: %v\n%s", err, out)
	}
	checkFiles(t, c.ws, want)

	// The conversation is as it was: a code rewind leaves it. What rein
	// last recorded is the workspace as restored: no file changed since
	// the point, and a second rewind has nothing to do (no conflict).
	list, err := c.plain("rewind", id, "--list").CombinedOutput()
	if err != nil || !strings.Contains(string(list), "clean up the workspace") || strings.Contains(string(list), "(rewound)") {
		t.Errorf("rein rewind --list: %v\n%s\nwant the message, not rewound", err, list)
	}
	if fields := strings.Fields(strings.Split(strings.TrimSpace(string(list)), "\n")[1]); len(fields) < 4 || fields[3] != "0" {
		t.Errorf("rein rewind --list after the rewind: %q, want 0 files changed since the point", list)
	}
	out, err = c.plain("rewind", id, "--code").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "nothing to restore") {
		t.Errorf("a second rein rewind --code: %v\n%s\nwant nothing to restore", err, out)
	}
	checkFiles(t, c.ws, want)
}

// A rewind of the conversation, then a resume: the request sent holds
// the new message and nothing of the rewound turn; replay still shows it,
// marked as rewound.
func TestRewindConversationThenResume(t *testing.T) {
	c := &crashRun{t: t, ws: t.TempDir(), state: t.TempDir(), cfg: t.TempDir(), script: writeScript(t, rewindScript)}
	rewindWorkspace(t, c.ws)
	if out, err := c.command("exec", "clean up the workspace").CombinedOutput(); err != nil {
		t.Fatalf("rein exec: %v\n%s", err, out)
	}
	id := filepath.Base(filepath.Dir(c.logPath()))
	if out, err := c.plain("rewind", id, "--conversation").CombinedOutput(); err != nil {
		t.Fatalf("rein rewind --conversation: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(c.ws, "tracked.txt")); err == nil {
		t.Error("a rewind of the conversation restored a file")
	}
	before := c.lines()
	if out, err := c.command("resume", id, "just say hello").CombinedOutput(); err != nil {
		t.Fatalf("rein resume: %v\n%s", err, out)
	}
	b, err := os.ReadFile(c.logPath())
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	var first *contract.ModelRequested
	for _, line := range lines[before:] {
		var env contract.Envelope
		if json.Unmarshal(line, &env) == nil {
			if r, ok := env.Data.(*contract.ModelRequested); ok && first == nil {
				first = r
			}
		}
	}
	if first == nil || first.MessageCount != 1 {
		t.Errorf("the first request after the rewind: %+v, want one message (the new one)", first)
	}
	replay, err := c.plain("replay", id).CombinedOutput()
	if err != nil || !strings.Contains(string(replay), "rewound") || !strings.Contains(string(replay), "clean up the workspace") {
		t.Errorf("rein replay: %v\n%s\nwant the rewound turn, marked", err, replay)
	}
}

// /diff shows what a command changed, line by line, from the checkpoints
// around it: a command's input does not say what it wrote.
func TestDiffShowsACommandsChanges(t *testing.T) {
	w := newRepoWorld(t)
	writeFiles(t, w.repo, uiRewindFiles)
	r := reinFed(t, w.repo, w.env, "change the notes\n/diff\n/exit\n", "--permission-mode", "yolo", "--provider", "scripted", "--script", writeScript(t, uiRewindScript()))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	all := r.stdout + r.stderr
	for _, want := range []string{"--- a/notes.txt", "-old", "+new", "--- a/gone.txt", "-keep me", "+++ b/made.txt", "+made"} {
		if !strings.Contains(all, want) {
			t.Errorf("/diff lacks %q:\n%s", want, all)
		}
	}
}
