package kernel

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/eventlog/memstore"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/provider/scripted"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/tool"
	"github.com/rein-agent/rein/internal/workspace"
)

// Rules lists the rules in force, deny first, with where each came from.
func TestRulesSayWhereTheyCameFrom(t *testing.T) {
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	with := func(text string, o permission.Origin) permission.Rule {
		r, err := permission.ParseRule(text)
		if err != nil {
			t.Fatal(err)
		}
		return r.WithOrigin(o)
	}
	rules := permission.Rules{
		Allow: []permission.Rule{
			with("bash(make)", permission.Origin{Kind: permission.FromUser, File: "/home/u/.config/rein/config.toml"}),
			with("bash(go test:*)", permission.Origin{Kind: permission.FromProject, File: "/w/.rein/config.toml"}),
			with("bash(ls)", permission.Origin{Kind: permission.FromFlag}),
		},
		Ask:  []permission.Rule{with("bash(git push:*)", permission.Origin{Kind: permission.FromAnswers, File: "/home/u/.config/rein/projects.toml"})},
		Deny: []permission.Rule{with("bash(rm:*)", permission.Origin{})},
	}
	policy, err := permission.New(permission.Default, rules, ws)
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := registry.New()
	rt, err := tool.New(reg, policy, nil)
	if err != nil {
		t.Fatal(err)
	}
	log := eventlog.New(memstore.New(), nil)
	t.Cleanup(func() { log.Close() })
	sc, err := scripted.Parse([]byte(`{"turns":[{"steps":[{"text":"hi"},{"finish":"stop"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	k, err := New(scripted.New(sc, nil), log, &Options{ProviderName: "scripted", Registry: reg, Tools: rt})
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{
		{contract.Deny, "bash(rm:*)", "", ""},
		{contract.Ask, "bash(git push:*)", "answers", "/home/u/.config/rein/projects.toml"},
		{contract.Allow, "bash(make)", "user", "/home/u/.config/rein/config.toml"},
		{contract.Allow, "bash(go test:*)", "project", "/w/.rein/config.toml"},
		{contract.Allow, "bash(ls)", "flag", ""},
	}
	if d := cmp.Diff(want, k.Rules()); d != "" {
		t.Errorf("Rules (-want +got):\n%s", d)
	}
	// The mode changes, the rules and their origins stay.
	if err := k.SetMode("accept-edits"); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, k.Rules()); d != "" {
		t.Errorf("after SetMode (-want +got):\n%s", d)
	}
}

// From says where a rule came from for people: an answer kept in no file
// holds for this session only.
func TestRuleFrom(t *testing.T) {
	for _, tc := range []struct {
		r    Rule
		want string
	}{
		{Rule{Origin: "answers", File: "/h/projects.toml"}, "/h/projects.toml (your answers)"},
		{Rule{Origin: "answers"}, "your answer (this session only)"},
		{Rule{Origin: "flag"}, "a flag (--allow, --deny)"},
		{Rule{Origin: "user", File: "/h/config.toml"}, "/h/config.toml"},
		{Rule{}, "rein's own (this session)"},
	} {
		if got := tc.r.From(); got != tc.want {
			t.Errorf("%+v.From() = %q, want %q", tc.r, got, tc.want)
		}
	}
}
