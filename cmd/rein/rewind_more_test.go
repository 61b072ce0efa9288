package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

// hangScript is a session whose model runs a command that deletes one
// file, rewrites another and then hangs, so that rein is killed inside
// it; the resumed model answers.
const hangScript = `{"turns":[
 {"steps":[{"text":"Tidying."},{"tool":{"index":0,"id":"c1","name":"bash","input":{"command":"rm tracked.txt; printf x > rewrite.txt; sleep 60"}}},{"finish":"tool_use"}]},
 {"steps":[{"text":"done"},{"finish":"stop"}]}]}`

// sessionFiles lists the files under dir with their sizes, to show that
// a refused command wrote nothing there.
func sessionFiles(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fi.Size()
		if d.IsDir() {
			out[p] = -1
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkpointsOf returns the checkpoint.recorded events of envs for the
// call of intent, by when.
func checkpointsOf(envs []contract.Envelope, intent string) map[string]*contract.CheckpointRecorded {
	out := map[string]*contract.CheckpointRecorded{}
	for _, e := range envs {
		if c, ok := e.Data.(*contract.CheckpointRecorded); ok && c.IntentID == intent {
			out[c.When] = c
		}
	}
	return out
}

// stampOps returns the ops of an observation's file stamps, by the
// file's path relative to ws.
func stampOps(t *testing.T, ws string, files []contract.FileStamp) map[string]contract.FileOp {
	t.Helper()
	root, err := filepath.EvalSymlinks(ws)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]contract.FileOp{}
	for _, f := range files {
		rel, err := filepath.Rel(root, f.Path)
		if err != nil {
			rel = f.Path
		}
		out[filepath.ToSlash(rel)] = f.Op
	}
	return out
}

// Rein killed with SIGKILL inside a command that had deleted a tracked
// file and rewritten another: rein rewind refuses the unfinished session
// (naming resume) and writes nothing; rein resume records what the
// command changed, as the checkpoint it takes then shows; rein rewind
// --code then puts both files back byte for byte. The rewind's time is
// logged.
func TestRewindAfterKillAndResume(t *testing.T) {
	c := &crashRun{t: t, ws: t.TempDir(), state: t.TempDir(), cfg: t.TempDir(), script: writeScript(t, hangScript)}
	want := rewindWorkspace(t, c.ws)
	_, killed := c.killWhen(func() bool {
		b, err := os.ReadFile(filepath.Join(c.ws, "rewrite.txt"))
		_, gone := os.Stat(filepath.Join(c.ws, "tracked.txt"))
		return err == nil && string(b) == "x" && gone != nil
	})
	if !killed {
		t.Fatal("rein ended before the command had changed the files")
	}
	logPath := c.logPath()
	if logPath == "" {
		t.Fatal("no session log after the kill")
	}
	id := filepath.Base(filepath.Dir(logPath))

	// Before the resume: a refusal that names resume, and nothing written.
	before := sessionFiles(t, filepath.Dir(logPath))
	logBefore, _ := os.ReadFile(logPath)
	out, err := c.plain("rewind", id, "--code").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "resume") {
		t.Errorf("rein rewind of a killed session: %v\n%s\nwant a refusal naming resume", err, out)
	}
	if strings.Contains(string(out), "rein: rein:") {
		t.Errorf("rein rewind's refusal says rein twice:\n%s", out)
	}
	if after := sessionFiles(t, filepath.Dir(logPath)); !mapsEqual(before, after) {
		t.Errorf("the refused rewind wrote in the session's directory:\nbefore %v\nafter  %v", before, after)
	}
	if logAfter, _ := os.ReadFile(logPath); string(logAfter) != string(logBefore) {
		t.Errorf("the refused rewind changed the log:\n%s", logAfter[len(logBefore):])
	}
	if _, err := os.Stat(filepath.Join(c.ws, "tracked.txt")); err == nil {
		t.Error("the refused rewind restored tracked.txt")
	}
	if b, _ := os.ReadFile(filepath.Join(c.ws, "rewrite.txt")); string(b) != "x" {
		t.Errorf("the refused rewind changed rewrite.txt to %q", b)
	}

	if out, err := c.command("resume", id).CombinedOutput(); err != nil {
		t.Fatalf("rein resume: %v\n%s", err, out)
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	envs := decodeLog(t, b)
	var obs *contract.ToolObservation
	for _, o := range ofType[*contract.ToolObservation](envs) {
		if o.ToolName == "bash" {
			obs = o
		}
	}
	if obs == nil {
		t.Fatal("no observation of the killed command after the resume")
	}
	cps := checkpointsOf(envs, obs.IntentID)
	if cps[contract.CheckpointBefore] == nil || cps[contract.CheckpointBefore].ID == "" ||
		cps[contract.CheckpointAfter] == nil || cps[contract.CheckpointAfter].ID == "" {
		t.Errorf("the killed command's checkpoints: %+v, want one before it and one the resume took after", cps)
	}
	ops := stampOps(t, c.ws, obs.Files)
	if ops["tracked.txt"] != contract.FileDeleted || ops["rewrite.txt"] != contract.FileChanged {
		t.Errorf("the killed command's observation names %v, want tracked.txt deleted and rewrite.txt changed", ops)
	}

	start := time.Now()
	out, err = c.plain("rewind", id, "--code").CombinedOutput()
	took := time.Since(start)
	if err != nil {
		t.Fatalf("rein rewind --code after the resume: %v\n%s", err, out)
	}
	t.Logf("rein rewind --code (the whole process, restoring 2 files of a %d-file workspace): %v", len(want), took)
	checkFiles(t, c.ws, want)
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// A parent whose model hands a general child a command that deletes
// tracked, untracked and ignored files and a directory, rewrites one and
// creates another: the parent's log holds a checkpoint before and after
// the task call, its observation of the task names the child's files,
// and rein rewind --code on the parent puts the workspace back byte for
// byte.
func TestRewindAChildsChanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	want := rewindWorkspace(t, dir)
	srv := newBriefServer(t, map[string][]step{
		"tidy up":     {{calls: []call{taskArgs("general", "clean", "clean brief: run sh clean.sh")}}, {text: "the child cleaned up"}},
		"clean brief": {{calls: []call{{name: "bash", args: map[string]string{"command": "sh clean.sh"}}}}, {text: "cleaned"}},
	})
	env := chatEnv(t, "")
	r, events := runTasks(t, dir, env, srv, "tidy up the workspace", "--permission-mode", "yolo")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	for _, gone := range []string{"tracked.txt", "untracked.txt", "debug.log", "dir"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); err == nil {
			t.Fatalf("%s survived the child's command", gone)
		}
	}
	if len(childLogs(t, env)) != 1 {
		t.Fatal("want one child session")
	}
	id := events[0].Session
	var state string
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "XDG_STATE_HOME="); ok {
			state = v
		}
	}
	b, err := os.ReadFile(filepath.Join(state, "rein", "sessions", id, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	envs := decodeLog(t, b)
	var task *contract.ToolObservation
	for _, o := range ofType[*contract.ToolObservation](envs) {
		if o.ToolName == "task" {
			task = o
		}
	}
	if task == nil {
		t.Fatal("the parent's log holds no observation of the task")
	}
	cps := checkpointsOf(envs, task.IntentID)
	if cps[contract.CheckpointBefore] == nil || cps[contract.CheckpointBefore].ID == "" ||
		cps[contract.CheckpointAfter] == nil || cps[contract.CheckpointAfter].ID == "" {
		t.Errorf("the parent's checkpoints of the task call: %+v, want one before and one after", cps)
	}
	ops := stampOps(t, dir, task.Files)
	for name, op := range map[string]contract.FileOp{
		"tracked.txt": contract.FileDeleted, "untracked.txt": contract.FileDeleted, "debug.log": contract.FileDeleted,
		"dir/a.txt": contract.FileDeleted, "dir/sub/b.txt": contract.FileDeleted,
		"rewrite.txt": contract.FileChanged, "tool.sh": contract.FileChanged, "created.txt": contract.FileCreated,
	} {
		if ops[name] != op {
			t.Errorf("the task's observation has %s %q, want %q (all: %v)", name, ops[name], op, ops)
		}
	}

	rw := reinIn(t, dir, env, "rewind", id, "--code")
	if rw.code != 0 {
		t.Fatalf("rein rewind --code: exit %d\n%s%s", rw.code, rw.stdout, rw.stderr)
	}
	checkFiles(t, dir, want)
}

// A fork of a session whose command changed files holds the checkpoints
// its rewinds need, linked from its parent's: with the parent's
// checkpoints gone, rein rewind FORK --code still puts every file back
// byte for byte.
func TestRewindAFork(t *testing.T) {
	c := &crashRun{t: t, ws: t.TempDir(), state: t.TempDir(), cfg: t.TempDir(), script: writeScript(t, rewindScript)}
	want := rewindWorkspace(t, c.ws)
	if out, err := c.command("exec", "clean up the workspace").CombinedOutput(); err != nil {
		t.Fatalf("rein exec: %v\n%s", err, out)
	}
	parentDir := filepath.Dir(c.logPath())
	parent := filepath.Base(parentDir)
	forked, err := c.plain("fork", parent, "--json").Output()
	if err != nil {
		t.Fatalf("rein fork: %v\n%s", err, forked)
	}
	var fork struct {
		ID string `json:"session"`
	}
	if err := json.Unmarshal(forked, &fork); err != nil || fork.ID == "" || fork.ID == parent {
		t.Fatalf("rein fork --json: %v: %s", err, forked)
	}
	forkDir := filepath.Join(filepath.Dir(parentDir), fork.ID)

	// The fork's objects and packs are the parent's, linked, not copied
	// (the list of when each snapshot was taken is copied: it grows).
	var objects, linked int
	root := filepath.Join(forkDir, "checkpoints")
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "taken" {
			return err
		}
		objects++
		rel, _ := filepath.Rel(root, p)
		mine, err1 := os.Stat(p)
		theirs, err2 := os.Stat(filepath.Join(parentDir, "checkpoints", rel))
		if err1 == nil && err2 == nil && os.SameFile(mine, theirs) {
			linked++
		}
		return nil
	})
	if err != nil || objects == 0 || linked != objects {
		t.Errorf("the fork's checkpoints hold %d objects, %d of them linked to the parent's (%v); want all, and some", objects, linked, err)
	}

	if err := os.RemoveAll(filepath.Join(parentDir, "checkpoints")); err != nil {
		t.Fatal(err)
	}
	out, err := c.plain("rewind", fork.ID, "--code").CombinedOutput()
	if err != nil {
		t.Fatalf("rein rewind FORK --code: %v\n%s", err, out)
	}
	checkFiles(t, c.ws, want)
	if !slices.ContainsFunc(strings.Split(string(out), "\n"), func(l string) bool { return strings.Contains(l, "tracked.txt") }) {
		t.Errorf("rein rewind FORK --code does not name tracked.txt:\n%s", out)
	}
}

// twoMessageScript is a session of two messages, each answered by a
// command that rewrites a.txt and then a word.
const twoMessageScript = `{"turns":[
 {"steps":[{"tool":{"index":0,"id":"c1","name":"bash","input":{"command":"printf one > a.txt"}}},{"finish":"tool_use"}]},
 {"steps":[{"text":"one"},{"finish":"stop"}]},
 {"steps":[{"tool":{"index":0,"id":"c2","name":"bash","input":{"command":"printf two > a.txt"}}},{"finish":"tool_use"}]},
 {"steps":[{"text":"two"},{"finish":"stop"}]}]}`

// A checkpoint that could not be taken (the directory of its packs
// is a file: no permission trick, so it fails for root too) does not stop
// the command, is recorded as failed, and a rewind of the code past it
// refuses, saying so, and writes nothing; --list cannot count its files;
// the conversation can still be rewound, and its rewind records its own
// checkpoint failed.
func TestRewindPastAFailedCheckpointRefuses(t *testing.T) {
	c := &crashRun{t: t, ws: t.TempDir(), state: t.TempDir(), cfg: t.TempDir(), script: writeScript(t, twoMessageScript)}
	a := filepath.Join(c.ws, "a.txt")
	if err := os.WriteFile(a, []byte("zero"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := c.command("exec", "write one").CombinedOutput(); err != nil {
		t.Fatalf("rein exec: %v\n%s", err, out)
	}
	logPath := c.logPath()
	id := filepath.Base(filepath.Dir(logPath))
	// Where a snapshot's pack is written: a file in the way of it.
	tmp := filepath.Join(filepath.Dir(logPath), "checkpoints", "packs")
	if err := os.RemoveAll(tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tmp, []byte("in the way\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := c.command("resume", id, "write two").CombinedOutput(); err != nil {
		t.Fatalf("rein resume: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(a); string(b) != "two" {
		t.Fatalf("a.txt = %q after the second command, want two: a failed checkpoint stopped it", b)
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var failed int
	for _, cp := range ofType[*contract.CheckpointRecorded](decodeLog(t, b)) {
		if cp.Error != "" {
			failed++
			if cp.ID != "" {
				t.Errorf("a failed checkpoint names a snapshot: %+v", cp)
			}
		}
	}
	if failed == 0 {
		t.Fatal("no checkpoint.recorded says it failed")
	}

	list, err := c.plain("rewind", id, "--list").CombinedOutput()
	if err != nil {
		t.Fatalf("rein rewind --list: %v\n%s", err, list)
	}
	for _, line := range strings.Split(string(list), "\n") {
		if strings.Contains(line, "write two") && !strings.Contains(line, "?") {
			t.Errorf("rein rewind --list counts the files of a point past a failed checkpoint:\n%s", list)
		}
	}

	logBefore, _ := os.ReadFile(logPath)
	out, err := c.plain("rewind", id, "--code").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "failed") {
		t.Errorf("rein rewind --code past a failed checkpoint: %v\n%s\nwant a refusal saying the checkpoint failed", err, out)
	}
	if b, _ := os.ReadFile(a); string(b) != "two" {
		t.Errorf("the refused rewind changed a.txt to %q", b)
	}
	if logAfter, _ := os.ReadFile(logPath); string(logAfter) != string(logBefore) {
		t.Errorf("the refused rewind wrote to the log:\n%s", logAfter[len(logBefore):])
	}
	if out, err := c.plain("rewind", id, "--conversation").CombinedOutput(); err != nil {
		t.Fatalf("rein rewind --conversation past a failed checkpoint: %v\n%s", err, out)
	}
	b, _ = os.ReadFile(logPath)
	envs := decodeLog(t, b[len(logBefore):])
	cps := ofType[*contract.CheckpointRecorded](envs)
	if len(cps) != 1 || cps[0].When != contract.CheckpointRewind || cps[0].Error == "" || cps[0].ID != "" {
		t.Errorf("the conversation's rewind recorded the checkpoints %+v, want its own, failed", cps)
	}
	if r := ofType[*contract.SessionRewound](envs); len(r) != 1 || r[0].Scope != contract.RewindConversation {
		t.Errorf("the conversation's rewind recorded %+v, want one session.rewound of the conversation", r)
	}
}
