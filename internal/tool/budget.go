package tool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync/atomic"
)

// defaultArtifactLimit is the bound on all of a session's artifacts when
// Options.ArtifactLimit is 0.
const defaultArtifactLimit = 1 << 30

// artifactBudget is the room a session's artifacts may take on disk, shared
// by the invocations that run together: a capture takes the bytes it is
// about to write before writing them, and gives back those of an artifact it
// removes, so the artifacts on disk never add up to more than limit. It is
// safe for concurrent use and holds no lock: taking is one compare-and-swap,
// and the writing happens outside it. A nil budget is unbounded.
type artifactBudget struct {
	limit int64
	used  atomic.Int64
}

// newArtifactBudget returns the budget of limit bytes of which used are
// already taken.
func newArtifactBudget(limit, used int64) *artifactBudget {
	b := &artifactBudget{limit: limit}
	b.used.Store(used)
	return b
}

// take reserves n bytes and reports whether they were there: nothing is
// reserved when they were not.
func (b *artifactBudget) take(n int64) bool {
	if b == nil {
		return true
	}
	for {
		u := b.used.Load()
		if n > b.limit-u {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

// give returns n bytes taken earlier.
func (b *artifactBudget) give(n int64) {
	if b != nil && n > 0 {
		b.used.Add(-n)
	}
}

// notKept is what an observation says of a whole output of n bytes that
// the budget had no room for.
func (b *artifactBudget) notKept(n int64) string {
	return fmt.Sprintf("the whole output (%d bytes) was not kept: this session's artifacts reached their limit of %s (max_artifact_bytes)",
		n, byteSize(b.limit))
}

// artifactUsage returns the bytes of the regular files in dir: what a
// resumed session's artifacts already take. A directory that does not
// exist holds nothing; a file removed while it is read counts nothing.
func artifactUsage(dir string) (int64, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("tool: measure the session's artifacts: %w", err)
	}
	var n int64
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
	}
	return n, nil
}

// byteSize writes n for people: in the largest binary or decimal unit that
// divides it exactly ("1 GiB", "400 KB"), else in bytes.
func byteSize(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1e9, "GB"}, {1 << 20, "MiB"}, {1e6, "MB"}, {1 << 10, "KiB"}, {1e3, "KB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
