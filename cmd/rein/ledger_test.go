package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// calcSource is the file the ledger tests' model reads and fixes.
const calcSource = "package calc\n\n// Add returns a plus b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"

// ledgerScript is a model that reads calc.go, then edits it, then says
// what came of the edit. afterEdit is the expectation of the third turn
// (the edit's result); slow streams each step 100 ms apart, so that rein
// can be killed while the second turn streams, after the read's
// observation is durable and before the edit is proposed.
func ledgerScript(slow bool, afterEdit string) string {
	delay := 0
	if slow {
		delay = 100
	}
	return fmt.Sprintf(`{"model":"ledger","chunk_delay_ms":%d,"turns":[
 {"steps":[{"text":"Reading calc.go."},{"tool":{"index":0,"id":"c1","name":"read_file","input":{"path":"calc.go"}}},{"finish":"tool_use"}]},
 {"steps":[{"text":"Add subtracts; fixing it."},{"tool":{"index":0,"id":"c2","name":"edit_file","input":{"path":"calc.go","old_string":"return a - b","new_string":"return a + b"}}},{"finish":"tool_use"}]},
 {"expect":[%s],"steps":[{"text":"That is what the edit did."},{"finish":"stop"}]}]}`, delay, afterEdit)
}

// The expectations of the third turn.
const (
	editLanded  = `{"tool":"edit_file","ok":true,"contains":["edited calc.go: 1 replacement","+\treturn a + b"]}`
	editStale   = `{"tool":"edit_file","ok":false,"contains":["calc.go changed on disk since you last read it"]}`
	editUnknown = `{"tool":"edit_file","ok":false,"contains":["calc.go has not been read in this session"]}`
)

// killedAfterRead runs the slow ledger script in a workspace holding
// calc.go and kills rein with SIGKILL as soon as the observation of the
// read is in the log (a complete line: durable, since the log is synced
// at the end of the turn), while the next model call streams. It returns
// the run and the log as it was at the kill.
func killedAfterRead(t *testing.T) (*crashRun, []byte) {
	t.Helper()
	c := &crashRun{t: t, ws: t.TempDir(), state: t.TempDir(), cfg: t.TempDir(), script: writeScript(t, ledgerScript(true, editLanded))}
	if err := os.WriteFile(filepath.Join(c.ws, "calc.go"), []byte(calcSource), 0o644); err != nil {
		t.Fatal(err)
	}
	durable, killed := c.killWhen(func() bool {
		p := c.logPath()
		if p == "" {
			return false
		}
		b, _ := os.ReadFile(p)
		return bytes.Contains(b[:bytes.LastIndexByte(b, '\n')+1], []byte(`"type":"tool.observation"`))
	})
	if !killed {
		t.Fatal("rein ended before it could be killed after the read")
	}
	if !bytes.Contains(durable, []byte(`"tool_name":"read_file","ok":true`)) || bytes.Contains(durable, []byte(`"tool_name":"edit_file"`)) {
		t.Fatalf("the log at the kill should end after the read's observation, before any edit:\n%s", durable)
	}
	return c, durable
}

// resume runs rein resume with args and the fast ledger script expecting
// afterEdit, in the run's workspace and state, and returns the result and
// the log after it.
func (c *crashRun) resume(afterEdit string, args ...string) (result, []byte) {
	t := c.t
	t.Helper()
	args = append(append([]string{"resume"}, args...),
		"--provider", "scripted", "--script", writeScript(t, ledgerScript(false, afterEdit)), "--permission-mode", "yolo")
	r := reinIn(t, c.ws, []string{"XDG_STATE_HOME=" + c.state, "XDG_CONFIG_HOME=" + c.cfg}, args...)
	log, err := os.ReadFile(c.logPath())
	if err != nil {
		t.Fatal(err)
	}
	return r, log
}

// lineOf returns the data of the first line of log whose type is typ and
// whose data holds all of has.
func lineOf(log []byte, typ string, has ...string) map[string]any {
	for _, line := range bytes.Split(log, []byte("\n")) {
		if !bytes.Contains(line, []byte(`"type":"`+typ+`"`)) {
			continue
		}
		ok := true
		for _, h := range has {
			ok = ok && bytes.Contains(line, []byte(h))
		}
		var env struct {
			Data map[string]any `json:"data"`
		}
		if ok && json.Unmarshal(line, &env) == nil {
			return env.Data
		}
	}
	return nil
}

// editIntent returns the intent id of the edit_file call in log.
func editIntent(t *testing.T, log []byte) string {
	t.Helper()
	d := lineOf(log, "tool_intent.proposed", `"tool_name":"edit_file"`)
	if d == nil {
		t.Fatalf("the model proposed no edit_file call:\n%s", log)
	}
	return d["intent_id"].(string)
}

// The test of issue 10, item 1: rein is killed right after the read of
// calc.go is recorded; rein resume --last goes on, and the model's edit of
// calc.go, straight away and with no new read, is validated and lands.
// The read is in the log with its stamp: the resolved absolute path, the
// size, the modification time and the SHA-256 of what was read.
func TestResumeAfterAKillRightAfterAReadThenAnEditSucceeds(t *testing.T) {
	c, durable := killedAfterRead(t)
	r, log := c.resume(editLanded, "--last")
	if r.code != 0 {
		t.Fatalf("rein resume --last: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !bytes.HasPrefix(log, durable) {
		t.Fatalf("the resume lost lines of the log")
	}
	intent := editIntent(t, log)
	if v := lineOf(log, "tool.validation", intent); v == nil || v["ok"] != true {
		t.Errorf("the edit's validation = %v, want ok:\n%s", v, log[len(durable):])
	}
	if o := lineOf(log, "tool.observation", intent); o == nil || o["ok"] != true {
		t.Errorf("the edit's observation = %v, want ok", o)
	}
	if got, _ := os.ReadFile(filepath.Join(c.ws, "calc.go")); string(got) != strings.Replace(calcSource, "a - b", "a + b", 1) {
		t.Errorf("calc.go after the resumed run = %q; want the edit applied", got)
	}
	if lineOf(log, "run.finished", `"outcome":"completed"`) == nil {
		t.Errorf("the resumed run did not complete:\n%s", r.stderr)
	}
	if n := bytes.Count(log, []byte(`"type":"tool.invocation.started"`)); n != 2 {
		t.Errorf("%d invocations started, want 2: the read (before the kill) and the edit", n)
	}

	// What the log says was read.
	ws, err := filepath.EvalSymlinks(c.ws)
	if err != nil {
		t.Fatal(err)
	}
	read := lineOf(durable, "tool.observation", `"tool_name":"read_file"`)
	files, _ := read["files"].([]any)
	if len(files) != 1 {
		t.Fatalf("the read's observation records %d files, want 1: %v", len(files), read)
	}
	stamp := files[0].(map[string]any)
	fi, err := os.Stat(filepath.Join(ws, "calc.go"))
	if err != nil {
		t.Fatal(err)
	}
	mtime, _ := stamp["mtime"].(string)
	if stamp["path"] != filepath.Join(ws, "calc.go") || stamp["size"] != float64(len(calcSource)) || stamp["op"] != "read" ||
		len(stamp["sha256"].(string)) != 64 || mtime == "" {
		t.Errorf("the read's stamp = %v; want the absolute path, %d bytes, a mtime, a SHA-256 and op read (calc.go is now modified %s)",
			stamp, len(calcSource), fi.ModTime())
	}
	if bytes.Contains(durable, []byte(`"text":"`+ws)) {
		t.Errorf("the model was shown an absolute path")
	}
}

// A file changed on disk between the kill and the resume is still stale:
// the model's edit is refused with stale_file, and the file keeps what
// the other writer put there.
func TestResumeAfterAKillRefusesAnEditOfAFileChangedSince(t *testing.T) {
	c, durable := killedAfterRead(t)
	changed := calcSource + "\n// Sub returns a minus b, written by someone else.\n"
	if err := os.WriteFile(filepath.Join(c.ws, "calc.go"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	r, log := c.resume(editStale, "--last")
	if r.code != 0 {
		t.Fatalf("rein resume --last: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	intent := editIntent(t, log)
	if v := lineOf(log, "tool.validation", intent); v == nil || v["ok"] != false || v["code"] != "stale_file" {
		t.Errorf("the edit's validation = %v, want stale_file:\n%s", v, log[len(durable):])
	}
	if got, _ := os.ReadFile(filepath.Join(c.ws, "calc.go")); string(got) != changed {
		t.Errorf("calc.go = %q; a refused edit must leave it as the other writer left it", got)
	}
}

// A fork at SEQ knows exactly the reads recorded up to SEQ: forked at the
// read's observation, the fork's edit lands; forked just before it (the
// read ran, and its output never reached the model), the edit is refused.
func TestForkKnowsTheReadsBeforeItsSeq(t *testing.T) {
	c, durable := killedAfterRead(t)
	var observed uint64
	for _, env := range decode(t, string(durable)) {
		if env.Type() == "tool.observation" {
			observed = env.Seq
		}
	}
	parent := filepath.Base(filepath.Dir(c.logPath()))
	env := []string{"XDG_STATE_HOME=" + c.state, "XDG_CONFIG_HOME=" + c.cfg}
	for _, tc := range []struct {
		name      string
		at        uint64
		afterEdit string
		landed    bool
	}{
		{"before the read's observation", observed - 1, editUnknown, false},
		{"at the read's observation", observed, editLanded, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(c.ws, "calc.go"), []byte(calcSource), 0o644); err != nil {
				t.Fatal(err)
			}
			f := reinIn(t, c.ws, env, "fork", parent, "--at", fmt.Sprint(tc.at))
			if f.code != 0 {
				t.Fatalf("rein fork --at %d: exit %d\n%s", tc.at, f.code, f.stderr)
			}
			fork := strings.TrimSpace(f.stdout)
			r := reinIn(t, c.ws, env, "resume", fork, "--provider", "scripted", "--script", writeScript(t, ledgerScript(false, tc.afterEdit)), "--permission-mode", "yolo")
			if r.code != 0 {
				t.Fatalf("rein resume %s: exit %d\nstdout:\n%s\nstderr:\n%s", fork, r.code, r.stdout, r.stderr)
			}
			log, err := os.ReadFile(filepath.Join(c.state, "rein", "sessions", fork, "events.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			v := lineOf(log, "tool.validation", editIntent(t, log))
			if v == nil || v["ok"] != tc.landed || !tc.landed && v["code"] != "stale_file" {
				t.Errorf("the fork's edit validation = %v, want ok %v", v, tc.landed)
			}
			if lineOf(log, "run.finished", `"outcome":"completed"`) == nil {
				t.Errorf("the fork's run did not complete (the script's expectation failed?):\n%s", r.stderr)
			}
			got, _ := os.ReadFile(filepath.Join(c.ws, "calc.go"))
			if landed := string(got) != calcSource; landed != tc.landed {
				t.Errorf("the fork's edit landed: %v, want %v (calc.go = %q)", landed, tc.landed, got)
			}
		})
	}
}
