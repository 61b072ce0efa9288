package provider

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rein-agent/rein/internal/contract"
)

var testRef = contract.ProviderRef{Name: "test", Model: "m1", RequestID: "req_1"}

// op is one call on an Assembler in a table test: a fragment to Add, an
// End(index, id), or an EndAll.
type op struct {
	add    *Fragment
	end    bool
	endAll bool
	index  int
	id     string
}

func add(index int, id, name, args string) op {
	return op{add: &Fragment{Index: index, ID: id, Name: name, Args: args}}
}
func end(index int, id string) op { return op{end: true, index: index, id: id} }
func endAll() op                  { return op{endAll: true} }

// run plays ops on a fresh Assembler and returns every event they yield,
// and the number of calls still pending at the end.
func run(ops []op) ([]contract.ModelEvent, int) {
	a := NewAssembler(testRef)
	var events []contract.ModelEvent
	for _, o := range ops {
		switch {
		case o.add != nil:
			events = append(events, a.Add(*o.add))
		case o.end:
			if ev := a.End(o.index, o.id); ev != nil {
				events = append(events, ev)
			}
		case o.endAll:
			events = append(events, a.EndAll()...)
		}
	}
	return events, a.Pending()
}

func delta(ordinal int, id, name, raw string) *contract.IntentDelta {
	return &contract.IntentDelta{Index: ordinal, ProviderCallID: id, ToolName: name, RawInput: raw}
}

func proposed(id, name, input, raw string, from contract.Assembly) *contract.IntentProposed {
	return &contract.IntentProposed{ToolIntent: contract.ToolIntent{
		ProviderCallID: id, ToolName: name, Input: json.RawMessage(input), RawInput: raw,
		Provider: testRef, AssembledFrom: from,
	}}
}

func malformed() *contract.ProviderError {
	return &contract.ProviderError{
		Kind: contract.KindMalformedToolCall, Provider: "test", Model: "m1", RequestID: "req_1",
	}
}

// ignoreMessage compares provider errors by everything but their message
// text and cause; TestAssemblerMalformedMessages checks those.
var ignoreMessage = cmpopts.IgnoreFields(contract.ProviderError{}, "Message", "Err")

func TestAssembler(t *testing.T) {
	tests := []struct {
		name    string
		ops     []op
		want    []contract.ModelEvent
		pending int
	}{
		{
			name: "openai: index-keyed, id and name only on the first fragment",
			ops: []op{
				add(0, "call_1", "bash", ""),
				add(0, "", "", `{"command":`),
				add(0, "", "", `"go test"}`),
				endAll(),
			},
			want: []contract.ModelEvent{
				delta(0, "call_1", "bash", ""),
				delta(0, "call_1", "bash", `{"command":`),
				delta(0, "call_1", "bash", `{"command":"go test"}`),
				proposed("call_1", "bash", `{"command":"go test"}`, `{"command":"go test"}`,
					contract.Assembly{Fragments: 3, FirstIndex: 0, LastIndex: 2}),
			},
		},
		{
			name: "anthropic: block start, json deltas, block stop",
			ops: []op{
				add(1, "toolu_1", "read_file", ""),
				add(1, "", "", `{"path": `),
				add(1, "", "", `"go.mod"}`),
				end(1, ""),
			},
			want: []contract.ModelEvent{
				delta(0, "toolu_1", "read_file", ""),
				delta(0, "toolu_1", "read_file", `{"path": `),
				delta(0, "toolu_1", "read_file", `{"path": "go.mod"}`),
				proposed("toolu_1", "read_file", `{"path":"go.mod"}`, `{"path": "go.mod"}`,
					contract.Assembly{Fragments: 3, FirstIndex: 0, LastIndex: 2}),
			},
		},
		{
			name: "gemini: whole calls without index, ended at once",
			ops: []op{
				add(-1, "", "glob", `{"pattern":"*.go"}`),
				end(-1, ""),
				add(-1, "", "glob", `{"pattern":"*.md"}`),
				end(-1, ""),
			},
			want: []contract.ModelEvent{
				delta(0, "", "glob", `{"pattern":"*.go"}`),
				proposed("", "glob", `{"pattern":"*.go"}`, `{"pattern":"*.go"}`,
					contract.Assembly{Fragments: 1, FirstIndex: 0, LastIndex: 0}),
				delta(1, "", "glob", `{"pattern":"*.md"}`),
				proposed("", "glob", `{"pattern":"*.md"}`, `{"pattern":"*.md"}`,
					contract.Assembly{Fragments: 1, FirstIndex: 1, LastIndex: 1}),
			},
		},
		{
			name: "id-keyed fallback when the vendor gives no index",
			ops: []op{
				add(-1, "a", "read_file", `{"path":`),
				add(-1, "b", "glob", `{"pattern":`),
				add(-1, "a", "", `"x"}`),
				add(-1, "b", "", `"*"}`),
				end(-1, "b"),
				end(-1, "a"),
			},
			want: []contract.ModelEvent{
				delta(0, "a", "read_file", `{"path":`),
				delta(1, "b", "glob", `{"pattern":`),
				delta(0, "a", "read_file", `{"path":"x"}`),
				delta(1, "b", "glob", `{"pattern":"*"}`),
				proposed("b", "glob", `{"pattern":"*"}`, `{"pattern":"*"}`,
					contract.Assembly{Fragments: 2, FirstIndex: 1, LastIndex: 3}),
				proposed("a", "read_file", `{"path":"x"}`, `{"path":"x"}`,
					contract.Assembly{Fragments: 2, FirstIndex: 0, LastIndex: 2}),
			},
		},
		{
			name: "a fragment with neither index nor id continues the last call",
			ops: []op{
				add(-1, "a", "bash", `{"command":`),
				add(-1, "", "", `"ls"}`),
				end(-1, "a"),
			},
			want: []contract.ModelEvent{
				delta(0, "a", "bash", `{"command":`),
				delta(0, "a", "bash", `{"command":"ls"}`),
				proposed("a", "bash", `{"command":"ls"}`, `{"command":"ls"}`,
					contract.Assembly{Fragments: 2, FirstIndex: 0, LastIndex: 1}),
			},
		},
		{
			name: "empty id and name never overwrite known ones",
			ops: []op{
				add(0, "", "", `{`),
				add(0, "call_1", "", ``),
				add(0, "", "bash", `"command"`),
				add(0, "", "", `:"ls"`),
				add(0, "call_1", "", `}`),
				end(0, ""),
			},
			want: []contract.ModelEvent{
				delta(0, "", "", `{`),
				delta(0, "call_1", "", `{`),
				delta(0, "call_1", "bash", `{"command"`),
				delta(0, "call_1", "bash", `{"command":"ls"`),
				delta(0, "call_1", "bash", `{"command":"ls"}`),
				proposed("call_1", "bash", `{"command":"ls"}`, `{"command":"ls"}`,
					contract.Assembly{Fragments: 5, FirstIndex: 0, LastIndex: 4}),
			},
		},
		{
			name: "interleaved parallel calls end in first-seen order",
			ops: []op{
				add(1, "c2", "glob", `{"pattern"`),
				add(0, "c1", "read_file", `{"path"`),
				add(1, "", "", `:"*.go"}`),
				add(0, "", "", `:"a.go"}`),
				endAll(),
			},
			want: []contract.ModelEvent{
				delta(0, "c2", "glob", `{"pattern"`),
				delta(1, "c1", "read_file", `{"path"`),
				delta(0, "c2", "glob", `{"pattern":"*.go"}`),
				delta(1, "c1", "read_file", `{"path":"a.go"}`),
				proposed("c2", "glob", `{"pattern":"*.go"}`, `{"pattern":"*.go"}`,
					contract.Assembly{Fragments: 2, FirstIndex: 0, LastIndex: 2}),
				proposed("c1", "read_file", `{"path":"a.go"}`, `{"path":"a.go"}`,
					contract.Assembly{Fragments: 2, FirstIndex: 1, LastIndex: 3}),
			},
		},
		{
			name: "same index, different ids: two calls",
			ops: []op{
				add(0, "c1", "bash", `{"command":"ls"}`),
				add(0, "c2", "bash", `{"command":`),
				add(0, "", "", `"pwd"}`),
				endAll(),
			},
			want: []contract.ModelEvent{
				delta(0, "c1", "bash", `{"command":"ls"}`),
				delta(1, "c2", "bash", `{"command":`),
				delta(1, "c2", "bash", `{"command":"pwd"}`),
				proposed("c1", "bash", `{"command":"ls"}`, `{"command":"ls"}`,
					contract.Assembly{Fragments: 1, FirstIndex: 0, LastIndex: 0}),
				proposed("c2", "bash", `{"command":"pwd"}`, `{"command":"pwd"}`,
					contract.Assembly{Fragments: 2, FirstIndex: 1, LastIndex: 2}),
			},
		},
		{
			name: "end by index prefers the matching id",
			ops: []op{
				add(0, "c1", "bash", `{}`),
				add(0, "c2", "glob", `{}`),
				end(0, "c2"),
			},
			want: []contract.ModelEvent{
				delta(0, "c1", "bash", `{}`),
				delta(1, "c2", "glob", `{}`),
				proposed("c2", "glob", `{}`, `{}`, contract.Assembly{Fragments: 1, FirstIndex: 1, LastIndex: 1}),
			},
			pending: 1,
		},
		{
			name: "empty arguments are repaired to {}",
			ops:  []op{add(0, "c1", "list_dir", ""), end(0, "")},
			want: []contract.ModelEvent{
				delta(0, "c1", "list_dir", ""),
				proposed("c1", "list_dir", `{}`, ``,
					contract.Assembly{Fragments: 1, FirstIndex: 0, LastIndex: 0, HadRepair: true}),
			},
		},
		{
			name: "whitespace-only arguments are repaired to {}",
			ops:  []op{add(0, "c1", "list_dir", " \n"), add(0, "", "", "\t"), endAll()},
			want: []contract.ModelEvent{
				delta(0, "c1", "list_dir", " \n"),
				delta(0, "c1", "list_dir", " \n\t"),
				proposed("c1", "list_dir", `{}`, " \n\t",
					contract.Assembly{Fragments: 2, FirstIndex: 0, LastIndex: 1, HadRepair: true}),
			},
		},
		{
			name: "truncated arguments are malformed, never repaired",
			ops:  []op{add(0, "c1", "bash", `{"command":"rm -rf /tmp/x`), end(0, "")},
			want: []contract.ModelEvent{
				delta(0, "c1", "bash", `{"command":"rm -rf /tmp/x`),
				malformed(),
			},
		},
		{
			name: "an array is not a tool input",
			ops:  []op{add(0, "c1", "bash", `["ls"]`), end(0, "")},
			want: []contract.ModelEvent{delta(0, "c1", "bash", `["ls"]`), malformed()},
		},
		{
			name: "a string is not a tool input",
			ops:  []op{add(0, "c1", "bash", `"ls"`), end(0, "")},
			want: []contract.ModelEvent{delta(0, "c1", "bash", `"ls"`), malformed()},
		},
		{
			name: "two values are malformed",
			ops:  []op{add(0, "c1", "bash", `{}{}`), end(0, "")},
			want: []contract.ModelEvent{delta(0, "c1", "bash", `{}{}`), malformed()},
		},
		{
			name: "a call without a name is malformed",
			ops:  []op{add(0, "c1", "", `{}`), end(0, "")},
			want: []contract.ModelEvent{delta(0, "c1", "", `{}`), malformed()},
		},
		{
			name: "a malformed call does not stop the others",
			ops: []op{
				add(0, "c1", "bash", `{"command":`),
				add(1, "c2", "glob", `{"pattern":"*"}`),
				endAll(),
			},
			want: []contract.ModelEvent{
				delta(0, "c1", "bash", `{"command":`),
				delta(1, "c2", "glob", `{"pattern":"*"}`),
				malformed(),
				proposed("c2", "glob", `{"pattern":"*"}`, `{"pattern":"*"}`,
					contract.Assembly{Fragments: 1, FirstIndex: 1, LastIndex: 1}),
			},
		},
		{
			name: "ending an unknown call yields nothing",
			ops:  []op{add(0, "c1", "bash", `{}`), end(3, ""), end(-1, "nope")},
			want: []contract.ModelEvent{
				delta(0, "c1", "bash", `{}`),
			},
			pending: 1,
		},
		{
			name: "a call is proposed once: a second end finds nothing",
			ops:  []op{add(0, "c1", "bash", `{}`), end(0, ""), end(0, ""), endAll()},
			want: []contract.ModelEvent{
				delta(0, "c1", "bash", `{}`),
				proposed("c1", "bash", `{}`, `{}`, contract.Assembly{Fragments: 1}),
			},
		},
		{
			name: "an index reused after its call ended starts a new call",
			ops: []op{
				add(0, "c1", "bash", `{}`), end(0, ""),
				add(0, "c2", "glob", `{}`), end(0, ""),
			},
			want: []contract.ModelEvent{
				delta(0, "c1", "bash", `{}`),
				proposed("c1", "bash", `{}`, `{}`, contract.Assembly{Fragments: 1}),
				delta(1, "c2", "glob", `{}`),
				proposed("c2", "glob", `{}`, `{}`, contract.Assembly{Fragments: 1, FirstIndex: 1, LastIndex: 1}),
			},
		},
		{
			name: "calls never ended are never proposed",
			ops:  []op{add(0, "c1", "bash", `{"command":"ls"}`)},
			want: []contract.ModelEvent{
				delta(0, "c1", "bash", `{"command":"ls"}`),
			},
			pending: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, pending := run(tt.ops)
			if d := cmp.Diff(tt.want, got, ignoreMessage); d != "" {
				t.Errorf("events mismatch (-want +got):\n%s", d)
			}
			if pending != tt.pending {
				t.Errorf("Pending() = %d, want %d", pending, tt.pending)
			}
		})
	}
}

func TestAssemblerMalformedMessages(t *testing.T) {
	tests := []struct {
		name string
		ops  []op
		want []string // substrings of the message
	}{
		{
			name: "bad json names the tool, the id and the parse error",
			ops:  []op{add(0, "call_9", "bash", `{"command":`), end(0, "")},
			want: []string{`"bash"`, "call_9", "not valid JSON", "unexpected end of JSON input"},
		},
		{
			name: "no name names the call",
			ops:  []op{add(2, "call_9", "", `{}`), end(2, "")},
			want: []string{"#0", "call_9", "no tool name"},
		},
		{
			name: "not an object says what it is",
			ops:  []op{add(0, "", "bash", ` [1] `), end(0, "")},
			want: []string{`"bash"`, "array, not an object"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events, _ := run(tt.ops)
			pe, ok := events[len(events)-1].(*contract.ProviderError)
			if !ok {
				t.Fatalf("last event = %T, want *contract.ProviderError", events[len(events)-1])
			}
			for _, s := range tt.want {
				if !strings.Contains(pe.Message, s) {
					t.Errorf("message %q does not contain %q", pe.Message, s)
				}
			}
			if pe.Retryable {
				t.Errorf("malformed_tool_call is Retryable; want the kind's default, false")
			}
		})
	}
}

// TestAssemblerChunkSplitInvariance splits the same argument text at every
// byte position (and every pair of positions) and checks that the proposed
// intent is the same whatever the split.
func TestAssemblerChunkSplitInvariance(t *testing.T) {
	const args = `{"command": "go test ./... -run 'Test\"Q\"' ", "timeout_ms": 12000, "env": {"é": [1, 2.5e3, null, true]}}`
	whole, _ := run([]op{add(0, "c1", "bash", args), end(0, "")})
	want, ok := whole[len(whole)-1].(*contract.IntentProposed)
	if !ok {
		t.Fatalf("whole arguments gave %T, want *contract.IntentProposed", whole[len(whole)-1])
	}
	if !json.Valid(want.Input) {
		t.Fatalf("Input %s is not valid JSON", want.Input)
	}
	check := func(t *testing.T, pieces []string) {
		t.Helper()
		ops := []op{add(0, "c1", "bash", "")}
		for _, p := range pieces {
			ops = append(ops, add(0, "", "", p))
		}
		ops = append(ops, endAll())
		events, _ := run(ops)
		got, ok := events[len(events)-1].(*contract.IntentProposed)
		if !ok {
			t.Fatalf("split %q gave %T", pieces, events[len(events)-1])
		}
		if !bytes.Equal(got.Input, want.Input) || got.RawInput != args {
			t.Fatalf("split %q: Input %s RawInput %q, want %s %q", pieces, got.Input, got.RawInput, want.Input, args)
		}
		for _, ev := range events {
			if _, ok := ev.(*contract.IntentProposed); ok && ev != contract.ModelEvent(got) {
				t.Fatalf("split %q proposed more than once", pieces)
			}
		}
	}
	for i := range len(args) + 1 {
		check(t, []string{args[:i], args[i:]})
	}
	for i := range len(args) + 1 {
		for j := i; j <= len(args); j++ {
			check(t, []string{args[:i], args[i:j], args[j:]})
		}
	}
}

// TestAssemblerNeverProposesEarly checks that text which parses before the
// call ends is not proposed: only End proposes.
func TestAssemblerNeverProposesEarly(t *testing.T) {
	a := NewAssembler(testRef)
	a.Add(Fragment{Index: 0, ID: "c1", Name: "bash", Args: `{"command":"ls"}`})
	if a.Pending() != 1 {
		t.Fatalf("Pending() = %d after a complete-looking fragment, want 1", a.Pending())
	}
	a.Add(Fragment{Index: 0, Args: ` `})
	ev := a.End(0, "")
	if _, ok := ev.(*contract.IntentProposed); !ok {
		t.Fatalf("End() = %T, want *contract.IntentProposed", ev)
	}
	if a.Pending() != 0 {
		t.Errorf("Pending() = %d after End, want 0", a.Pending())
	}
}

// FuzzAssembler plays random fragment sequences: ops is decoded two bytes
// per operation, and the argument pieces are cut from text in turn.
func FuzzAssembler(f *testing.F) {
	f.Add([]byte{0x00, 0x13, 0x00, 0x24, 0xc0, 0x00}, `{"command":"ls"}`)
	f.Add([]byte{0x01, 0x05, 0x02, 0x07, 0x01, 0x08, 0x02, 0x02, 0xc0, 0x00}, `{"a":[1,2]}{"b":"x"}`)
	f.Add([]byte{0x04, 0x00, 0x04, 0x30, 0x84, 0x00, 0x84, 0x00}, ` {"path":"go.mod"} `)
	f.Add([]byte{0x00, 0xff, 0x80, 0x00, 0x00, 0x0f, 0xc0, 0x00}, `[1]"s"nul{}`)
	ids := []string{"", "call_1", "call_2"}
	names := []string{"", "bash", "read_file"}
	f.Fuzz(func(t *testing.T, ops []byte, text string) {
		a := NewAssembler(testRef)
		var events []contract.ModelEvent
		adds := 0
		for i := 0; i+1 < len(ops); i += 2 {
			b0, b1 := ops[i], ops[i+1]
			index := int(b0&0x07) - 2 // -2..5: negatives mean no index
			id := ids[int(b0>>3&0x07)%len(ids)]
			switch b0 >> 6 {
			case 0, 1:
				n := min(int(b1>>4), len(text))
				frag := Fragment{Index: index, ID: id, Name: names[int(b1&0x0f)%len(names)], Args: text[:n]}
				text = text[n:]
				d := a.Add(frag)
				adds++
				if d == nil {
					t.Fatal("Add returned nil")
				}
				events = append(events, d)
			case 2:
				if ev := a.End(index, id); ev != nil {
					events = append(events, ev)
				}
			case 3:
				events = append(events, a.EndAll()...)
			}
		}
		events = append(events, a.EndAll()...)
		if a.Pending() != 0 {
			t.Fatalf("Pending() = %d after EndAll", a.Pending())
		}

		seen := map[int]bool{} // FirstIndex of every ended call
		fragments := 0
		for _, ev := range events {
			var from contract.Assembly
			switch ev := ev.(type) {
			case *contract.IntentDelta:
				continue
			case *contract.IntentProposed:
				from = ev.AssembledFrom
				checkProposed(t, ev)
			case *contract.ProviderError:
				if ev.Kind != contract.KindMalformedToolCall {
					t.Fatalf("error of kind %s", ev.Kind)
				}
				// A malformed call's fragments are counted below from
				// its own deltas; the error does not carry them.
				continue
			default:
				t.Fatalf("unexpected event %T", ev)
			}
			if seen[from.FirstIndex] {
				t.Fatalf("call starting at fragment %d proposed twice", from.FirstIndex)
			}
			seen[from.FirstIndex] = true
			if from.Fragments < 1 || from.FirstIndex > from.LastIndex || from.LastIndex >= adds ||
				from.LastIndex-from.FirstIndex+1 < from.Fragments {
				t.Fatalf("impossible assembly %+v after %d fragments", from, adds)
			}
			fragments += from.Fragments
		}
		if fragments > adds {
			t.Fatalf("proposals account for %d fragments, only %d were added", fragments, adds)
		}
	})
}

// checkProposed checks the invariants of one proposed intent.
func checkProposed(t *testing.T, ev *contract.IntentProposed) {
	t.Helper()
	if ev.ID != "" {
		t.Fatalf("intent id %q set by the assembler", ev.ID)
	}
	if ev.ToolName == "" {
		t.Fatal("proposed a call without a tool name")
	}
	if !json.Valid(ev.Input) || len(ev.Input) == 0 || ev.Input[0] != '{' {
		t.Fatalf("proposed Input %q is not a JSON object", ev.Input)
	}
	var obj map[string]any
	if err := json.Unmarshal(ev.Input, &obj); err != nil {
		t.Fatalf("proposed Input %q does not decode as an object: %v", ev.Input, err)
	}
	want := ev.RawInput
	if ev.AssembledFrom.HadRepair {
		if strings.Trim(ev.RawInput, " \t\r\n") != "" {
			t.Fatalf("repaired non-blank input %q", ev.RawInput)
		}
		want = "{}"
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(want)); err != nil || !bytes.Equal(compact.Bytes(), ev.Input) {
		t.Fatalf("Input %s is not the compacted RawInput %q (%v)", ev.Input, ev.RawInput, err)
	}
}

// An intent's input is JSON every strict parser reads: a lone surrogate
// escape or an invalid byte the model sent becomes U+FFFD, so the live
// state, --json and the log hold the same input. The raw text is kept as
// sent.
func TestAssemblerCleansTheInput(t *testing.T) {
	a := NewAssembler(testRef)
	raw := "{\"command\":\"echo \\ud800 \xff \\ud83d\\ude00\"}"
	a.Add(Fragment{Index: 0, ID: "c1", Name: "bash", Args: raw})
	ev, ok := a.End(0, "").(*contract.IntentProposed)
	if !ok {
		t.Fatalf("End() = %T, want *contract.IntentProposed", ev)
	}
	if want := "{\"command\":\"echo \\ufffd \uFFFD \\ud83d\\ude00\"}"; string(ev.Input) != want || ev.RawInput != raw {
		t.Errorf("Input %q (raw %q), want %q (raw as sent)", ev.Input, ev.RawInput, want)
	}
}

// Pending returns the number of calls started and not yet ended.
func (a *Assembler) Pending() int { return len(a.open) }
