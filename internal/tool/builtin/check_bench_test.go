package builtin_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool/builtin"
	"github.com/rein-agent/rein/internal/workspace"
)

// BenchmarkEditCheck measures what edit_file's validation costs, now that
// it finds old_string: a stat, a read and a hash of the file, and a count
// of old_string in it, for a source file and for the largest file
// edit_file takes.
func BenchmarkEditCheck(b *testing.B) {
	for _, size := range []struct {
		name  string
		lines int
	}{{"4KiB", 100}, {"10MiB", (10 << 20) / 41}} {
		b.Run(size.name, func(b *testing.B) {
			dir := b.TempDir()
			content := strings.Repeat("\tsum += float64(x) // a line of Go code\n", size.lines)
			content = content[:len(content)-41] + "\treturn sum / float64(len(xs)-1) // end\n"
			path := filepath.Join(dir, "stats.go")
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
			ws, err := workspace.New(dir)
			if err != nil {
				b.Fatal(err)
			}
			var edit registry.Tool
			for _, t := range builtin.FileTools(ws) {
				if t.Name == "edit_file" {
					edit = t
				}
			}
			fi, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			real, err := filepath.EvalSymlinks(path)
			if err != nil {
				b.Fatal(err)
			}
			stamp := builtinStamp(b, real, []byte(content), fi)
			ledger := state.Ledger{}.With(stamp)
			input := json.RawMessage(`{"path":"stats.go","old_string":"float64(len(xs)-1)","new_string":"float64(len(xs))"}`)
			b.SetBytes(int64(len(content)))
			b.ReportAllocs()
			for b.Loop() {
				if err := edit.Check(input, ledger); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// builtinStamp is the stamp read_file records of the file at abs, which
// holds data and has info fi.
func builtinStamp(b *testing.B, abs string, data []byte, fi os.FileInfo) contract.FileStamp {
	b.Helper()
	sum := sha256.Sum256(data)
	return contract.FileStamp{Path: abs, Size: int64(len(data)), ModTime: fi.ModTime().UTC(), SHA256: hex.EncodeToString(sum[:]), Op: contract.FileRead}
}
