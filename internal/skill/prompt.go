package skill

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// DefaultBudget is the tokens [Prompt] may use when it is given none:
// 1,500 tokens (6,000 bytes, some twenty skills of a typical description).
// The system prompt is made once per session, before any window is
// known to be short, and it must fit the smallest window rein assumes
// (8,192 tokens, for a model it knows nothing of) with room to work: this
// is under a fifth of that, and about 1% of a 128k window, where Claude
// Code gives its skills 2%. A caller that knows the window may pass 2% of
// it instead.
const DefaultBudget = 1500

// bytesPerToken is the estimate Prompt's budget is counted in: four
// bytes a token, as the projection assumes before it has calibrated.
const bytesPerToken = 4

// Prompt returns the lines of the system prompt that list skills, in
// their order, one a line, "- name (path): description", and how many it
// listed: as many as fit budgetTokens (0 or less means [DefaultBudget]),
// estimated at four bytes a token; when not all fit, a last line says how
// many more there are and that `rein skills` lists them. It returns ""
// and 0 for no skills. The same skills give the same bytes.
func Prompt(skills []Skill, budgetTokens int) (text string, listed int) {
	if len(skills) == 0 {
		return "", 0
	}
	if budgetTokens <= 0 {
		budgetTokens = DefaultBudget
	}
	lines := make([]string, len(skills))
	for i, s := range skills {
		lines[i] = line(s)
	}
	return Fit(lines, budgetTokens*bytesPerToken, moreLine)
}

// Fit joins lines, one a line, as many as fit limit bytes, in their
// order: all of them when they fit, else the first that fit with more(n),
// the line that says n more were left out, and how many it listed.
func Fit(lines []string, limit int, more func(n int) string) (text string, listed int) {
	total := 0
	for _, l := range lines {
		total += len(l) + 1
	}
	if total-1 <= limit {
		return strings.Join(lines, "\n"), len(lines)
	}
	var b strings.Builder
	for listed < len(lines) {
		last := more(len(lines) - listed - 1)
		if listed == len(lines)-1 {
			last = ""
		}
		if b.Len()+len(lines[listed])+1+len(last) > limit {
			break
		}
		b.WriteString(lines[listed])
		b.WriteByte('\n')
		listed++
	}
	b.WriteString(more(len(lines) - listed))
	return b.String(), listed
}

// line is the prompt's line for s.
func line(s Skill) string {
	path := s.Path
	if strings.ContainsFunc(path, unicode.IsControl) {
		path = strconv.Quote(path)
	}
	return fmt.Sprintf("- %s (%s): %s", s.Name, path, s.Description)
}

// moreLine says n skills are not listed.
func moreLine(n int) string {
	what := "skills"
	if n == 1 {
		what = "skill"
	}
	return fmt.Sprintf("- and %d more %s, not listed here for want of room: `rein skills` lists them all", n, what)
}
