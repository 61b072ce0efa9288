package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

// TestListFlag checks that a list flag keeps what pflag's StringArray and
// StringSlice keep: values given again add up, the first replaces the
// default, commas split only a slice's values, and no default shows in
// help.
func TestListFlag(t *testing.T) {
	for _, tc := range []struct {
		name   string
		commas bool
		args   []string
		want   []string
	}{
		{"not given keeps the default", false, nil, []string{"default"}},
		{"array keeps each whole", false, []string{"--x", "bash(a, b)", "--x=read_file"}, []string{"bash(a, b)", "read_file"}},
		{"slice splits at commas", true, []string{"--x", "anthropic,openai:gpt-4.1", "--x", `"a,b",c`}, []string{"anthropic", "openai:gpt-4.1", "a,b", "c"}},
		{"an empty slice value is none", true, []string{"--x="}, []string{}},
		{"an empty array value is one", false, []string{"--x="}, []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := []string{"default"}
			f := pflag.NewFlagSet("t", pflag.ContinueOnError)
			listFlagVar(f, &got, tc.commas, "x", "usage")
			if err := f.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("values (-want +got):\n%s", d)
			}
		})
	}
	var none []string
	f := pflag.NewFlagSet("t", pflag.ContinueOnError)
	listFlagVar(f, &none, false, "allow", "a rule")
	listFlagVar(f, &none, true, "fallback", "models")
	if got, want := f.FlagUsages(), "      --allow stringArray   a rule\n      --fallback strings    models\n"; got != want {
		t.Errorf("help = %q, want %q (no default shown)", got, want)
	}
	if err := f.Parse([]string{"--x"}); err == nil {
		t.Error("an unknown flag parsed")
	}
	bad := pflag.NewFlagSet("t", pflag.ContinueOnError)
	listFlagVar(bad, &none, true, "x", "usage")
	if err := bad.Parse([]string{`--x="a`}); err == nil {
		t.Error(`--x="a (an unclosed quote) parsed`)
	}
}
