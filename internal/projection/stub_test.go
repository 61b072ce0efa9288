package projection

import (
	"encoding/json"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// The fast reading of a call's input agrees with encoding/json wherever
// it does not give up, and gives up on what it does not read.
func TestFlatStringsAgreesWithJSON(t *testing.T) {
	tests := []struct {
		in     string
		giveUp bool
	}{
		{`{"command":"go test ./..."}`, false},
		{` { "path" : "a.go" , "offset" : 10, "limit": -2.5e3, "all": true, "x": null } `, false},
		{`{"pattern":"TODO","path":"internal"}`, false},
		{`{"command":"a","command":"b"}`, false},
		{`{"Command":"upper case key"}`, false},
		{`{}`, false},
		{`{"command":"echo \"hi\""}`, true},
		{`{"edits":[{"old":"a"}],"file_path":"x.go"}`, true},
		{`{"opts":{"path":"nested"}}`, true},
		{`{"command":"a"} trailing`, true},
		{`{"command":"a",}`, true},
		{`["command"]`, true},
		{`{"command":"caf` + "\xff" + `"}`, true},
	}
	for _, tc := range tests {
		got, ok := flatStrings([]byte(tc.in))
		if ok == tc.giveUp {
			t.Errorf("flatStrings(%s) ok = %v, want %v", tc.in, ok, !tc.giveUp)
			continue
		}
		if !ok {
			continue
		}
		want, err := decodeSubjects([]byte(tc.in))
		if err != nil {
			t.Errorf("flatStrings(%s) read what encoding/json refuses: %v", tc.in, err)
			continue
		}
		if got != want {
			t.Errorf("flatStrings(%s) = %q, want %q", tc.in, got, want)
		}
	}
}

func TestSubjectOf(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"command":"go test ./..."}`, "go test ./..."},
		{`{"command":"echo \"hi\" ` + "`x`" + `"}`, `echo "hi" 'x'`},
		{`{"command":"set -e\ngo build\ngo test"}`, "set -e…"},
		{`{"file_path":"x.go","edits":[{"old":"a","new":"b"}]}`, "x.go"},
		{`{"offset":3}`, ""},
		{`not json`, ""},
	}
	for _, tc := range tests {
		if got := subjectOf(&contract.ToolCall{Input: json.RawMessage(tc.in)}); got != tc.want {
			t.Errorf("subjectOf(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzFlatStrings holds the fast reading to encoding/json: whatever it
// reads, encoding/json reads the same.
func FuzzFlatStrings(f *testing.F) {
	for _, s := range []string{`{"command":"go test"}`, `{"path":"a","n":1}`, `{"a":true,"url":"u"}`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := flatStrings(data)
		if !ok {
			return
		}
		want, err := decodeSubjects(data)
		if err != nil {
			// flatStrings does not check the literals it skips (tru,
			// 01): a call's input is valid JSON by the time it is in the
			// conversation, and such input is no concern of a stub's.
			var v any
			if json.Unmarshal(data, &v) != nil {
				return
			}
			t.Fatalf("flatStrings(%q) read a value encoding/json refuses: %v", data, err)
		}
		if got != want {
			t.Fatalf("flatStrings(%q) = %q, want %q", data, got, want)
		}
	})
}

// A stub gives the size of the whole output, not of the text the model
// was shown, and the lines only as lines shown when the text was cut.
func TestStubSizes(t *testing.T) {
	call := &contract.ToolCall{IntentID: "i", Input: json.RawMessage(`{"command":"go test ./..."}`)}
	tests := []struct {
		text    string
		omitted int64
		want    string
	}{
		{output("r", 24_535), 2_570, "[rein: `go test ./...` (bash, seq 120): 27,105 bytes, of which the model had been shown 24,535 " +
			"(472 lines shown), elided from the context; the whole output is /s/artifacts/inv_i.txt: read it with read_file]"},
		{"a\nb\nc\n", 0, "[rein: `go test ./...` (bash, seq 120): 3 lines, 6 bytes, elided from the context; " +
			"the whole output is /s/artifacts/inv_i.txt: read it with read_file]"},
		{"a\nb", 1, "[rein: `go test ./...` (bash, seq 120): 4 bytes, of which the model had been shown 3 (2 lines shown), " +
			"elided from the context; the whole output is /s/artifacts/inv_i.txt: read it with read_file]"},
	}
	for _, tc := range tests {
		r := &contract.ToolResult{IntentID: "i", ToolName: "bash", Text: tc.text, OmittedBytes: tc.omitted, ArtifactRef: "artifacts/inv_i.txt"}
		if got := stubText(r, call, 120, "/s"); got != tc.want {
			t.Errorf("stubText(%d bytes, %d omitted) =\n%s\nwant\n%s", len(tc.text), tc.omitted, got, tc.want)
		}
	}
}
