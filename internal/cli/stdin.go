package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// maxStdinPrompt bounds what exec reads from standard input: a prompt, or
// the context piped to one, is text a person chose, not a data stream.
const maxStdinPrompt = 8 << 20

// execPrompt returns the prompt of `rein exec args`, as Codex's exec
// reads it: the arguments, joined; with none, or with "-", standard input
// whole; with arguments and piped input, the input added to the prompt as
// context between <stdin> and </stdin>. Input is read only when it is
// piped or a file: a terminal would wait for a person who is not asked,
// and a device (/dev/null) has nothing to say. No prompt at all is a
// usage error saying what is missing.
func execPrompt(args []string, stdin io.Reader) (string, error) {
	prompt := strings.Join(args, " ")
	fromStdin := prompt == "-" || strings.TrimSpace(prompt) == ""
	if !piped(stdin) {
		if fromStdin {
			return "", fmt.Errorf("%w: exec needs a prompt: rein exec \"fix the failing test\", or pipe it in (echo ... | rein exec); see rein exec --help", ErrUsage)
		}
		return prompt, nil
	}
	b, err := io.ReadAll(io.LimitReader(stdin, maxStdinPrompt+1))
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

// piped reports whether r is input to read: a pipe or a regular file, or
// any reader that is not a file (a test's). A terminal and a device are
// not.
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
	return m&os.ModeNamedPipe != 0 || m.IsRegular()
}
