package contract

// The moments a checkpoint is taken at (CheckpointRecorded.When).
const (
	// CheckpointBefore: before a call that may change the workspace runs.
	CheckpointBefore = "before"
	// CheckpointAfter: after it ended; its tool.observation names the
	// files that changed between the two.
	CheckpointAfter = "after"
	// CheckpointRewind: before a rewind writes anything, so that a later
	// rewind can come back to the workspace as it was.
	CheckpointRewind = "rewind"
	// CheckpointRestored: after a rewind restored files, the workspace as
	// it left it, which the next rewind compares the disk with.
	CheckpointRestored = "restored"
)

// CheckpointRecorded records a snapshot of the workspace: what rein needs
// to put every file back as it was at this point (the snapshot's objects
// are in the checkpoints directory of the session's tree). It comes
// before a call that may change the workspace (a write, an edit, a
// command that does more than read, an MCP tool that does not claim to
// only read, a task whose agent may write), after it, and before a
// rewind.
type CheckpointRecorded struct {
	// ID names the snapshot: the hash of its root tree.
	ID string `json:"id"`
	// IntentID is the call the checkpoint was taken for; empty for a
	// rewind's.
	IntentID string `json:"intent_id,omitempty"`
	When     string `json:"when"`
	// Files and Bytes are what the snapshot holds; New and NewBytes what
	// it wrote to disk (unchanged files cost a stat, not a copy).
	Files    int   `json:"files"`
	Bytes    int64 `json:"bytes"`
	New      int   `json:"new,omitempty"`
	NewBytes int64 `json:"new_bytes,omitempty"`
	// Left is what the snapshot left out (ignored files past the budget,
	// dependency directories...): the first few, with LeftCount and
	// LeftBytes for all of it.
	Left       []LeftOut `json:"left,omitempty"`
	LeftCount  int       `json:"left_count,omitempty"`
	LeftBytes  int64     `json:"left_bytes,omitempty"`
	DurationMS int64     `json:"duration_ms"`
	// Error says why no snapshot was taken (ID is then empty): a rewind
	// past this point cannot restore the files exactly, and says so.
	Error string `json:"error,omitempty"`
}

// LeftOut is a path a checkpoint did not record, and why.
type LeftOut struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// The scopes of a rewind.
const (
	RewindBoth         = "both"
	RewindCode         = "code"
	RewindConversation = "conversation"
)

// SessionRewound records a rewind to just before the user.message of seq
// To: with Scope both or conversation, the conversation goes on from
// there (the state leaves out what came between, which the log keeps and
// replay shows as rewound); with both or code, the files the session
// changed since are back as they were (Files, from the snapshot
// Checkpoint).
type SessionRewound struct {
	To    uint64 `json:"to"`
	Scope string `json:"scope"`
	// Checkpoint is the snapshot the files were restored from; empty
	// when no file needed it.
	Checkpoint string `json:"checkpoint,omitempty"`
	// Files are the files the rewind restored: Op FileCreated for a file
	// it brought back, FileChanged for one it rewrote, FileDeleted for one
	// it removed; each stamp is of the file as the rewind left it.
	Files []FileStamp `json:"files,omitempty"`
	// Forced names the files that had changed since rein last recorded
	// them and were overwritten all the same (--force).
	Forced []string `json:"forced,omitempty"`
}
