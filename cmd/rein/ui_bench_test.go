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
	"time"

	"github.com/creack/pty"
)

// onPTY starts rein args on a pseudo-terminal of 100x30 in dir, with env,
// and returns the command and the terminal.
func onPTY(b testing.TB, dir string, env []string, args ...string) (*exec.Cmd, *os.File) {
	b.Helper()
	cmd := exec.Command(rein, args...)
	cmd.Dir, cmd.Env = dir, env
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 30, Cols: 100})
	if err != nil {
		b.Skipf("no pseudo-terminal here: %v", err)
	}
	return cmd, ptmx
}

// readUntil reads the terminal until it has shown want, and returns
// when it did.
func readUntil(b testing.TB, ptmx *os.File, want string) time.Time {
	b.Helper()
	var seen bytes.Buffer
	buf := make([]byte, 4096)
	deadline := time.Now().Add(uiWait)
	for time.Now().Before(deadline) {
		_ = ptmx.SetReadDeadline(time.Now().Add(time.Second))
		n, err := ptmx.Read(buf)
		seen.Write(buf[:n])
		if bytes.Contains(seen.Bytes(), []byte(want)) {
			return time.Now()
		}
		if err != nil && !os.IsTimeout(err) {
			break
		}
	}
	b.Fatalf("the terminal never showed %q:\n%q", want, seen.String())
	return time.Time{}
}

// drain reads and discards what the terminal sends, so that rein never
// blocks writing, until stop is closed.
func drain(ptmx *os.File, stop <-chan struct{}) {
	buf := make([]byte, 4096)
	for {
		select {
		case <-stop:
			return
		default:
		}
		_ = ptmx.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		if _, err := ptmx.Read(buf); err != nil && !os.IsTimeout(err) {
			return
		}
	}
}

// cpuTicks is the user and system CPU time of pid, in clock ticks
// (1/100 s on Linux).
func cpuTicks(b testing.TB, pid int) int64 {
	b.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Skipf("no /proc here: %v", err)
	}
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// peakRSS is the peak resident memory of pid, in KiB.
func peakRSS(b testing.TB, pid int) int64 {
	b.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc here: %v", err)
	}
	for l := range strings.Lines(string(raw)) {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

func uiEnv(b testing.TB) []string {
	state := b.TempDir()
	return append(cleanEnv(), "XDG_STATE_HOME="+state, "XDG_CONFIG_HOME="+filepath.Join(state, "config"),
		"TMPDIR="+b.TempDir(), "TERM=xterm-256color")
}

// BenchmarkUIReady measures the time from starting rein to a composer
// ready to type in (its prompt drawn).
func BenchmarkUIReady(b *testing.B) {
	dir, env := b.TempDir(), uiEnv(b)
	flags := scriptFlags(b, answerTurns)
	for b.Loop() {
		start := time.Now()
		cmd, ptmx := onPTY(b, dir, env, flags...)
		ready := readUntil(b, ptmx, "› ")
		b.ReportMetric(float64(ready.Sub(start).Microseconds())/1000, "ms-to-ready")
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		ptmx.Close()
	}
}

// BenchmarkUIIdle measures the CPU rein spends while it waits for a key,
// over five seconds: the target is none (no polling loop, no blinking
// timer).
func BenchmarkUIIdle(b *testing.B) {
	dir, env := b.TempDir(), uiEnv(b)
	for b.Loop() {
		cmd, ptmx := onPTY(b, dir, env, scriptFlags(b, answerTurns)...)
		readUntil(b, ptmx, "› ")
		stop := make(chan struct{})
		go drain(ptmx, stop)
		time.Sleep(500 * time.Millisecond) // start-up work settles
		before := cpuTicks(b, cmd.Process.Pid)
		time.Sleep(5 * time.Second)
		used := cpuTicks(b, cmd.Process.Pid) - before
		close(stop)
		b.ReportMetric(float64(used)*10/5, "cpu-ms/s-idle")
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		ptmx.Close()
	}
}

// BenchmarkUIResume2000 measures the peak memory of rein resuming a
// session of about 2,000 events with -i (its transcript rendered into
// the scrollback) and the time until the composer is ready.
func BenchmarkUIResume2000(b *testing.B) {
	dir, env := b.TempDir(), uiEnv(b)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(strings.Repeat("a line of notes\n", 40)), 0o644); err != nil {
		b.Fatal(err)
	}
	var turns []string
	for i := range 190 {
		turns = append(turns, fmt.Sprintf(`{"steps":[{"text":"Reading the notes again, pass %d, **carefully**."},`+
			`{"tool":{"index":0,"id":"call_%d","name":"read_file","input":{"path":"notes.txt"}}},{"finish":"tool_use"}]}`, i, i))
	}
	turns = append(turns, `{"steps":[{"text":"Done reading."},{"finish":"stop"}]}`)
	flags := scriptFlags(b, `{"turns":[`+strings.Join(turns, ",")+`]}`)
	cmd := exec.Command(rein, append([]string{"exec", "--max-turns", "250", "--permission-mode", "yolo"}, append(flags, "read the notes")...)...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("making the session: %v\n%s", err, out)
	}
	events := 0
	logs, _ := filepath.Glob(filepath.Join(strings.TrimPrefix(env[len(env)-4], "XDG_STATE_HOME="), "rein", "sessions", "ses_*", "events.jsonl"))
	if len(logs) == 1 {
		if raw, err := os.ReadFile(logs[0]); err == nil {
			events = bytes.Count(raw, []byte("\n"))
		}
	}
	for b.Loop() {
		start := time.Now()
		cmd, ptmx := onPTY(b, dir, env, append([]string{"resume", "--last", "-i"}, flags...)...)
		ready := readUntil(b, ptmx, "go on below")
		stop := make(chan struct{})
		go drain(ptmx, stop)
		time.Sleep(300 * time.Millisecond)
		b.ReportMetric(float64(ready.Sub(start).Milliseconds()), "ms-to-past")
		b.ReportMetric(float64(events), "events")
		b.ReportMetric(float64(peakRSS(b, cmd.Process.Pid))/1024, "MiB-peak")
		close(stop)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		ptmx.Close()
	}
}

// BenchmarkUIStream5000 measures the CPU of the whole rein process (the
// kernel, the log, the UI) while a scripted model streams a 5,000-word
// markdown answer in deltas of about 4 bytes, one every millisecond, on
// a terminal; rein coalesces them into at most 60 frames a second.
func BenchmarkUIStream5000(b *testing.B) {
	var text strings.Builder
	for i := 0; text.Len() < 30000; i++ {
		fmt.Fprintf(&text, "## Part %d\n\nThe function `mean` divides the **sum** of the values by their count, and an empty slice "+
			"makes that a division by zero; the test expects zero instead.\n\n- check the length first\n- return zero\n\n"+
			"```go\nfunc Mean(xs []float64) float64 {\n\tif len(xs) == 0 {\n\t\treturn 0\n\t}\n\treturn sum(xs) / float64(len(xs))\n}\n```\n\n", i)
	}
	text.WriteString("END-OF-ANSWER\n")
	s := text.String()
	var steps []string
	for i := 0; i < len(s); i += 4 {
		chunk, _ := json.Marshal(s[i:min(len(s), i+4)])
		steps = append(steps, `{"text":`+string(chunk)+`}`)
	}
	script := `{"chunk_delay_ms": 1, "turns":[{"steps":[` + strings.Join(steps, ",") + `,{"finish":"stop"}]}]}`
	b.ReportMetric(float64(len(strings.Fields(s))), "words")
	dir, env := b.TempDir(), uiEnv(b)
	flags := scriptFlags(b, script)
	if os.Getenv("REIN_BENCH_HEADLESS") != "" {
		// The same stream through exec on the terminal, for comparison.
		for b.Loop() {
			cmd, ptmx := onPTY(b, dir, env, append([]string{"exec"}, append(flags, "go")...)...)
			go drain(ptmx, make(chan struct{}))
			_ = cmd.Wait()
			b.ReportMetric(float64(cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())/1e6, "cpu-ms")
			ptmx.Close()
		}
		return
	}
	for b.Loop() {
		cmd, ptmx := onPTY(b, dir, env, flags...)
		readUntil(b, ptmx, "› ")
		before := cpuTicks(b, cmd.Process.Pid)
		start := time.Now()
		if _, err := ptmx.WriteString("go\r"); err != nil {
			b.Fatal(err)
		}
		readUntil(b, ptmx, "END-OF-ANSWER")
		b.ReportMetric(float64(cpuTicks(b, cmd.Process.Pid)-before)*10, "cpu-ms")
		b.ReportMetric(time.Since(start).Seconds(), "s-streamed")
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		ptmx.Close()
	}
}
