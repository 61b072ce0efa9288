package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/hook"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

const (
	defaultTimeout  = 120 * time.Second
	defaultParallel = 8
)

// Options configure a Runtime. The zero value is usable: headless, no
// artifacts, default limits.
type Options struct {
	// Approver asks a person when the policy says ask; nil means the run
	// cannot ask (headless): an ask is recorded as a deny by "headless",
	// whose reason says how to allow it next time.
	Approver Approver
	// Answers is where Always and Never answers keep their rules: the
	// person's answers file and the project's directory (see
	// config.Answers). The zero value keeps them for this runtime only.
	Answers config.Answers
	// WideWorkspace, when not empty, says why the workspace is wider than
	// a project (the person's home directory, or /): the first call that
	// does more than read (permission.Policy.OnlyReads) asks, whatever the
	// mode and the rules allow (a deny still denies), with this as its
	// reason; once the person allows one, the mode and the rules decide
	// again. A run that cannot ask is refused it, and told why.
	WideWorkspace string
	// ArtifactDir is where whole outputs are kept (one file per
	// invocation): those that do not fit in an observation, and those of
	// at least Limits.ArtifactMinBytes; empty means they are not kept.
	// Observation.ArtifactRef names a file there relative to the parent of
	// ArtifactDir (the session's directory): "artifacts/inv_….txt".
	ArtifactDir string
	// ArtifactLimit bounds the bytes of all the artifacts in ArtifactDir,
	// those already there when New is called (a resumed session's)
	// included; Limits.ArtifactBytes bounds each one. Past it an output is
	// still shortened for the model, no artifact keeps it, and the
	// observation says so. 0 means 1 GiB; a negative limit keeps none.
	ArtifactLimit int64
	// Limits bound outputs; the zero value means the defaults.
	Limits Limits
	// Parallel bounds how many concurrency-safe intents run at once; 0
	// means 8.
	Parallel int
	// DefaultTimeout is the timeout of a tool that sets none; 0 means two
	// minutes.
	DefaultTimeout time.Duration
	// Secrets are credentials cut out of every output, artifact and error
	// text; values shorter than 4 bytes are ignored (cutting them would
	// mangle ordinary text).
	Secrets []string
	// Hooks are the person's hooks (internal/hook): PreToolUse joins the
	// permission stage, after the policy (a policy deny stands and no hook
	// runs), PostToolUse sees each observation before it is recorded.
	// nil runs none, at no cost.
	Hooks *hook.Runner
	// OnRules, when not nil, is given the rules an answer (Always, Never)
	// added to this runtime's policy: a task's child's runtime hands them
	// to its parent's (Runtime.AddRules).
	OnRules func(permission.Rules) error
	// Ceiling, when not nil, is a mode no decision is looser than: each
	// is made in the stricter of the runtime's own mode and it (a task's
	// child follows its parent's mode as a person changes it).
	Ceiling func() permission.Mode
	// Checkpoints, when not nil, takes a snapshot of the workspace before
	// and after each call that may change it (see Runtime.changes),
	// recorded as checkpoint.recorded; the observation of a call names
	// the files that changed between the two.
	Checkpoints Checkpointer
	// Logger receives diagnostics; nil means discard.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Sink is where the runtime's events go: the kernel appends each to the
// session's log. Emit returns the event's id; an error means the log
// failed, and the runtime stops. Sync makes what was emitted durable.
type Sink interface {
	Emit(e contract.Event, cause string) (id string, err error)
	Sync() error
}

// Proposal is one intent to run, with the id of the tool_intent.proposed
// event that recorded it (the cause of what follows).
type Proposal struct {
	Intent  contract.ToolIntent
	EventID string
}

// Runtime runs tool intents. It is safe for use by one Run at a time;
// Hidden, Policy and SetMode may be called from any goroutine.
type Runtime struct {
	// ceiling is the policy in force under Options.Ceiling, made from
	// of, guarded by mu.
	ceiling struct{ of, policy *permission.Policy }
	reg     *registry.Registry
	opts    Options
	schemas *schemas

	mu     sync.Mutex // guards policy, replaced when an answer saves a rule
	policy *permission.Policy

	// artifacts is the room left for the session's artifacts, shared by
	// the invocations that run together; nil when none are kept.
	artifacts *artifactBudget
	// artifactDir is Options.ArtifactDir made absolute, even when no
	// more artifacts are kept: those of earlier runs are still there.
	artifactDir string

	ids func(prefix string) string

	// wideAsked says the person allowed a first write in a workspace too
	// wide to be a project (Options.WideWorkspace): no more guard.
	wideAsked atomic.Bool
}

// New returns a runtime that runs the tools of reg under policy; both are
// required.
func New(reg *registry.Registry, policy *permission.Policy, opts *Options) (*Runtime, error) {
	if reg == nil || policy == nil {
		return nil, errors.New("tool: New needs a registry and a policy")
	}
	rt := &Runtime{reg: reg, policy: policy}
	if opts != nil {
		rt.opts = *opts
	}
	if rt.opts.Parallel <= 0 {
		rt.opts.Parallel = defaultParallel
	}
	if rt.opts.DefaultTimeout <= 0 {
		rt.opts.DefaultTimeout = defaultTimeout
	}
	if rt.opts.Logger == nil {
		rt.opts.Logger = slog.New(slog.DiscardHandler)
	}
	if rt.opts.Now == nil {
		rt.opts.Now = time.Now
	}
	rt.opts.Limits = rt.opts.Limits.withDefaults()
	if rt.opts.ArtifactDir != "" {
		abs, err := filepath.Abs(rt.opts.ArtifactDir)
		if err != nil {
			return nil, fmt.Errorf("tool: the artifacts directory %s: %w", rt.opts.ArtifactDir, err)
		}
		rt.opts.ArtifactDir, rt.artifactDir = abs, abs
	}
	if err := rt.measureArtifacts(); err != nil {
		return nil, err
	}
	rt.schemas = newSchemas()
	rt.ids = newID
	return rt, nil
}

// measureArtifacts sets the budget of the session's artifacts, counting
// those already in the directory once, here: the runtime writes every later
// one itself. A negative limit keeps no artifact at all.
func (rt *Runtime) measureArtifacts() error {
	limit := rt.opts.ArtifactLimit
	switch {
	case rt.opts.ArtifactDir == "":
		return nil
	case limit < 0:
		rt.opts.ArtifactDir = ""
		return nil
	case limit == 0:
		limit = defaultArtifactLimit
	}
	used, err := artifactUsage(rt.opts.ArtifactDir)
	if err != nil {
		return err
	}
	rt.artifacts = newArtifactBudget(limit, used)
	return nil
}

// ArtifactPath returns the absolute path of the artifact that an
// observation's ArtifactRef names ("artifacts/inv_….txt", relative to the
// parent of Options.ArtifactDir, the session's directory): what the note
// that replaces an elided observation gives the model to read with
// read_file (which reaches that directory when builtin.Options.ArtifactDir
// is the same). It returns "" for an empty ref, one that does not name a
// file of the artifacts directory, and when the runtime has none. It does
// not look at the disk.
func (rt *Runtime) ArtifactPath(ref string) string {
	if rt.artifactDir == "" || ref == "" {
		return ""
	}
	dir, name, ok := strings.Cut(ref, "/")
	if !ok || dir != filepath.Base(rt.artifactDir) || !filepath.IsLocal(name) || strings.ContainsAny(name, `/\`) {
		return ""
	}
	return filepath.Join(rt.artifactDir, name)
}

// Policy returns the permission policy in force, which includes the rules
// saved by Always and Never answers: under Options.Ceiling's mode when
// that is stricter than its own.
func (rt *Runtime) Policy() *permission.Policy {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	p := rt.policy
	if rt.opts.Ceiling == nil {
		return p
	}
	m := permission.Stricter(p.Mode(), rt.opts.Ceiling())
	if m == p.Mode() {
		return p
	}
	// Made once for this policy and mode: a policy's indexes are not
	// free to build.
	if rt.ceiling.of != p || rt.ceiling.policy.Mode() != m {
		q, err := p.With(m, permission.Rules{})
		if err != nil {
			return p
		}
		rt.ceiling.of, rt.ceiling.policy = p, q
	}
	return rt.ceiling.policy
}

// SetMode makes the policy in force decide in mode m from its next
// decision on, with its rules (those saved by answers included), its
// containment and everything else it was given kept (permission's
// Policy.With). It is safe to call while Run runs: a decision already
// made stands. It fails, changing nothing, on an unknown mode.
func (rt *Runtime) SetMode(m permission.Mode) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	p, err := rt.policy.With(m, permission.Rules{})
	if err != nil {
		return fmt.Errorf("tool: set mode %s: %w", m, err)
	}
	rt.policy = p
	return nil
}

// Hidden reports whether the model must not see t: the policy hides it (in
// plan mode, every tool that can change something).
func (rt *Runtime) Hidden(t registry.Tool) bool { return rt.Policy().Hidden(t) }

// job is an intent that passed validation and permission.
type job struct {
	Proposal
	tool    registry.Tool
	cause   string // the tool.permission event
	by      string // who allowed it
	timeout time.Duration
	// unsandboxed runs it with no OS sandbox: a person allowed it after
	// the sandbox refused an earlier run of the same intent something.
	unsandboxed bool
}

// Run takes the intents of one turn, in the order proposed, through the
// pipeline, and emits every stage to sink. st is the session's state when
// the turn's model call finished: tools' visibility depends on it, and
// Check sees its read ledger. Every intent ends with one tool.observation,
// also when ctx is cancelled (then whatever did not run is observed as
// cancelled). The error is non-nil only when sink fails.
//
// Each batch runs with the ledger of st plus the files of the
// observations this Run emitted before it: the same records, folded the
// same way ([state.Ledger.With] of every tool.observation's files), as the
// state that sink's log will hold, so a tool at execution sees what a
// fold of the log up to its start would show.
func (rt *Runtime) Run(ctx context.Context, st *state.State, turn []Proposal, sink Sink) error {
	ledger := st.Ledger
	var jobs []job
	var before admitted
	for _, p := range turn {
		if ctx.Err() != nil {
			if err := rt.notRun(sink, p.Intent, p.EventID, "the run was cancelled before this tool call was checked"); err != nil {
				return err
			}
			continue
		}
		j, ok, err := rt.admit(ctx, st, p, before, sink)
		if err != nil {
			return err
		}
		if ok {
			jobs = append(jobs, j)
			before = before.with(j.tool)
		}
	}
	for first := true; len(jobs) > 0; first = false {
		n := rt.batchOf(jobs)
		batch := jobs[:n]
		jobs = jobs[n:]
		if ctx.Err() != nil {
			for _, j := range batch {
				if err := rt.notRun(sink, j.Intent, j.cause, "the run was cancelled before this tool call ran"); err != nil {
					return err
				}
			}
			continue
		}
		if !first {
			// An earlier call of the turn may have changed the world
			// (a command turning docs/ into a link to src/): decisions
			// made by mode or rule are taken again before running.
			var err error
			if batch, err = rt.recheck(batch, sink); err != nil {
				return err
			}
		}
		var err error
		if ledger, err = rt.runBatch(ctx, batch, ledger, sink); err != nil {
			return err
		}
	}
	return nil
}

// batchOf returns how many of jobs, from the first, run together: one
// when the first must run alone, else the concurrency-safe ones that
// follow it, at most Parallel, and at most each tool's MaxParallel of one
// tool.
func (rt *Runtime) batchOf(jobs []job) int {
	safe := func(j job) bool { return j.tool.ConcurrencyFor(j.Intent.Input) == registry.Safe }
	if !safe(jobs[0]) {
		return 1
	}
	count := map[string]int{jobs[0].tool.Name: 1}
	n := 1
	for ; n < len(jobs) && n < rt.opts.Parallel && safe(jobs[n]); n++ {
		t := jobs[n].tool
		if t.MaxParallel > 0 && count[t.Name] >= t.MaxParallel {
			break
		}
		count[t.Name]++
	}
	return n
}

// recheck decides again, without asking anyone, the jobs that the policy
// allowed by mode or rule, and returns those it still allows; the others
// get their observation here.
func (rt *Runtime) recheck(batch []job, sink Sink) ([]job, error) {
	keep := batch[:0:0]
	policy := rt.Policy()
	for _, j := range batch {
		if j.by == permission.ByUser {
			// A person's answer stands for the turn.
			keep = append(keep, j)
			continue
		}
		v := policy.Decide(permission.RequestFor(j.tool, j.Intent.Input))
		// A hook judged the input as the turn began: its allow stands
		// only while the policy would still let a hook allow it.
		if v.Decision == contract.Allow || j.by == permission.ByHook && hookMayAllow(v) {
			keep = append(keep, j)
			continue
		}
		obs := observation(j.Intent, contract.PhasePermission, contract.CodeDenied, "Blocked: rein did not run this "+j.tool.Name+
			" call: it was allowed when the turn began, but an earlier call of the same turn changed what it would touch. "+v.Reason)
		if _, err := sink.Emit(&contract.ToolObservation{Observation: obs}, j.cause); err != nil {
			return nil, err
		}
	}
	return keep, nil
}

// admit validates p and asks the policy. It reports whether p may run;
// when it may not, its observation has been emitted.
func (rt *Runtime) admit(ctx context.Context, st *state.State, p Proposal, before admitted, sink Sink) (job, bool, error) {
	in := p.Intent
	val := rt.validate(st, in, before, false)
	vid, err := sink.Emit(&contract.ToolValidation{IntentID: in.ID, OK: val.code == "", Code: val.code, Errors: val.errors}, p.EventID)
	if err != nil {
		return job{}, false, err
	}
	if val.code != "" {
		obs := observation(in, contract.PhaseValidation, val.code, val.text(in.ToolName, rt.reg))
		_, err := sink.Emit(&contract.ToolObservation{Observation: obs}, vid)
		return job{}, false, err
	}
	t := val.tool
	verdict, said, asked, err := rt.decide(ctx, t, in, sink, vid)
	if err != nil {
		return job{}, false, err
	}
	if asked && ctx.Err() != nil {
		// The run was cancelled while a person was being asked: nobody
		// decided anything.
		return job{}, false, rt.notRun(sink, in, vid, "the run was cancelled while rein was asking for approval")
	}
	event := verdict.Event(in.ID)
	event.Message = said
	pid, err := sink.Emit(event, vid)
	if err != nil {
		return job{}, false, err
	}
	if verdict.Decision != contract.Allow {
		obs := observation(in, contract.PhasePermission, contract.CodeDenied, withSaid("Blocked: rein did not run this "+in.ToolName+" call. "+verdict.Reason, said))
		_, err := sink.Emit(&contract.ToolObservation{Observation: obs}, pid)
		return job{}, false, err
	}
	return job{Proposal: p, tool: t, cause: pid, by: verdict.By}, true, nil
}

// validation is what validating an intent found: its tool, and when the
// intent is refused, the code and the messages saying why.
type validation struct {
	tool   registry.Tool
	code   contract.Code // empty when the intent may go on
	errors []string
}

// admitted is what the intents admitted earlier in a turn may do before
// the one being validated runs: it is validated against the world as it
// is now, and they run first. The zero admitted is none.
type admitted struct {
	// some: an intent was admitted. A read records the stamp of what it
	// read, so the read ledger may hold more by then.
	some bool
	// changes: one of them may change files (its tool is not read-only).
	changes bool
}

// with is a, and an intent of tool t admitted after them.
func (a admitted) with(t registry.Tool) admitted {
	return admitted{some: true, changes: a.changes || !t.ReadOnly}
}

// final reports whether the refusal ce stands whatever the intents
// admitted before do: it is about the input, or about a state of the world
// none of them may change. A precondition about the files as they are now
// may hold once an earlier intent has run (an edit of text an earlier
// edit adds, a file a command makes), one about the read ledger once an
// earlier read has (a read_file, then an edit of that file): such a
// refusal is left to the tool, which checks again when it runs.
func (a admitted) final(ce *registry.CheckError) bool {
	switch {
	case !ce.Current:
		return true
	case a.changes:
		return false
	}
	return !a.some || ce.Code != contract.CodeStaleFile
}

// validate looks the intent's tool up and checks its input, the
// preconditions of its tool included: whatever the tool can check without
// acting, so that a call that cannot apply is refused here, before anyone
// is asked about it, unless an intent admitted before it in the turn
// (before) may make it apply. A person's own intent (byUser) may use a
// tool the model is not shown.
func (rt *Runtime) validate(st *state.State, in contract.ToolIntent, before admitted, byUser bool) validation {
	t, ok := rt.reg.Lookup(in.ToolName)
	refuse := func(code contract.Code, msgs ...string) validation {
		return validation{tool: t, code: code, errors: msgs}
	}
	if !ok {
		return refuse(contract.CodeUnknownTool, fmt.Sprintf("there is no tool named %q", in.ToolName))
	}
	if !byUser && ((t.Visible != nil && !t.Visible(st)) || rt.Hidden(t)) {
		why := "it is not offered in this session"
		if m := rt.Policy().Mode(); m == permission.Plan {
			why = "plan mode is read-only, so tools that change things are not offered"
		}
		return refuse(contract.CodeNotVisible, fmt.Sprintf("the tool %q is not available: %s", t.Name, why))
	}
	if t.Execute == nil {
		return refuse(contract.CodeNotVisible, fmt.Sprintf("the tool %q is declared but this build cannot run it", t.Name))
	}
	if errs := rt.schemas.validate(t, in.Input); len(errs) > 0 {
		return refuse(contract.CodeSchemaInvalid, errs...)
	}
	if t.Check != nil {
		if err := t.Check(in.Input, st.Ledger); err != nil {
			code := contract.CodePreconditionFailed
			ce, ok := errors.AsType[*registry.CheckError](err)
			if ok && !before.final(ce) {
				rt.opts.Logger.Debug("tool: a precondition left to execution: an earlier call of the turn may make it hold",
					"intent", in.ID, "tool", t.Name, "error", err)
				return validation{tool: t}
			}
			if ok && ce.Code != "" {
				code = ce.Code
			}
			return refuse(code, err.Error())
		}
	}
	return validation{tool: t}
}

// text is what the model is told about a refused intent of tool; reg
// lists the tools there are.
func (v validation) text(tool string, reg *registry.Registry) string {
	var b strings.Builder
	switch v.code {
	case contract.CodeUnknownTool:
		fmt.Fprintf(&b, "Unknown tool %q: rein has no such tool, so nothing ran.", tool)
		var names []string
		for _, t := range reg.All() {
			names = append(names, t.Name)
		}
		if len(names) > 0 {
			b.WriteString(" The tools are: " + strings.Join(names, ", ") + ".")
		}
		return b.String()
	case contract.CodeSchemaInvalid:
		fmt.Fprintf(&b, "The input of this %s call does not match the tool's schema, so nothing ran:\n", tool)
		for _, m := range v.errors {
			b.WriteString("- " + m + "\n")
		}
		b.WriteString("Fix the input and call the tool again.")
		return b.String()
	}
	fmt.Fprintf(&b, "rein did not run this %s call: %s", tool, strings.Join(v.errors, "; "))
	return b.String()
}

// decide asks the policy, the person's PreToolUse hooks when the policy
// does not deny (their events emitted to sink, caused by cause), and a
// person when it comes to an ask; asked says whether a person was asked,
// said what they told the model with a denial (see [saidOf]).
func (rt *Runtime) decide(ctx context.Context, t registry.Tool, in contract.ToolIntent, sink Sink, cause string) (v permission.Verdict, said string, asked bool, err error) {
	policy := rt.Policy()
	req := permission.RequestFor(t, in.Input)
	v = policy.Decide(req)
	if v.Decision != contract.Deny && rt.opts.Hooks.Has(contract.HookPreToolUse) {
		o := rt.opts.Hooks.PreToolUse(ctx, hook.ToolCall{IntentID: in.ID, Tool: t.Name, Input: in.Input})
		for i := range o.Ran {
			if _, err := sink.Emit(&o.Ran[i], cause); err != nil {
				return v, "", false, err
			}
		}
		v = byHook(v, o)
	}
	wide := false
	if rt.opts.WideWorkspace != "" && v.Decision == contract.Allow && !rt.wideAsked.Load() && !policy.OnlyReads(req) {
		wide = true
		v = permission.Verdict{Decision: contract.Ask, By: permission.ByMode, Firm: true,
			Reason: rt.opts.WideWorkspace + " This is the session's first call that writes or runs more than a read, so it asks, whatever the mode and the rules; once you allow one, they decide again."}
	}
	if v.Decision != contract.Ask {
		return v, "", false, nil
	}
	if rt.opts.Approver == nil {
		if wide {
			return permission.Verdict{Decision: contract.Deny, By: permission.ByHeadless,
				Reason: rt.opts.WideWorkspace + " A headless run does not write there: start rein in a project's directory (cd into it), or run it interactively to answer the question."}, "", false, nil
		}
		return policy.ForHeadless(v, req), "", false, nil
	}
	q := Question{IntentID: in.ID, Tool: t.Name, Subject: subject(in.Input), Input: in.Input, Reason: v.Reason,
		Preview: rt.preview(t, in.Input), Undoable: v.Undoable}
	allow := policy.SuggestRules(req)
	var deny []permission.Rule
	if len(allow) > 0 {
		deny = policy.DenyRules(req)
		if rt.opts.Answers.File != "" {
			q.SaveTo = config.Shorten(rt.opts.Answers.File)
		}
	}
	for _, r := range allow {
		q.Rules = append(q.Rules, r.String())
	}
	for _, r := range deny {
		q.DenyRules = append(q.DenyRules, r.String())
	}
	reply, err := rt.opts.Approver.Approve(ctx, q)
	if err != nil {
		// No one can answer (the input ended): as in a run that cannot
		// ask, with the hint of how to allow it.
		return policy.ForHeadless(v, req), "", true, nil
	}
	v = rt.answered(reply.Answer, allow, deny)
	if wide && v.Decision == contract.Allow {
		rt.wideAsked.Store(true)
	}
	said = saidOf(reply)
	if said != "" && reply.Answer == No {
		v.Reason = saidNo
	}
	return v, said, true, nil
}

// saidNo is the reason of a No that came with what to do instead.
const saidNo = "The user said no, and said what to do instead. Do that rather than retrying the same call."

// saidOf returns what the person told the model with a denial: the text
// of r, white space trimmed, made printable and cut to MaxReplyText
// bytes; "" when r allows, or says nothing.
func saidOf(r Reply) string {
	if r.Answer != No && r.Answer != Never {
		return ""
	}
	return excerpt.Text(printable.Text(strings.TrimSpace(r.Text)), MaxReplyText)
}

// withSaid returns the text of an observation followed by what the person
// said, if anything.
func withSaid(text, said string) string {
	if said == "" {
		return text
	}
	return withLine(text, "The user said: "+said)
}

// saveTo says, for people, where answers keep their rules.
func (rt *Runtime) saveTo() string {
	if rt.opts.Answers.File == "" {
		return "for this session only"
	}
	return config.Shorten(rt.opts.Answers.File)
}

// byHook is the verdict once the PreToolUse hooks decided o over the
// policy's v, which is no deny. A hook's deny denies and its ask asks; its
// allow stands for the mode's ask (or allow), never for an ask rule nor a
// firm ask (a protected directory, what the sandbox forbids), which still
// ask, as in Claude Code.
func byHook(v permission.Verdict, o hook.Outcome) permission.Verdict {
	reason := strings.TrimSpace(o.Reason)
	if reason != "" && !strings.HasSuffix(reason, ".") {
		reason += "."
	}
	switch o.Decision {
	case contract.HookDeny:
		return permission.Verdict{Decision: contract.Deny, By: permission.ByHook,
			Reason: strings.TrimSpace("The user's PreToolUse hook denied it: " + reason + " Do not try to get around this denial; ask the user what they want instead.")}
	case contract.HookAsk:
		return permission.Verdict{Decision: contract.Ask, By: permission.ByHook, Firm: v.Firm,
			Reason: strings.TrimSpace("The user's PreToolUse hook asks first. " + reason)}
	case contract.HookAllow:
		if hookMayAllow(v) {
			return permission.Verdict{Decision: contract.Allow, By: permission.ByHook,
				Reason: strings.TrimSpace("The user's PreToolUse hook allowed it. " + reason)}
		}
	}
	return v
}

// hookMayAllow says whether a hook's allow stands over the policy's v: an
// allow, or an ask only the mode made.
func hookMayAllow(v permission.Verdict) bool {
	return v.Decision == contract.Allow || v.Decision == contract.Ask && v.By == permission.ByMode && !v.Firm
}

// answered is the verdict of a person's answer; allow and deny are the
// rules an Always and a Never answer save.
func (rt *Runtime) answered(answer Answer, allow, deny []permission.Rule) permission.Verdict {
	switch answer {
	case Yes:
		return permission.Verdict{Decision: contract.Allow, By: permission.ByUser, Reason: "The user allowed it once."}
	case Always, Never:
		d, verb, rules := contract.Allow, "allowed", allow
		if answer == Never {
			d, verb, rules = contract.Deny, "denied", deny
		}
		saved, session, err := rt.save(d, rules)
		v := permission.Verdict{Decision: d, By: permission.ByUser, Rule: strings.Join(append(saved, session...), ", ")}
		where := rt.saveTo()
		if rt.opts.Answers.File != "" {
			where = "in " + where
		}
		why := ""
		if err != nil {
			why = strings.TrimPrefix(err.Error(), "config: ")
		}
		switch {
		case err != nil && len(saved) > 0 && len(session) > 0:
			v.Reason = "The user " + verb + " it and saved " + strings.Join(saved, ", ") + " " + where + "; " +
				strings.Join(session, ", ") + " holds for this session only, since it was not saved: " + why
		case err != nil && len(session) > 0:
			v.Reason = "The user " + verb + " it for this session only: " + strings.Join(session, ", ") + " was not saved: " + why
		case err != nil:
			v.Reason = "The user " + verb + " it, but the rule could not be kept: " + why
		case len(saved) == 0:
			v.Reason = "The user " + verb + " it; no rule could express it, so it will be asked again."
		default:
			v.Reason = "The user " + verb + " it and saved " + strings.Join(saved, ", ") + " " + where + "."
		}
		if d == contract.Deny {
			v.Reason += " Do not try to get around this denial; ask the user what they want instead."
		}
		return v
	}
	return permission.Verdict{Decision: contract.Deny, By: permission.ByUser,
		Reason: "The user said no. Do not retry the same call; change your approach or ask the user."}
}

// save keeps rules in the list of d (allow or deny) of the person's
// answers for this project, and adds them to the policy in force, with
// the answers' origin. It returns the rules saved, those in force for this
// session only, and why those were not saved: a rule the answers file
// could not take (it does not parse, say) still holds until the session
// ends, as the person answered. With no answers file, every rule is saved
// for this runtime only (saved, with no error).
func (rt *Runtime) save(d contract.Decision, rules []permission.Rule) (saved, session []string, serr error) {
	if len(rules) == 0 {
		return nil, nil, nil
	}
	origin := permission.Origin{Kind: permission.FromAnswers, File: rt.opts.Answers.File}
	kept := make([]permission.Rule, 0, len(rules))
	for _, r := range rules {
		if rt.opts.Answers.File != "" && serr == nil {
			serr = rt.opts.Answers.Save(d, r)
		}
		if serr != nil {
			// Not in the file: for this session only.
			kept = append(kept, r.WithOrigin(permission.Origin{Kind: permission.FromAnswers}))
			session = append(session, r.String())
			continue
		}
		kept = append(kept, r.WithOrigin(origin))
		saved = append(saved, r.String())
	}
	extra := permission.Rules{Allow: kept}
	if d == contract.Deny {
		extra = permission.Rules{Deny: kept}
	}
	if err := rt.AddRules(extra); err != nil {
		return saved, nil, err
	}
	return saved, session, serr
}

// AddRules adds rules to the policy in force, keeping everything else
// (the sandbox still contains what runs, and rein's own directories stay
// protected: With keeps all of it), and hands them to Options.OnRules: an
// answer a task's child was given holds for its parent too.
func (rt *Runtime) AddRules(extra permission.Rules) error {
	rt.mu.Lock()
	p, err := rt.policy.With(rt.policy.Mode(), extra)
	if err == nil {
		rt.policy = p
	}
	rt.mu.Unlock()
	if err == nil && rt.opts.OnRules != nil {
		return rt.opts.OnRules(extra)
	}
	return err
}

// subject is the command or path an input acts on.
func subject(input json.RawMessage) string {
	var in struct {
		Command string `json:"command"`
		Path    string `json:"path"`
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	if in.Command != "" {
		return in.Command
	}
	return in.Path
}

// notRun emits the observation of an intent that was never run.
func (rt *Runtime) notRun(sink Sink, in contract.ToolIntent, cause, why string) error {
	obs := observation(in, contract.PhaseKernel, contract.CodeCancelled, "Not run: "+why+".")
	_, err := sink.Emit(&contract.ToolObservation{Observation: obs}, cause)
	return err
}

func observation(in contract.ToolIntent, phase string, code contract.Code, text string) contract.Observation {
	return contract.Observation{IntentID: in.ID, ToolName: in.ToolName, OK: code == "", Phase: phase, Code: code, Text: text}
}
