package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestArgWriter(t *testing.T) {
	str := func(s string) *string { return &s }
	yes := true
	num := func(s string) json.RawMessage { return json.RawMessage(s) }
	for _, tc := range []struct {
		name   string
		args   []partialArg
		want   string // the whole text written
		broken string // part of the error when the writer breaks
	}{
		{name: "no argument at all", want: `{}`},
		{
			name: "a string in pieces",
			args: []partialArg{
				{JSONPath: "$.s", StringValue: str("a"), WillContinue: true},
				{JSONPath: "$.s", StringValue: str("b"), WillContinue: true},
				{JSONPath: "$.s", StringValue: str("c")},
			},
			want: `{"s":"abc"}`,
		},
		{
			name: "a string left open is closed at the end",
			args: []partialArg{{JSONPath: "$.s", StringValue: str("a"), WillContinue: true}},
			want: `{"s":"a"}`,
		},
		{
			name: "escapes: quotes, backslashes, controls, invalid UTF-8; <>& kept",
			args: []partialArg{{JSONPath: "$.s", StringValue: str("\"\\\n\r\t\x01\xff<é>&\u2028")}},
			want: `{"s":"\"\\\n\r\t\u0001\ufffd<é>&` + "\u2028" + `"}`,
		},
		{
			name: "scalars of every kind",
			args: []partialArg{
				{JSONPath: "$.n", NumberValue: num("1.5e3")},
				{JSONPath: "$.b", BoolValue: &yes},
				{JSONPath: "$.z", NullValue: num(`"NULL_VALUE"`)},
				{JSONPath: "$.e"},
			},
			want: `{"n":1.5e3,"b":true,"z":null,"e":""}`,
		},
		{
			name: "nested objects and arrays of objects",
			args: []partialArg{
				{JSONPath: "$.q[0].text", StringValue: str("pick")},
				{JSONPath: "$.q[0].options[0].label", StringValue: str("a")},
				{JSONPath: "$.q[0].options[1].label", StringValue: str("b"), WillContinue: true},
				{JSONPath: "$.q[0].options[1].label", StringValue: str("c")},
				{JSONPath: "$.q[1].text", StringValue: str("next")},
				{JSONPath: "$.done", BoolValue: &yes},
			},
			want: `{"q":[{"text":"pick","options":[{"label":"a"},{"label":"bc"}]},{"text":"next"}],"done":true}`,
		},
		{
			name: "arrays of arrays",
			args: []partialArg{
				{JSONPath: "$.m[0][0]", NumberValue: num("1")},
				{JSONPath: "$.m[0][1]", NumberValue: num("2")},
				{JSONPath: "$.m[1][0]", NumberValue: num("3")},
			},
			want: `{"m":[[1,2],[3]]}`,
		},
		{
			name: "bracketed member names",
			args: []partialArg{
				{JSONPath: `$['a.b']["c d"]`, StringValue: str("x")},
				{JSONPath: `$['it\'s']`, StringValue: str("y")},
				{JSONPath: `$["\u00e9"]`, StringValue: str("z")},
			},
			want: `{"a.b":{"c d":"x"},"it's":"y","é":"z"}`,
		},
		{
			name:   "a container entered again",
			args:   []partialArg{{JSONPath: "$.a.x", NumberValue: num("1")}, {JSONPath: "$.b", NumberValue: num("2")}, {JSONPath: "$.a.y", NumberValue: num("3")}},
			broken: `member "a" written twice`,
		},
		{
			name:   "an index skipped",
			args:   []partialArg{{JSONPath: "$.a[0]", NumberValue: num("1")}, {JSONPath: "$.a[2]", NumberValue: num("2")}},
			broken: "index 2 out of order (next is 1)",
		},
		{
			name:   "a member name inside an array",
			args:   []partialArg{{JSONPath: "$.a[0]", NumberValue: num("1")}, {JSONPath: "$.a.b", NumberValue: num("2")}},
			broken: "a member name inside an array",
		},
		{
			name:   "an index at the root",
			args:   []partialArg{{JSONPath: "$[0]", NumberValue: num("1")}},
			broken: "an array index inside an object",
		},
		{
			name:   "a value for the root",
			args:   []partialArg{{JSONPath: "$", NumberValue: num("1")}},
			broken: "names the root",
		},
		{
			name:   "a path that is not one",
			args:   []partialArg{{JSONPath: "command", StringValue: str("ls")}},
			broken: "does not start at $",
		},
		{
			name:   "a bad index",
			args:   []partialArg{{JSONPath: "$.a[x]", StringValue: str("ls")}},
			broken: "bad index",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w argWriter
			var b strings.Builder
			for i := range tc.args {
				b.WriteString(w.write(&tc.args[i]))
			}
			b.WriteString(w.close())
			if tc.broken != "" {
				if w.broken == nil || !strings.Contains(w.broken.Error(), tc.broken) {
					t.Fatalf("broken = %v, want an error containing %q (text %s)", w.broken, tc.broken, b.String())
				}
				return
			}
			if w.broken != nil {
				t.Fatalf("broken: %v", w.broken)
			}
			if b.String() != tc.want {
				t.Errorf("text = %s\nwant   %s", b.String(), tc.want)
			}
			if !json.Valid([]byte(b.String())) {
				t.Errorf("text %s is not valid JSON", b.String())
			}
		})
	}
}

func TestParsePath(t *testing.T) {
	for _, tc := range []struct {
		path string
		want []segment
		bad  bool
	}{
		{path: "$.a", want: []segment{{key: "a", index: -1}}},
		{path: "$.a.b[3].c", want: []segment{{key: "a", index: -1}, {key: "b", index: -1}, {index: 3}, {key: "c", index: -1}}},
		{path: `$['a']["b"][0]`, want: []segment{{key: "a", index: -1}, {key: "b", index: -1}, {index: 0}}},
		{path: `$['a\\b\n']`, want: []segment{{key: "a\\b\n", index: -1}}},
		{path: "$", bad: true},
		{path: "", bad: true},
		{path: "$.", bad: true},
		{path: "$..a", bad: true},
		{path: "$[", bad: true},
		{path: "$[-1]", bad: true},
		{path: "$[+1]", bad: true},
		{path: "$['a'", bad: true},
		{path: "$['a]", bad: true},
		{path: `$['\u00']`, bad: true},
		{path: "$a", bad: true},
	} {
		t.Run(tc.path, func(t *testing.T) {
			got, err := parsePath(tc.path)
			if tc.bad {
				if err == nil {
					t.Errorf("parsePath(%q) = %v, want an error", tc.path, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(segment{})); d != "" {
				t.Errorf("parsePath(%q) mismatch (-want +got):\n%s", tc.path, d)
			}
		})
	}
}
