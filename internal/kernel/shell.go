package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/tool"
)

// shellTool is the tool a person's command runs with.
const shellTool = "bash"

// Shell runs command, as a person typed it (!go test ./...), with the tool
// runtime's bash tool: in the same workspace, sandbox and limits as the
// model's commands, but without asking anyone, in any permission mode
// (plan mode included): the person decided. It records the person's own
// call: tool_intent.proposed with Origin contract.OriginUser, a
// tool.validation, a tool.permission allowed by "user", the invocation
// and the observation. The observation joins the conversation as the
// person's message ("I ran `go test ./...` myself:" and the output,
// bounded as any tool result is), after everything already there, so the
// next request starts with the same bytes as the last one; no model is
// asked.
//
// It yields every event it appends, and the command's output while it
// runs (tool.output_delta, coalesced, secrets cut out, never stored), like
// Send. The yielded error is non-nil only when the runtime fails, and then
// it is the last pair: ErrBusy when a run is in progress, an error for an
// empty command or a kernel without a tool runtime (nothing is appended),
// or the log's failure. Cancelling ctx stops the command, recorded as
// cancelled; so does breaking out of the loop.
func (k *Kernel) Shell(ctx context.Context, command string) iter.Seq2[contract.Envelope, error] {
	return k.do(func(r *run) { r.shell(ctx, command) })
}

func (r *run) shell(ctx context.Context, command string) {
	k := r.k
	switch {
	case strings.TrimSpace(command) == "":
		r.err = errors.New("kernel: shell: the command is empty")
		return
	case k.opts.Tools == nil:
		r.err = errors.New("kernel: shell: this session has no tool runtime, so it cannot run commands")
		return
	}
	input, err := json.Marshal(struct {
		Command string `json:"command"`
	}{command})
	if err != nil {
		r.err = fmt.Errorf("kernel: shell: encode the command: %w", err)
		return
	}
	// Recorded in the last run, as a compaction a person asks for is;
	// what it left open is settled first.
	if r.begin() != nil {
		return
	}
	proposed, err := r.emit(&contract.IntentProposed{ToolIntent: contract.ToolIntent{
		ID: id.New("int"), ToolName: shellTool, Input: input, Origin: contract.OriginUser,
	}}, r.lastID)
	if err != nil {
		return
	}
	// What runs is what the log holds: a secret typed in the command is
	// cut out of it, as it is out of everything a tool sees.
	recorded, ok := proposed.Data.(*contract.IntentProposed)
	if !ok {
		r.err = fmt.Errorf("kernel: shell: the log returned a %s for the intent", proposed.Type())
		return
	}
	ctx, r.cancel = context.WithCancel(ctx)
	defer r.cancel()
	r.tally = map[string]int{}
	intent := recorded.ToolIntent
	st := r.state()
	if err := k.opts.Tools.RunUser(ctx, &st, tool.Proposal{Intent: intent, EventID: proposed.ID}, r); err != nil && r.err == nil {
		r.err = fmt.Errorf("kernel: shell: %w", err)
	}
}
