package eventlog_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/eventlog/eventlogtest"
)

// benchSize is the length of a session an open benchmark reads.
type benchSize struct {
	name   string
	events int
}

// benchSizes are the session lengths the open benchmarks read: 20 events
// (what a run opens most: its own new log, small), 100,000 events, and
// 1,000,000 (a file of about 420 MB) when REIN_BENCH_1M=1.
func benchSizes() []benchSize {
	sizes := []benchSize{{"20", 20}, {"100k", 100_000}}
	if os.Getenv("REIN_BENCH_1M") == "1" {
		sizes = append(sizes, benchSize{"1M", 1_000_000})
	}
	return sizes
}

// benchSession writes a realistic session of about events events under
// b.TempDir() and returns its directory, its exact event count and the
// size of its file.
func benchSession(b *testing.B, events int) (dir string, n int, size int64) {
	b.Helper()
	dir = b.TempDir()
	if err := eventlogtest.WriteSession(dir, "ses_01M8NN0F0QP40ZTK2V43TFR6X5", events); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, eventlog.FileName))
	if err != nil {
		b.Fatal(err)
	}
	return dir, eventlogtest.Len(events), fi.Size()
}

// reportOpens reports the figures of a benchmark that read a log of n
// events and size bytes runs times.
func reportOpens(b *testing.B, runs, n int, size int64) {
	secs := b.Elapsed().Seconds()
	b.ReportMetric(secs*1000/float64(runs), "ms/open")
	b.ReportMetric(float64(runs*n)/secs, "events/s")
	b.ReportMetric(float64(size)/float64(n), "B/event")
}

// BenchmarkOpenVerify opens a realistic session log as resuming it does:
// OpenFile checks every line and hands every event to a Visit that counts
// them, then Close. ms/open is the time of one open, B/event the size of
// the file per event.
func BenchmarkOpenVerify(b *testing.B) {
	for _, sz := range benchSizes() {
		b.Run(sz.name, func(b *testing.B) {
			dir, n, size := benchSession(b, sz.events)
			b.SetBytes(size)
			runs := 0
			for b.Loop() {
				count := 0
				s, err := eventlog.OpenFile(dir, &eventlog.FileOptions{Visit: func(contract.Envelope) error {
					count++
					return nil
				}})
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
				if count != n {
					b.Fatalf("visited %d events, want %d", count, n)
				}
				runs++
			}
			reportOpens(b, runs, n, size)
		})
	}
}

// BenchmarkReadFile reads a realistic session log as the read-only
// commands do, counting its events.
func BenchmarkReadFile(b *testing.B) {
	dir, n, size := benchSession(b, 100_000)
	b.SetBytes(size)
	runs := 0
	for b.Loop() {
		count := 0
		info, err := eventlog.ReadFile(dir, nil, func(contract.Envelope) error {
			count++
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		if count != n || info.Events != n || len(info.Damaged) != 0 {
			b.Fatalf("visited %d events, read %+v; want %d and no damage", count, info, n)
		}
		runs++
	}
	reportOpens(b, runs, n, size)
}
