package tool

import (
	"context"
	"encoding/json"
)

// Question is what the runtime asks a person: whether an intent may run
// (the policy said ask), or whether a call the sandbox refused something
// to may run again outside it; Kind says which.
type Question struct {
	// Kind is what is asked, and so which answers there are.
	Kind QuestionKind
	// IntentID names the intent asked about.
	IntentID string
	// Tool is the tool's name; Subject is the exact command (bash) or path
	// (file tools) it would act on, empty when the input has neither.
	Tool    string
	Subject string
	// Input is the intent's whole input.
	Input json.RawMessage
	// Reason is why the policy asks; for [AskOutsideSandbox], what the
	// sandbox refused (one sentence a line, see sandbox.Explain) and a
	// last line asking whether to run the command again outside it.
	Reason string
	// Rules are the rules an Always answer saves as allow rules, in rule
	// syntax: bash(go test:*), and write_file(notes.txt) for a file a
	// redirection writes. Empty when no rule could express the call, and
	// always for [AskOutsideSandbox]: then only Yes and No are offered.
	Rules []string
	// DenyRules are the rules a Never answer saves as deny rules: those
	// of Rules for the parts that were the reason to ask (never on
	// rm -rf build && echo cleaned denies rm -rf build, not echo
	// cleaned). Empty exactly when Rules is.
	DenyRules []string
	// SaveTo is where Always and Never keep their rules, for people: the
	// person's answers file (~/.config/rein/projects.toml); empty when
	// Rules is, or when the runtime keeps them for this session only.
	SaveTo string
	// Preview is what the call would change, for [AskPermission]: for
	// edit_file and write_file the unified diff of the file as it is now
	// against what the call would make of it (all lines added for a new
	// file), at most its first 400 lines and 64 KiB, then a line saying
	// how many more there are, secrets cut out. Empty when the tool has no
	// preview or it could not be made (the call then fails as usual if it
	// runs), and always for [AskOutsideSandbox].
	Preview string
	// Undoable says that rein can undo what the call changes: every file
	// it writes or removes is inside the workspace root, which the
	// checkpoints cover (see permission.Verdict.Undoable). The question
	// then says so, in [UndoNote]'s words.
	Undoable bool
	// Agent and Task say which child asks, when a task's child session
	// asks through its parent's approver: the agent's name and the
	// brief's description; empty for the session's own calls.
	Agent, Task string
}

// UndoNote is what a question for an undoable call ([Question.Undoable])
// tells the person.
const UndoNote = "rein can undo this: /rewind (or rein rewind) puts the workspace's files back as they were before it."

// QuestionKind is what a [Question] asks. The zero QuestionKind is
// [AskPermission].
type QuestionKind string

// The kinds of question.
const (
	// AskPermission asks whether the intent may run, before it runs. The
	// answers are Yes and No, and Always and Never when Rules is not
	// empty.
	AskPermission QuestionKind = ""
	// AskOutsideSandbox asks, after the intent ran in the OS sandbox and
	// the sandbox refused it something, whether to run that one call
	// again with no sandbox at all: it could then write anywhere the
	// user can, read their credential stores and reach the network. The
	// answers are Yes and No; no rule is saved whatever the answer (an
	// Always counts as Yes, a Never as No).
	AskOutsideSandbox QuestionKind = "outside_sandbox"
)

// Answer is what a person decided, answering a Question (see [Reply]).
type Answer int

// The answers. The zero Answer is No.
const (
	// No denies this intent only.
	No Answer = iota
	// Yes allows this intent only.
	Yes
	// Always allows it and saves Question.Rules as allow rules in the
	// person's answers file (Question.SaveTo), for this project, so that
	// it is not asked again.
	Always
	// Never denies it and saves Question.DenyRules as deny rules there.
	Never
)

// Reply is a person's reply to a Question: their Answer, and what they
// said with it. The zero Reply is a No that says nothing.
type Reply struct {
	Answer Answer
	// Text is what the person tells the model with a denial (No, Never):
	// what to do instead, as Claude Code's "No, and tell Claude what to do
	// differently" does ("use the test helper instead"). The runtime
	// records it on the tool.permission event (its message) and puts it
	// in the observation the model sees, white space trimmed, made
	// printable (see package printable) and cut to MaxReplyText bytes.
	// Empty means they said nothing. With Yes or Always there is nothing
	// to tell instead, and it is ignored.
	Text string
}

// MaxReplyText bounds the bytes of a [Reply.Text] the runtime keeps; the
// rest is cut, and an ellipsis says so.
const MaxReplyText = 4 << 10

// Approver asks a person. Approve blocks until they answer or ctx is done;
// an error (ctx done included) denies the intent ([AskPermission]) or
// leaves the sandbox's refusal standing ([AskOutsideSandbox]). It is
// called from the goroutine that called [Runtime.Run], one question at a
// time.
type Approver interface {
	Approve(ctx context.Context, q Question) (Reply, error)
}
