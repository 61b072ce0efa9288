package provider

import "testing"

// TestEncodeJSON: a request body keeps code as written and ends without
// the encoder's newline.
func TestEncodeJSON(t *testing.T) {
	got, err := EncodeJSON(map[string]any{"text": "if a < b && c > d {}", "n": 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"n":1,"text":"if a < b && c > d {}"}`; string(got) != want {
		t.Errorf("EncodeJSON = %s, want %s", got, want)
	}
	if _, err := EncodeJSON(func() {}); err == nil {
		t.Error("EncodeJSON of a func: no error")
	}
}
