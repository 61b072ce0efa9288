package skill

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// write puts a SKILL.md of text in dir/name, making the directories.
func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(d, FileName)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func skillText(name, desc string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n# %s\n\nDo the thing.\n", name, desc, name)
}

// fixture is a workspace and a person's directories, each skills root
// holding one skill named after it.
type fixture struct {
	roots            Roots
	ws, config, home string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	base := t.TempDir()
	f := fixture{ws: filepath.Join(base, "w"), config: filepath.Join(base, "config", "rein"), home: filepath.Join(base, "home")}
	f.roots = Roots{Project: f.ws, User: f.config, Home: f.home}
	return f
}

func TestDiscoverFindsEachPlace(t *testing.T) {
	f := newFixture(t)
	places := []struct{ dir, name, scope string }{
		{filepath.Join(f.ws, ".rein", "skills"), "rein-project", ScopeProject},
		{filepath.Join(f.ws, ".claude", "skills"), "claude-project", ScopeProject},
		{filepath.Join(f.ws, ".codex", "skills"), "codex-project", ScopeProject},
		{filepath.Join(f.config, "skills"), "rein-user", ScopeUser},
		{filepath.Join(f.home, ".claude", "skills"), "claude-user", ScopeUser},
		{filepath.Join(f.home, ".codex", "skills"), "codex-user", ScopeUser},
	}
	var want []Skill
	for _, p := range places {
		path := write(t, p.dir, p.name, skillText(p.name, "Use for "+p.name+"."))
		want = append(want, Skill{Name: p.name, Description: "Use for " + p.name + ".", Path: path,
			Dir: filepath.Dir(path), Scope: p.scope, From: p.dir})
	}
	// Not skills: a file at the root, a directory without a SKILL.md, a
	// SKILL.md two levels down.
	if err := os.WriteFile(filepath.Join(places[0].dir, "README.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(places[0].dir, "assets"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(places[0].dir, "group"), "deep", skillText("deep", "Too deep."))

	got, problems := Discover(f.roots)
	if len(problems) != 0 {
		t.Errorf("problems: %v", problems)
	}
	// The project's first, then the person's; by name within each.
	byScopeName := []int{1, 2, 0, 4, 5, 3}
	var sorted []Skill
	for _, i := range byScopeName {
		sorted = append(sorted, want[i])
	}
	if d := cmp.Diff(sorted, got); d != "" {
		t.Errorf("Discover() mismatch (-want +got):\n%s", d)
	}
	again, _ := Discover(f.roots)
	if d := cmp.Diff(got, again); d != "" {
		t.Errorf("Discover() is not deterministic:\n%s", d)
	}
}

func TestNoRootsNoSkills(t *testing.T) {
	f := newFixture(t)
	got, problems := Discover(f.roots)
	if len(got) != 0 || len(problems) != 0 {
		t.Errorf("Discover() of empty roots = %v, %v", got, problems)
	}
	if got, problems := Discover(Roots{}); len(got) != 0 || len(problems) != 0 {
		t.Errorf("Discover(Roots{}) = %v, %v", got, problems)
	}
}

func TestAProjectSkillShadowsAUserOne(t *testing.T) {
	f := newFixture(t)
	proj := write(t, filepath.Join(f.ws, ".claude", "skills"), "pdf", skillText("pdf", "The project's."))
	user := write(t, filepath.Join(f.home, ".claude", "skills"), "pdf", skillText("pdf", "The person's."))
	// The same name under another directory name is shadowed too.
	rein := write(t, filepath.Join(f.config, "skills"), "pdf-tools", skillText("pdf", "Rein's user one."))
	got, problems := Discover(f.roots)
	if len(got) != 1 || got[0].Path != proj || got[0].Description != "The project's." {
		t.Fatalf("Discover() = %+v, want only the project's pdf", got)
	}
	if len(problems) != 2 {
		t.Fatalf("problems = %v, want the two shadowed ones", problems)
	}
	for i, p := range []string{rein, user} {
		if problems[i].Path != p || !strings.Contains(problems[i].Message, "shadowed by the project skill") || !strings.Contains(problems[i].Message, proj) {
			t.Errorf("problem %d = %v, want %s shadowed by %s", i, problems[i], p, proj)
		}
	}
}

func TestAWorkspaceThatIsTheHomeIsSearchedOnce(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".claude", "skills"), "pdf", skillText("pdf", "Mine."))
	got, problems := Discover(Roots{Project: home, Home: home})
	if len(got) != 1 || got[0].Scope != ScopeProject || len(problems) != 0 {
		t.Errorf("Discover() = %+v, %v; want one project skill, no problem", got, problems)
	}
}

// A person's skill directory may be a link to anywhere; a project's may
// lead only to somewhere inside the project, since its directories become
// read roots of the file tools and a cloned repository must not widen them.
func TestSymlinkedSkillDirectories(t *testing.T) {
	f := newFixture(t)
	elsewhere := t.TempDir()
	write(t, elsewhere, "shared", skillText("shared", "Shared between projects."))
	write(t, f.ws, "docs-skill", skillText("inner", "Kept in the project."))
	link := func(target, at string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, at); err != nil {
			t.Fatal(err)
		}
	}
	root := filepath.Join(f.ws, ".rein", "skills")
	link(filepath.Join(elsewhere, "shared"), filepath.Join(root, "evil"))
	link(filepath.Join(f.ws, "docs-skill"), filepath.Join(root, "inner"))
	// A link to the root itself, and a dangling one, are not skills.
	link(root, filepath.Join(root, "loop"))
	link(filepath.Join(elsewhere, "gone"), filepath.Join(root, "gone"))
	// A project's whole skills directory leading out is left out too.
	link(elsewhere, filepath.Join(f.ws, ".codex", "skills"))
	user := filepath.Join(f.config, "skills")
	link(filepath.Join(elsewhere, "shared"), filepath.Join(user, "shared"))

	got, problems := Discover(f.roots)
	want := []Skill{
		{Name: "inner", Description: "Kept in the project.", Path: filepath.Join(root, "inner", FileName),
			Dir: filepath.Join(root, "inner"), Scope: ScopeProject, From: root},
		{Name: "shared", Description: "Shared between projects.", Path: filepath.Join(user, "shared", FileName),
			Dir: filepath.Join(user, "shared"), Scope: ScopeUser, From: user},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Discover() mismatch (-want +got):\n%s", d)
	}
	var outside []string
	for _, p := range problems {
		if p.Message == outsideProject {
			outside = append(outside, p.Path)
		}
	}
	if d := cmp.Diff([]string{filepath.Join(root, "evil"), filepath.Join(f.ws, ".codex", "skills")}, outside); d != "" {
		t.Errorf("the links leading out of the project (-want +got):\n%s\nall problems: %v", d, problems)
	}
}

func TestMalformedSkillsAreProblemsWithFileAndLine(t *testing.T) {
	cases := []struct {
		name, text string
		line       int
		message    string
	}{
		{"no front matter", "# pdf\n\nname: pdf\n", 1, `first line must be "---"`},
		{"no closing fence", "---\nname: pdf\ndescription: x\n# body\n", 1, `no closing "---"`},
		{"bad yaml", "---\nname: pdf\ndescription: one\n  - two: [\n---\nbody\n", 4, "front matter: "},
		{"unclosed quote", "---\nname: pdf\ndescription: \"open\n---\n", 0, "front matter: "},
		{"not a mapping", "---\n- pdf\n- forms\n---\n", 2, "not a mapping"},
		{"empty front matter", "---\n---\nbody\n", 1, "name is missing"},
		{"missing name", "---\ndescription: Fill forms.\n---\n", 1, "name is missing"},
		{"missing description", "---\nname: pdf\nlicense: MIT\n---\n", 1, "description is missing"},
		{"empty description", "---\nname: pdf\ndescription:\n---\n", 3, "description is empty"},
		{"description a list", "---\nname: pdf\ndescription:\n  - a\n  - b\n---\n", 4, "description is not a string"},
		{"bad name", "---\nname: PDF Forms\ndescription: x\n---\n", 2, "only lowercase letters, digits and hyphens"},
		{"name twice", "---\nname: pdf\ndescription: x\nname: forms\n---\n", 4, "name is given twice (first on line 2)"},
		{"long name", "---\nname: " + strings.Repeat("a", 65) + "\ndescription: x\n---\n", 2, "more than 64"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			path := write(t, filepath.Join(f.ws, ".rein", "skills"), "pdf", c.text)
			got, problems := Discover(f.roots)
			if len(got) != 0 {
				t.Errorf("Discover() = %+v, want no skill", got)
			}
			if len(problems) != 1 {
				t.Fatalf("problems = %v, want one", problems)
			}
			p := problems[0]
			if p.Path != path || !strings.Contains(p.Message, c.message) || (c.line != 0 && p.Line != c.line) {
				t.Errorf("problem = %s: %q, want %s:%d with %q", p.Where(), p.Message, path, c.line, c.message)
			}
			if want := fmt.Sprintf("%s:%d", path, p.Line); p.Line > 0 && p.Where() != want || p.Line == 0 && p.Where() != path {
				t.Errorf("Where() = %q, want %q", p.Where(), want)
			}
		})
	}
}

// The line of a YAML error is the file's (the front matter starts on
// line 2), for the scanner's errors and the parser's alike.
func TestAYAMLErrorNamesTheFilesLine(t *testing.T) {
	cases := []struct {
		name, front string
		line        int
	}{
		{"unclosed flow mapping", "name: pdf\ndescription: Fill forms\nallowed-tools: Read\nmetadata: {a: 1\n", 5},
		{"unclosed flow sequence", "name: pdf\ndescription: Fill forms\nallowed-tools: [Read, Bash\n", 4},
		{"a colon in a plain description", "name: pdf\ndescription: Use when: forms\n", 3},
		{"a sequence after a mapping", "name: pdf\ndescription: x\n- b\n", 4},
		{"a key in a sequence", "name: pdf\ndescription: x\nm:\n  - a\n  b: c\n", 5},
		{"a tab", "name: pdf\n\tdescription: tab\n", 3},
		{"an unknown alias", "name: pdf\ndescription: *nope\n", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, problems := parse([]byte("---\n" + c.front + "---\nbody\n"))
			if len(problems) != 1 || problems[0].Line != c.line {
				t.Errorf("problems = %+v, want one on line %d", problems, c.line)
			}
		})
	}
}

func TestOtherKeysAndFormsAreKept(t *testing.T) {
	text := "\ufeff---\r\nname: pdf-forms\r\ndescription: >\r\n  Fill PDF forms,\r\n  extract\ttext.\r\nallowed-tools: [Read, Bash]\r\nlicense: MIT\r\nmetadata:\r\n  version: 2\r\n---  \r\nbody\r\n"
	s, problems := parse([]byte(text))
	if len(problems) != 0 {
		t.Errorf("problems: %v", problems)
	}
	if s.Name != "pdf-forms" || s.Description != "Fill PDF forms, extract text." {
		t.Errorf("parse() = %+v", s)
	}
}

func TestALongDescriptionIsCutAndSaid(t *testing.T) {
	long := strings.Repeat("word ", 300)
	s, problems := parse([]byte("---\nname: pdf\ndescription: " + long + "\n---\n"))
	if n := len([]rune(s.Description)); n != MaxDescription || !strings.HasSuffix(s.Description, "…") {
		t.Errorf("description is %d characters (%q...), want %d ending in …", n, s.Description[:20], MaxDescription)
	}
	if len(problems) != 1 || problems[0].Line != 3 || !strings.Contains(problems[0].Message, "1499 characters") {
		t.Errorf("problems = %+v", problems)
	}
	// The skill is found all the same.
	f := newFixture(t)
	write(t, filepath.Join(f.ws, ".rein", "skills"), "pdf", "---\nname: pdf\ndescription: "+long+"\n---\n")
	if got, _ := Discover(f.roots); len(got) != 1 {
		t.Errorf("Discover() = %v, want the skill", got)
	}
}

func TestADescriptionIsOneLine(t *testing.T) {
	s, _ := parse([]byte("---\nname: pdf\ndescription: \"Fill\\nforms\\x1b[31m red\\r\\n  now\"\n---\n"))
	if s.Description != "Fill forms [31m red now" {
		t.Errorf("description = %q", s.Description)
	}
}

func TestABigFileIsAProblem(t *testing.T) {
	f := newFixture(t)
	path := write(t, filepath.Join(f.ws, ".rein", "skills"), "big", skillText("big", "Big.")+strings.Repeat("x", MaxFileSize))
	write(t, filepath.Join(f.ws, ".rein", "skills"), "small", skillText("small", "Small."))
	got, problems := Discover(f.roots)
	if len(got) != 1 || got[0].Name != "small" {
		t.Errorf("Discover() = %+v, want only small", got)
	}
	if len(problems) != 1 || problems[0].Path != path || !strings.Contains(problems[0].Message, "more than the 1048576") {
		t.Errorf("problems = %v", problems)
	}
}

func TestASkillFileThatIsNotAFileIsAProblem(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(f.ws, ".rein", "skills", "odd", FileName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, problems := Discover(f.roots)
	if len(problems) != 1 || problems[0].Path != dir || !strings.Contains(problems[0].Message, "not a regular file") {
		t.Errorf("problems = %v", problems)
	}
}

func TestUserRoots(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	if got, want := UserRoots("/w"), (Roots{Project: "/w", User: filepath.Join(home, ".config", "rein"), Home: home}); got != want {
		t.Errorf("UserRoots() = %+v, want %+v", got, want)
	}
	t.Setenv("XDG_CONFIG_HOME", "/xdg")
	if got := UserRoots("/w"); got.User != "/xdg/rein" {
		t.Errorf("UserRoots() with XDG_CONFIG_HOME = %+v", got)
	}
	t.Setenv("XDG_CONFIG_HOME", "relative")
	if got := UserRoots("/w"); got.User != filepath.Join(home, ".config", "rein") {
		t.Errorf("UserRoots() with a relative XDG_CONFIG_HOME = %+v", got)
	}
}
