package tool

import (
	"path/filepath"
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
