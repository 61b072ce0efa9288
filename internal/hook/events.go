package hook

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/rein-agent/rein/internal/contract"
)

// maxResponse bounds the tool_response text a PostToolUse hook is given.
const maxResponse = 64 << 10

// PreToolUse runs the PreToolUse hooks whose matcher matches c's tool. The
// outcome's Decision is deny if a hook denied (or failed), else ask if one
// asked, else allow if one allowed, else "". It never overrides the
// caller's rules: see the tool runtime.
func (r *Runner) PreToolUse(ctx context.Context, c ToolCall) Outcome {
	if !r.Has(contract.HookPreToolUse) {
		return Outcome{}
	}
	in := r.toolInput(contract.HookPreToolUse, c)
	o := r.fire(ctx, contract.HookPreToolUse, c, c.Tool, in)
	o.decide(contract.HookDeny, contract.HookAsk, contract.HookAllow)
	return o
}

// PostToolUse runs the PostToolUse hooks whose matcher matches c's tool,
// after it ran and ended as response says. They only observe: the
// outcome's Context is what they add for the model; a failure is
// recorded and otherwise ignored.
func (r *Runner) PostToolUse(ctx context.Context, c ToolCall, response ToolResponse) Outcome {
	if !r.Has(contract.HookPostToolUse) {
		return Outcome{}
	}
	in := r.toolInput(contract.HookPostToolUse, c)
	text := response.Text
	if len(text) > maxResponse {
		text = text[:maxResponse] + "\n[... cut for the hook]"
	}
	code := response.ExitCode
	in.ToolResponse = &toolResponse{Success: response.OK, Output: text, ExitCode: &code}
	if c.Tool != "bash" {
		in.ToolResponse.ExitCode = nil
	}
	o := r.fire(ctx, contract.HookPostToolUse, c, c.Tool, in)
	return o
}

// UserPromptSubmit runs the UserPromptSubmit hooks on prompt before it is
// sent. Decision HookBlock means it must not be: Reason says why.
func (r *Runner) UserPromptSubmit(ctx context.Context, prompt string) Outcome {
	if !r.Has(contract.HookUserPromptSubmit) {
		return Outcome{}
	}
	in := promptInput{common: r.common(contract.HookUserPromptSubmit), Prompt: prompt}
	o := r.fire(ctx, contract.HookUserPromptSubmit, ToolCall{}, "", in)
	o.decide(contract.HookBlock)
	return o
}

// SessionStart runs the SessionStart hooks; source is "startup" for a
// new session, "resume" for a resumed one. They may add context.
func (r *Runner) SessionStart(ctx context.Context, source string) Outcome {
	if !r.Has(contract.HookSessionStart) {
		return Outcome{}
	}
	in := sessionInput{common: r.common(contract.HookSessionStart), Source: source}
	return r.fire(ctx, contract.HookSessionStart, ToolCall{}, source, in) // startup, resume, clear, compact
}

// Stop runs the Stop hooks when a run would end as completed; active says
// the run already went on because of a Stop hook (stop_hook_active), and
// lastMessage is the model's last text. Decision HookBlock asks the model
// to go on, with Reason: the caller counts, up to StopLimit.
func (r *Runner) Stop(ctx context.Context, active bool, lastMessage string) Outcome {
	return r.stop(ctx, contract.HookStop, active, lastMessage)
}

// SubagentStop runs the SubagentStop hooks when a child session (a
// task's subagent) would end, as Stop does for a session a person runs:
// a block makes the child go on.
func (r *Runner) SubagentStop(ctx context.Context, active bool, lastMessage string) Outcome {
	return r.stop(ctx, contract.HookSubagentStop, active, lastMessage)
}

func (r *Runner) stop(ctx context.Context, event string, active bool, lastMessage string) Outcome {
	if !r.Has(event) {
		return Outcome{}
	}
	in := stopInput{common: r.common(event), StopHookActive: active, LastAssistantMessage: lastMessage}
	o := r.fire(ctx, event, ToolCall{}, "", in)
	o.decide(contract.HookBlock)
	return o
}

// toolInput is the input of a tool hook for c.
func (r *Runner) toolInput(event string, c ToolCall) toolInput {
	return toolInput{common: r.common(event), ToolName: ClaudeName(c.Tool), ReinToolName: c.Tool,
		ToolInput: claudeInput(c.Tool, c.Input, r.dir), ToolUseID: c.IntentID}
}

// fire runs, in parallel, the hooks of event that match c's tool (the
// tool events), each command once, with input on stdin, and returns
// their events in the order of the configuration, and their contexts.
func (r *Runner) fire(ctx context.Context, event string, c ToolCall, subject string, input any) Outcome {
	hooks := r.matching(event, subject)
	if len(hooks) == 0 {
		return Outcome{}
	}
	stdin, err := json.Marshal(input)
	if err != nil {
		// Only raw JSON that is not can fail, and claudeInput hands on
		// only valid JSON: a bug, which the hooks must not hide.
		r.opts.Logger.Error("hook: marshal the input", "event", event, "err", err)
		stdin = []byte("{}")
	}
	ran := make([]contract.HookRan, len(hooks))
	var wg sync.WaitGroup
	for i, h := range hooks {
		wg.Go(func() {
			ran[i] = r.interpret(event, h, r.run(ctx, h.Hook, stdin))
			ran[i].IntentID, ran[i].ToolName = c.IntentID, c.Tool
		})
	}
	wg.Wait()
	o := Outcome{Ran: ran}
	var contexts []string
	for _, e := range ran {
		if e.Context != "" {
			contexts = append(contexts, e.Context)
		}
	}
	o.Context = strings.Join(contexts, "\n\n")
	return o
}

// matching returns the hooks of event whose matcher matches subject (a
// tool, by rein's name or Claude Code's; SessionStart's source), without
// repeating a command. An empty subject (UserPromptSubmit, Stop: events
// Claude Code gives no matcher) matches every hook.
func (r *Runner) matching(event, tool string) []compiled {
	var out []compiled
	seen := map[string]bool{}
	for _, h := range r.hooks {
		if h.Event != event || seen[h.Command] {
			continue
		}
		if tool != "" && h.re != nil && !h.re.MatchString(tool) && !h.re.MatchString(ClaudeName(tool)) &&
			!(tool == "task" && h.re.MatchString("Agent")) { // Claude Code's newer name of its Task
			continue
		}
		seen[h.Command] = true
		out = append(out, h)
	}
	return out
}

// decide sets o's Decision to the first of order that one of its runs
// made, and its Reason to theirs.
func (o *Outcome) decide(order ...string) {
	for _, d := range order {
		var reasons []string
		for _, e := range o.Ran {
			if e.Decision == d {
				o.Decision = d
				if e.Reason != "" {
					reasons = append(reasons, e.Reason)
				}
			}
		}
		if o.Decision != "" {
			o.Reason = strings.Join(reasons, "\n")
			return
		}
	}
}
