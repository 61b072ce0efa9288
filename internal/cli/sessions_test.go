package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/session"
	"github.com/rein-agent/rein/internal/workspace"
)

// storeDeps are Deps over a real session store in a temporary directory,
// with a kernel asking p; Open and Resume fail the test when forbid is
// set (replay, log, why and sessions must need neither).
func storeDeps(t *testing.T, p provider.Provider, forbid bool, out, errw *bytes.Buffer) (Deps, *session.Store) {
	store := session.NewStore(t.TempDir(), nil)
	runtime := func(x *session.Session, cwd string) (*Session, error) {
		k, err := kernel.New(p, x.Log, &kernel.Options{ProviderName: "fake", Cwd: cwd, Session: x.ID, State: &x.State, Version: "test"})
		if err != nil {
			return nil, err
		}
		return &Session{Runtime: k, Dir: x.Dir, Close: x.Close, Gates: map[string]string{"workspace": "ok"}}, nil
	}
	deps := Deps{
		Open: func(ctx context.Context, spec Spec) (*Session, error) {
			if forbid {
				t.Fatal("a read-only command opened a session for writing")
			}
			x, err := store.Create(id.New("ses"), nil)
			if err != nil {
				return nil, err
			}
			return runtime(x, spec.Cwd)
		},
		Resume: func(ctx context.Context, spec Spec) (*Session, error) {
			if forbid {
				t.Fatal("a read-only command resumed a session")
			}
			sid := spec.Session
			if spec.Last {
				var err error
				if sid, err = store.Last(spec.Cwd); err != nil {
					return nil, err
				}
			}
			x, err := store.Open(sid, nil)
			if err != nil {
				return nil, err
			}
			return runtime(x, spec.Cwd)
		},
		Store:  func(cwd, dir string) (*session.Store, error) { return store, nil },
		Stdin:  strings.NewReader(""),
		Stdout: out,
		Stderr: errw,
	}
	return deps, store
}

func execute(t *testing.T, deps Deps, args ...string) result {
	t.Helper()
	out, errw := deps.Stdout.(*bytes.Buffer), deps.Stderr.(*bytes.Buffer)
	out.Reset()
	errw.Reset()
	code := Execute(t.Context(), args, deps)
	return result{code, out.String(), errw.String()}
}

func TestSessionCommands(t *testing.T) {
	here := t.TempDir()
	t.Chdir(here)
	var out, errw bytes.Buffer
	deps, store := storeDeps(t, model(answer...), false, &out, &errw)
	if r := execute(t, deps, "exec", "why do tests fail"); r.code != 0 {
		t.Fatalf("exec: %d %s", r.code, r.stderr)
	}
	list, _, err := store.List(nil)
	if err != nil || len(list) != 1 {
		t.Fatalf("List() = %v, %v", list, err)
	}
	id := list[0].ID

	r := execute(t, deps, "sessions")
	if lines := strings.Split(r.stdout, "\n"); r.code != 0 || !strings.HasPrefix(lines[0], "ID ") || !strings.HasPrefix(lines[1], id) ||
		!strings.Contains(lines[1], "completed") || !strings.Contains(lines[1], "why do tests fail") {
		t.Errorf("sessions: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = execute(t, deps, "sessions", "--json")
	var sum session.Summary
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil || sum.ID != id || sum.Cwd != here || sum.Outcome != "completed" {
		t.Errorf("sessions --json: %+v, %v\n%s", sum, err, r.stdout)
	}
	t.Chdir(t.TempDir())
	if r = execute(t, deps, "sessions"); r.stdout != "" || !strings.Contains(r.stderr, "no sessions in") {
		t.Errorf("sessions elsewhere: %q %q", r.stdout, r.stderr)
	}
	if r = execute(t, deps, "sessions", "--all"); !strings.Contains(r.stdout, id) || !strings.Contains(r.stdout, here) {
		t.Errorf("sessions --all:\n%s", r.stdout)
	}

	r = execute(t, deps, "log", "--type", "run.*", "--type", "user.message", id)
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); r.code != 0 || len(lines) != 3 ||
		!strings.Contains(lines[0], "user.message") || !strings.Contains(lines[2], "run.finished") {
		t.Errorf("log --type: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r = execute(t, deps, "log", "--type", "[", id); r.code != ExitUsage {
		t.Errorf("log with a bad glob: exit %d, want 2", r.code)
	}

	// Nothing to continue: a message, and not one byte written.
	before := logBytes(t, store, id)
	r = execute(t, deps, "resume", id[:10])
	if r.code != 0 || !strings.Contains(r.stderr, "nothing to continue") {
		t.Errorf("resume of a finished session: %d %s", r.code, r.stderr)
	}
	if !bytes.Equal(before, logBytes(t, store, id)) {
		t.Error("a resume with nothing to do wrote to the log")
	}
	r = execute(t, deps, "resume", id, "and", "now?")
	if r.code != 0 || r.stdout != "The test fails.\n" {
		t.Errorf("resume with a prompt: %d %q %s", r.code, r.stdout, r.stderr)
	}
	var types []string
	store.Read(id, func(env contract.Envelope) error { types = append(types, env.Type()); return nil })
	if got := strings.Join(types, " "); !strings.Contains(got, "run.finished session.resumed user.message run.started") {
		t.Errorf("log after resume: %s", got)
	}
	if r = execute(t, deps, "resume"); r.code != ExitUsage || !strings.Contains(r.stderr, "--last") {
		t.Errorf("resume without an id: %d %s", r.code, r.stderr)
	}
}

func logBytes(t *testing.T, store *session.Store, id string) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := store.Read(id, func(env contract.Envelope) error {
		line, err := env.MarshalJSON()
		b.Write(line)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestResumeLastWithAnIDIsAMistake(t *testing.T) {
	var out, errw bytes.Buffer
	deps, _ := storeDeps(t, model(answer...), true, &out, &errw)
	r := execute(t, deps, "resume", "--last", "ses_01ABC")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "--last and a session id") {
		t.Errorf("resume --last ses_01ABC: exit %d %s", r.code, r.stderr)
	}
}

// A --type without a dot or a wildcard is a family: its first dotted
// part; anything else is a glob of the whole type.
func TestMatchType(t *testing.T) {
	for _, tc := range []struct {
		globs []string
		typ   string
		want  bool
	}{
		{nil, "run.finished", true},
		{[]string{"tool"}, "tool.permission", true},
		{[]string{"tool"}, "tool.invocation.started", true},
		{[]string{"tool"}, "tool_intent.proposed", false},
		{[]string{"tool"}, "tools.changed", false},
		{[]string{"tool_intent"}, "tool_intent.proposed", true},
		{[]string{"tool.*"}, "tool.permission", true},
		{[]string{"tool.*"}, "tool.invocation.started", true},
		{[]string{"run.finished"}, "run.finished", true},
		{[]string{"run.finished"}, "run.started", false},
		{[]string{"run"}, "run.started", true},
		{[]string{"model", "context"}, "context.compacted", true},
		{[]string{"mode"}, "model.text", false},
	} {
		if got := matchType(tc.globs, tc.typ); got != tc.want {
			t.Errorf("matchType(%q, %q) = %v, want %v", tc.globs, tc.typ, got, tc.want)
		}
	}
	if got := families(); !slices.Contains(got, "tool") || !slices.Contains(got, "tool_intent") || slices.Contains(got, "tool.permission") {
		t.Errorf("families() = %v", got)
	}
}

// -c goes on with the latest session of the repository, from any of its
// directories: headless with exec -c, in the line mode with rein -c; and
// rein sessions lists the repository's, each directory as seen from here.
func TestContinueFromASubdirectory(t *testing.T) {
	top := t.TempDir()
	if _, ok := workspace.Repository(top); ok {
		t.Skip("the temporary directory is inside a git repository")
	}
	repo := filepath.Join(top, "repo")
	sub := filepath.Join(repo, "pkg", "stats")
	for _, d := range []string{filepath.Join(repo, ".git"), sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var out, errw bytes.Buffer
	deps, store := storeDeps(t, model(answer...), false, &out, &errw)
	t.Chdir(sub)
	if r := execute(t, deps, "exec", "-c", "and now?"); r.code != ExitUsage || !strings.Contains(r.stderr, "no session to go on with in "+repo) {
		t.Errorf("exec -c with no session: exit %d %q; want 2 and where none was", r.code, r.stderr)
	}
	t.Chdir(repo)
	if r := execute(t, deps, "exec", "why do tests fail"); r.code != 0 {
		t.Fatalf("exec: %d %s", r.code, r.stderr)
	}
	t.Chdir(sub)
	r := execute(t, deps, "sessions")
	if lines := strings.Split(r.stdout, "\n"); r.code != 0 || len(lines) != 3 || !strings.Contains(lines[1], "  ../..  ") {
		t.Errorf("sessions from a subdirectory: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = execute(t, deps, "exec", "-c", "and", "now?")
	if r.code != 0 || r.stdout != "The test fails.\n" || !strings.Contains(r.stderr, "resuming session") {
		t.Errorf("exec -c: %d %q %s", r.code, r.stdout, r.stderr)
	}
	list, _, err := store.List(nil)
	if err != nil || len(list) != 1 {
		t.Fatalf("List() = %v, %v; want the one session, gone on with", list, err)
	}
	deps.Stdin = strings.NewReader("/status\n")
	r = execute(t, deps, "-c")
	if r.code != 0 || !strings.Contains(r.stderr, "  session        "+list[0].ID) || !strings.Contains(r.stderr, "rein resume "+list[0].ID+" -i goes on") {
		t.Errorf("rein -c in the line mode: %d %q %s", r.code, r.stdout, r.stderr)
	}
	var sent []string
	store.Read(list[0].ID, func(env contract.Envelope) error {
		if m, ok := env.Data.(*contract.UserMessage); ok {
			sent = append(sent, m.Text)
		}
		return nil
	})
	if d := cmp.Diff([]string{"why do tests fail", "and now?"}, sent); d != "" {
		t.Errorf("the session's messages (-want +got):\n%s", d)
	}
}
