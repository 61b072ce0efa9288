package tui

import (
	"bytes"
	"context"
	"io"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
)

// askingRuntime streams a little, then asks the person through the
// Approver from the run's goroutine, as the kernel does.
type askingRuntime struct {
	fakeRuntime
	approver *Approver
	mu       sync.Mutex
	answers  []kernel.Answer
}

func (a *askingRuntime) Send(ctx context.Context, in kernel.Input) iter.Seq2[contract.Envelope, error] {
	return func(yield func(contract.Envelope, error) bool) {
		for _, e := range []contract.Envelope{
			env(2, &contract.UserMessage{Text: in.Text}),
			env(0, &contract.TextDelta{Text: "Let me look."}),
			env(3, &contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: "int_1", ToolName: "bash", Input: rawInput(map[string]string{"command": "ls"})}}),
		} {
			if !yield(e, nil) {
				return
			}
		}
		reply, err := a.approver.Approve(ctx, kernel.Question{Tool: "bash", Subject: "ls", Rules: []string{"bash(ls)"}})
		if err != nil {
			return
		}
		a.mu.Lock()
		a.answers = append(a.answers, reply.Answer)
		a.mu.Unlock()
		yield(env(4, &contract.RunFinished{Outcome: contract.OutcomeCompleted}), nil)
	}
}

// syncBuffer is the program's output, read by the test as it is written.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The real program, its pump and its Approver, driven through its input:
// a message is sent, the run asks, one key answers, Ctrl-D leaves. Run
// with -race, this is where the goroutines meet.
func TestProgramAsksAndLeaves(t *testing.T) {
	approver := NewApprover()
	rt := &askingRuntime{approver: approver}
	rt.cur = kernel.Current{Provider: "scripted", Model: "m"}
	in, typed := io.Pipe()
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		_, err := Run(t.Context(), Options{
			In: in, Out: out, Env: []string{"TERM=xterm", "NO_COLOR=1"},
			Session:  &Session{Runtime: rt, Dir: t.TempDir()},
			Approver: approver, Workspace: t.TempDir(), HistoryFile: "-", CommandDirs: []string{},
			Width: 80, Height: 24, Notify: "off",
		})
		done <- err
	}()
	wait := func(what string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(out.String(), what) {
			if time.Now().After(deadline) {
				t.Fatalf("the program never wrote %q; it wrote:\n%q", what, out.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	wait("· 0 tok")
	if _, err := io.WriteString(typed, "hello\r"); err != nil {
		t.Fatal(err)
	}
	wait("[a] always")
	time.Sleep(askGuard + 100*time.Millisecond) // a key as the question appears is typing, not an answer
	if _, err := io.WriteString(typed, "a"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		rt.mu.Lock()
		n := len(rt.answers)
		rt.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the question was never answered")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if rt.answers[0] != kernel.Always {
		t.Errorf("answer %v, want always", rt.answers[0])
	}
	if _, err := io.WriteString(typed, "\x04"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl-D did not end the program")
	}
	if !strings.Contains(out.String(), "Let me look.") {
		t.Errorf("the answer never reached the screen:\n%q", out.String())
	}
}
