//go:build unix

package tool_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool"
	"github.com/rein-agent/rein/internal/tool/builtin"
	"github.com/rein-agent/rein/internal/workspace"
)

type sink struct {
	mu     sync.Mutex
	events []contract.Event
}

func (s *sink) Emit(e contract.Event, _ string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
	return "evt", nil
}

func (s *sink) Sync() error { return nil }

// meter sits between a tool and the runtime's capture of its output. It
// counts what the tool writes and its largest write, and after every write
// asks the capture how many bytes it holds; once they pass limit it
// cancels the tool, so a pipeline that keeps everything fails the test
// fast rather than filling memory. It is not safe for concurrent use, as
// registry.Call.Output is not.
type meter struct {
	w      io.Writer // the capture
	limit  int
	cancel context.CancelFunc

	total   int64 // bytes written
	writes  int
	largest int // the largest write
	peak    int // the most the capture held after a write
	blind   bool
}

func (m *meter) Write(p []byte) (int, error) {
	n, err := m.w.Write(p)
	m.total += int64(n)
	m.writes++
	m.largest = max(m.largest, len(p))
	held, ok := tool.CaptureRetained(m.w)
	if !ok {
		m.blind = true
	}
	if m.peak = max(m.peak, held); held > m.limit {
		m.cancel()
	}
	return n, err
}

// metered returns t with its output going through m.
func metered(t registry.Tool, m *meter) registry.Tool {
	run := t.Execute
	t.Execute = func(ctx context.Context, call *registry.Call) (registry.Result, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		c := *call
		m.w, m.cancel, c.Output = call.Output, cancel, m
		return run(ctx, &c)
	}
	return t
}

// A command printing 1 GB goes through the whole pipeline (the bash tool
// and its pipe, the capture and its redactor, the artifact, the
// observation) while the pipeline holds a bounded part of it: the capture
// never keeps more than its head, its tail and a secret's length, checked
// after every write; the tool streams, never writing more than a pipe
// read at a time; the model sees a head and a tail; and the artifact stops
// at its cap with a marker. What the rest of the process allocates meanwhile
// does not count.
func TestGigabyteOfOutputThroughThePipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("prints 1 GB")
	}
	dir := t.TempDir()
	artifacts := filepath.Join(t.TempDir(), "artifacts")
	secrets := []string{"sk-not-in-the-output-0123"}
	// The capture must hold the head (8 KiB) and the tail (16 KiB) the
	// model is shown by default and what its redactor holds back (a
	// secret's length); twice that leaves room for what append rounds up.
	maxRetained := 2 * (8<<10 + 16<<10 + len(secrets[0]))
	// A write is one read of the pipe, whatever the output's size.
	const maxWrite = 1 << 20
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	policy, err := permission.New(permission.Yolo, permission.Rules{}, ws)
	if err != nil {
		t.Fatal(err)
	}
	m := &meter{limit: maxRetained}
	reg, err := registry.New(metered(builtin.Bash(ws, &builtin.BashOptions{Secrets: secrets}), m))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := tool.New(reg, policy, &tool.Options{ArtifactDir: artifacts, Secrets: secrets})
	if err != nil {
		t.Fatal(err)
	}
	s := &sink{}
	in, _ := json.Marshal(map[string]string{"command": "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 1000000000"})
	if err := rt.Run(t.Context(), &state.State{}, []tool.Proposal{{Intent: contract.ToolIntent{ID: "int_1", ToolName: "bash", Input: in}}}, s); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes in %d writes (largest %d bytes); the capture held at most %d bytes", m.total, m.writes, m.largest, m.peak)
	if m.blind {
		t.Fatal("the tool's output is not the runtime's capture: nothing was measured")
	}
	if m.peak > maxRetained {
		t.Fatalf("the capture held %d bytes after %d bytes of output; want at most %d", m.peak, m.total, maxRetained)
	}
	if m.largest > maxWrite {
		t.Errorf("the tool wrote %d bytes at once; want it to stream, at most %d at a time", m.largest, maxWrite)
	}
	var obs *contract.ToolObservation
	var completed *contract.InvocationCompleted
	for _, e := range s.events {
		switch e := e.(type) {
		case *contract.ToolObservation:
			obs = e
		case *contract.InvocationCompleted:
			completed = e
		}
	}
	if completed == nil || completed.Exit != contract.ExitOK || completed.OutputBytes < 1e9 || m.total != completed.OutputBytes {
		t.Fatalf("completed = %+v, %d bytes written", completed, m.total)
	}
	if !obs.Truncated || len(obs.Text) > 32<<10 || !strings.Contains(obs.Text, "lines omitted") || !strings.HasSuffix(obs.Text, "exit code: 0\n") {
		t.Errorf("observation: truncated %v, %d bytes, ends %q", obs.Truncated, len(obs.Text), obs.Text[max(0, len(obs.Text)-80):])
	}
	fi, err := os.Stat(filepath.Join(filepath.Dir(artifacts), obs.ArtifactRef))
	if err != nil || fi.Size() < 64<<20 || fi.Size() > 64<<20+200 {
		t.Errorf("artifact %s: %v, %v; want 64 MiB and a marker", obs.ArtifactRef, fi, err)
	}
}
