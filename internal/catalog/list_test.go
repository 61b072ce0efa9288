package catalog

import (
	"slices"
	"testing"
)

// Models lists a vendor's models once each, by their ids, aliases not
// repeated; an unknown vendor has none.
func TestModels(t *testing.T) {
	ids := Embedded().Models("anthropic")
	if len(ids) == 0 || !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
		t.Fatalf("Models(anthropic) = %v, want sorted ids without repeats", ids)
	}
	for _, id := range ids {
		if _, ok := Embedded().Lookup("anthropic", id); !ok {
			t.Errorf("Models lists %q, which Lookup does not find", id)
		}
	}
	if ids := Embedded().Models("scripted"); ids != nil {
		t.Errorf("Models(scripted) = %v, want nil", ids)
	}
}
