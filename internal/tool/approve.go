package tool

import (
	"context"
	"encoding/json"
)

// Question is what the runtime asks a person before an intent runs.
type Question struct {
	IntentID string
	// Tool is the tool's name; Subject is the exact command (bash) or path
	// (file tools) it would act on, empty when the input has neither.
	Tool    string
	Subject string
	// Input is the intent's whole input.
	Input json.RawMessage
	// Reason is why the policy asks.
	Reason string
	// Rules are the rules an Always answer saves (allow) and a Never
	// answer saves (deny), in rule syntax: bash(go test:*).
	Rules []string
}

// Answer is a person's reply to a Question.
type Answer int

// The answers. The zero Answer is No.
const (
	// No denies this intent only.
	No Answer = iota
	// Yes allows this intent only.
	Yes
	// Always allows it and saves Question.Rules as allow rules in the
	// project's .rein/config.toml, so that it is not asked again.
	Always
	// Never denies it and saves Question.Rules as deny rules.
	Never
)

// Approver asks a person. Approve blocks until they answer or ctx is done;
// an error (ctx done included) denies the intent. It is called from the
// goroutine that called [Runtime.Run], one question at a time.
type Approver interface {
	Approve(ctx context.Context, q Question) (Answer, error)
}
