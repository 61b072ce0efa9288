package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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
			got, err := execPrompt(tc.args, strings.NewReader(tc.stdin), nil)
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
	if got, err := execPrompt([]string{"fix", "it"}, null, nil); err != nil || got != "fix it" {
		t.Errorf("with /dev/null: %q, %v", got, err)
	}
	if _, err := execPrompt(nil, null, nil); !errors.Is(err, ErrUsage) {
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
	if got, err := execPrompt([]string{"-"}, f, nil); err != nil || got != "from a file" {
		t.Errorf("from a file: %q, %v", got, err)
	}
}

// Context that never comes (a harness's pipe, open and silent) is given
// up on, with a word; input that has started to come is read to its end.
func TestExecPromptDoesNotWaitForSilentInput(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	var told string
	got, err := execPrompt([]string{"why?"}, r, func(s string) { told = s })
	if err != nil || got != "why?" || !strings.Contains(told, "going on with the prompt alone") {
		t.Errorf("execPrompt = %q, %v; told %q", got, err, told)
	}

	r2, w2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	w2.Write([]byte("early "))
	go func() { w2.Write([]byte("and late\n")); w2.Close() }()
	if got, err := execPrompt([]string{"why?"}, r2, nil); err != nil || got != "why?\n\n<stdin>\nearly and late\n</stdin>" {
		t.Errorf("execPrompt = %q, %v", got, err)
	}
}

func TestSocketIsInput(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Skip(err)
	}
	a, b := os.NewFile(uintptr(fds[0]), "a"), os.NewFile(uintptr(fds[1]), "b")
	defer a.Close()
	b.Write([]byte("fix it\n"))
	b.Close()
	if got, err := execPrompt(nil, a, nil); err != nil || got != "fix it" {
		t.Errorf("from a socket: %q, %v", got, err)
	}
}
