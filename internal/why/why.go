// Package why answers "why did you change this file?" from the record alone:
// it reads the durable events of sessions and collects every tool intent
// that read or changed one path, with what the model said before proposing
// it and what then happened to it (validation, permission, invocation,
// observation).
//
// It only reads events: it never touches the file system, not even to
// stat the path, so the answer is the same on any machine that holds the
// logs. Paths are compared as text, after resolving relative ones against
// the session's workspace and cleaning them.
package why

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

// Access says how an intent touched the path.
type Access string

// The accesses, from weakest to strongest. An intent that touches the path
// in several ways is reported once, with the strongest.
const (
	// Read: read_file of the path; grep, list_dir or glob whose path is it.
	Read Access = "read"
	// Write: write_file or edit_file of the path; a bash redirection (>,
	// >>, >|, &>, &>>, <>) to it, or a bash command whose arguments write
	// it (rm, tee, cp's target, sed -i); any call whose observation says
	// it created, changed or deleted the path, which rein finds by
	// comparing the checkpoints around it (a script that never names it).
	Write Access = "write"
	// Command: a bash command naming the path, or a directory holding it,
	// as a word.
	Command Access = "command"
)

// rank orders accesses by strength; the zero Access (no touch) is 0.
func (a Access) rank() int {
	switch a {
	case Read:
		return 1
	case Command:
		return 2
	case Write:
		return 3
	}
	return 0
}

// stronger returns the stronger of a and b.
func stronger(a, b Access) Access {
	if b.rank() > a.rank() {
		return b
	}
	return a
}

// Touch is one intent that touched the path, with what the log says
// happened to it. Pointer fields are nil when the log holds no such event
// (a denied intent has no Started, an intent of a crashed session may have
// nothing after its proposal). The pointed-to events belong to the Touch;
// the Finder does not change them once Touches has returned.
type Touch struct {
	// Session is the session's id; Cwd its workspace (the cwd of
	// session.started), "" when the log has no session.started.
	Session string
	Cwd     string
	// Parent names the session and the task a child session worked for
	// (session.started's parent); nil for a person's session.
	Parent *contract.ParentRef
	// Seq, Time, Run and Turn are those of the tool_intent.proposed event.
	Seq  uint64
	Time time.Time
	Run  string
	Turn int
	// Intent is the intent as proposed.
	Intent contract.ToolIntent
	// Access is the strongest way the intent touched the path.
	Access Access
	// Said is the model's text in the same model call before the intent:
	// the model.text blocks after the last model.requested, joined by a
	// blank line; "" if there were none.
	Said        string
	Validation  *contract.ToolValidation
	Permission  *contract.ToolPermission
	Started     *contract.InvocationStarted
	Completed   *contract.InvocationCompleted
	Observation *contract.ToolObservation
}

// Finder collects the touches of one path over the events of sessions.
// Its memory holds the touches found, plus, per session, the text of the
// current model call and the bash intents proposed but not yet started.
// A Finder is not safe for concurrent use.
type Finder struct {
	target   string
	sessions map[string]*session
	touches  []Touch
}

// session is what a Finder keeps of one session while reading it.
type session struct {
	cwd    string
	parent *contract.ParentRef
	// said holds the model.text blocks of the current model call.
	said []string
	// index maps the id of an intent found to touch the target to its
	// place in Finder.touches.
	index map[string]int
	// pending holds the bash intents whose match waits for the cwd of
	// their tool.invocation.started, by intent id.
	pending map[string]*Touch
	// unmatched holds the intents that may change files without naming
	// them (a command that did not name the target, an MCP tool, a task),
	// until their observation says which files changed, by intent id.
	unmatched map[string]*Touch
}

// New returns a Finder of the touches of target, an absolute, cleaned path.
func New(target string) *Finder {
	return &Finder{target: target, sessions: make(map[string]*session)}
}

// Add reads one durable event. Give it each session's events in seq
// order; sessions may follow one another (a session.started begins a new
// one) and are told apart by env.Session. Events of types this version does
// not know, and events of intents that did not touch the target, are
// ignored.
func (f *Finder) Add(env contract.Envelope) {
	if st, ok := env.Data.(*contract.SessionStarted); ok {
		f.sessions[env.Session] = &session{cwd: st.Cwd, parent: st.Parent}
		return
	}
	s := f.sessions[env.Session]
	if s == nil {
		// A log without its session.started (a damaged or partial one):
		// absolute paths still match.
		s = &session{}
		f.sessions[env.Session] = s
	}
	switch e := env.Data.(type) {
	case *contract.ModelRequested, *contract.ModelDiscarded:
		s.said = s.said[:0]
	case *contract.ModelText:
		s.said = append(s.said, e.Text)
	case *contract.IntentProposed:
		f.proposed(env, s, e)
	case *contract.ToolValidation:
		if t := f.find(s, e.IntentID); t != nil {
			t.Validation = e
		}
	case *contract.ToolPermission:
		if t := f.find(s, e.IntentID); t != nil {
			t.Permission = e
		}
	case *contract.InvocationStarted:
		if t, ok := s.pending[e.IntentID]; ok {
			delete(s.pending, e.IntentID)
			t.Started = e
			f.settle(s, t)
		} else if t := f.find(s, e.IntentID); t != nil {
			t.Started = e
		}
	case *contract.InvocationCompleted:
		if t := f.found(s, e.IntentID); t != nil {
			t.Completed = e
		}
	case *contract.ToolObservation:
		t := f.found(s, e.IntentID)
		if _, ok := s.unmatched[e.IntentID]; ok {
			t = nil // held only until now: kept below if it changed the target
			if changed(e.Files, f.target) {
				t = f.keepUnmatched(s, e.IntentID)
			}
			delete(s.unmatched, e.IntentID)
		}
		if t != nil && changed(e.Files, f.target) {
			t.Access = stronger(t.Access, Write)
		}
		if t != nil {
			t.Observation = e
		}
	}
}

// changed reports whether files, an observation's, say the call created,
// changed or deleted target: what rein found by comparing the
// checkpoints around it, whatever the call named.
func changed(files []contract.FileStamp, target string) bool {
	for _, f := range files {
		if f.Path == target && !f.Op.Seen() {
			return true
		}
	}
	return false
}

// keepUnmatched keeps the unmatched intent id, which its observation
// shows changed the target, and returns its Touch; nil when the session
// holds no such intent.
func (f *Finder) keepUnmatched(s *session, id string) *Touch {
	t, ok := s.unmatched[id]
	if !ok {
		return nil
	}
	f.keep(s, *t)
	return &f.touches[s.index[id]]
}

// proposed starts a Touch for an intent, kept when it touches the target.
// A bash intent waits for its tool.invocation.started, whose cwd is where
// it really ran.
func (f *Finder) proposed(env contract.Envelope, s *session, e *contract.IntentProposed) {
	if e.ToolName != "bash" {
		a := fileAccess(f.target, s.cwd, e.ToolName, e.Input)
		switch {
		case a != "":
			f.keep(s, f.touch(env, s, e, a))
		case !builtinFileTool(e.ToolName):
			f.unmatch(s, f.touch(env, s, e, ""))
		}
		return
	}
	if _, ok := inputOf(e.Input); !ok {
		return
	}
	if s.pending == nil {
		s.pending = make(map[string]*Touch)
	}
	t := f.touch(env, s, e, "")
	s.pending[e.ID] = &t
}

func (f *Finder) touch(env contract.Envelope, s *session, e *contract.IntentProposed, a Access) Touch {
	return Touch{
		Session: env.Session, Cwd: s.cwd, Parent: s.parent, Seq: env.Seq, Time: env.Time, Run: env.Run, Turn: env.Turn,
		Intent: e.ToolIntent, Access: a, Said: strings.Join(s.said, "\n\n"),
	}
}

func (f *Finder) keep(s *session, t Touch) {
	if s.index == nil {
		s.index = make(map[string]int)
	}
	s.index[t.Intent.ID] = len(f.touches)
	f.touches = append(f.touches, t)
}

// settle decides whether a pending bash intent touched the target, and
// keeps it if so; else its observation may still show it changed it.
func (f *Finder) settle(s *session, t *Touch) {
	if t.Access = bashTouch(f.target, s.cwd, t); t.Access != "" {
		f.keep(s, *t)
		return
	}
	f.unmatch(s, *t)
}

// unmatch holds t, an intent that names no target, until its observation.
func (f *Finder) unmatch(s *session, t Touch) {
	if s.unmatched == nil {
		s.unmatched = make(map[string]*Touch)
	}
	s.unmatched[t.Intent.ID] = &t
}

// find returns the Touch, kept, pending or unmatched, of intent id in s,
// or nil.
func (f *Finder) find(s *session, id string) *Touch {
	if t, ok := s.pending[id]; ok {
		return t
	}
	if t, ok := s.unmatched[id]; ok {
		return t
	}
	if i, ok := s.index[id]; ok {
		return &f.touches[i]
	}
	return nil
}

// found is find for the events that end an intent: a bash intent still
// pending never started, and is settled with the session's cwd.
func (f *Finder) found(s *session, id string) *Touch {
	if t, ok := s.pending[id]; ok {
		delete(s.pending, id)
		f.settle(s, t)
	}
	if i, ok := s.index[id]; ok {
		return &f.touches[i]
	}
	if t, ok := s.unmatched[id]; ok {
		return t
	}
	return nil
}

// Touches returns the touches found so far, in time order (then session,
// then seq). Bash intents still waiting for their start are judged with
// their session's cwd. The result is a new slice; the Finder may go on
// reading events.
func (f *Finder) Touches() []Touch {
	out := slices.Clone(f.touches)
	for _, s := range f.sessions {
		for _, t := range s.pending {
			if a := bashTouch(f.target, s.cwd, t); a != "" {
				c := *t
				c.Access = a
				out = append(out, c)
			}
		}
	}
	slices.SortFunc(out, func(a, b Touch) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Session, b.Session); c != 0 {
			return c
		}
		return cmp.Compare(a.Seq, b.Seq)
	})
	return out
}

// toolInput holds the fields of the builtin tools' inputs that name paths.
type toolInput struct {
	Path    string `json:"path"`
	Command string `json:"command"`
}

// inputOf decodes the fields of raw that name paths; ok is false when raw
// is not an object or those fields are not strings.
func inputOf(raw json.RawMessage) (in toolInput, ok bool) {
	if len(raw) == 0 {
		return in, false
	}
	return in, json.Unmarshal(raw, &in) == nil
}
