package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// answers is a next of the asker that gives lines, then none.
func answers(lines ...string) func(ctx context.Context) (string, bool) {
	return func(ctx context.Context) (string, bool) {
		if len(lines) == 0 {
			return "", false
		}
		l := lines[0]
		lines = lines[1:]
		return l, true
	}
}

func TestPickAsker(t *testing.T) {
	q := ModelQuestion{Server: "http://127.0.0.1:11434/v1", Models: []string{"qwen3:8b", "llama3.2", "gpt-oss:20b"}}
	for _, tc := range []struct {
		name    string
		answers []string
		want    string
		err     string
	}{
		{"Enter is the first", []string{""}, "qwen3:8b", ""},
		{"a number", []string{" 3 "}, "gpt-oss:20b", ""},
		{"a name", []string{"llama3.2"}, "llama3.2", ""},
		{"asked again until it is one of them", []string{"0", "4", "mistral", "2"}, "llama3.2", ""},
		{"no answer", nil, "", "no model chosen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w strings.Builder
			got, err := pickAsker(&w, answers(tc.answers...))(t.Context(), q)
			if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
				t.Errorf("answer %q, %v; want %q, %q", got, err, tc.want, tc.err)
			}
			for _, want := range []string{"? http://127.0.0.1:11434/v1 offers 3 models; which one should rein use?", "   1  qwen3:8b\n", "   3  gpt-oss:20b\n",
				"--model NAME", "Number or name [1]: "} {
				if !strings.Contains(w.String(), want) {
					t.Errorf("the question lacks %q:\n%s", want, w.String())
				}
			}
			if n := strings.Count(w.String(), "a number from 1 to 3, or a name of the list? "); n != len(tc.answers)-1 && tc.answers != nil {
				t.Errorf("asked again %d times for %d answers:\n%s", n, len(tc.answers), w.String())
			}
		})
	}
}

// A router's hundreds of models: the first are listed, any is named;
// what the server calls its models is shown printable.
func TestPickAskerLongListAndHostileNames(t *testing.T) {
	models := []string{"evil\x1b]52;c;aGk=\x07"}
	for i := range 99 {
		models = append(models, fmt.Sprintf("vendor/model-%02d", i))
	}
	var w strings.Builder
	got, err := pickAsker(&w, answers("vendor/model-98"))(t.Context(), ModelQuestion{Server: "https://router.example/api/v1", Models: models})
	if err != nil || got != "vendor/model-98" {
		t.Fatalf("answer %q, %v", got, err)
	}
	out := w.String()
	if strings.Contains(out, "model-29") || !strings.Contains(out, "model-28") || !strings.Contains(out, "… and 70 more: type a name") {
		t.Errorf("the list is not cut at 30:\n%s", out)
	}
	if strings.Contains(out, "\x1b") || !strings.Contains(out, `evil\x1b]52;c;aGk=\x07`) {
		t.Errorf("a model's name reaches the terminal raw:\n%q", out)
	}
}
