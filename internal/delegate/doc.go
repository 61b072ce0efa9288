// Package delegate is the task tool: the model hands a brief to a
// subagent, and the runtime runs it as a child session under a ceiling
// the child cannot raise.
//
// Delegation is a tool call, and a subagent is a controlled executor. The
// parent model proposes a task ({"description", "prompt", "agent"}); the
// tool runtime validates and decides it like any call (task itself never
// asks: what the child does is what permission decides); its executor,
// here, runs the child and observes it:
//
//   - The child's tools are its agent's intersected with the tools the
//     parent sees now, never task itself unless the person raised
//     max_depth; its permission mode is the stricter of its agent's and
//     the parent's current one (a plan-mode parent has read-only
//     children), an agent that may only read is under the policy's
//     read-only ceiling, and it has the parent's rules, sandbox and hooks.
//     Its questions go to the same person through the parent's approver,
//     one at a time, saying which agent and task asks.
//   - Its context is its own: its agent's prompt with the environment
//     (kernel.ChildPrompt), and the brief as its first user message; not
//     the parent's conversation.
//   - It is a session of its own, in tasks/ID under the parent's session
//     directory, whose session.started names the parent (contract.ParentRef).
//     The parent's log records task.started and task.finished (outcome,
//     usage, counts); while it runs, each of its durable events reaches
//     the parent's bus as a task.event, for the views, and is stored only
//     in its own log. Its cost counts in the parent's run (the state adds
//     task.finished's usage), and its budget is what the parent's has
//     left.
//   - It stops at its agent's maxTurns (25 by default), its wall-clock
//     timeout (15 minutes by default), the parent's cancellation, or its
//     budget; the parent's observation says which, and what it had done.
//     A task whose child did not complete with an answer is a failed call,
//     never an error dressed as success.
//   - When rein died while a child ran, the resumed parent runs the task
//     call again (registry.Tool.Resumable): the child's session is found
//     by the intent it works for and resumed under its own rules (nothing
//     that ran is run again); a child that had finished is only read.
package delegate
