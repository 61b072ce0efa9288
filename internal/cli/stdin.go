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

// stdinNotice is how long exec waits for a first byte on standard input
// before it says so on stderr; when the input is only context for a prompt
// given as arguments, it then goes on without it: a pipe or socket nobody
// writes to or closes (Node's child_process, a harness's) would otherwise
// hang rein.
const stdinNotice = 3 * time.Second

// execPrompt returns the prompt of `rein exec args`, as Codex's exec
// reads it: the arguments, joined; with none, or with "-", standard input
// whole; with arguments and piped input, the input added to the prompt as
// context between <stdin> and </stdin>. Input is read only when it is
// piped, a socket or a file: a terminal would wait for a person who is
// not asked, and a device (/dev/null) has nothing to say. When no byte
// comes within stdinNotice, notice is told, and context is given up on
// (a prompt read from stdin is still waited for). No prompt at all is a
// usage error saying what is missing.
func execPrompt(args []string, stdin io.Reader, notice func(string)) (string, error) {
	prompt := strings.Join(args, " ")
	fromStdin := prompt == "-" || strings.TrimSpace(prompt) == ""
	if !piped(stdin) {
		if fromStdin {
			return "", fmt.Errorf("%w: exec needs a prompt: rein exec \"fix the failing test\", or pipe it in (echo ... | rein exec); see rein exec --help", ErrUsage)
		}
		return prompt, nil
	}
	b, skipped, err := readAll(io.LimitReader(stdin, maxStdinPrompt+1), func() bool {
		say := "reading the prompt from standard input until it closes"
		if !fromStdin {
			say = "nothing came on standard input; going on with the prompt alone (pipe input in, or < /dev/null)"
		}
		if notice != nil {
			notice(say)
		}
		return !fromStdin
	})
	if skipped {
		return prompt, nil
	}
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

// readAll reads r to its end. When nothing has come after stdinNotice,
// it calls slow once and, when slow says to give up (the input is only
// context for a prompt given as arguments, and a harness may hold a pipe
// or socket open that it never writes to or closes), it returns nil and
// true: rein goes on without it, as Claude Code does. The reading
// goroutine then stays blocked on r until the process ends (exec is one
// run and then exits); otherwise it ends before readAll returns.
func readAll(r io.Reader, slow func() (giveUp bool)) ([]byte, bool, error) {
	type read struct {
		b   []byte
		err error
	}
	first, done := make(chan struct{}), make(chan read, 1)
	go func() {
		buf := make([]byte, 64<<10)
		n, err := r.Read(buf)
		close(first)
		b := buf[:n]
		if err == nil {
			var rest []byte
			rest, err = io.ReadAll(r)
			b = append(b, rest...)
		} else if err == io.EOF {
			err = nil
		}
		done <- read{b, err}
	}()
	t := time.NewTimer(stdinNotice)
	defer t.Stop()
	select {
	case <-first:
	case <-t.C:
		if slow() {
			return nil, true, nil
		}
	}
	res := <-done
	return res.b, false, res.err
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
