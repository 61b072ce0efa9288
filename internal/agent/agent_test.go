package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/permission"
)

// write puts text at dir/rel, making its directories.
func write(t *testing.T, dir, rel, text string) string {
	t.Helper()
	path := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// trustAll trusts every project's directory.
func trustAll(*Dir) (bool, error) { return true, nil }

// load loads the agents of roots, every project's directory trusted, and
// returns them by name.
func load(t *testing.T, r Roots) (map[string]Definition, []Problem) {
	t.Helper()
	defs, problems, err := Load(r, trustAll)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Definition{}
	for _, d := range defs {
		byName[d.Name] = d
	}
	return byName, problems
}

// errorsOf are the problems that kept a file from loading.
func errorsOf(problems []Problem) []Problem {
	return slices.DeleteFunc(slices.Clone(problems), func(p Problem) bool { return p.Warning })
}

// Claude Code's documented examples, copied unchanged into a project's
// .claude/agents, load with exactly their tools mapped to rein's, their
// body as the prompt, and "inherit" as the parent's model.
func TestClaudeCodeFilesLoadUnchanged(t *testing.T) {
	work := t.TempDir()
	for _, name := range []string{"code-reviewer.md", "debugger.md"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		write(t, work, filepath.Join(".claude", "agents", name), string(data))
	}
	got, problems := load(t, Roots{Project: work})
	if len(problems) != 0 {
		t.Errorf("problems: %+v", problems)
	}
	cr := got["code-reviewer"]
	body, _ := os.ReadFile(filepath.Join("testdata", "code-reviewer.md"))
	_, wantPrompt, _ := strings.Cut(string(body), "---\n\n")
	want := Definition{Name: "code-reviewer",
		Description: "Expert code review specialist. Proactively reviews code for quality, security, and maintainability. Use immediately after writing or modifying code.",
		Tools:       []string{"read_file", "grep", "glob", "bash"}, Prompt: strings.TrimSpace(wantPrompt),
		Source: filepath.Join(work, ".claude", "agents", "code-reviewer.md"), Scope: ScopeProject}
	if d := cmp.Diff(want, cr); d != "" {
		t.Errorf("code-reviewer mismatch (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"read_file", "edit_file", "bash", "grep", "glob"}, got["debugger"].Tools); d != "" {
		t.Errorf("debugger's tools mismatch (-want +got):\n%s", d)
	}
	if !strings.HasPrefix(got["debugger"].Prompt, "You are an expert debugger") || got["debugger"].Model != "" {
		t.Errorf("debugger = %+v", got["debugger"])
	}
	if _, ok := got["explore"]; !ok {
		t.Error("the built-ins are missing")
	}
}

// Codex's TOML: developer_instructions are the prompt, sandbox_mode
// read-only a read-only agent, the effort and model kept as written, its
// other keys ignored.
func TestCodexAgent(t *testing.T) {
	home := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "reviewer.toml"))
	if err != nil {
		t.Fatal(err)
	}
	path := write(t, home, filepath.Join(".codex", "agents", "reviewer.toml"), string(data))
	got, problems := load(t, Roots{Home: home})
	if len(problems) != 0 {
		t.Errorf("problems: %+v", problems)
	}
	want := Definition{Name: "reviewer", Description: "PR reviewer focused on correctness, security, and missing tests.",
		Model: "gpt-5.3-codex", Effort: "high", ReadOnly: true, Source: path, Scope: ScopeUser,
		Prompt: "Review code like an owner.\nPrioritize correctness, security, behavior regressions, and missing test coverage.\n" +
			"Lead with concrete findings, include reproduction steps when possible, and avoid style-only comments unless they hide a real bug."}
	if d := cmp.Diff(want, got["reviewer"]); d != "" {
		t.Errorf("reviewer mismatch (-want +got):\n%s", d)
	}
}

func TestToolNames(t *testing.T) {
	for _, tc := range []struct {
		name       string
		tools      string // the front matter's tools line
		want       []string
		warnings   int
		notLoaded  bool
		disallowed string
		wantDeny   []string
	}{
		{name: "list", tools: "[Read, LS, MultiEdit, Edit, Write, TodoWrite]", want: []string{"read_file", "list_dir", "edit_file", "write_file", "todo_write"}},
		{name: "rein's own", tools: "read_file, bash, job_output, todo_write", want: []string{"read_file", "bash", "job_output", "todo_write"}},
		{name: "mcp", tools: "mcp__github__create_issue, mcp__slack, mcp__fs__*",
			want: []string{"mcp__github__create_issue", "mcp__slack__*", "mcp__fs__*"}},
		{name: "not rein's", tools: "Read, WebFetch, NotebookEdit", want: []string{"read_file"}, warnings: 2},
		{name: "agent is task", tools: "Agent(worker, researcher), Read, Task", want: []string{"task", "read_file"}},
		{name: "a pattern is left out", tools: "Bash(git diff:*), Read", want: []string{"read_file"}, warnings: 1},
		{name: "none left", tools: "WebFetch, WebSearch", notLoaded: true},
		{name: "empty list", tools: "[]", want: []string{}},
		{name: "null", tools: "", want: nil},
		{name: "not a name", tools: "Read, ../../bin/sh", notLoaded: true},
		{name: "not a list", tools: "{a: b}", notLoaded: true},
		{name: "deny", tools: "", disallowed: "Write, Edit, WebFetch, Bash(rm:*)", wantDeny: []string{"write_file", "edit_file", "bash"}, warnings: 1},
		{name: "deny a misspelt tool", tools: "", disallowed: "Edti", warnings: 1},
		{name: "deny all mcp", tools: "", disallowed: "mcp__*", wantDeny: []string{"mcp__*"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := "---\nname: a\ndescription: b\ntools: " + tc.tools + "\n"
			if tc.disallowed != "" {
				text += "disallowedTools: " + tc.disallowed + "\n"
			}
			d, problems := parse(formatClaude, []byte(text+"---\nbody\n"))
			if tc.notLoaded {
				if d.Name != "" || len(errorsOf(problems)) == 0 {
					t.Errorf("parse() = %+v, %+v: want not loaded, with a problem", d, problems)
				}
				return
			}
			if d.Name == "" || len(errorsOf(problems)) > 0 || len(problems) != tc.warnings {
				t.Fatalf("parse() = %+v, problems %+v: want loaded with %d warnings", d, problems, tc.warnings)
			}
			if d := cmp.Diff(tc.want, d.Tools); d != "" {
				t.Errorf("tools mismatch (-want +got):\n%s", d)
			}
			if (tc.want == nil) != (d.Tools == nil) {
				t.Errorf("tools = %#v, want %#v (nil is every tool, empty none)", d.Tools, tc.want)
			}
			if d := cmp.Diff(tc.wantDeny, d.DisallowedTools); d != "" {
				t.Errorf("disallowed mismatch (-want +got):\n%s", d)
			}
			for _, p := range problems {
				if p.Line != 4 && p.Line != 5 {
					t.Errorf("problem %+v: want the line of its key", p)
				}
			}
		})
	}
}

// A permission mode of Claude Code's is rein's, and every mode a
// definition may hold is one rein's permission package parses.
func TestPermissionModes(t *testing.T) {
	for in, want := range map[string]string{"default": "default", "manual": "default", "acceptEdits": "accept-edits",
		"plan": "plan", "bypassPermissions": "yolo", "dontAsk": "default", "auto": "default", "accept-edits": "accept-edits", "yolo": "yolo"} {
		d, problems := parse(formatClaude, []byte("---\nname: a\ndescription: b\npermissionMode: "+in+"\n---\nbody\n"))
		if d.PermissionMode != want || len(errorsOf(problems)) > 0 {
			t.Errorf("permissionMode %s = %q, %+v; want %q", in, d.PermissionMode, problems, want)
		}
		if _, err := permission.ParseMode(d.PermissionMode); err != nil {
			t.Errorf("permissionMode %s gives %q, which rein does not parse: %v", in, d.PermissionMode, err)
		}
	}
}

// Every file that fails says which line, and why; the others load.
func TestProblemsHaveFileAndLine(t *testing.T) {
	work := t.TempDir()
	dir := filepath.Join(".rein", "agents")
	for _, tc := range []struct {
		file, text string
		line       int
		says       string
	}{
		{"no-front.md", "You are nobody.\n", 1, "no front matter"},
		{"unclosed.md", "---\nname: x\n", 1, `no closing "---"`},
		{"no-name.md", "---\ndescription: d\n---\nbody\n", 1, "name is missing"},
		{"no-description.md", "---\nname: nodesc\n---\nbody\n", 1, "description is missing"},
		{"bad-mode.md", "---\nname: badmode\ndescription: d\ncolor: red\npermissionMode: godMode\n---\nbody\n", 5, "permission mode godMode"},
		{"bad-turns.md", "---\nname: badturns\ndescription: d\nmaxTurns: ten\n---\nbody\n", 4, "maxTurns is not a whole number"},
		{"zero-turns.md", "---\nname: zeroturns\ndescription: d\nmaxTurns: 0\n---\nbody\n", 4, "maxTurns is not a whole number"},
		{"bad-type.md", "---\nname: badtype\ndescription: [a, b]\n---\nbody\n", 3, "description is not a string"},
		{"yaml.md", "---\nname: yaml\ndescription: d\ntools: [Read\n---\nbody\n", 4, "front matter:"},
		{"twice.md", "---\nname: twice\ndescription: d\nname: again\n---\nbody\n", 4, "name is given twice"},
		{"bad-toml.toml", "name = \"t\"\ndescription = \"d\"\ndeveloper_instructions = \n", 3, "not valid TOML"},
		{"no-instructions.toml", "name = \"t\"\ndescription = \"d\"\n", 1, "developer_instructions is missing"},
		{"bad-sandbox.toml", "name = \"t\"\ndescription = \"d\"\ndeveloper_instructions = \"x\"\nsandbox_mode = \"none\"\n", 4, "sandbox_mode"},
		{"toml-type.toml", "name = \"t\"\ndescription = 3\ndeveloper_instructions = \"x\"\n", 2, "description is not a string"},
	} {
		write(t, work, filepath.Join(dir, tc.file), tc.text)
		defer func() {
			_, problems := load(t, Roots{Project: work})
			path := filepath.Join(work, dir, tc.file)
			i := slices.IndexFunc(problems, func(p Problem) bool { return p.Path == path && !p.Warning })
			if i < 0 {
				t.Errorf("%s: no problem in %+v", tc.file, problems)
				return
			}
			if p := problems[i]; p.Line != tc.line || !strings.Contains(p.Message, tc.says) {
				t.Errorf("%s: problem %s: %s; want line %d saying %q", tc.file, p.Where(), p.Message, tc.line, tc.says)
			}
		}()
	}
	write(t, work, filepath.Join(dir, "good.md"), "---\nname: good\ndescription: d\n---\nbody\n")
	got, _ := load(t, Roots{Project: work})
	if len(got) != 3 || got["good"].Name == "" {
		t.Errorf("agents = %v, want good and the built-ins alone", slices.Collect(mapsKeys(got)))
	}
}

func mapsKeys(m map[string]Definition) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// Hostile files are problems, never a hang, a crash or a read outside
// the project: huge, binary, not UTF-8, a pipe, a link out of the
// project, a name that walks out of a directory, a YAML bomb, YAML nested
// beyond reason.
func TestHostileFiles(t *testing.T) {
	work, outside := t.TempDir(), t.TempDir()
	dir := filepath.Join(work, ".claude", "agents")
	secret := write(t, outside, "secret.md", "---\nname: secret\ndescription: d\n---\nthe secret\n")
	cases := map[string]string{
		"huge.md":   "---\nname: huge\ndescription: d\n---\n" + strings.Repeat("x", MaxFileSize),
		"binary.md": "---\nname: binary\ndescription: d\n---\n\x00\x01\x02",
		"latin1.md": "---\nname: latin1\ndescription: caf\xe9\n---\nbody\n",
		"slash.md":  "---\nname: ../../etc\ndescription: d\n---\nbody\n",
		"slash2.md": "---\nname: a/b\ndescription: d\n---\nbody\n",
		"bomb.md": "---\nname: bomb\ndescription: d\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n" +
			"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n" +
			"f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\ntools: *g\n---\nbody\n",
		"deep.md": "---\nname: deep\ndescription: d\ntools: " + strings.Repeat("[", 100000) + "\n---\nbody\n",
	}
	for name, text := range cases {
		write(t, dir, name, text)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "ok.md", "---\nname: ok\ndescription: d\n---\nbody\n")
	got, problems := load(t, Roots{Project: work})
	if len(got) != 3 || got["ok"].Name == "" {
		t.Errorf("loaded %v, want ok and the built-ins alone", slices.Collect(mapsKeys(got)))
	}
	for _, name := range []string{"huge.md", "binary.md", "latin1.md", "slash.md", "slash2.md", "bomb.md", "deep.md", "link.md", "fifo.md"} {
		path := filepath.Join(dir, name)
		i := slices.IndexFunc(problems, func(p Problem) bool { return p.Path == path && !p.Warning })
		if i < 0 {
			t.Errorf("%s: no problem", name)
			continue
		}
		t.Logf("%s: %s", problems[i].Where(), problems[i].Message)
	}
	// The person's own link to a file elsewhere is theirs to make.
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".claude", "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(home, ".claude", "agents", "link.md")); err != nil {
		t.Fatal(err)
	}
	if got, _ := load(t, Roots{Home: home}); got["secret"].Prompt != "the secret" {
		t.Errorf("the person's link: %+v", got["secret"])
	}
	// A project's agents directory that is a link out of it is not read.
	work2 := t.TempDir()
	if err := os.MkdirAll(filepath.Join(work2, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(work2, ".claude", "agents")); err != nil {
		t.Fatal(err)
	}
	if got, problems := load(t, Roots{Project: work2}); got["secret"].Name != "" || len(problems) != 1 || !strings.Contains(problems[0].Message, "outside the project") {
		t.Errorf("a project's link out: %v, %+v", slices.Collect(mapsKeys(got)), problems)
	}
}

// The first definition of a name wins: .rein over .claude over .codex,
// the project's over the person's, a file over a built-in; each one
// passed over is a warning naming both files.
func TestPrecedence(t *testing.T) {
	work, cfg, home := t.TempDir(), t.TempDir(), t.TempDir()
	agent := func(name, prompt string) string {
		return "---\nname: " + name + "\ndescription: d\n---\n" + prompt + "\n"
	}
	write(t, work, ".rein/agents/a.md", agent("a", "rein's"))
	write(t, work, ".claude/agents/a.md", agent("a", "claude's"))
	write(t, work, ".claude/agents/sub/b.md", agent("b", "project b"))
	write(t, work, ".codex/agents/c.toml", "name = \"c\"\ndescription = \"d\"\ndeveloper_instructions = \"project c\"\n")
	write(t, cfg, "agents/b.md", agent("b", "user b"))
	write(t, cfg, "agents/explore.md", agent("explore", "my explore"))
	write(t, home, ".claude/agents/d.md", agent("d", "user d"))
	write(t, home, ".codex/agents/d.toml", "name = \"d\"\ndescription = \"d\"\ndeveloper_instructions = \"codex d\"\n")
	defs, problems, err := Load(Roots{Project: work, User: cfg, Home: home}, trustAll)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range defs {
		got = append(got, d.Name+"="+d.Prompt)
	}
	want := []string{"general=" + defs[0].Prompt, "a=rein's", "b=project b", "c=project c", "d=user d", "explore=my explore"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("agents mismatch (-want +got):\n%s", d)
	}
	var shadowed []string
	for _, p := range problems {
		if !p.Warning || !strings.Contains(p.Message, "shadowed") && !strings.Contains(p.Message, "replaced") {
			t.Errorf("problem %+v: want only shadowing warnings", p)
		}
		rel, _ := filepath.Rel(filepath.Dir(work), p.Path)
		shadowed = append(shadowed, rel)
	}
	if len(shadowed) != 4 {
		t.Errorf("shadowed: %v; want claude's a, the person's b, codex's d, the built-in explore", shadowed)
	}
	// The same files give the same list, for the same system prompt.
	again, _, _ := Load(Roots{Project: work, User: cfg, Home: home}, trustAll)
	if d := cmp.Diff(defs, again); d != "" {
		t.Errorf("a second Load differs:\n%s", d)
	}
}

// A project's directory the person does not trust is left out, and the
// person's agent of the same name is used; trust is asked once for the
// directory, over content that changes with any file in it.
func TestTrust(t *testing.T) {
	work, cfg := t.TempDir(), t.TempDir()
	write(t, work, ".claude/agents/a.md", "---\nname: a\ndescription: d\n---\nproject\n")
	write(t, work, ".claude/agents/b.md", "---\nname: b\ndescription: d\n---\nproject\n")
	write(t, cfg, "agents/a.md", "---\nname: a\ndescription: d\n---\nmine\n")
	var asked []*Dir
	defs, _, err := Load(Roots{Project: work, User: cfg}, func(d *Dir) (bool, error) { asked = append(asked, d); return false, nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || len(asked[0].Agents) != 2 || asked[0].Path != filepath.Join(work, ".claude", "agents") {
		t.Fatalf("asked %+v, want once for .claude/agents with its two agents", asked)
	}
	names := map[string]string{}
	for _, d := range defs {
		names[d.Name] = d.Prompt
	}
	if names["a"] != "mine" || names["b"] != "" {
		t.Errorf("agents %v: want the person's a and no b", names)
	}
	before := asked[0].Content
	write(t, work, ".claude/agents/notes.txt", "not an agent's file")
	_, _, _ = Load(Roots{Project: work}, func(d *Dir) (bool, error) { asked = append(asked, d); return true, nil })
	if string(asked[1].Content) != string(before) {
		t.Error("a file that is not an agent's changed what is trusted")
	}
	write(t, work, ".claude/agents/b.md", "---\nname: b\ndescription: d\n---\nchanged\n")
	_, _, _ = Load(Roots{Project: work}, func(d *Dir) (bool, error) { asked = append(asked, d); return true, nil })
	if string(asked[2].Content) == string(before) {
		t.Error("a changed agent file is still trusted")
	}
}

func TestPromptKeepsWithinItsBudget(t *testing.T) {
	defs := Builtins()
	for i := range 60 {
		defs = append(defs, Definition{Name: "agent-" + strings.Repeat("x", i%10), Description: strings.Repeat("Reviews the code. ", 30)})
	}
	for _, budget := range []int{0, 50, 200, 1000} {
		text, listed := Prompt(defs, budget)
		limit := budget * bytesPerToken
		if budget == 0 {
			limit = DefaultBudget * bytesPerToken
		}
		if len(text) > limit {
			t.Errorf("budget %d: %d bytes, more than %d", budget, len(text), limit)
		}
		lines := strings.Split(text, "\n")
		if len(lines) != listed+1 || !strings.Contains(lines[listed], "more agents") {
			t.Errorf("budget %d: %d lines for %d listed, last %q", budget, len(lines), listed, lines[len(lines)-1])
		}
		for _, l := range lines[:listed] {
			if len([]rune(l)) > MaxListedDescription+60 {
				t.Errorf("line not cut: %q", l)
			}
		}
	}
	text, listed := Prompt(Builtins(), 0)
	if listed != 2 || !strings.HasPrefix(text, "- explore (read-only): ") || !strings.Contains(text, "\n- general: ") {
		t.Errorf("Prompt(Builtins()) = %q, %d", text, listed)
	}
	if text, listed := Prompt(nil, 0); text != "" || listed != 0 {
		t.Errorf("Prompt(nil) = %q, %d", text, listed)
	}
}

// A repository's agents directories are read before the person is asked
// to trust them: what is read of each is bounded in bytes and files,
// and what is left out is said.
func TestHugeAgentDirsAreBounded(t *testing.T) {
	proj := t.TempDir()
	body := "---\nname: a%d\ndescription: x\n---\n" + strings.Repeat("x", MaxFileSize-64) + "\n"
	for _, d := range []string{".rein/agents", ".claude/agents", ".codex/agents"} {
		p := filepath.Join(proj, d)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 20 {
			if err := os.WriteFile(filepath.Join(p, fmt.Sprintf("f%03d.md", i)), []byte(fmt.Sprintf(body, i)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var read int
	_, probs, err := Load(Roots{Project: proj}, func(d *Dir) (bool, error) { read += len(d.Content); return false, nil })
	if err != nil {
		t.Fatal(err)
	}
	if read > 3*(maxBytes+MaxFileSize+4096) {
		t.Errorf("%d bytes read of three directories, want at most about %d each", read, maxBytes)
	}
	said := 0
	for _, p := range probs {
		if strings.Contains(p.Message, "MiB of agent files; the rest are not read") {
			said++
		}
	}
	if said != 3 {
		t.Errorf("%d directories said they were cut, want 3: %v", said, probs)
	}
}
