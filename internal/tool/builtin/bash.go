package builtin

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/sandbox"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tether"
	"github.com/rein-agent/rein/internal/workspace"
)

//go:embed bash.md
var bashDescription string

// bashBackgroundDescription ends bash's description in a session that
// runs background jobs.
//
//go:embed bash_background.md
var bashBackgroundDescription string

const (
	// bashDefaultTimeout and bashMaxTimeout bound a command's run time:
	// the default when the input sets none, and the most it may ask for.
	bashDefaultTimeout = 120 * time.Second
	bashMaxTimeout     = 600 * time.Second

	// bashKillGrace is how long the shell has, after its process group is
	// sent SIGTERM (timeout or cancel), to exit before it is killed. The
	// grace lasts while the shell lives: a script's `trap ... TERM` may
	// clean up, but once the shell is gone whatever is left of the group
	// gets SIGKILL at once.
	bashKillGrace = 2 * time.Second

	// bashPipeGrace is how long the output is still read once the process
	// group is dead. It matters only when a process that left the group
	// (setsid, a daemon) still holds the output pipe: the call does not
	// wait for it, the pipe is closed under it instead.
	bashPipeGrace = 500 * time.Millisecond
)

// bashProperties are the properties of bash's input every session has;
// bashSchema is its schema, and bashJobsSchema its schema in a session
// that runs background jobs.
const (
	bashProperties = `"command":{"type":"string","minLength":1,"description":"The command line, run with bash -c in the workspace root."},` +
		`"timeout_ms":{"type":"integer","minimum":1,"maximum":600000,"description":"How long the command may run, in milliseconds (default 120000, at most 600000)."},` +
		`"description":{"type":"string","description":"What the command does, in a few words, shown to the user (for example \"Run the unit tests\")."}`
	bashSchema     = `{"type":"object","properties":{` + bashProperties + `},"required":["command"],"additionalProperties":false}`
	bashJobsSchema = `{"type":"object","properties":{` + bashProperties +
		`,"run_in_background":{"type":"boolean","description":"Start the command as a background job and return at once with its id; read its output with job_output, end it with job_kill."}` +
		`},"required":["command"],"additionalProperties":false}`
)

// BashOptions configure the bash tool. A nil *BashOptions, like the zero
// value, means the process's environment with credentials removed.
type BashOptions struct {
	// Environ is the base environment of the commands, as "NAME=value"
	// entries; nil means os.Environ() when the tool is built. It is
	// filtered by [ToolEnv].
	Environ []string
	// Passthrough names variables kept even though they look like
	// credentials (the configuration's env_passthrough); nil means none.
	Passthrough []string
	// Secrets are credential values: a variable whose value contains one
	// is removed whatever its name. Empty strings are ignored.
	Secrets []string
	// Sandbox is the OS sandbox every command runs in (see
	// sandbox.Wrap); nil, or mode off, runs commands as they are. The
	// tool only reads it. With a sandbox that this machine cannot
	// provide (sandbox.Probe), every call fails with the reason: the
	// caller chooses to go without one. A call with
	// registry.Call.Unsandboxed set runs with no sandbox: the runtime
	// sets it only once a person allowed it.
	Sandbox *sandbox.Policy
	// Jobs are the session's background jobs, which a call with
	// run_in_background starts; nil means such a call fails, saying to
	// run the command in the foreground.
	Jobs *Jobs
}

// bashInput is the bash tool's input.
type bashInput struct {
	Command   string `json:"command"`
	TimeoutMS int64  `json:"timeout_ms"`
	// Description is for the user; execution ignores it.
	Description string `json:"description"`
	// RunInBackground starts the command as a job of the session (see
	// Jobs) and returns at once.
	RunInBackground bool `json:"run_in_background"`
}

// timeout is how long the command may run: timeout_ms, or the default
// when it is unset, at most bashMaxTimeout.
func (in *bashInput) timeout() time.Duration {
	switch {
	case in.TimeoutMS <= 0:
		return bashDefaultTimeout
	case in.TimeoutMS >= bashMaxTimeout.Milliseconds():
		return bashMaxTimeout
	}
	return time.Duration(in.TimeoutMS) * time.Millisecond
}

// Bash returns the bash tool: a command line run with `bash -c` (sh when
// bash is not on PATH) in the root of ws, which must not be nil.
//
// The command runs without a terminal, stdin reading /dev/null, in a
// session and process group of its own, with the environment [ToolEnv]
// makes of opts. Its stdout and stderr share one pipe, so the output
// interleaves them as the command wrote them; it is streamed to the call's
// Output, never held whole, and followed by a line "exit code: N". When
// the command exits, whatever it left running in its process group
// (`sleep 1000 &`) is killed: nothing it started outlives the call. When
// ctx is done (timeout or cancel) the group gets SIGTERM, and SIGKILL once
// the shell has exited or after a grace of two seconds. When rein dies
// while the command runs, by kill -9 too, the command's group is killed
// (sandboxed: everything it started), on Linux; see package tether.
//
// Execute returns the exit code in the Result (128+N for a command killed
// by signal N) and a nil error whatever the code; it returns an error when
// the shell cannot start, and ctx's error, wrapped, when the command was
// killed because ctx was done. It is safe for concurrent use.
func Bash(ws *workspace.Workspace, opts *BashOptions) registry.Tool {
	if opts == nil {
		opts = &BashOptions{}
	}
	environ := opts.Environ
	if environ == nil {
		environ = os.Environ()
	}
	b := &bashTool{ws: ws, env: ToolEnv(environ, opts.Passthrough, opts.Secrets), sandbox: opts.Sandbox, jobs: opts.Jobs}
	t := registry.Tool{
		Name:        "bash",
		Description: bashDescription,
		InputSchema: json.RawMessage(bashSchema),
		Risk:        registry.RiskExecute,
		Concurrency: registry.Exclusive,
		Timeout:     bashTimeout,
		Check:       checkBash,
		Execute:     b.execute,
		Streams:     true,
	}
	if b.jobs != nil {
		t.InputSchema = json.RawMessage(bashJobsSchema)
		// What the description says of `server &` gives way to the jobs.
		t.Description = strings.Replace(bashDescription, "Do not start servers or watchers to use in a later call.",
			"To keep a server or a watcher running, start it as a background job (below).", 1) + bashBackgroundDescription
	}
	if b.sandbox != nil {
		t.Sandbox = func(json.RawMessage) *contract.SandboxSpec { return b.sandbox.Record() }
	}
	return t
}

// checkBash is the bash tool's Check: a command line that can run, one
// with something to run and no NUL byte (which no argument of a process
// can hold). What a command will do is the permission policy's to judge,
// and the sandbox's to contain: nothing is run to check it.
func checkBash(input json.RawMessage, _ state.Ledger) error {
	var in bashInput
	if err := json.Unmarshal(input, &in); err != nil {
		return fmt.Errorf("bash: decode input: %w", err)
	}
	return in.check()
}

// check says why the command cannot run, as a precondition_failed
// *registry.CheckError; nil when it can.
func (in *bashInput) check() error {
	switch {
	case strings.TrimSpace(in.Command) == "":
		return &registry.CheckError{Code: contract.CodePreconditionFailed, Message: "the command is empty (only white space); give the command line to run"}
	case strings.IndexByte(in.Command, 0) >= 0:
		return &registry.CheckError{Code: contract.CodePreconditionFailed, Message: "the command holds a NUL byte, which no command line can carry; remove it (printf '\\0' writes one)"}
	}
	return nil
}

// bashTimeout is the bash tool's Timeout: the effective timeout of input,
// or 0 (the runtime's default) when input does not decode.
func bashTimeout(input json.RawMessage) time.Duration {
	var in bashInput
	if err := json.Unmarshal(input, &in); err != nil {
		return 0
	}
	return in.timeout()
}

// bashTool runs commands in one workspace with one environment.
type bashTool struct {
	ws  *workspace.Workspace
	env []string
	// sandbox is the policy commands run under; nil means none.
	sandbox *sandbox.Policy
	// jobs are the session's background jobs; nil means none start.
	jobs *Jobs
}

// execute runs the command of call's input, streaming its output to
// call.Output, and returns its exit code (see [Bash]).
func (b *bashTool) execute(ctx context.Context, call *registry.Call) (registry.Result, error) {
	var in bashInput
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return registry.Result{}, fmt.Errorf("bash: decode input: %w", err)
	}
	if err := in.check(); err != nil {
		return registry.Result{}, fmt.Errorf("bash: %w", err)
	}
	policy := b.sandbox
	if call.Unsandboxed {
		// A person allowed this one run outside the sandbox.
		policy = nil
	}
	if in.RunInBackground {
		return b.background(call, &in, policy)
	}
	timeout := in.timeout()
	if call.Timeout > 0 {
		timeout = min(timeout, call.Timeout)
	}
	// The runtime sets the same deadline; applying it here too keeps the
	// tool bounded when it is called directly.
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	p, err := b.start(ctx, in.Command, policy)
	if err != nil {
		return registry.Result{}, err
	}
	out := &lineEndWriter{w: call.Output}
	var sample *outputSample
	if policy != nil {
		// What the sandbox refused shows in the output: keep enough of it
		// to tell.
		sample = &outputSample{}
		out.w = io.MultiWriter(call.Output, sample)
	}
	code, err := p.wait(out)
	if err != nil {
		return registry.Result{}, err
	}
	var ctxErr error
	if p.killed.Load() {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			out.line(fmt.Sprintf("killed: the command ran past its timeout of %s", timeout))
			ctxErr = fmt.Errorf("bash: the command did not finish within %s; raise timeout_ms (at most 600000) or do less in one call: %w", timeout, ctx.Err())
		} else {
			out.line("killed: the command was cancelled")
			ctxErr = fmt.Errorf("bash: the command was cancelled: %w", ctx.Err())
		}
	}
	res := registry.Result{ExitCode: code}
	if sample != nil && code != 0 && ctxErr == nil {
		if why := sandbox.Explain(policy, sample.String(), code); why != "" {
			out.line(why)
			res.SandboxDenied = why
		}
	}
	out.line(fmt.Sprintf("exit code: %d", code))
	return res, ctxErr
}

// bashProcess is a command the bash tool started.
type bashProcess struct {
	// proc is the started command; a sandboxed one may have been handed
	// to a sandbox helper started ahead (sandbox.StartProcess).
	proc  *sandbox.Process
	shell string
	// output is the read end of the one pipe of its stdout and stderr.
	output *os.File
	// killed is set when its group was signalled because ctx was done.
	killed atomic.Bool
}

// start starts command with the shell in the workspace root, under the
// sandbox policy (nil: none), in a session and process group of its own,
// stdin reading /dev/null, stdout and stderr on one pipe. When ctx is done
// the group gets SIGTERM, and the shell is killed after bashKillGrace.
func (b *bashTool) start(ctx context.Context, command string, policy *sandbox.Policy) (*bashProcess, error) {
	shell, err := findShell()
	if err != nil {
		return nil, err
	}
	// One pipe for stdout and stderr: the kernel orders the writes, and
	// the output is read by one goroutine, which serialises call.Output.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("bash: create the output pipe: %w", err)
	}
	p := &bashProcess{shell: shell, output: r}
	cmd := exec.CommandContext(ctx, shell, "-c", command)
	cmd.Dir = b.ws.Root()
	cmd.Env = b.env
	cmd.Stdout, cmd.Stderr = w, w // stdin stays nil: /dev/null
	cmd.SysProcAttr = ownSession()
	cmd.Cancel = func() error {
		p.killed.Store(true)
		return signalGroup(cmd.Process.Pid, syscall.SIGTERM)
	}
	// After the grace, exec kills the shell; wait kills the group.
	cmd.WaitDelay = bashKillGrace
	// In a sandbox the shell's process is its helper, which shares the
	// group: the signals above reach the shell all the same, and when the
	// helper dies so does everything the command started. Without one it
	// is the tether's helper, in the same way: either kills the command
	// when rein dies.
	if policy == nil || policy.Mode == sandbox.ModeOff {
		err = tether.Wrap(cmd)
	} else {
		err = sandbox.Wrap(cmd, policy)
	}
	if err == nil {
		p.proc, err = sandbox.StartProcess(ctx, cmd)
	}
	// The child has its copy of w; the parent's must go, or the pipe
	// would never reach end of file.
	if cerr := w.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		// Close of a read end has nothing to report worth more than err.
		_ = r.Close()
		return nil, fmt.Errorf("bash: start %s in %s: %w", shell, cmd.Dir, err)
	}
	return p, nil
}

// wait copies the command's output to out until the shell has exited and
// the pipe is drained, kills what is left of its group, and returns the
// shell's exit code (128+N when signal N killed it).
func (p *bashProcess) wait(out io.Writer) (int, error) {
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		if _, err := io.Copy(out, p.output); err != nil {
			// Keep draining so the command never blocks on a full pipe;
			// a read error here means the pipe was closed, and ends it.
			_, _ = io.Copy(io.Discard, p.output)
		}
	}()

	code, waitErr := p.proc.Wait()
	// The shell is gone: whatever is left of its group (`cmd &`) dies now,
	// so nothing the command started outlives the call. A failure means
	// the group is already empty.
	_ = signalGroup(p.proc.Pid, syscall.SIGKILL)
	drainPipe(p.output, copied)

	if waitErr != nil {
		return 0, fmt.Errorf("bash: wait for %s: %w", p.shell, waitErr)
	}
	return code, nil
}

// drainPipe waits for the output to be copied to its end, then closes r.
// It waits at most bashPipeGrace, as the group is dead by now and only a
// process that escaped it can still hold the pipe open; closing r under
// the copy ends it.
func drainPipe(r *os.File, copied <-chan struct{}) {
	t := time.NewTimer(bashPipeGrace)
	defer t.Stop()
	select {
	case <-copied:
	case <-t.C:
	}
	// Closing a pipe's read end cannot lose anything we still want.
	_ = r.Close()
	<-copied
}

// findShell returns the path of bash, or of sh when there is no bash.
func findShell() (string, error) {
	if p, err := exec.LookPath("bash"); err == nil {
		return p, nil
	}
	if p, err := exec.LookPath("sh"); err == nil {
		return p, nil
	}
	return "", errors.New("bash: neither bash nor sh is on PATH, so no command can run")
}

// lineEndWriter passes writes to w and remembers whether the last byte
// written was a newline, so a line of its own can follow any output.
type lineEndWriter struct {
	w       io.Writer
	started bool // something was written
	newline bool // the last byte written was '\n'
}

func (l *lineEndWriter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		l.started, l.newline = true, p[len(p)-1] == '\n'
	}
	return l.w.Write(p)
}

// line writes s as a line of its own after whatever was written before.
// Write errors are dropped: registry.Call.Output never fails.
func (l *lineEndWriter) line(s string) {
	if l.started && !l.newline {
		s = "\n" + s
	}
	_, _ = io.WriteString(l, s+"\n")
}

// The parts of a sandboxed command's output kept for sandbox.Explain: its
// head, and its tail, where a failing command usually says why.
const (
	sampleHead = 16 << 10
	sampleTail = 48 << 10
)

// outputSample keeps the head and the tail of what is written to it, in
// bounded memory. It is not safe for concurrent use.
type outputSample struct {
	// headSize and tailSize bound the head and the tail; 0 means
	// sampleHead and sampleTail.
	headSize, tailSize int

	head []byte
	tail []byte // a ring of tailSize bytes once full
	next int    // where the ring is written next
	full bool   // the ring has wrapped: its oldest byte is at next
	n    int64  // the bytes written
}

func (o *outputSample) sizes() (head, tail int) {
	return cmp.Or(o.headSize, sampleHead), cmp.Or(o.tailSize, sampleTail)
}

func (o *outputSample) Write(p []byte) (int, error) {
	n := len(p)
	o.n += int64(n)
	headSize, tailSize := o.sizes()
	if room := headSize - len(o.head); room > 0 {
		k := min(room, len(p))
		o.head = append(o.head, p[:k]...)
		p = p[k:]
	}
	if len(p) >= tailSize {
		o.tail = append(o.tail[:0], p[len(p)-tailSize:]...)
		o.next, o.full = 0, true
		return n, nil
	}
	for len(p) > 0 {
		if !o.full && len(o.tail) < tailSize {
			k := min(tailSize-len(o.tail), len(p))
			o.tail = append(o.tail, p[:k]...)
			p = p[k:]
			o.full = len(o.tail) == tailSize
			continue
		}
		k := copy(o.tail[o.next:], p)
		p = p[k:]
		o.next = (o.next + k) % tailSize
	}
	return n, nil
}

// parts returns copies of the head and of the tail, in order, and how many
// bytes written between them were not kept.
func (o *outputSample) parts() (head, tail []byte, omitted int64) {
	tail = slices.Clone(o.tail)
	if o.full {
		tail = append(slices.Clone(o.tail[o.next:]), o.tail[:o.next]...)
	}
	head = slices.Clone(o.head)
	return head, tail, o.n - int64(len(head)) - int64(len(tail))
}

// reset forgets what was written, keeping the memory for what comes next.
func (o *outputSample) reset() {
	o.head, o.tail = o.head[:0], o.tail[:0]
	o.next, o.full, o.n = 0, false, 0
}

// String returns the head, then a newline, then the tail in order.
func (o *outputSample) String() string {
	head, tail, _ := o.parts()
	return string(head) + "\n" + string(tail)
}
