package contract

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// decoderLines returns a stream of lines as a log holds them: the written
// lines of every event type, each twice, lines that take the slow path or
// do not decode, and enough lines with strings of their own (ids, tool
// names, texts of every length up to past internMax) that the decoder's
// cache must drop strings it made and make others in their slots.
func decoderLines(t testing.TB) [][]byte {
	var lines [][]byte
	for _, line := range writtenLines(t) {
		lines = append(lines, line, bytes.Clone(line))
	}
	lines = append(lines,
		[]byte(`{"seq":1,"id":"e\"1","type":"user.message","data":{"text":"hi"}}`),
		[]byte(`{"type":"user.message","data":{"text":5}}`),
		[]byte(`{"seq":1,"type":"","data":{}}`),
		[]byte(`{"seq":1,"data":{"text":"hi"},"type":"user.message"}`),
	)
	for i := range 3 * internSlots {
		text := fmt.Sprintf("%0*d", i%(internMax+8), i)
		env := Envelope{
			Seq: uint64(i + 1), ID: fmt.Sprintf("evt_%06d", i), Time: time.Date(2026, 11, 30, 5, 1, 2, i, time.UTC),
			Session: "ses_1", Run: fmt.Sprintf("run_%d", i/100), Turn: i, Cause: fmt.Sprintf("evt_%06d", i-1),
			Data: &ToolPermission{IntentID: fmt.Sprintf("int_%d", i/6), Decision: Allow, By: "rule", Rule: text, Reason: text + "é"},
		}
		b, err := env.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, b)
	}
	return lines
}

// TestDecoderDecodesAsUnmarshalJSON checks that a Decoder used for a whole
// stream of lines gives for each what UnmarshalJSON gives, errors
// included, and that nothing it gave refers to the lines: they are all
// overwritten once decoded, as log readers reuse their buffers.
func TestDecoderDecodesAsUnmarshalJSON(t *testing.T) {
	lines := decoderLines(t)
	var d Decoder
	got := make([]Envelope, len(lines))
	errs := make([]error, len(lines))
	for i, line := range lines {
		got[i], errs[i] = d.Decode(line)
	}
	for _, line := range lines {
		for i := range line {
			line[i] = 'x'
		}
	}
	for i, line := range decoderLines(t) {
		var want Envelope
		wantErr := want.UnmarshalJSON(line)
		if fmt.Sprint(errs[i]) != fmt.Sprint(wantErr) {
			t.Fatalf("Decode(%s) error = %v, want %v", line, errs[i], wantErr)
		}
		if d := cmp.Diff(want, got[i], sameDecoding); d != "" {
			t.Fatalf("Decode(%s) mismatch (-UnmarshalJSON +Decode):\n%s", line, d)
		}
	}
}

// TestDecoderSharesStrings checks what a Decoder is for: a line whose
// strings it has made before costs two allocations, the event and its id
// (new on every line of a log), where UnmarshalJSON makes every string
// anew.
func TestDecoderSharesStrings(t *testing.T) {
	line, err := Envelope{
		Seq: 8, ID: "evt_01M8NN0F0WHDJSAPN768FCV3SR", Time: time.Date(2026, 11, 30, 5, 1, 2, 345678901, time.UTC),
		Session: "ses_01M8NN0F0QP40ZTK2V43TFR6X5", Run: "run_01M8NN0F0X63M35TGRRYQYBFB3", Turn: 3,
		Cause: "evt_01M8NN0F0WHDJSAPN768FCV3SQ", Data: &ToolPermission{
			IntentID: "int_01M8NN0F0X63M35TGRRYQYBFB4", Decision: Allow, By: "rule", Rule: "bash(go test:*)",
			Reason: "Allow rule bash(go test:*) allows every command of `go test ./...`.",
		},
	}.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var d Decoder
	decode := func() {
		if _, err := d.Decode(line); err != nil {
			t.Fatal(err)
		}
	}
	decode()
	if n := testing.AllocsPerRun(100, decode); n != 2 {
		t.Errorf("Decode of a line seen before: %v allocations, want 2", n)
	}
	unmarshal := func() {
		var env Envelope
		if err := env.UnmarshalJSON(line); err != nil {
			t.Fatal(err)
		}
	}
	if n := testing.AllocsPerRun(100, unmarshal); n < 8 {
		t.Errorf("UnmarshalJSON: %v allocations, want one for the event and one for each of its 8 strings", n)
	}
}

// TestPlain8 checks the eight-byte test of str against plainASCII: every
// byte value at every place among plain bytes, and next to another.
func TestPlain8(t *testing.T) {
	for c := range 256 {
		for at := range 8 {
			for _, fill := range []byte{'a', ' ', '~', 0x1f, 0x80} {
				w := bytes.Repeat([]byte{fill}, 8)
				w[at] = byte(c)
				want := true
				for _, b := range w {
					want = want && plainASCII[b]
				}
				if got := plain8(binary.LittleEndian.Uint64(w)); got != want {
					t.Fatalf("plain8(%q) = %v, want %v", w, got, want)
				}
			}
		}
	}
}
