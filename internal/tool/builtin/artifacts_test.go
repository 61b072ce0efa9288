//go:build unix

package builtin_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool"
	"github.com/rein-agent/rein/internal/tool/builtin"
	"github.com/rein-agent/rein/internal/workspace/workspacetest"
)

// artifactSession is a workspace and, beside it, a session's directory
// whose artifacts the tools may read, with a runtime over both.
type artifactSession struct {
	ws        string // the workspace root
	session   string // the session's directory, beside the workspace or inside it
	artifacts string // session/artifacts
	rt        *tool.Runtime
}

// newArtifactSession makes the session's runtime in mode, with no one to
// ask, and a workspace holding big.txt, whose output is kept as an
// artifact. The session's directory is beside the workspace, or inside it.
func newArtifactSession(t *testing.T, mode permission.Mode, inside bool) *artifactSession {
	t.Helper()
	base := workspacetest.RealTemp(t)
	s := &artifactSession{ws: workspacetest.Mkdir(t, filepath.Join(base, "ws"))}
	s.session = filepath.Join(base, "sessions", "ses_1")
	if inside {
		s.session = filepath.Join(s.ws, ".sessions", "ses_1")
	}
	workspacetest.Mkdir(t, s.session)
	s.artifacts = filepath.Join(s.session, "artifacts")
	var big strings.Builder
	for i := range 500 {
		fmt.Fprintf(&big, "result %d\n", i)
	}
	s.put(t, filepath.Join(s.ws, "big.txt"), big.String())
	s.put(t, filepath.Join(s.session, "events.jsonl"), "the session's log\n")
	s.rt = newRuntime(t, s.ws, mode, &builtin.Options{ArtifactDir: s.artifacts}, &tool.Options{ArtifactDir: s.artifacts})
	return s
}

func (s *artifactSession) put(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// call runs one intent and returns its observation.
func (s *artifactSession) call(t *testing.T, name, input string) contract.Observation {
	t.Helper()
	_, obs := turn(t, s.rt, &state.State{}, [2]string{name, input})
	return obs[0]
}

// artifact reads big.txt, whose output is kept, and returns the absolute
// path of its artifact, as the note of an elided observation gives it.
func (s *artifactSession) artifact(t *testing.T) string {
	t.Helper()
	o := s.call(t, "read_file", `{"path":"big.txt"}`)
	if !o.OK || o.ArtifactRef == "" {
		t.Fatalf("read_file of big.txt kept no artifact: %+v", o)
	}
	return s.rt.ArtifactPath(o.ArtifactRef)
}

// refused checks that o is a refusal at validation, precondition_failed,
// whose text says want.
func refused(t *testing.T, o contract.Observation, want string) {
	t.Helper()
	if o.OK || o.Phase != contract.PhaseValidation || o.Code != contract.CodePreconditionFailed || !strings.Contains(o.Text, want) {
		t.Errorf("observation = %+v; want a precondition_failed refusal at validation saying %q", o, want)
	}
}

// In default mode, with no one to ask, read_file reads an artifact by the
// absolute path an elided observation gives, as it reads a workspace
// file; the read tools reach the artifacts directory too, and the read
// leaves no stamp in the ledger.
func TestReadToolsReadTheSessionsArtifacts(t *testing.T) {
	for _, mode := range []permission.Mode{permission.Default, permission.Plan} {
		t.Run(mode.String(), func(t *testing.T) {
			s := newArtifactSession(t, mode, false)
			art := s.artifact(t)
			want, err := os.ReadFile(art)
			if err != nil {
				t.Fatal(err)
			}
			o := s.call(t, "read_file", fmt.Sprintf(`{"path":%q,"offset":2,"limit":3}`, art))
			if !o.OK || !strings.HasPrefix(o.Text, "     2\t") || len(o.Files) != 0 {
				t.Fatalf("read_file of the artifact = %+v; want lines 2 to 4, no stamp", o)
			}
			if lines := strings.Split(string(want), "\n"); !strings.Contains(o.Text, lines[2]) {
				t.Errorf("read_file shows %q; want the artifact's lines", o.Text)
			}
			for _, c := range []struct{ tool, input, want string }{
				{"grep", fmt.Sprintf(`{"pattern":"result 499","path":%q}`, art), "result 499"},
				{"grep", fmt.Sprintf(`{"pattern":"result 499","path":%q}`, s.artifacts), filepath.Base(art)},
				{"glob", fmt.Sprintf(`{"pattern":"*.txt","path":%q}`, s.artifacts), art},
				{"list_dir", fmt.Sprintf(`{"path":%q}`, s.artifacts), filepath.Base(art)},
			} {
				if o := s.call(t, c.tool, c.input); !o.OK || !strings.Contains(o.Text, c.want) {
					t.Errorf("%s %s = %+v; want it to show %q", c.tool, c.input, o, c.want)
				}
			}
		})
	}
}

// No tool writes an artifact, even in yolo mode, where nothing asks; the
// file stays as it was.
func TestNoToolWritesAnArtifact(t *testing.T) {
	s := newArtifactSession(t, permission.Yolo, false)
	art := s.artifact(t)
	before, err := os.ReadFile(art)
	if err != nil {
		t.Fatal(err)
	}
	// edit_file must have read the file first, or it is refused for that.
	s.call(t, "read_file", fmt.Sprintf(`{"path":%q}`, art))
	refused(t, s.call(t, "write_file", fmt.Sprintf(`{"path":%q,"content":"forged\n"}`, art)), "no tool writes there")
	refused(t, s.call(t, "edit_file", fmt.Sprintf(`{"path":%q,"old_string":"result 1\n","new_string":"forged\n"}`, art)), "no tool writes there")
	refused(t, s.call(t, "write_file", fmt.Sprintf(`{"path":%q,"content":"new\n"}`, filepath.Join(s.artifacts, "inv_new.txt"))), "no tool writes there")
	if after, _ := os.ReadFile(art); string(after) != string(before) {
		t.Errorf("the artifact changed:\n%s", after)
	}
	if _, err := os.Stat(filepath.Join(s.artifacts, "inv_new.txt")); !os.IsNotExist(err) {
		t.Errorf("a file was made in the artifacts directory: %v", err)
	}
}

// Where the artifacts directory lies inside the workspace, its files are
// read as any, and still no tool writes them.
func TestArtifactsInsideTheWorkspaceAreNotWritten(t *testing.T) {
	s := newArtifactSession(t, permission.Yolo, true)
	art := s.artifact(t)
	if o := s.call(t, "read_file", fmt.Sprintf(`{"path":%q}`, art)); !o.OK {
		t.Fatalf("read_file of the artifact = %+v", o)
	}
	rel, err := filepath.Rel(s.ws, art)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{art, rel, filepath.Join(filepath.Dir(rel), "inv_new.txt")} {
		refused(t, s.call(t, "write_file", fmt.Sprintf(`{"path":%q,"content":"forged\n"}`, path)), "artifacts directory")
		refused(t, s.call(t, "edit_file", fmt.Sprintf(`{"path":%q,"old_string":"","new_string":"forged\n"}`, path)), "artifacts directory")
	}
}

// Only what lies in the artifacts directory, links followed, is in reach:
// a ".." out of it, a link planted in it that leads outside, and any other
// path outside the workspace are refused as before, and nothing of what
// they lead to is shown.
func TestArtifactsDoNotWidenTheWorkspace(t *testing.T) {
	s := newArtifactSession(t, permission.Default, false)
	s.artifact(t)
	outside := workspacetest.Mkdir(t, filepath.Join(filepath.Dir(s.ws), "elsewhere"))
	s.put(t, filepath.Join(outside, "secret.txt"), "a secret\n")
	s.put(t, filepath.Join(filepath.Dir(outside), "beside.txt"), "a secret beside\n")
	workspacetest.Symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(s.artifacts, "inv_link.txt"))
	workspacetest.Symlink(t, outside, filepath.Join(s.artifacts, "dir_link"))
	workspacetest.Symlink(t, filepath.Join(s.session, "events.jsonl"), filepath.Join(s.artifacts, "inv_log.txt"))
	for _, c := range []struct{ name, path string }{
		{"dotdot", s.artifacts + "/../events.jsonl"},
		// Cleaned as text, it would be artifacts/beside.txt; the system
		// takes the .. after following dir_link.
		{"dotdot after a link", filepath.Join(s.artifacts, "dir_link") + "/../beside.txt"},
		{"link to a file outside", filepath.Join(s.artifacts, "inv_link.txt")},
		{"link to the session's log", filepath.Join(s.artifacts, "inv_log.txt")},
		{"through a linked directory", filepath.Join(s.artifacts, "dir_link", "secret.txt")},
		{"the session's log", filepath.Join(s.session, "events.jsonl")},
		{"elsewhere", filepath.Join(outside, "secret.txt")},
	} {
		t.Run(c.name, func(t *testing.T) {
			refused(t, s.call(t, "read_file", fmt.Sprintf(`{"path":%q}`, c.path)), "outside the workspace")
			refused(t, s.call(t, "grep", fmt.Sprintf(`{"pattern":"secret|log","path":%q}`, c.path)), "outside the workspace")
		})
	}
	refused(t, s.call(t, "list_dir", fmt.Sprintf(`{"path":%q}`, filepath.Join(s.artifacts, "dir_link"))), "outside the workspace")
	refused(t, s.call(t, "list_dir", fmt.Sprintf(`{"path":%q}`, s.session)), "outside the workspace")
	// A search of the whole directory skips the links that lead out.
	for _, c := range [][2]string{
		{"grep", fmt.Sprintf(`{"pattern":"secret|log","path":%q}`, s.artifacts)},
		{"glob", fmt.Sprintf(`{"pattern":"**","path":%q}`, s.artifacts)},
	} {
		o := s.call(t, c[0], c[1])
		if !o.OK || strings.Contains(o.Text, "a secret") || strings.Contains(o.Text, "the session's log") ||
			strings.Contains(o.Text, "inv_link") || strings.Contains(o.Text, "inv_log") {
			t.Errorf("%s over the artifacts directory = %+v; want nothing the links lead to", c[0], o)
		}
	}
}

// The artifacts directory is where it was when the tools were made: one
// made later as a link to elsewhere (by a command) does not lead reads
// there.
func TestArtifactsDirectoryMadeALinkLater(t *testing.T) {
	s := newArtifactSession(t, permission.Default, false)
	outside := workspacetest.Mkdir(t, filepath.Join(filepath.Dir(s.ws), "elsewhere"))
	s.put(t, filepath.Join(outside, "secret.txt"), "a secret\n")
	workspacetest.Symlink(t, outside, s.artifacts)
	path := filepath.Join(s.artifacts, "secret.txt")
	refused(t, s.call(t, "read_file", fmt.Sprintf(`{"path":%q}`, path)), "outside the workspace")
	refused(t, s.call(t, "grep", fmt.Sprintf(`{"pattern":"secret","path":%q}`, s.artifacts)), "outside the workspace")
}
