package main

import (
	"context"
	"fmt"
	"iter"
	"path/filepath"

	"github.com/rein-agent/rein/internal/checkpoint"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/session"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/workspace"
)

// checkpoints opens the store of snapshots a session takes of its
// workspace around the calls that may change it, in the session's
// directory, with the last one its log recorded as the base of the next
// (so a resumed session's first one costs a stat per file, not a copy).
// A file that holds one of secrets is left out, never copied (a snapshot
// says so). A workspace as wide as the home directory or / gets none: a copy of it
// is not a checkpoint, and a rewind there restores the conversation only.
func checkpoints(sess *session.Session, ws *workspace.Workspace, set setup, wide string, secrets []string) *checkpoint.Store {
	if wide != "" {
		return nil
	}
	s, err := checkpoint.Open(checkpoint.Options{Root: ws.Root(), Dir: filepath.Join(sess.Dir, session.CheckpointsDir),
		IgnoredBudget: set.checkpointIgnored, Secrets: secrets})
	if err != nil {
		warn(fmt.Sprintf("checkpoints are off for this session, so its files cannot be rewound: %v", err))
		return nil
	}
	if last, ok := sess.State.LastCheckpoint(); ok && last.ID != "" {
		if err := s.Base(last.ID); err != nil {
			// The next snapshot reads every file again; nothing is lost.
			warn(fmt.Sprintf("the session's last checkpoint cannot be read (%v): the next one records the workspace afresh", err))
		}
	}
	return s
}

// offline is the model of a session opened with no model (rein rewind,
// which asks none): a request to it fails, saying so.
type offline struct{}

func (offline) Stream(context.Context, *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
	return func(yield func(contract.ModelEvent, error) bool) {
		yield(nil, &contract.ProviderError{Kind: contract.KindBadRequest, Provider: "offline",
			Message: "this session was opened without a model (rein rewind); resume it to go on"})
	}
}

// offlineModel is the model of a session opened with no model, under the
// provider and model its log names.
func offlineModel(st *state.State) kernel.Model {
	return kernel.Model{Provider: offline{}, Name: st.Provider, Model: st.Model, Info: st.ModelInfo}
}
