package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

var update = flag.Bool("update", false, "rewrite the golden screens under testdata/")

// A tall model turn: a long paragraph streamed in pieces, a list, then a
// command to approve whose rules and text are longer than a screen.
func tallTurns() string {
	var turns []string
	for i := range 6 {
		var steps []string
		steps = append(steps, fmt.Sprintf(`{"text":"Answer %d. "}`, i))
		for k := range 6 {
			var words []string
			for j := range 12 {
				words = append(words, fmt.Sprintf("w%d_%d_%d", i, k, j))
			}
			steps = append(steps, fmt.Sprintf(`{"text":%q}`, strings.Join(words, " ")+" "))
		}
		steps = append(steps, `{"text":"\n\n- item one\n- item two\n\n"}`)
		if i%2 == 0 {
			cmd := fmt.Sprintf("touch f%d && echo %s", i, strings.TrimSpace(strings.Repeat("arg ", 30)))
			for j := range 30 {
				cmd += fmt.Sprintf("\necho line %d", j)
			}
			steps = append(steps, fmt.Sprintf(`{"tool":{"index":0,"id":"c%d","name":"bash","args":%s}}`, i, strconv.Quote(fmt.Sprintf(`{"command":%q}`, cmd))),
				`{"tool_end":{"index":0}}`, `{"finish":"tool_use"}`)
		} else {
			steps = append(steps, fmt.Sprintf(`{"text":"Done %d."}`, i), `{"finish":"stop"}`)
		}
		turns = append(turns, `{"steps":[`+strings.Join(steps, ",")+`]}`)
	}
	return `{"chunk_delay_ms": 15, "turns":[` + strings.Join(turns, ",\n") + `]}`
}

// traced starts rein on a terminal of cols x rows with bubbletea's trace
// on, so that what the UI printed into the scrollback can be checked
// against what the terminal holds.
func traced(t *testing.T, cols, rows int, turns string) (*screen, string) {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "trace.log")
	s := newScreenEnv(t, cols, rows, nil, []string{"TEA_TRACE=" + trace}, scriptFlags(t, turns)...)
	s.ready()
	return s, trace
}

// printedLines reads, from bubbletea's trace, every line the UI printed
// above its frame, in order: a reprint (after a resize) replaces what
// came before it.
func printedLines(t *testing.T, trace string) []string {
	t.Helper()
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for l := range strings.Lines(string(b)) {
		_, q, ok := strings.Cut(strings.TrimSuffix(l, "\n"), "insert above: ")
		if !ok {
			continue
		}
		s, err := strconv.Unquote(q)
		if err != nil {
			t.Fatalf("the trace's print %q: %v", q, err)
		}
		var body string
		if before, after, ok := strings.Cut(s, "\x1b[3J"); ok && strings.Contains(before, "\x1b[2J") {
			lines, body = nil, after
		} else if _, after, ok := strings.Cut(s, "\x1b[J"); ok {
			body = after
		} else {
			t.Fatalf("a print the test cannot read: %q", s)
		}
		parts := strings.Split(body, "\x1b[m\x1b[K\r\n")
		for _, p := range parts[:len(parts)-1] {
			lines = append(lines, strings.TrimRight(ansi.Strip(p), " "))
		}
	}
	return lines
}

// checkScrollback checks the rule of the scrollback: every line the UI
// printed is in the terminal once, in order, with nothing between them
// (no stale frame, no line cut in half), and after them only the frame,
// no taller than the screen.
func checkScrollback(t *testing.T, s *screen, trace string, rows int) {
	t.Helper()
	want := printedLines(t, trace)
	got := strings.Split(strings.TrimRight(s.all(), "\n "), "\n")
	for i := range got {
		got[i] = strings.TrimRight(got[i], " ")
	}
	for i, w := range want {
		if i >= len(got) {
			t.Fatalf("the terminal holds %d lines; line %d of what was printed, %q, is not there", len(got), i+1, w)
		}
		if got[i] != w {
			t.Fatalf("line %d of the terminal is %q; the UI printed %q there\n(printed:\n%s)", i+1, got[i], w, strings.Join(want, "\n"))
		}
	}
	if frame := len(got) - len(want); frame > rows {
		t.Fatalf("after the %d printed lines the terminal holds %d more, a frame is at most %d:\n%s", len(want), frame, rows, strings.Join(got[len(want):], "\n"))
	}
}

// settle waits until the terminal stops changing, but for its timers
// and spinners.
func settle(s *screen) string {
	still := func(text string) string {
		return spinner.ReplaceAllString(seconds.ReplaceAllString(text, ""), "")
	}
	last := s.all()
	for range 100 {
		time.Sleep(200 * time.Millisecond)
		now := s.all()
		if still(now) == still(last) {
			return now
		}
		last = now
	}
	return last
}

var (
	sessionID = regexp.MustCompile(`ses_[0-9A-Z]{26}`)
	shortPath = regexp.MustCompile(`/tmp/rein-ui-[0-9a-f]{8}`)
	seconds   = regexp.MustCompile(`\d+\.\d s`)
	spinner   = regexp.MustCompile(`[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏⣾⣽⣻⢿⡿⣟⣯⣷]`)
)

// maskWrapped replaces each character of every match of re in text with
// x, also where the screen wrapped the match across lines (an id cut in
// two on a narrow terminal), keeping the lines as they are.
func maskWrapped(text string, re *regexp.Regexp, x string) string {
	for _, m := range re.FindAllString(strings.ReplaceAll(strings.ReplaceAll(text, "\n", ""), " ", ""), -1) {
		var parts []string
		for _, r := range m {
			parts = append(parts, regexp.QuoteMeta(string(r)))
		}
		wrapped := regexp.MustCompile(strings.Join(parts, `(\n *)?`))
		text = wrapped.ReplaceAllStringFunc(text, func(s string) string {
			var b strings.Builder
			for _, r := range s {
				if r == '\n' || r == ' ' {
					b.WriteRune(r)
				} else {
					b.WriteString(x)
				}
			}
			return b.String()
		})
	}
	return text
}

// golden compares the terminal's whole text with testdata/screens/NAME,
// session ids, paths, durations and spinners masked; -update rewrites
// it.
func golden(t *testing.T, name, text string) {
	t.Helper()
	text = maskWrapped(text, sessionID, "X")
	text = maskWrapped(text, shortPath, "X")
	text = seconds.ReplaceAllString(text, "N.N s")
	text = spinner.ReplaceAllString(text, "*")
	var lines []string
	for l := range strings.Lines(strings.TrimRight(text, "\n ")) {
		lines = append(lines, strings.TrimRight(l, " \n"))
	}
	text = strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", "screens", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to write it)", err)
	}
	if string(want) != text {
		t.Errorf("the screen differs from %s (-update rewrites it):\n--- want\n%s\n--- got\n%s", path, want, text)
	}
}

// What the UI prints reaches the scrollback once, in order, whatever the
// keys, their timing and the terminal's size: a command run while its
// completion menu is drawn, /status on a small terminal, a resize during
// a stream and during an approval, a tall approval's whole command
// printed above it, keys in bursts and after pauses.
func TestUIScrollback(t *testing.T) {
	cases := []struct {
		name   string
		rows   int
		golden bool
		steps  func(s *screen, cols int)
	}{
		{"help-from-the-menu", 20, true, func(s *screen, cols int) {
			s.text("/")
			time.Sleep(500 * time.Millisecond)
			s.text("h")
			time.Sleep(300 * time.Millisecond)
			s.text("elp")
			s.keys("Enter")
			s.waitFor("/status")
		}},
		{"status", 20, true, func(s *screen, cols int) {
			s.text("/sta")
			time.Sleep(300 * time.Millisecond)
			s.text("tus")
			s.keys("Enter")
			s.waitFor("mode ")
		}},
		{"resize-during-a-stream", 20, false, func(s *screen, cols int) {
			s.text("go")
			s.keys("Enter")
			s.waitFor("Answer 0.")
			_ = s.tmux("resize-window", "-t", "0", "-x", strconv.Itoa(cols/2+10), "-y", "16")
			time.Sleep(100 * time.Millisecond)
			_ = s.tmux("resize-window", "-t", "0", "-x", strconv.Itoa(cols), "-y", "20")
			s.waitFor("[y]")
		}},
		{"resize-during-an-approval", 20, true, func(s *screen, cols int) {
			s.text("go")
			s.keys("Enter")
			s.waitFor("[y]")
			settle(s)
			_ = s.tmux("resize-window", "-t", "0", "-x", strconv.Itoa(cols-10), "-y", "18")
			settle(s)
			_ = s.tmux("resize-window", "-t", "0", "-x", strconv.Itoa(cols), "-y", "20")
		}},
		{"the-whole-command-of-a-tall-approval", 20, true, func(s *screen, cols int) {
			s.text("go")
			s.keys("Enter")
			s.waitFor("[y]")
			s.answer("v")
			s.waitFor("echo line 29")
		}},
		{"keys-in-bursts", 20, false, func(s *screen, cols int) {
			s.text("go")
			s.keys("Enter")
			s.text("and also this")
			time.Sleep(200 * time.Millisecond)
			s.keys("BSpace", "BSpace", "Left", "Right")
			s.waitFor("[y]")
			time.Sleep(time.Second) // one who typed pauses before a key answers
			s.answer("n")
			s.text("/he")
			time.Sleep(300 * time.Millisecond)
			s.keys("BSpace", "BSpace", "BSpace")
			s.waitFor("Done 1.")
		}},
	}
	for _, c := range cases {
		for _, cols := range []int{40, 80, 100} {
			t.Run(fmt.Sprintf("%s-%d", c.name, cols), func(t *testing.T) {
				t.Parallel()
				s, trace := traced(t, cols, c.rows, tallTurns())
				c.steps(s, cols)
				screen := settle(s)
				checkScrollback(t, s, trace, c.rows)
				if c.golden {
					golden(t, fmt.Sprintf("%s-%d.txt", c.name, cols), screen)
				}
			})
		}
	}
}
