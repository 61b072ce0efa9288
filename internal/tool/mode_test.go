package tool

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/workspace"
)

// SetMode changes the mode of the policy in force and keeps its rules and
// its containment; an unknown mode changes nothing.
func TestSetModeKeepsRulesAndContainment(t *testing.T) {
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	allow, err := permission.ParseRules([]string{"bash(go test:*)"})
	if err != nil {
		t.Fatal(err)
	}
	policy, err := permission.New(permission.Default, permission.Rules{Allow: allow}, ws)
	if err != nil {
		t.Fatal(err)
	}
	box := permission.Containment{Sandboxed: true, Writable: []string{t.TempDir()}}
	reg, err := registry.New()
	if err != nil {
		t.Fatal(err)
	}
	rt, err := New(reg, policy.WithContainment(box), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.SetMode(permission.Plan); err != nil {
		t.Fatal(err)
	}
	if err := rt.SetMode("reckless"); err == nil {
		t.Error("SetMode(reckless) = nil, want an error")
	}
	got := rt.Policy()
	if got.Mode() != permission.Plan {
		t.Errorf("mode = %s, want plan", got.Mode())
	}
	if d := cmp.Diff(policy.Rules().Allow, got.Rules().Allow, cmp.Comparer(func(a, b permission.Rule) bool { return a.String() == b.String() })); d != "" {
		t.Errorf("allow rules mismatch (-want +got):\n%s", d)
	}
	if c := got.Containment(); !c.Sandboxed || len(c.Writable) != 1 {
		t.Errorf("containment = %+v, want the sandbox kept", c)
	}
}

// A rule saved by an "always" answer joins the policy in force, whose
// containment stays.
func TestSavedRuleKeepsContainment(t *testing.T) {
	dir := t.TempDir()
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	policy, err := permission.New(permission.Default, permission.Rules{}, ws)
	if err != nil {
		t.Fatal(err)
	}
	box := permission.Containment{Sandboxed: true, Writable: []string{t.TempDir()}}
	reg, err := registry.New()
	if err != nil {
		t.Fatal(err)
	}
	rt, err := New(reg, policy.WithContainment(box), &Options{Answers: config.Answers{File: filepath.Join(t.TempDir(), config.AnswersFile), Project: dir}})
	if err != nil {
		t.Fatal(err)
	}
	rules, err := permission.ParseRules([]string{"bash(go test:*)"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := rt.save(contract.Allow, rules); err != nil {
		t.Fatal(err)
	}
	got := rt.Policy()
	if len(got.Rules().Allow) != 1 {
		t.Errorf("allow rules = %v, want the saved one", got.Rules().Allow)
	}
	if c := got.Containment(); !c.Sandboxed || len(c.Writable) != 1 {
		t.Errorf("containment = %+v, want the sandbox kept", c)
	}
}

// rein's own directories (Policy.WithOwn) stay protected after a mode
// switch and after a saved answer: a write there is still a firm ask.
func TestOwnDirectoriesStayProtected(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(dir, ".config", "rein")
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	policy, err := permission.New(permission.AcceptEdits, permission.Rules{}, ws)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.New()
	if err != nil {
		t.Fatal(err)
	}
	rt, err := New(reg, policy.WithContainment(permission.Containment{Sandboxed: true}).WithOwn(workspace.Places([]string{own})),
		&Options{Answers: config.Answers{File: filepath.Join(t.TempDir(), config.AnswersFile), Project: dir}})
	if err != nil {
		t.Fatal(err)
	}
	req := permission.Request{Tool: "write_file", Risk: registry.RiskWrite,
		Input: []byte(`{"path":` + strconv.Quote(filepath.Join(own, "config.toml")) + `,"content":"permission_mode = \"yolo\"\n"}`)}
	check := func(when string) {
		t.Helper()
		if v := rt.Policy().Decide(req); v.Decision != contract.Ask || !v.Firm {
			t.Errorf("%s: a write into rein's configuration = %+v, want a firm ask", when, v)
		}
	}
	check("at the start")
	if err := rt.SetMode(permission.Yolo); err != nil {
		t.Fatal(err)
	}
	if err := rt.SetMode(permission.AcceptEdits); err != nil {
		t.Fatal(err)
	}
	check("after a mode switch")
	rules, err := permission.ParseRules([]string{"bash(go test:*)"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := rt.save(contract.Allow, rules); err != nil {
		t.Fatal(err)
	}
	check("after a saved answer")
	if !rt.Policy().Containment().Sandboxed {
		t.Errorf("the containment was lost")
	}
}
