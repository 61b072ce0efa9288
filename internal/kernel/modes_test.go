package kernel

import (
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// Every mode /mode offers is one SetMode takes, and each is described
// in words of its own.
func TestModesAreTheOnesSetModeTakes(t *testing.T) {
	k, _ := newKernel(t, stream(nil, nil, &contract.ModelFinished{Reason: contract.FinishStop}))
	seen := map[string]string{}
	for _, m := range Modes() {
		if err := k.SetMode(m); err != nil {
			t.Errorf("SetMode(%q): %v", m, err)
		}
		if k.Mode() != m {
			t.Errorf("Mode() = %q after SetMode(%q)", k.Mode(), m)
		}
		meaning := ModeMeaning(m)
		if other, ok := seen[meaning]; ok {
			t.Errorf("%s and %s are both described as %q", m, other, meaning)
		}
		seen[meaning] = m
	}
	if len(seen) != 4 {
		t.Errorf("Modes() = %v, want default, accept-edits, plan and yolo", Modes())
	}
}
