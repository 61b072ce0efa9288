package session

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rein-agent/rein/internal/eventlog/eventlogtest"
)

// BenchmarkList1000 lists 1,000 sessions of 16 events, as `rein sessions
// --all` does: with the index true of every log, and with no index (every
// log's head and tail read).
func BenchmarkList1000(b *testing.B) {
	root := b.TempDir()
	s := NewStore(root, nil)
	cwd := b.TempDir()
	for i := range 1000 {
		record(b, s, fmt.Sprintf("ses_%04d", i), events(cwd))
	}
	for _, name := range []string{"indexed", "no index"} {
		b.Run(name, func(b *testing.B) {
			if name == "no index" {
				if err := os.Remove(filepath.Join(root, indexName)); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				list, problems, err := s.List(nil)
				if err != nil || len(problems) > 0 || len(list) != 1000 {
					b.Fatalf("List() = %d sessions, %v, %v", len(list), problems, err)
				}
			}
		})
	}
}

// BenchmarkOpen opens a session for resuming as `rein resume` does: lock,
// read and verify the whole log, fold it into state (one pass), and check
// that every event is known (the rest of the resume gate is a few stats). The 1,000,000-event case (a 425 MB log) runs only with
// REIN_BENCH_1M=1.
func BenchmarkOpen(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			if n > 100_000 && os.Getenv("REIN_BENCH_1M") == "" {
				b.Skip("set REIN_BENCH_1M=1 to write and open a 1,000,000-event session")
			}
			root := b.TempDir()
			s := NewStore(root, nil)
			if err := eventlogtest.WriteSession(s.Dir("ses_bench"), "ses_bench", n); err != nil {
				b.Fatal(err)
			}
			var events uint64
			for b.Loop() {
				x, err := s.Open("ses_bench", nil)
				if err != nil {
					b.Fatal(err)
				}
				if err := x.Facts.Newer(x.ID, "test"); err != nil {
					b.Fatal(err)
				}
				events = x.State.LastSeq
				if err := x.Log.Close(); err != nil { // not x.Close: no index update
					b.Fatal(err)
				}
				if err := x.unlock(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/open")
			b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkLocateChild finds a child by a prefix of its id among 1,000
// sessions, one of which ran it, as `rein replay CHILD` does (every
// session's tasks directory looked at; the index does not help).
func BenchmarkLocateChild(b *testing.B) {
	root := b.TempDir()
	s := NewStore(root, nil)
	cwd := b.TempDir()
	for i := range 1000 {
		id := fmt.Sprintf("ses_%04d", i)
		if i != 500 {
			record(b, s, id, events(cwd))
			continue
		}
		record(b, s, id, taskEvents(cwd, []string{"ses_X500C"}, nil))
		record(b, s.Tasks(id), "ses_X500C", childEvents(cwd, id, "look", 1, 0.001, true))
		s.remember(id)
	}
	for b.Loop() {
		p, err := s.Locate("ses_X5")
		if err != nil || p.ID != "ses_X500C" {
			b.Fatalf("Locate() = %+v, %v", p, err)
		}
	}
}
