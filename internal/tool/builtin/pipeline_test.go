//go:build unix

package builtin_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool"
	"github.com/rein-agent/rein/internal/tool/builtin"
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

// runtimeFor returns the tool runtime over the built-in tools in dir, in
// yolo mode, keeping artifacts in artifacts.
func runtimeFor(t *testing.T, dir, artifacts string, secrets []string) *tool.Runtime {
	t.Helper()
	ws, err := permission.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	policy, err := permission.New(permission.Yolo, permission.Rules{}, ws)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.New(builtin.Tools(ws, &builtin.Options{Bash: &builtin.BashOptions{Secrets: secrets}})...)
	if err != nil {
		t.Fatal(err)
	}
	// Building the runtime compiles every built-in schema with the
	// validator the pipeline uses.
	rt, err := tool.New(reg, policy, &tool.Options{ArtifactDir: artifacts, Secrets: secrets})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// A command printing 1 GB keeps rein's memory bounded and the run alive:
// the model sees a head and a tail, the artifact stops at its cap with a
// marker, and the heap never holds the output.
func TestGigabyteOfOutputThroughThePipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("prints 1 GB")
	}
	dir := t.TempDir()
	artifacts := filepath.Join(t.TempDir(), "artifacts")
	rt := runtimeFor(t, dir, artifacts, []string{"sk-not-in-the-output-0123"})
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	s := &sink{}
	in, _ := json.Marshal(map[string]string{"command": "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 1000000000"})
	err := rt.Run(t.Context(), &state.State{}, []tool.Proposal{{Intent: contract.ToolIntent{ID: "int_1", ToolName: "bash", Input: in}}}, s)
	close(done)
	if err != nil {
		t.Fatal(err)
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
	if completed == nil || completed.Exit != contract.ExitOK || completed.OutputBytes < 1e9 {
		t.Fatalf("completed = %+v", completed)
	}
	if !obs.Truncated || len(obs.Text) > 32<<10 || !strings.Contains(obs.Text, "lines omitted") || !strings.HasSuffix(obs.Text, "exit code: 0\n") {
		t.Errorf("observation: truncated %v, %d bytes, ends %q", obs.Truncated, len(obs.Text), obs.Text[max(0, len(obs.Text)-80):])
	}
	fi, err := os.Stat(filepath.Join(filepath.Dir(artifacts), obs.ArtifactRef))
	if err != nil || fi.Size() < 64<<20 || fi.Size() > 64<<20+200 {
		t.Errorf("artifact %s: %v, %v; want 64 MiB and a marker", obs.ArtifactRef, fi, err)
	}
	if p := peak.Load(); p > 64<<20 {
		t.Errorf("peak heap in use %d MiB while 1 GB went through; want it bounded", p>>20)
	}
	t.Logf("peak heap in use: %.1f MiB", float64(peak.Load())/(1<<20))
}
