//go:build unix

package builtin_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool"
)

// asked is a person who keeps the questions they are asked and says no.
type asked struct{ questions []tool.Question }

func (a *asked) Approve(_ context.Context, q tool.Question) (tool.Reply, error) {
	a.questions = append(a.questions, q)
	return tool.Reply{Answer: tool.No}, nil
}

// The person asked to approve a write sees the diff it would make, and
// nothing is written to make it.
func TestApprovalShowsTheDiffOfAWrite(t *testing.T) {
	long := strings.Repeat("a line\n", 1000)
	tests := []struct {
		name  string
		file  string // the file's content before; "-" for no file
		tool  string
		input string
		want  string // the whole preview; "..." at the end: its start
	}{
		{
			name: "edit", file: "one\ntwo\nthree\n", tool: "edit_file",
			input: `{"path":"f.txt","old_string":"two","new_string":"2"}`,
			want:  "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n",
		},
		{
			name: "edit that creates", file: "-", tool: "edit_file",
			input: `{"path":"f.txt","old_string":"","new_string":"new\n"}`,
			want:  "--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1 @@\n+new\n",
		},
		{
			name: "write new", file: "-", tool: "write_file",
			input: `{"path":"f.txt","content":"a\nb\n"}`,
			want:  "--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n",
		},
		{
			name: "write existing", file: "a\nb\n", tool: "write_file",
			input: `{"path":"f.txt","content":"a\nc\n"}`,
			want:  "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
		},
		{
			name: "huge write", file: "-", tool: "write_file",
			input: fmt.Sprintf(`{"path":"f.txt","content":%q}`, long),
			want:  "--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1,1000 @@\n+a line\n...",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.txt")
			var st state.State
			if tt.file != "-" {
				if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
					t.Fatal(err)
				}
				// The session has read it: the write is not stale.
				_, obs := turn(t, yoloRuntime(t, dir), &st, [2]string{"read_file", `{"path":"f.txt"}`})
				st = state.State{Ledger: st.Ledger.With(obs[0].Files...)}
			}
			person := &asked{}
			rt := newRuntime(t, dir, permission.Default, nil, &tool.Options{Approver: person})
			_, obs := turn(t, rt, &st, [2]string{tt.tool, tt.input})
			if len(person.questions) != 1 {
				t.Fatalf("asked %d questions, want 1; observation: %s", len(person.questions), obs[0].Text)
			}
			got := person.questions[0].Preview
			if want, ok := strings.CutSuffix(tt.want, "..."); ok {
				if !strings.HasPrefix(got, want) {
					t.Errorf("Preview starts %.200q, want %q", got, want)
				}
				lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
				if len(lines) != 401 || lines[400] != "[rein: 603 more lines are not shown]" {
					t.Errorf("Preview has %d lines, ending %q; want 400 and a count", len(lines), lines[len(lines)-1])
				}
			} else if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Preview mismatch (-want +got):\n%s", d)
			}
			after, err := os.ReadFile(path)
			switch {
			case tt.file == "-" && err == nil:
				t.Errorf("the preview created the file")
			case tt.file != "-" && string(after) != tt.file:
				t.Errorf("the file is %q after the preview, want it unchanged", after)
			}
			if obs[0].Code != contract.CodeDenied {
				t.Errorf("observation code %q, want denied", obs[0].Code)
			}
		})
	}
}

// A call the policy does not ask about is previewed by nobody: the
// preview is made only for a question.
func TestNoQuestionNoPreview(t *testing.T) {
	dir := t.TempDir()
	person := &asked{}
	rt := newRuntime(t, dir, permission.Yolo, nil, &tool.Options{Approver: person})
	var st state.State
	_, obs := turn(t, rt, &st, [2]string{"write_file", `{"path":"f.txt","content":"x\n"}`})
	if !obs[0].OK || len(person.questions) != 0 {
		t.Fatalf("observation %+v, %d questions; want a write and none", obs[0], len(person.questions))
	}
}
