package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/providertest"
	"github.com/rein-agent/rein/internal/provider/scripted"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/session"
	"github.com/rein-agent/rein/internal/tool"
	"github.com/rein-agent/rein/internal/tool/builtin"
	"github.com/rein-agent/rein/internal/workspace"
)

// The golden transcripts: real sessions (the kernel, the scripted
// provider, the tool runtime and the built-in tools in a temporary
// workspace, a session store on disk), rendered as a person sees them and
// compared with the files under testdata/render and testdata/replay, so
// that every change to what a person sees shows up as a diff to review.
// go test ./internal/cli -run Golden -update rewrites them.

var update = flag.Bool("update", false, "rewrite golden files")

// testVersion is rein's version in the golden sessions' records.
const testVersion = "0.0.0-test"

// epoch is when every golden session starts.
var epoch = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

// clock is the fake time of a golden session, shared by the kernel and
// the tool runtime. It moves only where the session would spend time:
// while a model streams, while a tool runs and while a retry waits, by
// fixed amounts, so that timings are the same on every run and do not
// depend on how often the code reads the clock. Safe for concurrent use.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

// Now returns the current fake time.
func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Fixed costs of the fake clock.
const (
	modelLatency = 800 * time.Millisecond  // each model call, as it starts streaming
	bashCost     = 1300 * time.Millisecond // each bash command
	fileCost     = 3 * time.Millisecond    // each other tool
)

// goldenModel is one model a golden session may call: its provider
// name, its model name, and the script it plays.
type goldenModel struct {
	name, model string
	script      string
}

// scenario is one golden session: a workspace, the models, the
// permissions, and the prompt.
type scenario struct {
	name   string
	files  map[string]string
	models []goldenModel // the primary first, then its fallbacks
	mode   permission.Mode
	allow  []string
	deny   []string
	prompt string
	// attempts is the retry policy's attempts per model; 0 means its
	// default.
	attempts int
	// stdin is what the person types (the answers to approval prompts of
	// an interactive session); empty means nothing.
	stdin string
}

// stage holds what a golden session runs on: the clock, the workspace,
// the session store, and the envelopes the runtime yielded (deltas
// included), for the terminal rendering.
type stage struct {
	t        *testing.T
	sc       scenario
	clock    *clock
	ws, root string
	store    *session.Store
	envs     []contract.Envelope
	// open, when set, builds the runtime of a session instead of the
	// scenario's kernel.
	open func(x *session.Session, approver tool.Approver) (*Session, error)
}

func newStage(t *testing.T, sc scenario) *stage {
	t.Helper()
	ws, root := t.TempDir(), t.TempDir()
	for name, text := range sc.files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &stage{t: t, sc: sc, clock: &clock{now: epoch}, ws: ws, root: root, store: session.NewStore(root, nil)}
}

// deps are the CLI's dependencies over the stage: Open creates a session
// in the store, Resume reopens one, both with the scenario's runtime.
func (s *stage) deps(out, errw *bytes.Buffer) Deps {
	return Deps{
		Version: "rein test",
		Open: func(ctx context.Context, spec Spec) (*Session, error) {
			x, err := s.store.Create(id.New("ses"), nil)
			if err != nil {
				return nil, err
			}
			return s.runtime(x, spec.Approver)
		},
		Resume: func(ctx context.Context, spec Spec) (*Session, error) {
			x, err := s.store.Open(spec.Session, nil)
			if err != nil {
				return nil, err
			}
			gates, err := x.Gate(testVersion)
			if err != nil {
				return nil, err
			}
			cs, err := s.runtime(x, spec.Approver)
			if err != nil {
				return nil, err
			}
			cs.Gates = gates
			return cs, nil
		},
		Store:  func(cwd, dir string) (*session.Store, error) { return s.store, nil },
		Now:    s.clock.Now,
		Stdin:  strings.NewReader(s.sc.stdin),
		Stdout: out,
		Stderr: errw,
	}
}

// runtime builds the scenario's kernel over x, as cmd/rein's wiring does;
// approver asks the person, nil meaning the run is headless.
func (s *stage) runtime(x *session.Session, approver tool.Approver) (*Session, error) {
	if s.open != nil {
		return s.open(x, approver)
	}
	tools, reg, err := s.tools(x.Dir, approver)
	if err != nil {
		return nil, err
	}
	models := make([]kernel.Model, len(s.sc.models))
	for i, m := range s.sc.models {
		script, err := scripted.Parse([]byte(m.script))
		if err != nil {
			return nil, err
		}
		p := scripted.New(script, &scripted.Options{Name: m.name, Model: m.model})
		models[i] = kernel.Model{Provider: s.slow(p), Name: m.name, Model: m.model,
			Capabilities: provider.Capabilities{Streaming: true, Tools: true, ParallelTools: true}}
	}
	k, err := kernel.New(models[0].Provider, x.Log, &kernel.Options{
		ProviderName: models[0].Name, Model: models[0].Model, Capabilities: models[0].Capabilities,
		Fallback: models[1:], Registry: reg, Tools: tools, Cwd: s.ws, Version: testVersion,
		Session: x.ID, State: &x.State, Now: s.clock.Now,
		Retry: kernel.RetryPolicy{Attempts: s.sc.attempts, BaseDelay: time.Microsecond, Sleep: s.wait},
	})
	if err != nil {
		return nil, err
	}
	return &Session{Runtime: &recorder{Kernel: k, s: s}, Dir: x.Dir, Close: x.Close}, nil
}

// tools builds the built-in tools under the scenario's permissions, each
// taking its fixed time on the clock.
func (s *stage) tools(dir string, approver tool.Approver) (*tool.Runtime, *registry.Registry, error) {
	ws, err := workspace.New(s.ws)
	if err != nil {
		return nil, nil, err
	}
	allow, err := permission.ParseRules(s.sc.allow)
	if err != nil {
		return nil, nil, err
	}
	deny, err := permission.ParseRules(s.sc.deny)
	if err != nil {
		return nil, nil, err
	}
	policy, err := permission.New(s.sc.mode, permission.Rules{Allow: allow, Deny: deny}, ws)
	if err != nil {
		return nil, nil, err
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.ws, "LC_ALL=C"}
	all := builtin.Tools(ws, &builtin.Options{Bash: &builtin.BashOptions{Environ: env}})
	for i := range all {
		all[i].Execute = s.timed(all[i].Name, all[i].Execute)
	}
	reg, err := registry.New(all...)
	if err != nil {
		return nil, nil, err
	}
	rt, err := tool.New(reg, policy, &tool.Options{Approver: approver, ArtifactDir: filepath.Join(dir, "artifacts"), Now: s.clock.Now})
	return rt, reg, err
}

// timed runs a tool for real, then moves the clock by its fixed cost.
func (s *stage) timed(name string, run registry.Executor) registry.Executor {
	if run == nil {
		return nil
	}
	cost := fileCost
	if name == "bash" {
		cost = bashCost
	}
	return func(ctx context.Context, c *registry.Call) (registry.Result, error) {
		res, err := run(ctx, c)
		s.clock.advance(cost)
		return res, err
	}
}

// slow makes a model take its fixed latency once its stream starts.
func (s *stage) slow(p provider.Provider) provider.Provider {
	return providertest.Func(func(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
		return func(yield func(contract.ModelEvent, error) bool) {
			s.clock.advance(modelLatency)
			for e, err := range p.Stream(ctx, req) {
				if !yield(e, err) {
					return
				}
			}
		}
	})
}

// wait is the retry policy's sleep: it moves the clock instead.
func (s *stage) wait(ctx context.Context, d time.Duration) error {
	s.clock.advance(d)
	return ctx.Err()
}

// recorder is the kernel as the CLI drives it, keeping what it yields.
type recorder struct {
	*kernel.Kernel
	s *stage
}

// Send runs the kernel's Send and records what it yields.
func (r *recorder) Send(ctx context.Context, in kernel.Input) iter.Seq2[contract.Envelope, error] {
	return r.s.tee(r.Kernel.Send(ctx, in))
}

// Resume runs the kernel's Resume and records what it yields.
func (r *recorder) Resume(ctx context.Context, res kernel.Resume) iter.Seq2[contract.Envelope, error] {
	return r.s.tee(r.Kernel.Resume(ctx, res))
}

func (s *stage) tee(seq iter.Seq2[contract.Envelope, error]) iter.Seq2[contract.Envelope, error] {
	return func(yield func(contract.Envelope, error) bool) {
		for env, err := range seq {
			if err == nil {
				s.envs = append(s.envs, env)
			}
			if !yield(env, err) {
				return
			}
		}
	}
}

// rein runs the command line over the stage and returns what it printed,
// as a person piping it would see it: stdout and stderr apart.
func (s *stage) rein(args ...string) string {
	s.t.Helper()
	var out, errw bytes.Buffer
	code := Execute(s.t.Context(), args, s.deps(&out, &errw))
	var b strings.Builder
	// The command line shown as the person would read it (a prompt may be
	// hostile too).
	fmt.Fprintf(&b, "$ rein %s\n(exit %d)\n", printable.Line(strings.Join(args, " ")), code)
	for _, part := range []struct{ name, text string }{{"stdout", out.String()}, {"stderr", errw.String()}} {
		fmt.Fprintf(&b, "--- %s\n%s", part.name, part.text)
		if part.text != "" && !strings.HasSuffix(part.text, "\n") {
			b.WriteString("⏎ (no newline at the end)\n")
		}
	}
	return s.scrub(b.String())
}

// screen renders the recorded envelopes as a person sees them on a
// terminal: stdout and stderr both on the screen, in the order written,
// the answer streamed live, with colour (shown as {dim}, {bold}, {red},
// {yellow} and {/}; a status line erased, {erase}). It is what
// newTerminal builds when both are terminals and NO_COLOR is unset.
func (s *stage) screen() string {
	s.t.Helper()
	return s.scrub(colours.Replace(s.rawScreen()))
}

// rawScreen is screen as the terminal gets it: the colours are escape
// sequences.
func (s *stage) rawScreen() string {
	s.t.Helper()
	var b strings.Builder
	out, errw := &screenWriter{&b}, &screenWriter{&b}
	s.play(&terminal{out: out, errw: errw, color: true, live: out, inPlace: true})
	return b.String()
}

// redirected renders the recorded envelopes as a person sees them with
// stdout sent to a file and stderr on a terminal (rein exec ... >
// answer.txt): the stream shown live on stderr, in colour, and stdout
// holding only the text that stands. It is what newTerminal builds when
// only stderr is a terminal.
func (s *stage) redirected() string {
	s.t.Helper()
	return s.scrub(colours.Replace(s.rawRedirected()))
}

// rawRedirected is redirected as the file and the terminal get it.
func (s *stage) rawRedirected() string {
	s.t.Helper()
	var file, screen strings.Builder
	s.play(&terminal{out: &file, errw: &screen, color: true, settle: true, live: &screen, inPlace: true})
	return "--- stdout (a file)\n" + file.String() + "--- stderr (the terminal)\n" + screen.String()
}

// play renders the recorded envelopes with term.
func (s *stage) play(term *terminal) {
	s.t.Helper()
	for _, env := range s.envs {
		if err := term.event(env); err != nil {
			s.t.Fatal(err)
		}
	}
	term.end()
}

// screenWriter is one of the two streams of a terminal screen.
type screenWriter struct{ b *strings.Builder }

func (w *screenWriter) Write(p []byte) (int, error) { return w.b.Write(p) }

// colours shows the renderer's ANSI styles as text, and the erasure of a
// status line as {erase}.
var colours = strings.NewReplacer("\r\x1b[K", "{erase}", "\x1b[0m", "{/}", "\x1b[1m", "{bold}", "\x1b[2m", "{dim}", "\x1b[31m", "{red}", "\x1b[33m", "{yellow}")

// ids are rein's generated ids (a prefix, then 26 characters of
// Crockford's base32), which differ on every run.
var ids = regexp.MustCompile(`\b([a-z]+)_[0-9A-HJKMNP-TV-Z]{26}\b`)

// scrub replaces what differs from run to run by placeholders: the
// temporary directories, the generated ids (numbered by first
// appearance), and the local rendering of the start time (shown as UTC).
func (s *stage) scrub(text string) string {
	for _, dir := range []struct{ path, name string }{{s.ws, "<workspace>"}, {s.root, "<sessions>"}} {
		if real, err := filepath.EvalSymlinks(dir.path); err == nil && real != dir.path {
			text = strings.ReplaceAll(text, real, dir.name)
		}
		text = strings.ReplaceAll(text, dir.path, dir.name)
	}
	const layout = "2006-01-02 15:04:05 MST"
	text = strings.ReplaceAll(text, epoch.Local().Format(layout), epoch.Format(layout))
	seen := map[string]string{}
	count := map[string]int{}
	return ids.ReplaceAllStringFunc(text, func(m string) string {
		if r, ok := seen[m]; ok {
			return r
		}
		prefix := m[:strings.IndexByte(m, '_')]
		count[prefix]++
		seen[m] = fmt.Sprintf("<%s-%d>", prefix, count[prefix])
		return seen[m]
	})
}

// sessionID is the id of the one session in the store.
func (s *stage) sessionID() string {
	s.t.Helper()
	list, _, err := s.store.List(nil)
	if err != nil || len(list) != 1 {
		s.t.Fatalf("sessions %v, %v; want one", list, err)
	}
	return list[0].ID
}

// packageDir is the package's directory, where the tests start: a test
// may change to another (t.Chdir).
var packageDir, _ = os.Getwd()

// checkGolden compares got with the golden file at path (under
// testdata), or rewrites it with -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	path = filepath.Join(packageDir, "testdata", path)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; go test ./internal/cli -run Golden -update writes it", err)
	}
	// Line by line, so that the diff shows which lines changed.
	if d := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(got, "\n")); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s\nIf the change is meant, rewrite the file with go test ./internal/cli -run Golden -update and review its diff.", path, d)
	}
}
