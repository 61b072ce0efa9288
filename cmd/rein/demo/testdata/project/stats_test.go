package stats

import "testing"

func TestMean(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{4}, 4},
		{[]float64{1, 2, 3, 4}, 2.5},
	} {
		if got := Mean(tc.xs); got != tc.want {
			t.Errorf("Mean(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
}

func TestMax(t *testing.T) {
	if got := Max([]float64{3, 9, 2}); got != 9 {
		t.Errorf("Max = %v, want 9", got)
	}
}
