package agent

import (
	"fmt"
	"unicode/utf8"

	"github.com/rein-agent/rein/internal/skill"
)

// DefaultBudget is the tokens [Prompt] may use when it is given none: 750
// tokens (3,000 bytes, a dozen agents of a typical description). The
// system prompt must fit the smallest window rein assumes (8,192 tokens)
// with room to work, next to the skills' list, which has twice this: an
// agent's line is what the model reads to choose it, and most sessions
// have the two built-ins and a few of the person's.
const DefaultBudget = 750

// MaxListedDescription is the most characters of an agent's description
// the system prompt's list shows: Claude Code's descriptions run to
// paragraphs with examples, which the list has no room for.
const MaxListedDescription = 250

// bytesPerToken is the estimate Prompt's budget is counted in: four
// bytes a token, as the projection assumes before it has calibrated.
const bytesPerToken = 4

// Prompt returns the lines of the system prompt that list agents, in
// their order, one a line, "- name: description" ("- name (read-only):
// ..." for a read-only one), each description cut to
// [MaxListedDescription] characters, and how many it listed: as many as
// fit budgetTokens (0 or less means [DefaultBudget]), estimated at four
// bytes a token; when not all fit, a last line says how many more there
// are and that `rein agents` lists them. It returns "" and 0 for no
// agents. The same agents give the same bytes.
func Prompt(defs []Definition, budgetTokens int) (text string, listed int) {
	if len(defs) == 0 {
		return "", 0
	}
	if budgetTokens <= 0 {
		budgetTokens = DefaultBudget
	}
	lines := make([]string, len(defs))
	for i, d := range defs {
		lines[i] = line(d)
	}
	return skill.Fit(lines, budgetTokens*bytesPerToken, moreLine)
}

// line is the prompt's line for d.
func line(d Definition) string {
	desc := d.Description
	if utf8.RuneCountInString(desc) > MaxListedDescription {
		desc = string([]rune(desc)[:MaxListedDescription-1]) + "…"
	}
	name := d.Name
	if d.ReadOnly {
		name += " (read-only)"
	}
	return fmt.Sprintf("- %s: %s", name, desc)
}

// moreLine says n agents are not listed.
func moreLine(n int) string {
	what := "agents"
	if n == 1 {
		what = "agent"
	}
	return fmt.Sprintf("- and %d more %s, not listed here for want of room: `rein agents` lists them all", n, what)
}
