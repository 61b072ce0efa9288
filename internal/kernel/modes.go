package kernel

import "github.com/rein-agent/rein/internal/permission"

// What a person's commands say and ask, the same in every client of the
// facade (the terminal UI, the line mode): the modes /mode offers and
// what each lets run, and what /init asks of the model.

// Modes returns the permission modes SetMode takes, in the order they
// are documented: default, accept-edits, plan, yolo.
func Modes() []string {
	var out []string
	for _, m := range permission.Modes() {
		out = append(out, m.String())
	}
	return out
}

// ModeMeaning says in a few words what mode lets run without asking, as
// /mode and the UI's mode line say it; a mode it does not know is
// described as default, which is what SetMode would refuse it for.
func ModeMeaning(mode string) string {
	switch permission.Mode(mode) {
	case permission.AcceptEdits:
		return "reads, edits in the workspace and the commands the sandbox contains run without asking; other commands ask"
	case permission.Plan:
		return "read-only: the model can look, not change; edits and commands are refused"
	case permission.Yolo:
		return "everything runs without asking; still recorded, and sandboxed unless the sandbox is off"
	}
	return "reads and read-only commands run; edits and other commands ask"
}

// InitPrompt is what /init sends the model: write an AGENTS.md for the
// repository.
const InitPrompt = "Look at this repository (its layout, build and test commands, conventions, and anything a newcomer " +
	"would trip on) and write an AGENTS.md at its root for coding agents working in it: how to build, test and run it, " +
	"the code's layout and style, and the rules to follow. Keep it short and concrete; if an AGENTS.md exists, improve it " +
	"rather than replacing what is right in it."
