package markdown

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestGoldenStreamed renders testdata/streamed.md, an answer with what
// CommonMark joins across blank lines (a list item going on, a link
// defined after it is used, an HTML comment), as a stream fed seven
// bytes at a time, in the plain theme at 40 and 80 columns: what a
// person sees. go test ./internal/tui/markdown -update rewrites the
// golden files.
func TestGoldenStreamed(t *testing.T) {
	md, err := os.ReadFile("testdata/streamed.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{40, 80} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			var parts []string
			for i := 0; i < len(md); i += 7 {
				parts = append(parts, string(md[i:min(i+7, len(md))]))
			}
			got := streamed(parts, width, plain) + "\n"
			if whole := Render(string(md), width, plain) + "\n"; got != whole {
				t.Errorf("streamed and whole differ (-whole +streamed):\n%s", cmp.Diff(whole, got))
			}
			path := filepath.Join("testdata", fmt.Sprintf("streamed-%d.golden", width))
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", path, d)
			}
		})
	}
}
