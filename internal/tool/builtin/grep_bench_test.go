package builtin

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/workspace"
)

// BenchmarkGrepGoroot runs grep over the Go source tree, $GOROOT/src, as a
// large real tree; it is skipped where that tree is absent. Compare by hand
// with grep -rn and rg on the same pattern (see the report of the change
// that added it).
func BenchmarkGrepGoroot(b *testing.B) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		b.Skipf("no Go source tree at %s", src)
	}
	ws, err := workspace.New(src)
	if err != nil {
		b.Fatal(err)
	}
	grep := SearchTools(ws)[1]
	inputs := []struct{ name, input string }{
		{"regexp", `{"pattern": "func \\w+Context\\("}`},
		{"literal", `{"pattern": "ErrUnexpectedEOF"}`},
		{"ignore case", `{"pattern": "errunexpectedeof", "ignore_case": true}`},
		{"no literal", `{"pattern": "\\d{4}-\\d{2}-\\d{2}"}`}, // every line through the regexp
		{"files", `{"pattern": "ErrUnexpectedEOF", "output_mode": "files"}`},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			call := &registry.Call{Input: json.RawMessage(in.input), Output: io.Discard}
			for b.Loop() {
				if _, err := grep.Execute(b.Context(), call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
