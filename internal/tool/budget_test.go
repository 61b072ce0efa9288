package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
)

// output is a tool that writes {"n": N} bytes of ten-byte lines, in uneven
// writes.
func output(name string, conc registry.Concurrency) registry.Tool {
	return echo(name, registry.RiskRead, conc, func(_ context.Context, c *registry.Call) (registry.Result, error) {
		var in struct{ N int }
		if err := json.Unmarshal(c.Input, &in); err != nil {
			return registry.Result{}, err
		}
		s := lines(in.N)
		for len(s) > 0 {
			n := min(len(s), 777)
			if _, err := io.WriteString(c.Output, s[:n]); err != nil {
				return registry.Result{}, err
			}
			s = s[n:]
		}
		return registry.Result{}, nil
	})
}

// lines returns n bytes of ten-byte lines.
func lines(n int) string { return strings.Repeat("012345678\n", n/10+1)[:n] }

// onDisk returns the names and the total size of the files in dir.
func onDisk(t *testing.T, dir string) (names []string, total int64) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, "artifacts/"+e.Name())
		total += info.Size()
	}
	return names, total
}

// The session's artifacts never add up to more than the limit, those a
// resumed session already has included: an output that would cross it is
// still shortened for the model, its partly written artifact is removed,
// and the observation says why the whole output was not kept.
func TestArtifactsStayWithinTheSessionLimit(t *testing.T) {
	const limit = 10 << 10
	notKept := func(n int) string {
		return fmt.Sprintf("the whole output (%d bytes) was not kept: this session's artifacts reached their limit of 10 KiB (max_artifact_bytes)", n)
	}
	for _, tc := range []struct {
		name     string
		existing int   // bytes of artifacts from before the runtime started
		outputs  []int // one Run each
		kept     []bool
	}{
		// 3 x 3000 fit in 10240; the fourth would cross the limit after
		// some of it was written; 1000 more still fit.
		{"new session", 0, []int{3000, 3000, 3000, 3000, 1000, 2000}, []bool{true, true, true, false, true, false}},
		{"resumed session", 9000, []int{3000, 1000, 500}, []bool{false, true, false}},
		{"full already", limit, []int{400}, []bool{false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "artifacts")
			if tc.existing > 0 {
				if err := os.MkdirAll(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "inv_old.txt"), []byte(lines(tc.existing)), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			f := newFixture(t, permission.Yolo, nil,
				&Options{ArtifactDir: dir, ArtifactLimit: limit, Limits: Limits{HeadBytes: 100, TailBytes: 200}},
				output("out", registry.Exclusive))
			var kept []bool
			var refs []string // and the file from before
			if tc.existing > 0 {
				refs = append(refs, "artifacts/inv_old.txt")
			}
			for i, n := range tc.outputs {
				id := fmt.Sprintf("int_%d", i)
				f.run(t, t.Context(), intent(id, "out", fmt.Sprintf(`{"n":%d}`, n)))
				o := f.sink.observation(t, id)
				if !o.Truncated || !strings.Contains(o.Text, "lines omitted") || !strings.HasPrefix(o.Text, lines(90)) {
					t.Errorf("output %d: the model's text is not shortened as always:\n%s", i, o.Text)
				}
				if _, total := onDisk(t, dir); total > limit {
					t.Fatalf("after output %d the artifacts take %d bytes; the limit is %d", i, total, limit)
				}
				kept = append(kept, o.ArtifactRef != "")
				if o.ArtifactRef == "" {
					if !strings.Contains(o.Text, notKept(n)) {
						t.Errorf("output %d: the observation does not say why it was not kept:\n%s", i, o.Text)
					}
					continue
				}
				refs = append(refs, o.ArtifactRef)
				if data, err := os.ReadFile(filepath.Join(filepath.Dir(dir), o.ArtifactRef)); err != nil || string(data) != lines(n) {
					t.Errorf("output %d: artifact of %d bytes (%v), want the whole output of %d", i, len(data), err, n)
				}
			}
			if d := cmp.Diff(tc.kept, kept); d != "" {
				t.Errorf("kept mismatch (-want +got):\n%s", d)
			}
			// No partial artifact is left behind.
			names, _ := onDisk(t, dir)
			if d := cmp.Diff(refs, names, cmpopts.SortSlices(strings.Compare)); d != "" {
				t.Errorf("files on disk mismatch (-artifacts referred to +on disk):\n%s", d)
			}
		})
	}
}

// Outputs of tools that run together share the budget: whatever order
// their writes come in, the artifacts on disk stay within it, every
// observation has either its artifact or the reason, and one that fits
// alone is always kept.
func TestParallelOutputsShareTheArtifactLimit(t *testing.T) {
	const limit = 10 << 10
	dir := filepath.Join(t.TempDir(), "artifacts")
	f := newFixture(t, permission.Yolo, nil,
		&Options{ArtifactDir: dir, ArtifactLimit: limit, Limits: Limits{HeadBytes: 100, TailBytes: 200}},
		output("out", registry.Safe))
	var turn []Proposal
	for i := range 8 {
		turn = append(turn, intent(fmt.Sprintf("int_%d", i), "out", `{"n":3000}`))
	}
	f.run(t, t.Context(), turn...)
	names, total := onDisk(t, dir)
	if total > limit {
		t.Fatalf("the artifacts take %d bytes; the limit is %d", total, limit)
	}
	var refs []string
	for _, p := range turn {
		o := f.sink.observation(t, p.Intent.ID)
		switch {
		case o.ArtifactRef != "":
			refs = append(refs, o.ArtifactRef)
		case !strings.Contains(o.Text, "was not kept: this session's artifacts reached their limit of 10 KiB"):
			t.Errorf("%s has neither an artifact nor the reason:\n%s", p.Intent.ID, o.Text)
		}
	}
	if len(refs) == 0 || len(refs) > 3 {
		t.Errorf("%d of the outputs were kept; want 1 to 3", len(refs))
	}
	if d := cmp.Diff(refs, names, cmpopts.SortSlices(strings.Compare)); d != "" {
		t.Errorf("files on disk mismatch (-artifacts referred to +on disk):\n%s", d)
	}
}

// A negative limit keeps no artifact, and the observation says only that
// the whole output was not kept.
func TestNegativeArtifactLimitKeepsNone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "artifacts")
	f := newFixture(t, permission.Yolo, nil,
		&Options{ArtifactDir: dir, ArtifactLimit: -1, Limits: Limits{HeadBytes: 100, TailBytes: 200}},
		output("out", registry.Exclusive))
	f.run(t, t.Context(), intent("int_1", "out", `{"n":3000}`))
	o := f.sink.observation(t, "int_1")
	if o.ArtifactRef != "" || !o.Truncated || !strings.Contains(o.Text, "; the whole output was not kept ...]") {
		t.Errorf("observation = %+v", o)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the artifacts directory was made: %v", err)
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{
		1 << 30: "1 GiB", 10 << 10: "10 KiB", 400_000: "400 KB", 3e9: "3 GB", 64 << 20: "64 MiB", 1000: "1 KB", 1023: "1023 bytes", 0: "0 bytes",
	} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}
