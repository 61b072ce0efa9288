package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
)

// Answers are kept in the person's file, by project: each project's
// table in the same file, read back with the answers' origin; the text
// the person wrote stays.
func TestAnswersSaveAndLoad(t *testing.T) {
	dir := t.TempDir()
	file := AnswersPath(filepath.Join(dir, "rein", "config.toml"))
	if file != filepath.Join(dir, "rein", AnswersFile) {
		t.Fatalf("AnswersPath = %s", file)
	}
	app := Answers{File: file, Project: "/home/me/src/app"}
	other := Answers{File: file, Project: "/home/me/src/other"}
	if rs, err := app.Load(); err != nil || len(rs.Allow)+len(rs.Deny) != 0 {
		t.Fatalf("a missing file: %v, %v", rs, err)
	}
	for _, s := range []struct {
		a    Answers
		d    contract.Decision
		rule string
	}{
		{app, contract.Allow, "bash(go test:*)"},
		{app, contract.Deny, "bash(rm -rf build)"},
		{other, contract.Allow, "edit_file(README.md)"},
		{app, contract.Allow, "write_file(notes.txt)"},
		{app, contract.Allow, "bash(go test:*)"}, // once only
	} {
		if err := s.a.Save(s.d, mustRules(t, s.rule)[0]); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := app.Load()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"allow": {"bash(go test:*)", "write_file(notes.txt)"}, "deny": {"bash(rm -rf build)"}}
	if d := cmp.Diff(want, rulesText(rs)); d != "" {
		t.Errorf("app's rules (-want +got):\n%s", d)
	}
	for _, r := range append(rs.Allow, rs.Deny...) {
		if o := r.Origin(); o.Kind != permission.FromAnswers || o.File != file {
			t.Errorf("%s: origin %+v", r, o)
		}
	}
	if rs, _ := other.Load(); len(rs.Allow) != 1 || rs.Allow[0].String() != "edit_file(README.md)" {
		t.Errorf("other's rules: %v", rulesText(rs))
	}
	if rs, _ := (Answers{File: file, Project: "/home/me/src/none"}).Load(); len(rs.Allow)+len(rs.Deny) != 0 {
		t.Errorf("a project without a table: %v", rulesText(rs))
	}
	info, err := os.Stat(file)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the file: %v, %v; want it readable by the person only", info, err)
	}

	// A comment and a rule written by hand stay; the next answer goes
	// after them.
	text, _ := os.ReadFile(file)
	edited := "# my answers\n" + strings.Replace(string(text), `"bash(go test:*)"`, `"bash(go test:*)", # tests
  "bash(go vet:*)"`, 1)
	if err := os.WriteFile(file, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := app.Save(contract.Allow, mustRules(t, "bash(make)")[0]); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(file)
	if !strings.HasPrefix(string(after), "# my answers\n") || !strings.Contains(string(after), "# tests") {
		t.Errorf("the person's text was not kept:\n%s", after)
	}
	rs, _ = app.Load()
	if got := rulesText(rs)["allow"]; !cmp.Equal(got, []string{"bash(go test:*)", "bash(go vet:*)", "write_file(notes.txt)", "bash(make)"}) {
		t.Errorf("allow after a hand edit: %v\n%s", got, after)
	}
}

// Reins answering at once each keep their rule: a save reads, changes and
// writes the file under a lock, so none writes over another's.
func TestAnswersConcurrentSavesKeepEveryRule(t *testing.T) {
	file := filepath.Join(t.TempDir(), "rein", AnswersFile)
	const n = 16
	start := make(chan struct{})
	errs := make(chan error, n)
	for i := range n {
		go func() {
			<-start
			a := Answers{File: file, Project: fmt.Sprintf("/home/me/src/p%d", i%4)}
			errs <- a.Save(contract.Allow, mustRules(t, fmt.Sprintf("bash(make t%d)", i))[0])
		}()
	}
	close(start)
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	var kept []string
	for p := range 4 {
		rs, err := Answers{File: file, Project: fmt.Sprintf("/home/me/src/p%d", p)}.Load()
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, rulesText(rs)["allow"]...)
	}
	if len(kept) != n {
		data, _ := os.ReadFile(file)
		t.Errorf("%d rules kept of %d saved at once: %q\n%s", len(kept), n, kept, data)
	}
}

// What cannot be kept or read says so, naming the file.
func TestAnswersErrors(t *testing.T) {
	if err := (Answers{}).Save(contract.Allow, mustRules(t, "bash(ls)")[0]); err != ErrNoAnswersFile {
		t.Errorf("no file: %v", err)
	}
	if rs, err := (Answers{}).Load(); err != nil || len(rs.Allow) != 0 {
		t.Errorf("no file: %v %v", rs, err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, AnswersFile)
	if err := os.WriteFile(file, []byte("[projects.\"/p\".permissions]\nallow = [\"bash(\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (Answers{File: file, Project: "/p"}).Load(); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("a bad rule: %v", err)
	}
	// The line and column are those of the mistake: the end of line 2,
	// where the header's ] is missing.
	broken := "# my answers\n[projects.\"/x\".permissions\nallow = [\n"
	if err := os.WriteFile(file, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := (Answers{File: file, Project: "/p"}).Load()
	if err == nil || !strings.Contains(err.Error(), file+":2:27: ") {
		t.Errorf("not TOML: %v, want it at %s:2:27", err, file)
	}
	err = (Answers{File: file, Project: "/p"}).Save(contract.Allow, mustRules(t, "bash(ls)")[0])
	if err == nil || !strings.Contains(err.Error(), file+":2:27: ") || !strings.HasSuffix(err.Error(), "fix the file or delete it") {
		t.Errorf("saved into a file that is not TOML: %v", err)
	}
	if after, _ := os.ReadFile(file); string(after) != broken {
		t.Errorf("the file changed: %q", after)
	}
}

// Config.Rules says which file each rule of [permissions] came from.
func TestConfigRulesOrigins(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.toml")
	project := filepath.Join(dir, ".rein", "config.toml")
	if err := os.MkdirAll(filepath.Dir(project), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(user, []byte("[permissions]\nallow = [\"bash(make)\"]\ndeny = [\"bash(git push:*)\"]\n"), 0o600)
	os.WriteFile(project, []byte("[permissions]\nallow = [\"bash(go test:*)\"]\nask = [\"edit_file(go.mod)\"]\n"), 0o600)
	c, err := Load(Paths{User: user, Project: project})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := c.Rules()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range append(append(rs.Allow, rs.Ask...), rs.Deny...) {
		got = append(got, r.String()+" "+string(r.Origin().Kind)+" "+r.Origin().File)
	}
	want := []string{"bash(make) user " + user, "bash(go test:*) project " + project, "edit_file(go.mod) project " + project,
		"bash(git push:*) user " + user}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Rules (-want +got):\n%s", d)
	}
}
