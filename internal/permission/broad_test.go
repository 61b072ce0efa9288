package permission

import "testing"

func TestAllowsArbitraryCode(t *testing.T) {
	for rule, want := range map[string]bool{
		"bash": true, "bash(env:*)": true, "bash(sh:*)": true, "bash(python3:*)": true, "bash(python3.12:*)": true,
		"bash(/usr/bin/perl -e:*)": true, "bash(CGO_ENABLED=0 sh:*)": true, "bash(xargs:*)": true, "bash(find .:*)": true,
		"bash(sudo make:*)": true, "bash(eval:*)": true, "bash(.:*)": true, "bash(source:*)": true, "bash(busybox:*)": true,
		"bash(nohup:*)": true, "bash(timeout:*)": true, "bash(watch:*)": true, "bash(npx:*)": true, "bash(awk:*)": true,
		"bash(sed:*)": true, "bash(command:*)": true, "bash(builtin:*)": true, "bash(exec:*)": true, "bash(doas:*)": true,
		"bash(go test:*)": false, "bash(make:*)": false, "bash(git status:*)": false, "bash(rm:*)": false,
		"bash(python3 -c 'print(1)')": false, "bash(env)": false, "read_file": false, "edit_file(**)": false,
	} {
		if got := mustRules(t, rule)[0].AllowsArbitraryCode(); got != want {
			t.Errorf("%s: AllowsArbitraryCode() = %v, want %v", rule, got, want)
		}
	}
}

// "always" never saves a prefix rule that a project's file would refuse:
// bun has subcommands, but runs any code.
func TestAlwaysSavesNoArbitraryCodePrefix(t *testing.T) {
	p := policyOf(t, Default, Rules{})
	for _, r := range p.SuggestRules(bashReq(t, "bun run build")) {
		if r.AllowsArbitraryCode() {
			t.Errorf("suggested %s, which a project's file refuses", r)
		}
	}
}
