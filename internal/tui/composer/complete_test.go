package composer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/tui/command"
)

// workspaceTree is the temporary workspace of the completion and
// attachment tests.
var workspaceTree = map[string]string{
	".gitignore":               "build/\n*.env\n",
	".git/HEAD":                "ref: refs/heads/main\n",
	"main.go":                  "package main\n",
	"README.md":                "# demo\n",
	"secret.env":               "TOKEN=x\n",
	"build/app":                "",
	"internal/app/app.go":      "package app\n",
	"internal/app/app_test.go": "package app\n",
	"docs/guide.md":            "guide\n",
}

func newWorkspace(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "ws")
	tree(t, root, workspaceTree)
	return root
}

func menuValues(c *Composer) []string {
	var out []string
	for _, it := range c.menu.items {
		out = append(out, it.value)
	}
	return out
}

func TestAtCompletesWorkspaceFiles(t *testing.T) {
	c := New(Options{Width: 60, Workspace: newWorkspace(t)})
	typeText(t, c, "look at @")
	if !c.Completing() {
		t.Fatal("no menu after @")
	}
	want := []string{".gitignore", "README.md", "docs/", "internal/", "main.go", "docs/guide.md", "internal/app/", "internal/app/app.go", "internal/app/app_test.go"}
	if d := cmp.Diff(want, menuValues(c)); d != "" {
		t.Errorf("menu for an empty query mismatch (-want +got):\n%s", d)
	}
	typeText(t, c, "apptest")
	if d := cmp.Diff([]string{"internal/app/app_test.go"}, menuValues(c)); d != "" {
		t.Errorf("menu for @apptest mismatch (-want +got):\n%s", d)
	}
	press(t, c, "tab")
	if got, want := c.Value(), "look at @internal/app/app_test.go "; got != want {
		t.Errorf("Tab: Value() = %q, want %q", got, want)
	}
	if c.Completing() {
		t.Error("the menu is still open after accepting a file")
	}
}

func TestAtMenuMovesAndEnterAcceptsWithoutSending(t *testing.T) {
	c := New(Options{Width: 60, Workspace: newWorkspace(t)})
	typeText(t, c, "@app")
	if got := menuValues(c); len(got) < 2 {
		t.Fatalf("menu for @app = %q, want at least two entries", got)
	}
	second := c.menu.items[1].value
	press(t, c, "down")
	if sub := press(t, c, "enter"); sub != nil {
		t.Fatalf("Enter in the menu sent %+v", sub)
	}
	if got := c.Value(); !strings.HasPrefix(got, "@"+second) {
		t.Errorf("Enter accepted %q, want the second entry %q", got, second)
	}
}

func TestAtDirectoryKeepsCompleting(t *testing.T) {
	c := New(Options{Width: 60, Workspace: newWorkspace(t)})
	typeText(t, c, "@doc")
	if got := menuValues(c); len(got) == 0 || got[0] != "docs/" {
		t.Fatalf("menu for @doc = %q, want docs/ first", got)
	}
	press(t, c, "tab")
	if got := c.Value(); got != "@docs/" {
		t.Errorf("Tab on a directory: Value() = %q, want %q", got, "@docs/")
	}
	if !c.Completing() || !slicesContain(menuValues(c), "docs/guide.md") {
		t.Errorf("after a directory, menu = %q, want its files", menuValues(c))
	}
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestAtMenuHonoursGitignore(t *testing.T) {
	c := New(Options{Width: 60, Workspace: newWorkspace(t)})
	typeText(t, c, "@")
	for _, v := range menuValues(c) {
		if strings.HasPrefix(v, ".git/") || strings.HasPrefix(v, "build") || v == "secret.env" {
			t.Errorf("the menu lists %q, which is ignored", v)
		}
	}
}

func TestEscClosesTheMenuUntilTheWordChanges(t *testing.T) {
	c := New(Options{Width: 60, Workspace: newWorkspace(t)})
	typeText(t, c, "@ma")
	if !c.Completing() {
		t.Fatal("no menu")
	}
	c.CloseMenu()
	if c.Completing() {
		t.Fatal("CloseMenu left it open")
	}
	press(t, c, "left", "right")
	if c.Completing() {
		t.Error("the menu came back though the word did not change")
	}
	typeText(t, c, "i")
	if !c.Completing() {
		t.Error("the menu did not come back when the word changed")
	}
	press(t, c, "esc")
	if c.Completing() || c.Value() != "@mai" {
		t.Errorf("Esc in the menu: Completing() = %v, Value() = %q", c.Completing(), c.Value())
	}
}

func TestTheWalkIsACommandAndRunsOnce(t *testing.T) {
	c := New(Options{Width: 60, Workspace: newWorkspace(t)})
	_, cmd := c.Update(keys["esc"])
	if cmd != nil {
		if _, ok := cmd().(filesMsg); ok {
			t.Fatal("a walk before any @")
		}
	}
	_, cmd = c.Update(tea.KeyPressMsg{Code: '@', Text: "@"})
	if cmd == nil {
		t.Fatal("@ returned no command: the walk must not run in Update")
	}
	if !c.Completing() || len(c.menu.items) != 0 || !strings.Contains(c.View(), "listing files") {
		t.Errorf("while walking: Completing() = %v, View():\n%s", c.Completing(), c.View())
	}
	msg := cmd()
	if _, cmd := c.Update(msg); cmd != nil {
		if _, ok := cmd().(filesMsg); ok {
			t.Error("the walk's result started another walk")
		}
	}
	if len(c.menu.items) == 0 {
		t.Error("no entries after the walk came back")
	}
	_, cmd = c.Update(tea.KeyPressMsg{Code: 'm', Text: "m"})
	if cmd != nil {
		if _, ok := cmd().(filesMsg); ok {
			t.Error("a second walk without RefreshFiles")
		}
	}

	// RefreshFiles walks again and sees a new file.
	if err := os.WriteFile(filepath.Join(c.ws, "makefile"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	drain(t, c, c.RefreshFiles())
	if !slicesContain(menuValues(c), "makefile") {
		t.Errorf("after RefreshFiles, menu = %q, want makefile", menuValues(c))
	}
}

func TestAttachesTheFilesNamed(t *testing.T) {
	root := newWorkspace(t)
	c := New(Options{Width: 60, Workspace: root})
	c.SetValue("explain @main.go and @internal/app/app.go, and ask @alice")
	sub, cmd := c.Update(keys["enter"])
	if sub != nil {
		t.Fatalf("a message naming files was sent before they were read: %+v", sub)
	}
	if !c.Empty() {
		t.Errorf("after Enter, Value() = %q", c.Value())
	}
	sub = drain(t, c, cmd)
	want := &Submission{
		Text: "explain @main.go and @internal/app/app.go, and ask @alice" +
			"\n\n<file path=\"main.go\">\npackage main\n</file>" +
			"\n\n<file path=\"internal/app/app.go\">\npackage app\n</file>",
		Display:     "explain @main.go and @internal/app/app.go, and ask @alice",
		Attachments: []string{"main.go", "internal/app/app.go"},
		Entry:       "explain @main.go and @internal/app/app.go, and ask @alice",
	}
	if d := cmp.Diff(want, sub); d != "" {
		t.Errorf("submission mismatch (-want +got):\n%s", d)
	}
}

// A file the person's rules deny is not attached, and the note says why.
func TestRefusesDeniedFiles(t *testing.T) {
	root := newWorkspace(t)
	if err := os.WriteFile(filepath.Join(root, ".env"), []byte("API_KEY=sk-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := New(Options{Width: 60, Workspace: root, Allow: func(abs string) error {
		if filepath.Base(abs) == ".env" {
			return errors.New("denied by your rule read_file(.env)")
		}
		return nil
	}})
	c.SetValue("see @.env and @main.go")
	sub, cmd := c.Update(keys["enter"])
	if sub == nil {
		sub = drain(t, c, cmd)
	}
	if strings.Contains(sub.Text, "sk-secret") {
		t.Errorf("a denied file was attached:\n%s", sub.Text)
	}
	if d := cmp.Diff([]string{".env: not attached: denied by your rule read_file(.env)", "main.go"}, sub.Attachments); d != "" {
		t.Errorf("Attachments mismatch (-want +got):\n%s", d)
	}
}

func TestRefusesFilesOutsideTheWorkspace(t *testing.T) {
	root := newWorkspace(t)
	outside := filepath.Join(filepath.Dir(root), "outside.txt")
	if err := os.WriteFile(outside, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	c := New(Options{Width: 60, Workspace: root})
	c.SetValue("read @../outside.txt @link.txt @" + outside + " @docs")
	sub := press(t, c, "enter")
	if sub == nil {
		t.Fatal("nothing sent")
	}
	if strings.Contains(sub.Text, "secret") || strings.Contains(sub.Text, "<file") {
		t.Errorf("a file outside was attached:\n%s", sub.Text)
	}
	want := []string{
		"../outside.txt: not attached: outside the workspace",
		"link.txt: not attached: outside the workspace",
		filepath.ToSlash(outside) + ": not attached: outside the workspace",
	}
	if d := cmp.Diff(want, sub.Attachments); d != "" {
		t.Errorf("Attachments mismatch (-want +got):\n%s", d)
	}
}

func TestLargeAndBinaryFilesGetANote(t *testing.T) {
	root := newWorkspace(t)
	tree(t, root, map[string]string{
		"big.txt": strings.Repeat("x", MaxAttachment+1),
		"bin.dat": "ab\x00cd",
	})
	c := New(Options{Width: 60, Workspace: root})
	c.SetValue("@big.txt @bin.dat")
	sub := press(t, c, "enter")
	if sub == nil {
		t.Fatal("nothing sent")
	}
	wantText := "@big.txt @bin.dat" +
		"\n\n<file path=\"big.txt\">\nnot included: 257 KiB, over the 256 KiB a message attaches\n</file>" +
		"\n\n<file path=\"bin.dat\">\nnot included: a binary file\n</file>"
	if d := cmp.Diff(wantText, sub.Text); d != "" {
		t.Errorf("Text mismatch (-want +got):\n%s", d)
	}
	if len(sub.Attachments) != 2 || !strings.HasPrefix(sub.Attachments[0], "big.txt (not included") {
		t.Errorf("Attachments = %q", sub.Attachments)
	}
}

var testCommands = []command.Command{
	{Name: "help", Description: "Show the commands", Builtin: true},
	{Name: "model", Description: "Switch the model", ArgumentHint: "<name>", Builtin: true},
	{Name: "quit", Description: "Leave rein", Builtin: true},
	{Name: "review", Description: "Review a file", Template: "Review $ARGUMENTS", Source: "/p/.rein/commands/review.md"},
	{Name: "git:commit", Description: "Commit the staged changes", Template: "Commit", Source: "/p/.rein/commands/git/commit.md"},
}

func TestSlashCompletesCommands(t *testing.T) {
	c := New(Options{Width: 60, Commands: testCommands})
	typeText(t, c, "/")
	if got := len(c.menu.items); got != len(testCommands) {
		t.Errorf("menu for / holds %d, want every command", got)
	}
	typeText(t, c, "re")
	if got := menuValues(c); len(got) == 0 || got[0] != "review" {
		t.Errorf("menu for /re = %q, want review first", got)
	}
	typeText(t, c, "v")
	press(t, c, "tab")
	if got := c.Value(); got != "/review " {
		t.Errorf("Tab: Value() = %q, want %q", got, "/review ")
	}
	if c.Completing() {
		t.Error("the menu is open after a space")
	}
}

func TestSlashFuzzyAfterPrefix(t *testing.T) {
	c := New(Options{Width: 60, Commands: testCommands})
	typeText(t, c, "/gc")
	if d := cmp.Diff([]string{"git:commit"}, menuValues(c)); d != "" {
		t.Errorf("menu for /gc mismatch (-want +got):\n%s", d)
	}
	c.SetValue("")
	typeText(t, c, "/m")
	if got := menuValues(c); len(got) == 0 || got[0] != "model" {
		t.Errorf("menu for /m = %q, want the prefix match model first", got)
	}
}

func TestSlashEnterAcceptsOrSendsAnExactMatch(t *testing.T) {
	c := New(Options{Width: 60, Commands: testCommands})
	typeText(t, c, "/he")
	if sub := press(t, c, "enter"); sub != nil {
		t.Fatalf("Enter on /he sent %+v", sub)
	}
	if got := c.Value(); got != "/help " {
		t.Errorf("Enter on /he: Value() = %q, want %q", got, "/help ")
	}
	c.Reset()
	typeText(t, c, "/help")
	sub := press(t, c, "enter")
	if sub == nil || sub.Text != "/help" {
		t.Errorf("Enter on /help sent %+v, want /help", sub)
	}
}

func TestNoSlashMenuForText(t *testing.T) {
	c := New(Options{Width: 60, Commands: testCommands})
	for _, s := range []string{"//he", "say /he", "/he x"} {
		c.Reset()
		typeText(t, c, s)
		if c.Completing() {
			t.Errorf("%q opened the command menu", s)
		}
	}
}

func TestMenuScrollsPastEightRows(t *testing.T) {
	var cmds []command.Command
	for _, n := range []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10", "a11"} {
		cmds = append(cmds, command.Command{Name: n, Description: "d", Builtin: true})
	}
	c := New(Options{Width: 40, Commands: cmds})
	typeText(t, c, "/a")
	rows := func() []string { return strings.Split(c.View(), "\n")[1:] }
	if got := len(rows()); got != MenuRows {
		t.Fatalf("the menu shows %d rows, want %d", got, MenuRows)
	}
	for range 9 {
		press(t, c, "down")
	}
	if r := rows(); !strings.HasPrefix(r[0], "  /a2 ") || !strings.HasPrefix(r[MenuRows-1], "▸ /a9 ") {
		t.Errorf("after nine Downs the menu shows:\n%s", strings.Join(r, "\n"))
	}
	press(t, c, "down", "down", "down")
	if r := rows(); !strings.HasPrefix(r[0], "▸ /a0 ") {
		t.Errorf("Down past the last entry does not wrap to the first:\n%s", strings.Join(r, "\n"))
	}
	press(t, c, "up")
	if r := rows(); !strings.HasPrefix(r[MenuRows-1], "▸ /a11 ") {
		t.Errorf("Up from the first entry does not wrap to the last:\n%s", strings.Join(r, "\n"))
	}
}

func TestMentions(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"no mention", nil},
		{"@a.go and @b/c.go, @a.go again", []string{"a.go", "b/c.go,"}},
		{"mail me at x@y.z", nil},
		{"@\"my notes.txt\" and @plain", []string{"my notes.txt", "plain"}},
		{"@\"unclosed quote", []string{"\"unclosed"}},
		{"line\n@next\tline", []string{"next"}},
		{"@ alone @", nil},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if d := cmp.Diff(tt.want, mentions(tt.text)); d != "" {
				t.Errorf("mentions(%q) mismatch (-want +got):\n%s", tt.text, d)
			}
		})
	}
}

func TestAPathWithSpacesIsQuoted(t *testing.T) {
	root := newWorkspace(t)
	tree(t, root, map[string]string{"my notes.txt": "notes\n"})
	c := New(Options{Width: 60, Workspace: root})
	typeText(t, c, "@notes")
	press(t, c, "tab")
	if got, want := c.Value(), `@"my notes.txt" `; got != want {
		t.Fatalf("Tab: Value() = %q, want %q", got, want)
	}
	sub := press(t, c, "enter")
	if sub == nil || !strings.HasSuffix(sub.Text, "<file path=\"my notes.txt\">\nnotes\n</file>") {
		t.Errorf("sent %+v, want the file attached", sub)
	}
}

// A command's argument completes from the values given for it: /model
// offers the models; Enter on a value typed whole sends it.
func TestArgumentCompletion(t *testing.T) {
	c := New(Options{Width: 60, Commands: testCommands})
	c.SetArguments(func(name string) []string {
		if name == "model" {
			return []string{"anthropic:claude-sonnet-4-5", "openai:gpt-5", "openai:gpt-5-mini"}
		}
		return nil
	})
	typeText(t, c, "/model gpt5m")
	if got := menuValues(c); len(got) == 0 || got[0] != "openai:gpt-5-mini" {
		t.Fatalf("menu for /model gpt5m = %q, want openai:gpt-5-mini first", got)
	}
	press(t, c, "tab")
	if got := c.Value(); got != "/model openai:gpt-5-mini" {
		t.Errorf("Tab: Value() = %q", got)
	}
	if sub := press(t, c, "enter"); sub == nil || sub.Text != "/model openai:gpt-5-mini" {
		t.Errorf("Enter after the completion sent %+v", sub)
	}
	c.Reset()
	typeText(t, c, "/help x")
	if c.Completing() {
		t.Error("a command without values opened a menu for its argument")
	}
}
