package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// compactionScript is a scripted session long enough for a model with a
// 12,000-token window (set in the person's [models] table) to be
// compacted on the way: eight turns of long text, each running a command
// with a few KB of output, then an answer, and one more turn for a
// follow-up. Its summary turn answers the compaction's requests.
func compactionScript() string {
	var turns []string
	for i := 1; i <= 8; i++ {
		text := strings.Repeat(fmt.Sprintf("Step %d: looking at the numbers again and thinking aloud about them. ", i), 45)
		turns = append(turns, fmt.Sprintf(`{"steps":[{"text":%q},{"tool":{"index":0,"id":"c%d","name":"bash","input":{"command":"seq 1 1200; echo step-%d >> effects.txt"}}},{"finish":"tool_use"}]}`,
			text, i, i))
	}
	turns = append(turns, `{"steps":[{"text":"All eight steps are done."},{"finish":"stop"}]}`,
		`{"steps":[{"text":"Here is the follow-up."},{"finish":"stop"}]}`)
	return `{"model":"ctx-small","turns":[` + strings.Join(turns, ",") + `],
	 "summary":{"steps":[{"text":"## Goals\nRun the eight steps.\n## Where things stand\nSome steps ran; effects.txt has their marks."},{"finish":"stop"}]}}`
}

// compactionConfig is the person's configuration: the scripted model's
// window, output and prices.
const compactionConfig = `[models."ctx-small"]
context_window = 12000
max_output = 1000
input_price = 3
output_price = 15
`

// newCompactionRun is a crash run of compactionScript under
// compactionConfig.
func newCompactionRun(t *testing.T) *crashRun {
	c := &crashRun{t: t, ws: t.TempDir(), state: t.TempDir(), cfg: t.TempDir(), script: writeScript(t, compactionScript())}
	if err := os.MkdirAll(filepath.Join(c.cfg, "rein"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.cfg, "rein", "config.toml"), []byte(compactionConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	return c
}

// plain is a command of rein in c's directories, without the flags of a
// run (the read-only commands and fork take none of them).
func (c *crashRun) plain(args ...string) *exec.Cmd {
	cmd := exec.Command(rein, args...)
	cmd.Dir = c.ws
	cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+c.state, "XDG_CONFIG_HOME="+c.cfg, "NO_COLOR=1")
	return cmd
}

// decodeLog reads a log's lines.
func decodeLog(t *testing.T, log []byte) []contract.Envelope {
	t.Helper()
	var out []contract.Envelope
	for _, line := range bytes.Split(bytes.TrimSpace(log), []byte("\n")) {
		var env contract.Envelope
		if err := json.Unmarshal(line, &env); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		out = append(out, env)
	}
	return out
}

// withSummary reports whether a context.projected of envs after seq
// included a summary.
func withSummary(envs []contract.Envelope, after uint64) (projected, summary bool) {
	for _, e := range envs {
		p, ok := e.Data.(*contract.ContextProjected)
		if !ok || e.Seq <= after {
			continue
		}
		projected = true
		for _, s := range p.Sources {
			if s.Kind == contract.SourceSummary {
				return true, true
			}
		}
		return true, false
	}
	return projected, false
}

func TestCompactedSessionRunsWithinItsWindow(t *testing.T) {
	c := newCompactionRun(t)
	out, err := c.command("exec", "do the eight steps").CombinedOutput()
	if err != nil {
		t.Fatalf("rein exec: %v\n%s", err, out)
	}
	log, _ := os.ReadFile(c.logPath())
	envs := decodeLog(t, log)
	compactions := 0
	for _, e := range envs {
		switch d := e.Data.(type) {
		case *contract.ContextCompacted:
			compactions++
		case *contract.ProviderError:
			t.Errorf("provider error: %+v", d)
		case *contract.ModelRequested:
			if d.Purpose == "" && d.EstimatedInputTokens > 12000 {
				t.Errorf("a request of about %d tokens, over the window", d.EstimatedInputTokens)
			}
		}
	}
	if compactions == 0 || !bytes.Contains(log, []byte(`"outcome":"completed"`)) {
		t.Fatalf("%d compactions; the run:\n%s", compactions, out)
	}
	if !strings.Contains(string(out), "context compacted") {
		t.Errorf("exec did not say it compacted:\n%s", out)
	}
	// rein why still finds what ran before the compaction.
	why, err := c.plain("why", "effects.txt").CombinedOutput()
	if err != nil || !strings.Contains(string(why), "step-1") {
		t.Errorf("rein why after a compaction: %v\n%s", err, why)
	}
}

func TestKilledRightAfterACompactionResumes(t *testing.T) {
	c := newCompactionRun(t)
	durable, killed := c.killWhen(func() bool {
		p := c.logPath()
		if p == "" {
			return false
		}
		b, _ := os.ReadFile(p)
		return bytes.Contains(b, []byte(`"type":"context.compacted"`))
	})
	if !killed {
		t.Skip("rein ended before the kill")
	}
	envs := decodeLog(t, durable)
	last := envs[len(envs)-1].Seq
	out, err := c.command("resume", filepath.Base(filepath.Dir(c.logPath()))).CombinedOutput()
	if err != nil {
		t.Fatalf("rein resume: %v\n%s", err, out)
	}
	after, _ := os.ReadFile(c.logPath())
	if !bytes.HasPrefix(after, durable) {
		t.Fatal("the resume lost lines of the log")
	}
	if !bytes.Contains(after[len(durable):], []byte(`"outcome":"completed"`)) {
		t.Errorf("the resumed run did not complete:\n%s", out)
	}
	if _, summary := withSummary(decodeLog(t, after), last); !summary {
		t.Errorf("the first request after the resume does not carry the summary")
	}
	effects, _ := os.ReadFile(filepath.Join(c.ws, "effects.txt"))
	for i := 1; i <= 8; i++ {
		if n := strings.Count(string(effects), fmt.Sprintf("step-%d\n", i)); n > 1 {
			t.Errorf("step %d ran %d times:\n%s", i, n, effects)
		}
	}
}

func TestForkBeforeAndAfterACompaction(t *testing.T) {
	c := newCompactionRun(t)
	if out, err := c.command("exec", "do the eight steps").CombinedOutput(); err != nil {
		t.Fatalf("rein exec: %v\n%s", err, out)
	}
	log, _ := os.ReadFile(c.logPath())
	var at uint64
	for _, e := range decodeLog(t, log) {
		if _, ok := e.Data.(*contract.ContextCompacted); ok {
			at = e.Seq
			break
		}
	}
	if at == 0 {
		t.Fatal("no compaction to fork around")
	}
	parentLog := c.logPath()
	parent := filepath.Base(filepath.Dir(parentLog))
	for _, tc := range []struct {
		name    string
		seq     uint64
		summary bool
	}{{"before", at - 1, false}, {"after", at, true}} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := c.plain("fork", parent, "--at", strconv.FormatUint(tc.seq, 10), "--json")
			forked, err := cmd.Output()
			if err != nil {
				t.Fatalf("rein fork: %v\n%s", err, err.(*exec.ExitError).Stderr)
			}
			var fork struct {
				ID string `json:"session"`
			}
			if err := json.Unmarshal(forked, &fork); err != nil || fork.ID == "" {
				t.Fatalf("rein fork --json: %v: %s", err, forked)
			}
			replay, err := c.plain("replay", fork.ID).CombinedOutput()
			if err != nil || strings.Contains(string(replay), "compacted:") != tc.summary {
				t.Errorf("replay of the fork %s the compaction: %v\n%s", map[bool]string{true: "does not show", false: "shows"}[tc.summary], err, replay)
			}
			out, err := c.command("resume", fork.ID, "and the follow-up?").CombinedOutput()
			if err != nil {
				t.Fatalf("rein resume of the fork: %v\n%s", err, out)
			}
			dir := filepath.Join(filepath.Dir(filepath.Dir(parentLog)), fork.ID)
			flog, _ := os.ReadFile(filepath.Join(dir, "events.jsonl"))
			envs := decodeLog(t, flog)
			resumed, compactedBefore := uint64(0), false
			for _, e := range envs {
				switch e.Data.(type) {
				case *contract.SessionResumed:
					resumed = e.Seq
				case *contract.ContextCompacted:
					compactedBefore = compactedBefore || resumed == 0
				}
			}
			if compactedBefore != tc.summary {
				t.Errorf("forked %s the compaction, the fork's log holds it: %v", tc.name, compactedBefore)
			}
			// Forked after it, the first request sends its summary; before
			// it, the fork is compacted anew when it goes on.
			if _, summary := withSummary(envs, resumed); !summary {
				t.Errorf("forked %s the compaction, the next request carries no summary", tc.name)
			}
			if !bytes.Contains(flog, []byte(`"outcome":"completed"`)) {
				t.Errorf("the resumed fork did not complete:\n%s", out)
			}
		})
	}
}
