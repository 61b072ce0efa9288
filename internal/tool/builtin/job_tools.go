package builtin

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/sandbox"
	"github.com/rein-agent/rein/internal/state"
)

//go:embed job_output.md
var jobOutputDescription string

//go:embed job_kill.md
var jobKillDescription string

// jobMaxWait bounds job_output's wait_seconds.
const jobMaxWait = 300

var jobOutputSchema = objectSchema([]string{"id"},
	`"id":{"type":"string","minLength":1,"description":"The job's id, as bash returned it (job_…)."}`,
	`"wait_seconds":{"type":"integer","minimum":0,"maximum":300,"description":"Wait up to this many seconds for the job to end before answering (default 0: answer at once)."}`)

var jobKillSchema = objectSchema([]string{"id"},
	`"id":{"type":"string","minLength":1,"description":"The job's id, as bash returned it (job_…)."}`)

// jobInput is the input of job_output and job_kill.
type jobInput struct {
	ID          string `json:"id"`
	WaitSeconds int    `json:"wait_seconds"`
}

// JobTools returns job_output and job_kill over the session's jobs js.
//
// Both only look at or end what the session's own bash started, and reach
// nothing else: they are declared reads, so no mode asks before them and
// plan mode offers them (a job started before a switch to plan can still
// be read and ended), as Claude Code's BashOutput and KillShell ask
// nothing. An id that names no job of the session fails validation, with
// the ids there are.
func JobTools(js *Jobs) []registry.Tool {
	check := func(input json.RawMessage, _ state.Ledger) error {
		in, err := decodeJob(input)
		if err != nil {
			return err
		}
		if _, err := js.lookup(in.ID); err != nil {
			return &registry.CheckError{Code: contract.CodePreconditionFailed, Message: err.Error()}
		}
		return nil
	}
	output := declare("job_output", jobOutputDescription, jobOutputSchema, registry.RiskRead, check, js.outputCall)
	output.Timeout = func(input json.RawMessage) time.Duration {
		in, err := decodeJob(input)
		if err != nil {
			return 0
		}
		// The wait, and time to answer after it.
		return time.Duration(in.wait())*time.Second + 30*time.Second
	}
	kill := declare("job_kill", jobKillDescription, jobKillSchema, registry.RiskRead, check, js.killCall)
	return []registry.Tool{output, kill}
}

func decodeJob(input json.RawMessage) (jobInput, error) {
	var in jobInput
	if err := json.Unmarshal(input, &in); err != nil {
		return in, fmt.Errorf("decode input: %w", err)
	}
	return in, nil
}

// wait is wait_seconds within its bounds.
func (in jobInput) wait() int { return min(max(in.WaitSeconds, 0), jobMaxWait) }

// outputCall is job_output: what the job printed since the last read, and
// whether it still runs, once it ended or wait_seconds passed.
func (js *Jobs) outputCall(ctx context.Context, call *registry.Call) (registry.Result, error) {
	in, err := decodeJob(call.Input)
	if err != nil {
		return registry.Result{}, fmt.Errorf("job_output: %w", err)
	}
	j, err := js.lookup(in.ID)
	if err != nil {
		return registry.Result{}, fmt.Errorf("job_output: %w", err)
	}
	waited := false
	if wait := in.wait(); wait > 0 {
		t := time.NewTimer(time.Duration(wait) * time.Second)
		defer t.Stop()
		select {
		case <-j.done:
		case <-t.C:
			waited = true
		case <-ctx.Done():
			return registry.Result{}, fmt.Errorf("job_output: the wait for job %s was cancelled: %w", j.id, ctx.Err())
		}
	}
	head, tail, omitted := j.out.read()
	var b strings.Builder
	b.WriteString(j.status())
	if waited {
		fmt.Fprintf(&b, " It was still running after the %d s you waited.", in.wait())
	}
	b.WriteString("\n")
	if len(head)+len(tail) == 0 {
		b.WriteString("No new output since the last read.\n")
		return registry.Result{}, writeText(call.Output, b.String())
	}
	b.WriteString("Output since the last read:\n")
	b.WriteString(j.shown(head, tail, omitted))
	return registry.Result{}, writeText(call.Output, b.String())
}

// shown is the unread output of j as the model reads it: whole, or its
// head and tail cut at line ends, with what was left out and where it is.
func (j *job) shown(head, tail []byte, omitted int64) string {
	if omitted == 0 {
		return text(append(head, tail...))
	}
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		omitted += int64(len(head) - i - 1)
		head = head[:i+1]
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
		omitted += int64(i + 1)
		tail = tail[i+1:]
	}
	marker := fmt.Sprintf("[... %d bytes not shown; %s ...]\n", omitted, j.out.kept(j.artifact))
	if len(head) > 0 && head[len(head)-1] != '\n' {
		marker = "\n" + marker
	}
	return text(head) + marker + text(tail)
}

// status says in a sentence whether j runs, how it ended, and what it
// printed in all.
func (j *job) status() string {
	select {
	case <-j.done:
	default:
		return fmt.Sprintf("Job %s (%s) is running; it has printed %d bytes.", j.id, quoteCommand(j.command), j.out.total())
	}
	j.mu.Lock()
	fin := j.finishedLocked()
	werr := j.err
	j.mu.Unlock()
	var how string
	switch {
	case werr != nil:
		how = "ended, and its end could not be told (" + werr.Error() + ")"
	case fin.Outcome == contract.JobKilled:
		how = "was killed (job_kill)"
	case fin.Outcome == contract.JobSessionEnd:
		how = "was ended with the session"
	default:
		how = "exited with code " + strconv.Itoa(fin.ExitCode)
	}
	return fmt.Sprintf("Job %s (%s) %s; it printed %d bytes.", j.id, quoteCommand(j.command), how, fin.Bytes)
}

// killCall is job_kill: it ends the job and its process group, and
// reports job.finished (killed).
func (js *Jobs) killCall(_ context.Context, call *registry.Call) (registry.Result, error) {
	in, err := decodeJob(call.Input)
	if err != nil {
		return registry.Result{}, fmt.Errorf("job_kill: %w", err)
	}
	j, err := js.lookup(in.ID)
	if err != nil {
		return registry.Result{}, fmt.Errorf("job_kill: %w", err)
	}
	fin, told := j.kill(contract.JobKilled)
	if !told {
		return registry.Result{}, writeText(call.Output, j.status()+" There was nothing to kill.\n")
	}
	if call.Report != nil {
		if _, err := call.Report(&fin); err != nil {
			return registry.Result{}, fmt.Errorf("job_kill: record the job's end: %w", err)
		}
	}
	msg := fmt.Sprintf("Killed job %s (%s) and its process group; it printed %d bytes. job_output still returns what it printed since the last read.\n",
		j.id, quoteCommand(j.command), fin.Bytes)
	return registry.Result{}, writeText(call.Output, msg)
}

// background starts the command of in as a job of b's session and
// returns at once, saying how to read it; job.started is reported
// through call. It starts as a foreground command does (bashTool.start),
// under policy, but with no timeout: the job's own context ends it.
func (b *bashTool) background(call *registry.Call, in *bashInput, policy *sandbox.Policy) (registry.Result, error) {
	if b.jobs == nil {
		return registry.Result{}, errors.New("bash: this session runs no background jobs; run the command without run_in_background")
	}
	j, err := b.jobs.start(in.Command, func(ctx context.Context) (*bashProcess, error) {
		return b.start(ctx, in.Command, policy)
	})
	if err != nil {
		return registry.Result{}, fmt.Errorf("bash: start the job: %w", err)
	}
	if call.Report != nil {
		if _, err := call.Report(&contract.JobStarted{JobID: j.id, IntentID: call.IntentID, Command: in.Command, Artifact: j.ref}); err != nil {
			// A job the log does not know of must not run.
			j.kill(contract.JobKilled)
			return registry.Result{}, fmt.Errorf("bash: record the job's start: %w", err)
		}
	}
	var msg strings.Builder
	fmt.Fprintf(&msg, "Started background job %s: %s\n", j.id, quoteCommand(in.Command))
	msg.WriteString("It runs until it ends by itself, job_kill ends it, or the session ends; you are told when it ends. ")
	fmt.Fprintf(&msg, "Read what it prints with job_output {\"id\": %q} (add \"wait_seconds\" to wait for it to end).", j.id)
	if j.artifact != "" {
		msg.WriteString(" Its whole output goes to " + j.artifact + ".")
	}
	msg.WriteString("\n")
	return registry.Result{}, writeText(call.Output, msg.String())
}

// quoteCommand shows a command in backquotes, shortened to its first line
// and 200 bytes.
func quoteCommand(command string) string {
	line, _, more := strings.Cut(command, "\n")
	if len(line) > 200 {
		line, more = strings.ToValidUTF8(line[:200], ""), true
	}
	if more {
		line += " …"
	}
	return "`" + line + "`"
}

// joinQuoted lists ids quoted, separated by commas.
func joinQuoted(ids []string) string {
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = strconv.Quote(id)
	}
	return strings.Join(quoted, ", ")
}

// text returns p as valid UTF-8.
func text(p []byte) string { return strings.ToValidUTF8(string(p), "\uFFFD") }

// writeText writes s to w; registry.Call.Output never fails.
func writeText(w io.Writer, s string) error {
	_, err := io.WriteString(w, s)
	return err
}
