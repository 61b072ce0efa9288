package transcript

import (
	"iter"
	"path/filepath"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
)

// Changes is what a session's edits changed, as its log has it, for
// /diff in the terminal UI and the line mode alike.
type Changes struct {
	// Diffs are the diffs of the edits and writes that succeeded, in
	// order (see Change).
	Diffs []string
	// Commands is how many commands ran that no checkpoint followed (a
	// session from before checkpoints, or one that keeps none): they may
	// have changed files too, which /diff cannot show.
	Commands int
}

// ReadChanges reads a session's events for its Changes, each diff's paths
// shown relative to workspace. A failure to read the log ends it: the
// error comes with what was read before it.
//
// diffOf, when not nil, gives the diff of what a call changed that its
// input does not tell (a command's, from its checkpoints: the kernel's
// ChangesOf); without it, or when it has none, such a call's files are
// listed.
func ReadChanges(events iter.Seq2[contract.Envelope, error], workspace string, diffOf func(intent string) string) (Changes, error) {
	var c Changes
	intents := map[string]contract.ToolIntent{}
	checked := map[string]bool{} // the calls a checkpoint followed
	for env, err := range events {
		if err != nil {
			return c, err
		}
		switch e := env.Data.(type) {
		case *contract.IntentProposed:
			intents[e.ID] = e.ToolIntent
		case *contract.CheckpointRecorded:
			if e.When == contract.CheckpointAfter {
				checked[e.IntentID] = true
			}
		case *contract.ToolObservation:
			in, ok := intents[e.IntentID]
			switch {
			case !ok:
			case checked[e.IntentID] && in.ToolName != "write_file" && in.ToolName != "edit_file":
				// What the checkpoints around it say it changed, a failed
				// command's work included.
				if d := changedBy(in, e.Files, workspace); d != "" {
					if diffOf != nil {
						if full := diffOf(in.ID); full != "" {
							d = strings.SplitN(d, "\n", 2)[0] + "\n" + full
						}
					}
					c.Diffs = append(c.Diffs, d)
				}
			case !e.OK:
			case in.ToolName == "bash":
				c.Commands++
			default:
				if d := Change(in.ToolName, in.Input, e.Text, workspace); d != "" {
					c.Diffs = append(c.Diffs, d)
				}
			}
		}
	}
	return c, nil
}

// Summary is the line /diff ends with: that the session changed nothing,
// or, when commands ran, how many edits were shown and commands ran; ""
// when there were edits alone, whose diffs say it all.
func (c Changes) Summary() string {
	switch {
	case len(c.Diffs) == 0 && c.Commands == 0:
		return "this session changed nothing in the workspace"
	case c.Commands > 0:
		return plural(len(c.Diffs), "edit") + " shown; " + plural(c.Commands, "command") +
			" ran and may have changed files too (rein why FILE says which)"
	}
	return ""
}

// changedBy is the block /diff shows for a call whose checkpoints say it
// created, changed or deleted files (files, its observation's): the call,
// then a line per file, relative to workspace; "" when it changed none.
func changedBy(in contract.ToolIntent, files []contract.FileStamp, workspace string) string {
	var b strings.Builder
	for _, f := range files {
		var verb string
		switch f.Op {
		case contract.FileCreated:
			verb = "+ created "
		case contract.FileChanged:
			verb = "~ changed "
		case contract.FileDeleted:
			verb = "- deleted "
		default:
			continue
		}
		rel := f.Path
		if r, err := filepath.Rel(workspace, f.Path); err == nil && filepath.IsLocal(r) {
			rel = filepath.ToSlash(r)
		}
		b.WriteString(verb + rel + "\n")
	}
	if b.Len() == 0 {
		return ""
	}
	return in.ToolName + " " + Subject(in.ToolName, in.Input, workspace) + "\n" + b.String()
}
