package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExecPrompt(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		want  string
		usage bool
	}{
		{"arguments", []string{"fix", "it"}, "", "fix it", false},
		{"from stdin", nil, "fix the failing test\n", "fix the failing test", false},
		{"dash", []string{"-"}, "line one\nline two\n", "line one\nline two", false},
		{"prompt and context", []string{"why does this fail?"}, "--- FAIL: TestMean\n", "why does this fail?\n\n<stdin>\n--- FAIL: TestMean\n</stdin>", false},
		{"context without newline", []string{"summarise"}, "x", "summarise\n\n<stdin>\nx\n</stdin>", false},
		{"prompt and empty input", []string{"fix it"}, "", "fix it", false},
		{"nothing at all", nil, "", "", true},
		{"blank input", []string{"-"}, " \n\n", "", true},
		{"blank arguments", []string{" "}, "", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := execPrompt(tc.args, strings.NewReader(tc.stdin))
			if tc.usage {
				if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "rein exec --help") {
					t.Errorf("execPrompt(%q, %q) = %q, %v; want a usage error pointing at rein exec --help", tc.args, tc.stdin, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("execPrompt(%q, %q) = %q, %v; want %q", tc.args, tc.stdin, got, err, tc.want)
			}
		})
	}
}

// A device on stdin (/dev/null, a terminal) is never read: exec with a
// prompt goes on with it alone, exec without one says what is missing.
func TestExecPromptIgnoresDevices(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if got, err := execPrompt([]string{"fix", "it"}, null); err != nil || got != "fix it" {
		t.Errorf("with /dev/null: %q, %v", got, err)
	}
	if _, err := execPrompt(nil, null); !errors.Is(err, ErrUsage) {
		t.Errorf("no prompt, /dev/null: %v, want a usage error", err)
	}
	// A regular file is input, as with rein exec - < prompt.txt.
	file := filepath.Join(t.TempDir(), "prompt.txt")
	os.WriteFile(file, []byte("from a file\n"), 0o600)
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, err := execPrompt([]string{"-"}, f); err != nil || got != "from a file" {
		t.Errorf("from a file: %q, %v", got, err)
	}
}
