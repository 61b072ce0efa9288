package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// maxStdinPrompt bounds what exec reads from standard input: a prompt, or
// the context piped to one, is text a person chose, not a data stream.
const maxStdinPrompt = 8 << 20

// stdinNotice is how long exec reads standard input before it says, on
// stderr, that it is waiting for it to close: a pipe nobody closes (a
// harness's, a loop's) would otherwise hang rein without a word.
const stdinNotice = time.Second

// execPrompt returns the prompt of `rein exec args`, as Codex's exec
// reads it: the arguments, joined; with none, or with "-", standard input
// whole; with arguments and piped input, the input added to the prompt as
// context between <stdin> and </stdin>. Input is read only when it is
// piped, a socket or a file: a terminal would wait for a person who is
// not asked, and a device (/dev/null) has nothing to say. When input takes
// longer than stdinNotice to close, notice is called with what rein waits
// for. No prompt at all is a usage error saying what is missing.
func execPrompt(args []string, stdin io.Reader, notice func(string)) (string, error) {
	prompt := strings.Join(args, " ")
	fromStdin := prompt == "-" || strings.TrimSpace(prompt) == ""
	if !piped(stdin) {
		if fromStdin {
			return "", fmt.Errorf("%w: exec needs a prompt: rein exec \"fix the failing test\", or pipe it in (echo ... | rein exec); see rein exec --help", ErrUsage)
		}
		return prompt, nil
	}
	waiting := "reading the prompt from standard input until it closes"
	if !fromStdin {
		waiting = "reading context for the prompt from standard input until it closes (< /dev/null skips it)"
	}
	b, err := readAll(io.LimitReader(stdin, maxStdinPrompt+1), func() {
		if notice != nil {
			notice(waiting)
		}
	})
	if err != nil {
		return "", fmt.Errorf("reading the prompt from standard input: %w", err)
	}
	if len(b) > maxStdinPrompt {
		return "", fmt.Errorf("%w: standard input holds more than %d MiB; put it in a file and name the file in the prompt", ErrUsage, maxStdinPrompt>>20)
	}
	input := string(b)
	if fromStdin {
		if strings.TrimSpace(input) == "" {
			return "", fmt.Errorf("%w: exec read an empty prompt from standard input; see rein exec --help", ErrUsage)
		}
		return strings.TrimRight(input, "\r\n"), nil
	}
	if strings.TrimSpace(input) == "" {
		return prompt, nil
	}
	if !strings.HasSuffix(input, "\n") {
		input += "\n"
	}
	return prompt + "\n\n<stdin>\n" + input + "</stdin>", nil
}

// readAll reads r to its end, calling slow once if that takes longer
// than stdinNotice. The reading goroutine ends before readAll returns.
func readAll(r io.Reader, slow func()) ([]byte, error) {
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		b, err := io.ReadAll(r)
		done <- read{b, err}
	}()
	t := time.NewTimer(stdinNotice)
	defer t.Stop()
	select {
	case res := <-done:
		return res.b, res.err
	case <-t.C:
		slow()
	}
	res := <-done
	return res.b, res.err
}

// piped reports whether r is input to read: a pipe, a socket (what Node's
// child_process hands a child) or a regular file, or any reader that is
// not a file (a test's). A terminal and a device are not.
func piped(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return r != nil
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	m := fi.Mode()
	return m&(os.ModeNamedPipe|os.ModeSocket) != 0 || m.IsRegular()
}
