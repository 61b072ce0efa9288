package tool

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCaptureRedactsSecretsSplitAcrossWrites(t *testing.T) {
	c := newCapture(Limits{}, "", "x", []string{"sk-abcdef", "tok"}, nil)
	for _, p := range []string{"a sk-a", "bc", "def b sk-", "abcdef", " tok"} {
		c.Write([]byte(p))
	}
	res, err := c.finish()
	if err != nil {
		t.Fatal(err)
	}
	// "tok" is too short to be a credential: redacting it would mangle text.
	if want := "a [REDACTED] b [REDACTED] tok"; res.Text != want {
		t.Errorf("text = %q, want %q", res.Text, want)
	}
}

func TestCaptureArtifactCapAndOneHugeLine(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "artifacts")
	c := newCapture(Limits{HeadBytes: 10, TailBytes: 10, ArtifactBytes: 1000}, dir, "inv.txt", nil, nil)
	chunk := []byte(strings.Repeat("x", 333))
	for range 10 {
		c.Write(chunk)
	}
	res, err := c.finish()
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.Bytes != 3330 || res.OmittedBytes != 3310 {
		t.Errorf("result = %+v", res)
	}
	if !strings.HasPrefix(res.Text, strings.Repeat("x", 10)+"\n[... ") || !strings.HasSuffix(res.Text, " ...]\n"+strings.Repeat("x", 10)) {
		t.Errorf("text = %q", res.Text)
	}
	data, err := os.ReadFile(filepath.Join(dir, "inv.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), strings.Repeat("x", 1000)+"\n[rein: the artifact stops at 1000 bytes; 2330 more bytes") {
		t.Errorf("artifact = %q...", data[:min(len(data), 1100)])
	}
	if res.ArtifactRef != "artifacts/inv.txt" {
		t.Errorf("ref = %q", res.ArtifactRef)
	}
}

func TestCaptureSmallOutputKeepsNoArtifact(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "artifacts")
	c := newCapture(Limits{}, dir, "inv.txt", nil, nil)
	c.Write([]byte("ok\n"))
	res, _ := c.finish()
	if res.Text != "ok\n" || res.Truncated || res.ArtifactRef != "" {
		t.Errorf("result = %+v", res)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("artifact dir exists for a small output: %v", err)
	}
}

// An output that fits but reaches Limits.ArtifactMinBytes is kept as an
// artifact too, redacted as any, so an observation elided later has the
// whole text to point at; the model is shown exactly the same text, with
// no marker.
func TestCaptureKeepsAnArtifactFromTheThreshold(t *testing.T) {
	secret := "sk-SECRET-123"
	for _, tc := range []struct {
		name string
		lim  Limits
		n    int // bytes of output once redacted, "key=" + secret first
		kept bool
	}{
		{"below the default 2 KiB", Limits{}, 2047, false},
		{"at the default 2 KiB", Limits{}, 2048, true},
		{"well over it, still fits", Limits{}, 20 << 10, true},
		{"a threshold of its own", Limits{ArtifactMinBytes: 100}, 100, true},
		{"negative: only what does not fit", Limits{ArtifactMinBytes: -1}, 20 << 10, false},
		{"negative, does not fit", Limits{ArtifactMinBytes: -1, HeadBytes: 100, TailBytes: 100}, 300, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "artifacts")
			c := newCapture(tc.lim, dir, "inv.txt", []string{secret}, nil)
			out := "key=" + secret + "\n" + lines(tc.n-len("key="+redacted+"\n"))
			for rest := out; len(rest) > 0; { // in uneven writes
				n := min(len(rest), 777)
				c.Write([]byte(rest[:n]))
				rest = rest[n:]
			}
			res, err := c.finish()
			if err != nil {
				t.Fatal(err)
			}
			want := strings.ReplaceAll(out, secret, redacted)
			if !res.Truncated && res.Text != want {
				t.Errorf("text differs from the output:\n%q\nwant\n%q", res.Text, want)
			}
			if (res.ArtifactRef != "") != tc.kept {
				t.Fatalf("ArtifactRef = %q; want one: %v", res.ArtifactRef, tc.kept)
			}
			data, err := os.ReadFile(filepath.Join(dir, "inv.txt"))
			switch {
			case tc.kept && (err != nil || string(data) != want):
				t.Errorf("artifact = %d bytes (%v); want the whole redacted output, %d bytes", len(data), err, len(want))
			case !tc.kept && !os.IsNotExist(err):
				t.Errorf("an artifact was kept: %d bytes (%v)", len(data), err)
			}
		})
	}
}

// An output that fits whose artifact the session's budget has no room for
// is shown as it is, with no marker and no reference.
func TestCaptureThresholdArtifactOverBudget(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "artifacts")
	c := newCapture(Limits{}, dir, "inv.txt", nil, newArtifactBudget(4096, 3000))
	out := lines(3000)
	c.Write([]byte(out))
	res, err := c.finish()
	if err != nil || res.Text != out || res.Truncated || res.ArtifactRef != "" {
		t.Errorf("finish() = %+v, %v; want the output as it is, no artifact", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "inv.txt")); !os.IsNotExist(err) {
		t.Errorf("an artifact over the budget is on disk: %v", err)
	}
}

// FuzzCapture checks the capture against the plain output: what fits is
// shown whole; what does not keeps an exact head and tail around a marker
// whose counts add up; and the artifact, there exactly when the output does
// not fit or reaches the artifact threshold, holds everything.
func FuzzCapture(f *testing.F) {
	f.Add([]byte("line 1\nline 2\nline 3\n"), uint8(4), uint8(5), uint8(3), int16(0))
	f.Add([]byte(strings.Repeat("x", 300)), uint8(10), uint8(10), uint8(7), int16(0))
	f.Add([]byte("a\nb\n\n\nc"), uint8(1), uint8(1), uint8(1), int16(-1))
	f.Add([]byte("line 1\nline 2\nline 3\n"), uint8(100), uint8(100), uint8(2), int16(10))
	f.Fuzz(func(t *testing.T, out []byte, head, tail, chunk uint8, keep int16) {
		lim := Limits{HeadBytes: int(head) + 1, TailBytes: int(tail) + 1, ArtifactMinBytes: int(keep)}
		dir := t.TempDir()
		c := newCapture(lim, dir, "a.txt", nil, nil)
		for rest := out; len(rest) > 0; {
			n := min(len(rest), int(chunk)+1)
			c.Write(rest[:n])
			rest = rest[n:]
		}
		res, err := c.finish()
		if err != nil {
			t.Fatal(err)
		}
		if res.Bytes != int64(len(out)) {
			t.Fatalf("Bytes = %d, want %d", res.Bytes, len(out))
		}
		art, err := os.ReadFile(filepath.Join(dir, "a.txt"))
		switch kept := lim.withDefaults().keeps(int64(len(out))); {
		case kept && (err != nil || string(art) != string(out)):
			t.Fatalf("artifact %q (%v), want the whole output %q", art, err, out)
		case kept != (res.ArtifactRef != ""):
			t.Fatalf("ArtifactRef = %q for an output of %d bytes; kept: %v", res.ArtifactRef, len(out), kept)
		case !kept && !os.IsNotExist(err):
			t.Fatalf("an artifact of %d bytes was kept (%v) for an output of %d bytes", len(art), err, len(out))
		}
		if !res.Truncated {
			if res.Text != text(out) {
				t.Fatalf("untruncated text %q, want %q", res.Text, out)
			}
			return
		}
		i := strings.Index(res.Text, "[... ")
		j := strings.Index(res.Text, " ...]\n")
		if i < 0 || j < i {
			t.Fatalf("no marker in %q", res.Text)
		}
		var lines, bytes int64
		if _, err := fmt.Sscanf(res.Text[i:], "[... %d lines omitted (%d bytes)", &lines, &bytes); err != nil {
			t.Fatalf("marker %q: %v", res.Text[i:j], err)
		}
		if bytes != res.OmittedBytes || bytes <= 0 {
			t.Fatalf("marker says %d bytes, result %d", bytes, res.OmittedBytes)
		}
		if !utf8.Valid(out) {
			return // text() replaced bytes: lengths no longer line up
		}
		shownTail := res.Text[j+len(" ...]\n"):]
		headLen := len(out) - int(bytes) - len(shownTail)
		if headLen < 0 || !strings.HasSuffix(string(out), shownTail) {
			t.Fatalf("tail %q is not the output's end: %q", shownTail, out)
		}
		shownHead := string(out[:headLen])
		// A head that ends inside a line gets a newline before the marker.
		if got := res.Text[:i]; got != shownHead && got != shownHead+"\n" {
			t.Fatalf("head %q, want %q", got, shownHead)
		}
		if middle := string(out[headLen : len(out)-len(shownTail)]); int64(strings.Count(middle, "\n")) != lines {
			t.Fatalf("marker says %d lines; the middle %q has %d", lines, middle, strings.Count(middle, "\n"))
		}
	})
}

// However long the output and however it is cut into writes, the capture
// holds its head, its tail and what its redactor holds back, no more.
func TestCaptureHoldsABoundedPart(t *testing.T) {
	secret := "sk-a-secret-of-some-length"
	c := newCapture(Limits{}, "", "x", []string{secret}, nil)
	lim := c.lim
	// Twice what it must hold, as append rounds capacities up.
	bound := 2 * (lim.HeadBytes + lim.TailBytes + len(secret))
	chunk := []byte(strings.Repeat("0123456789 "+secret[:7]+"\n", 4096))
	var total int
	for i := 1; total < 10<<20; i++ {
		n := (i * 7919) % len(chunk) // writes of every size, up to 100 KiB
		c.Write(chunk[:n])
		total += n
		if held := c.retained(); held > bound {
			t.Fatalf("after %d bytes in %d writes the capture holds %d bytes; want at most %d", total, i, held, bound)
		}
	}
	res, err := c.finish()
	if err != nil || !res.Truncated || res.Bytes != int64(total) {
		t.Errorf("finish() = %d bytes, truncated %v, %v; want %d bytes, truncated", res.Bytes, res.Truncated, err, total)
	}
}
