package tool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCaptureRedactsSecretsSplitAcrossWrites(t *testing.T) {
	c := newCapture(Limits{}, "", "x", []string{"sk-abcdef", "tok"})
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
	c := newCapture(Limits{HeadBytes: 10, TailBytes: 10, ArtifactBytes: 1000}, dir, "inv.txt", nil)
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
	c := newCapture(Limits{}, dir, "inv.txt", nil)
	c.Write([]byte("ok\n"))
	res, _ := c.finish()
	if res.Text != "ok\n" || res.Truncated || res.ArtifactRef != "" {
		t.Errorf("result = %+v", res)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("artifact dir exists for a small output: %v", err)
	}
}
