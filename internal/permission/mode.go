package permission

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/registry"
)

// Mode is the default answer a policy gives when no rule decides. The zero
// value is [Default].
type Mode string

// The permission modes, from the most to the least careful (plan aside,
// which is a ceiling rather than a default).
const (
	// Default allows reads, and the commands that only read (inside the
	// workspace, in a sandbox); writes, other commands and network access
	// ask.
	Default Mode = "default"
	// AcceptEdits also allows file edits inside the workspace, and the
	// commands whose every effect rein can see and a sandbox contains;
	// other commands ask.
	AcceptEdits Mode = "accept-edits"
	// Plan is read-only: every tool that is not a read (read-only and of
	// read risk) is denied, even when an allow rule matches, and hidden
	// from the model.
	Plan Mode = "plan"
	// Yolo allows everything that no deny or ask rule catches. Every
	// decision is still recorded.
	Yolo Mode = "yolo"
)

// Modes returns every mode, in the order they are documented.
func Modes() []Mode { return []Mode{Default, AcceptEdits, Plan, Yolo} }

// ParseMode returns the mode named s (case and surrounding spaces ignored).
// Anything else is an error that lists the modes.
func ParseMode(s string) (Mode, error) {
	m := Mode(strings.ToLower(strings.TrimSpace(s)))
	switch m {
	case Default, AcceptEdits, Plan, Yolo:
		return m, nil
	}
	return "", fmt.Errorf("permission: unknown permission mode %q; want one of %s", s, modeList())
}

func modeList() string {
	var b strings.Builder
	for i, m := range Modes() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(m))
	}
	return b.String()
}

// strictness orders the modes from the most allowing to the least.
var strictness = []Mode{Yolo, AcceptEdits, Default, Plan}

// Stricter returns the stricter of a and b: the one that allows less
// (plan, then default, accept-edits, yolo). The zero Mode counts as
// default.
func Stricter(a, b Mode) Mode {
	a, b = a.orDefault(), b.orDefault()
	if slices.Index(strictness, a) > slices.Index(strictness, b) {
		return a
	}
	return b
}

func (m Mode) orDefault() Mode {
	if m == "" {
		return Default
	}
	return m
}

// String returns the mode's name; the zero value prints as "default".
func (m Mode) String() string { return string(m.orDefault()) }

// Hidden reports whether the model should not see t at all in this mode:
// in plan mode, every tool that is not a read.
func (m Mode) Hidden(t registry.Tool) bool {
	return m.orDefault() == Plan && !isRead(t.Risk, t.ReadOnly)
}

// isRead reports whether a tool only reads the workspace: read-only and of
// read risk. A read-only tool that reaches the network is not a read here.
func isRead(risk registry.Risk, readOnly bool) bool {
	return readOnly && risk == registry.RiskRead
}
