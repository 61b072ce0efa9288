//go:build linux

package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool"
)

// events is a tool.Sink that keeps what the runtime emits.
type events struct {
	mu   sync.Mutex
	list []contract.Event
}

func (e *events) Emit(ev contract.Event, _ string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, ev)
	return fmt.Sprintf("evt_%d", len(e.list)), nil
}

func (e *events) Sync() error { return nil }

// approverFunc is a scripted person.
type approverFunc func(q tool.Question) tool.Answer

func (f approverFunc) Approve(_ context.Context, q tool.Question) (tool.Reply, error) {
	return tool.Reply{Answer: f(q)}, nil
}

// TestBashRunsAgainOutsideTheSandbox checks, with the real bash tool in
// the real sandbox, that a write outside the writable roots is refused,
// and then: run again with no sandbox when the person says yes (the file
// is there, the second start records mode off); left refused when they
// say no; and refused with the flags that would allow it in a run that
// cannot ask.
func TestBashRunsAgainOutsideTheSandbox(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer tool.Answer
		ask    bool // a person can be asked
		// wrote says the file outside is there afterwards.
		wrote bool
		text  string // the observation holds it
	}{
		{"yes", tool.Yes, true, true, "the user allowed after the sandbox refused the first: the sandbox refused a write to "},
		{"no", tool.No, true, false, "said no; do not try to get around the sandbox"},
		{"headless", 0, false, false, "to allow such commands, pass --sandbox off (or widen it: writable_roots in the [sandbox] table of your config.toml, or --add-dir)."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bash, p, ws, outside := sandboxed(t)
			target := filepath.Join(outside, "x")
			reg, err := registry.New(bash)
			if err != nil {
				t.Fatal(err)
			}
			policy, err := permission.New(permission.Yolo, permission.Rules{}, ws)
			if err != nil {
				t.Fatal(err)
			}
			var asked []tool.Question
			opts := &tool.Options{}
			if tc.ask {
				opts.Approver = approverFunc(func(q tool.Question) tool.Answer { asked = append(asked, q); return tc.answer })
			}
			rt, err := tool.New(reg, policy, opts)
			if err != nil {
				t.Fatal(err)
			}
			sink := &events{}
			in := contract.ToolIntent{ID: "int_1", ToolName: "bash", Input: json.RawMessage(`{"command":"touch ` + target + `"}`)}
			if err := rt.Run(t.Context(), &state.State{}, []tool.Proposal{{Intent: in}}, sink); err != nil {
				t.Fatal(err)
			}
			var starts []*contract.SandboxSpec
			var obs []contract.Observation
			for _, e := range sink.list {
				switch e := e.(type) {
				case *contract.InvocationStarted:
					starts = append(starts, e.Sandbox)
				case *contract.ToolObservation:
					obs = append(obs, e.Observation)
				}
			}
			want := []*contract.SandboxSpec{p.Record()}
			if tc.wrote {
				want = append(want, &contract.SandboxSpec{Mode: "off"})
			}
			if d := cmp.Diff(want, starts); d != "" {
				t.Errorf("the sandboxes of the starts mismatch (-want +got):\n%s", d)
			}
			if len(obs) != 1 || obs[0].OK != tc.wrote || !strings.Contains(obs[0].Text, tc.text) {
				t.Fatalf("observations = %+v, want one, ok %v, holding %q", obs, tc.wrote, tc.text)
			}
			if _, err := os.Stat(target); (err == nil) != tc.wrote {
				t.Errorf("stat %s after %s: %v", target, tc.name, err)
			}
			refused := "the sandbox refused a write to " + target + ": outside the writable roots"
			if tc.ask && (len(asked) != 1 || asked[0].Kind != tool.AskOutsideSandbox || !strings.HasPrefix(asked[0].Reason, refused)) {
				t.Errorf("asked %+v, want one question about %q", asked, refused)
			}
		})
	}
}
