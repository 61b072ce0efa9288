package cli

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/why"
)

// hostileScript is a model that tries to take over the person's terminal
// from everything it controls: its reasoning and its text (split across
// deltas, the escape sequences cut in two), a command to approve, the
// command's output, a tool's name, and the message of its provider's
// error. Its sequences: OSC 52 (set the clipboard), OSC 0 (set the
// title), OSC 8 (a hyperlink), ED (clear the screen), the alternate
// screen, C1 CSI, a right-to-left override, a zero-width space, a lone
// carriage return, and bytes that are not UTF-8 (in the output: a script
// is JSON, which has no such bytes).
const hostileScript = `{"turns":[
 {"steps":[
  {"reasoning":"Thinking \u001b]52;c;"},{"reasoning":"cmVhc29u\u0007 about \u202etxt.exe\u200b\rdone"},
  {"text":"I will \u001b[2J\u001b[?1049h"},{"text":" clean up.\u009b31m\rfake line"},
  {"tool":{"index":0,"id":"call_1","name":"bash","input":{
    "command":"printf 'out \\033]52;c;b3V0\\007 \\033]0;out-title\\007 \\033[2J \\342\\200\\256gnp.exe \\r\\377\\n' > out.txt; cat out.txt # \u001b]0;cmd-title\u0007\u202e\u200b\r",
    "description":"Print \u001b[?1049h"}}},
  {"finish":"tool_use"}]},
 {"expect":[{"tool":"bash","ok":true,"contains":["out "]}],
  "steps":[
  {"text":"Done: \u001b]8;;http://evil.example\u0007link\u001b]8;;\u0007."},
  {"tool":{"index":0,"id":"call_2","name":"read\u001b]0;name-title\u0007_file\u202e","input":{"path":"out.txt\u001b[2J"}}},
  {"finish":"tool_use"}]},
 {"expect":[{"tool":"read\u001b]0;name-title\u0007_file\u202e","ok":false}],
  "fail":[{"kind":"auth","http_status":401,"message":"bad key \u001b]52;c;ZXJy\u0007 \u001b[2J \u202eyek\u200b\rok"}],
  "steps":[{"text":"never played"},{"finish":"stop"}]}]}`

// hostilePrompt is what the person typed, pasted from somewhere hostile:
// it is shown by sessions and replay.
const hostilePrompt = "tidy up \x1b]0;prompt-title\x07 the repo\u202e"

// hostile is the scenario: an interactive session in default mode, where
// the person approves the command.
var hostile = scenario{
	name: "hostile", prompt: hostilePrompt, stdin: "y\n",
	models: []goldenModel{{"scripted", "scripted-hostile", hostileScript}},
	mode:   permission.Default,
}

// A hostile model's sequences are shown, never sent to the terminal: on a
// terminal, redirected, piped (with the approval prompt), and replayed.
func TestGoldenHostile(t *testing.T) {
	s := newStage(t, hostile)
	piped := s.rein(hostilePrompt)
	checkGolden(t, "render/hostile.tty.golden", s.screen())
	checkGolden(t, "render/hostile.redirected.golden", s.redirected())
	checkGolden(t, "render/hostile.piped.golden", piped)
	checkGolden(t, "replay/hostile.golden", s.rein("replay", s.sessionID()))
	for _, want := range []string{`\x1b]52;c;cmVhc29u\x07`, `\x1b[2J\x1b[?1049h`, `\x9b31m\rfake line`, `<U+202E>txt.exe<U+200B>\rdone`,
		`\x1b]0;cmd-title\x07<U+202E><U+200B>\r`, `\x1b]52;c;b3V0\x07`, "<U+202E>gnp.exe \\r\uFFFD" /* the runtime makes output UTF-8 */, `read\x1b]0;name-title\x07_file<U+202E>`,
		`bad key \x1b]52;c;ZXJy\x07 \x1b[2J <U+202E>yek<U+200B>\rok`, `\x1b]0;prompt-title\x07 the repo<U+202E>`} {
		if !strings.Contains(piped, want) {
			t.Errorf("the piped session does not show %q:\n%s", want, piped)
		}
	}
}

// deltas are what a model streams, as a real provider may cut them: a
// character split across two deltas (it must be shown whole), an escape
// sequence split across two, bytes that are not UTF-8, a character that
// never ends; in the answer and in the reasoning, each a block the kernel
// ends with its durable event.
var deltas = []contract.Event{
	&contract.ModelRequested{Provider: "p", Model: "m"},
	&contract.ReasoningDelta{Text: "r\xe2\x80"}, &contract.ReasoningDelta{Text: "\xaeight-to-left \x1b"},
	&contract.ReasoningDelta{Text: "]0;title\x07 and caf\xc3"},
	&contract.ModelReasoning{Text: "r\u202eight-to-left \x1b]0;title\x07 and caf\xc3"},
	&contract.TextDelta{Text: "caf\xc3"}, &contract.TextDelta{Text: "\xa9 \xff\xfe \xf0\x9f"}, &contract.TextDelta{Text: "\x99\x82 \x1b["},
	&contract.TextDelta{Text: "2J\r\n\u009b"}, &contract.TextDelta{Text: "\xc2"}, &contract.TextDelta{Text: "\x9b\u200b end \xe2\x80"},
	&contract.ModelText{Text: "not shown: the deltas were"},
	&contract.ModelFinished{Reason: contract.FinishStop},
	&contract.RunFinished{Outcome: contract.OutcomeCompleted},
}

// Deltas cut anywhere are shown as the whole text would be: a character
// split across two deltas whole, a sequence split across two inert, bytes
// that are not UTF-8 as \xff, a character that never ends as its bytes.
func TestGoldenSplitDeltas(t *testing.T) {
	s := newStage(t, scenario{})
	for _, e := range deltas {
		s.envs = append(s.envs, contract.Envelope{Data: e})
	}
	checkGolden(t, "render/split-deltas.tty.golden", s.screen())
	checkGolden(t, "render/split-deltas.redirected.golden", s.redirected())
	for what, out := range map[string]string{"tty": s.rawScreen(), "redirected": s.rawRedirected()} {
		checkClean(t, what, out)
		for _, want := range []string{"r<U+202E>ight-to-left \\x1b]0;title\\x07 and caf\\xc3", "café \\xff\\xfe 🙂 \\x1b[2J\\r\n\\x9b\\x9b<U+200B> end \\xe2\\x80"} {
			if !strings.Contains(sgr.ReplaceAllString(out, ""), want) {
				t.Errorf("%s does not show %q:\n%s", what, want, out)
			}
		}
	}
}

// sgr is the one escape sequence rein writes: its own colours.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// raw matches what a terminal would act on or hide: C0 controls but
// newline and tab, DEL, C1 controls, bidirectional overrides, embeddings,
// isolates and marks, zero-width characters, the line and paragraph
// separators, the byte order mark and the tag characters.
var raw = regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\U000E0000-\U000E007F]")

// checkClean fails if out holds anything a terminal would act on but
// rein's own colours, or bytes that are not UTF-8.
func checkClean(t *testing.T, what, out string) {
	t.Helper()
	rest := sgr.ReplaceAllString(out, "")
	if !utf8.ValidString(rest) {
		t.Errorf("%s is not UTF-8:\n%q", what, out)
	}
	if loc := raw.FindStringIndex(rest); loc != nil {
		t.Errorf("%s holds %q raw, at %d:\n%q", what, rest[loc[0]:loc[1]], loc[0], rest[max(0, loc[0]-40):min(len(rest), loc[1]+40)])
	}
	if !strings.Contains(out, `\x1b`) && !strings.Contains(out, `\u001b`) {
		t.Errorf("%s does not show the sequences at all:\n%s", what, out)
	}
}

// Every renderer's output of the hostile session holds no escape sequence
// but rein's own colours, no raw control, override or zero-width
// character: live on a terminal, redirected, piped, and what replay, log,
// why and sessions print from its log.
func TestNoRendererPassesASequenceOn(t *testing.T) {
	s := newStage(t, hostile)
	piped := s.rein(hostilePrompt)
	id := s.sessionID()
	outputs := map[string]string{
		"tty": s.rawScreen(), "redirected": s.rawRedirected(), "piped": piped,
		"replay": s.rein("replay", id), "log": s.rein("log", id), "sessions": s.rein("sessions", "--all"),
		"why": s.rein("why", filepath.Join(s.ws, "out.txt")),
	}
	// replay and why in colour, as on a terminal.
	var replayed bytes.Buffer
	r := newReplayer(&replayed)
	r.t.color = true
	if _, err := s.store.Read(id, r.event); err != nil {
		t.Fatal(err)
	}
	r.end()
	outputs["replay on a terminal"] = replayed.String()
	f := why.New(filepath.Join(s.ws, "out.txt"))
	if _, err := s.store.Read(id, func(env contract.Envelope) error { f.Add(env); return nil }); err != nil {
		t.Fatal(err)
	}
	var whyOut bytes.Buffer
	if err := writeWhy(&whyOut, "out.txt", f.Touches(), true); err != nil {
		t.Fatal(err)
	}
	outputs["why on a terminal"] = whyOut.String()
	for what, out := range outputs {
		checkClean(t, what, out)
	}
	if !strings.Contains(outputs["tty"], "\x1b[2m") {
		t.Errorf("the terminal rendering has no colour: is the allow-list tested at all?")
	}
}
