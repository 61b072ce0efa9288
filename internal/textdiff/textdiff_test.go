package textdiff

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnifiedDiff(t *testing.T) {
	ten := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	tests := []struct {
		name, before, after, want string
	}{
		{name: "equal", before: ten, after: ten, want: ""},
		{
			name: "one line changed", before: ten, after: strings.Replace(ten, "5\n", "five\n", 1),
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
		},
		{
			name: "changes far apart make two hunks", before: ten + "11\n12\n", after: "one\n" + strings.TrimPrefix(ten, "1\n") + "11\ntwelve\n",
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+twelve\n",
		},
		{
			name: "changes six lines apart make one hunk", before: ten, after: "one\n2\n3\n4\n5\n6\n7\neight\n9\n10\n",
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -1,10 +1,10 @@\n-1\n+one\n 2\n 3\n 4\n 5\n 6\n 7\n-8\n+eight\n 9\n 10\n",
		},
		{
			name: "insertion and deletion", before: "a\nb\nc\n", after: "a\nx\ny\nc\n",
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n a\n-b\n+x\n+y\n c\n",
		},
		{
			name: "pure insertion at the top", before: "", after: "a\nb\n",
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n",
		},
		{
			name: "pure deletion after line 5", before: ten, after: strings.Replace(ten, "6\n", "", 1),
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -3,7 +3,6 @@\n 3\n 4\n 5\n-6\n 7\n 8\n 9\n",
		},
		{
			name: "no newline at end", before: "a\nb", after: "a\nb\n",
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
		},
		{
			name: "one-line files", before: "x\n", after: "y\n",
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-x\n+y\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, Unified("f.txt", []byte(tt.before), []byte(tt.after))); d != "" {
				t.Errorf("Unified() mismatch (-want +got):\n%s", d)
			}
		})
	}
	if got := Unified("/abs/f.txt", []byte("a\n"), []byte("b\n")); !strings.HasPrefix(got, "--- /abs/f.txt\n+++ /abs/f.txt\n") {
		t.Errorf("unifiedDiff of an absolute path starts %q; want no a/ b/ prefixes", got)
	}
}

// TestDiffLinesShortest proves the line diff is a correct edit script
// and a shortest one: it rebuilds both sides, and keeps as many lines as
// the longest common subsequence holds.
func TestDiffLinesShortest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		a, b := randomLines(r), randomLines(r)
		ops := diffLines(a, b)
		var gotA, gotB []string
		kept := 0
		for _, op := range ops {
			if op.kind != '+' {
				gotA = append(gotA, op.line)
			}
			if op.kind != '-' {
				gotB = append(gotB, op.line)
			}
			if op.kind == ' ' {
				kept++
			}
		}
		if !slices.Equal(gotA, a) || !slices.Equal(gotB, b) {
			t.Fatalf("case %d: diff of %q and %q does not rebuild them: %v", i, a, b, ops)
		}
		if want := lcs(a, b); kept != want {
			t.Fatalf("case %d: diff of %q and %q keeps %d lines; the longest common subsequence has %d", i, a, b, kept, want)
		}
	}
}

func randomLines(r *rand.Rand) []string {
	lines := make([]string, r.IntN(12))
	for i := range lines {
		lines[i] = string(rune('a'+r.IntN(4))) + "\n"
	}
	return lines
}

// lcs is the textbook dynamic programme, the reference for myers.
func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// TestDiffLinesGivesUp proves a change past maxDiffEdits still yields a
// correct diff: the region removed, then added.
func TestDiffLinesGivesUp(t *testing.T) {
	var a, b []string
	for i := range maxDiffEdits {
		a = append(a, "a"+strings.Repeat("x", i%7)+"\n")
		b = append(b, "b"+strings.Repeat("x", i%7)+"\n")
	}
	ops := diffLines(a, b)
	if len(ops) != 2*maxDiffEdits || ops[0].kind != '-' || ops[len(ops)-1].kind != '+' {
		t.Fatalf("diffLines past the limit gave %d ops, first %c last %c; want all removed then all added", len(ops), ops[0].kind, ops[len(ops)-1].kind)
	}
}
