package skill

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func many(n int) []Skill {
	skills := make([]Skill, n)
	for i := range skills {
		name := fmt.Sprintf("skill-%02d", i)
		skills[i] = Skill{Name: name, Description: "Use it for task number " + name + ".", Path: "/w/.rein/skills/" + name + "/SKILL.md"}
	}
	return skills
}

func TestPromptListsEverySkillThatFits(t *testing.T) {
	text, listed := Prompt(many(2), 0)
	want := "- skill-00 (/w/.rein/skills/skill-00/SKILL.md): Use it for task number skill-00.\n" +
		"- skill-01 (/w/.rein/skills/skill-01/SKILL.md): Use it for task number skill-01."
	if d := cmp.Diff(want, text); d != "" || listed != 2 {
		t.Errorf("Prompt() mismatch, listed %d (-want +got):\n%s", listed, d)
	}
	if text, listed := Prompt(nil, 0); text != "" || listed != 0 {
		t.Errorf("Prompt(nil) = %q, %d", text, listed)
	}
}

func TestPromptKeepsWithinItsBudget(t *testing.T) {
	skills := many(100)
	line := len(line(skills[0])) + 1 // every line is as long
	for _, budget := range []int{0, 50, 100, 500, 1000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			text, listed := Prompt(skills, budget)
			limit := budget * 4
			if budget == 0 {
				limit = DefaultBudget * 4
			}
			if len(text) > limit {
				t.Errorf("Prompt() is %d bytes, more than the budget's %d", len(text), limit)
			}
			lines := strings.Split(text, "\n")
			if len(lines) != listed+1 {
				t.Fatalf("Prompt() has %d lines for %d listed", len(lines), listed)
			}
			for i, l := range lines[:listed] {
				if !strings.HasPrefix(l, "- "+skills[i].Name+" (") {
					t.Errorf("line %d = %q, want skill %s", i, l, skills[i].Name)
				}
			}
			more := fmt.Sprintf("- and %d more skills, not listed here for want of room: `rein skills` lists them all", 100-listed)
			if lines[listed] != more {
				t.Errorf("last line = %q, want %q", lines[listed], more)
			}
			// As many as fit: one more would not.
			if len(text)+line > limit {
				return
			}
			t.Errorf("Prompt() listed %d in %d bytes; another line of %d would fit in %d", listed, len(text), line, limit)
		})
	}
	if _, listed := Prompt(skills, 0); listed != 73 {
		t.Errorf("the default budget lists %d skills of %d bytes, want 73", listed, line)
	}
}

func TestPromptSaysOneMoreSkill(t *testing.T) {
	skills := many(3)
	skills[2].Description = strings.Repeat("long ", 100)
	two := len(line(skills[0]))*2 + 2 + len(moreLine(1))
	text, listed := Prompt(skills, (two+3)/4)
	if listed != 2 || !strings.HasSuffix(text, "\n- and 1 more skill, not listed here for want of room: `rein skills` lists them all") {
		t.Errorf("Prompt() = %q, %d", text, listed)
	}
}

func TestPromptQuotesAPathWithControls(t *testing.T) {
	text, _ := Prompt([]Skill{{Name: "odd", Description: "Odd.", Path: "/w/a\nb/SKILL.md"}}, 0)
	if text != `- odd ("/w/a\nb/SKILL.md"): Odd.` {
		t.Errorf("Prompt() = %q", text)
	}
}

func TestPromptIsTheSameForTheSameSkills(t *testing.T) {
	a, _ := Prompt(many(80), 700)
	b, _ := Prompt(many(80), 700)
	if a != b {
		t.Error("Prompt() differs for the same skills")
	}
}
