package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// sameDecoding holds the options that compare two decoded envelopes
// exactly: times by instant, location name and offset (cmp would otherwise
// use Time.Equal, which ignores the location), everything else as it is.
var sameDecoding = cmp.Options{
	cmpopts.IgnoreFields(ProviderError{}, "Err"),
	cmp.Comparer(func(a, b time.Time) bool {
		an, ao := a.Zone()
		bn, bo := b.Zone()
		return a.Equal(b) && an == bn && ao == bo && a.Location().String() == b.Location().String()
	}),
}

// writtenLines returns lines as MarshalJSON writes them: every event type,
// with times in UTC, in a fixed zone and zero, and text that is not ASCII.
func writtenLines(t testing.TB) [][]byte {
	t.Helper()
	times := []time.Time{
		time.Date(2026, 11, 30, 5, 1, 2, 345678901, time.UTC),
		time.Date(2026, 11, 30, 5, 1, 2, 0, time.FixedZone("", 5*3600+30*60)),
		{},
	}
	var lines [][]byte
	for i, ev := range samples() {
		env := Envelope{
			Seq: uint64(i + 1), ID: "evt_01M8NN0F0WHDJSAPN768FCV3SR", Time: times[i%len(times)],
			Session: "ses_01M8NN0F0QP40ZTK2V43TFR6X5", Run: "run_01M8NN0F0X63M35TGRRYQYBFB3",
			Turn: i, Cause: "evt_ü", Data: ev,
		}
		b, err := env.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, b)
	}
	lines = append(lines,
		[]byte(`{"seq":9,"id":"e","time":"2026-11-30T05:01:02Z","session":"s","turn":0,"type":"tool.sandboxed","data":{"profile":"strict","n":[1,2]}}`),
		[]byte(`{"seq":9,"id":"e","time":"2026-11-30T05:01:02Z","session":"s","turn":0,"type":"tool.sandboxed","data":null}`),
		[]byte(`{"seq":9,"type":"user.message"}`),
		[]byte(` { "seq" : 18446744073709551615 , "turn" : 9223372036854775807 , "type" : "user.message" , "data" : { "text" : "a\nb" } } `+"\n"),
	)
	return lines
}

// decodeBoth decodes line on both paths and fails unless the fast path
// took it and agrees with the slow one.
func decodeBoth(t *testing.T, line []byte) Envelope {
	t.Helper()
	fast, ok := decodeFast(nil, line)
	if !ok {
		t.Fatalf("decodeFast(%s) gave up", line)
	}
	slow, err := decodeSlow(line)
	if err != nil {
		t.Fatalf("decodeSlow(%s): %v", line, err)
	}
	if d := cmp.Diff(slow, fast, sameDecoding); d != "" {
		t.Fatalf("decodeFast(%s) mismatch (-slow +fast):\n%s", line, d)
	}
	return fast
}

func TestFastPathTakesWrittenLines(t *testing.T) {
	for i, line := range writtenLines(t) {
		t.Run(fmt.Sprint(i), func(t *testing.T) { decodeBoth(t, line) })
	}
}

func TestFastPathFallsBack(t *testing.T) {
	const ok = `{"seq":1,"id":"e","time":"2026-11-30T05:01:02Z","session":"s","turn":0,"type":"user.message","data":{"text":"hi"}}`
	tests := []struct{ name, line string }{
		{"unknown key", `{"seq":1,"extra":2,"type":"user.message","data":{"text":"hi"}}`},
		{"key in another case", `{"Seq":1,"type":"user.message","data":{"text":"hi"}}`},
		{"escaped key", `{"s\u0065q":1,"type":"user.message","data":{"text":"hi"}}`},
		{"escape in a string", `{"seq":1,"id":"e\"1","type":"user.message","data":{"text":"hi"}}`},
		{"control character in a string", "{\"seq\":1,\"id\":\"e\t1\",\"type\":\"user.message\",\"data\":{}}"},
		{"invalid UTF-8", "{\"seq\":1,\"id\":\"e\xff\",\"type\":\"user.message\",\"data\":{}}"},
		{"negative seq", `{"seq":-1,"type":"user.message","data":{}}`},
		{"negative turn", `{"seq":1,"turn":-1,"type":"user.message","data":{}}`},
		{"exponent", `{"seq":1e3,"type":"user.message","data":{}}`},
		{"fraction", `{"seq":1.0,"type":"user.message","data":{}}`},
		{"leading zero", `{"seq":01,"type":"user.message","data":{}}`},
		{"seq out of range", `{"seq":18446744073709551616,"type":"user.message","data":{}}`},
		{"turn out of range", `{"turn":9223372036854775808,"type":"user.message","data":{}}`},
		{"null seq", `{"seq":null,"type":"user.message","data":{}}`},
		{"null id", `{"id":null,"type":"user.message","data":{}}`},
		{"duplicate key", `{"seq":1,"seq":2,"type":"user.message","data":{}}`},
		{"data not last", `{"seq":1,"data":{"text":"hi"},"type":"user.message"}`},
		{"trailing bytes", ok + `x`},
		{"two objects", ok + ok},
		{"no type", `{"seq":1,"data":{}}`},
		{"empty type", `{"seq":1,"type":"","data":{}}`},
		{"empty object", `{}`},
		{"not an object", `[1]`},
		{"truncated", ok[:len(ok)-1]},
		{"data missing its value", `{"type":"user.message","data":}`},
		{"data of the wrong kind", `{"type":"user.message","data":{"text":5}}`},
		{"invalid unknown data", `{"type":"x.y","data":{"a":}}`},
		{"time with a space", `{"time":"2026-11-30 05:01:02Z","type":"user.message","data":{}}`},
		{"time without a zone", `{"time":"2026-11-30T05:01:02","type":"user.message","data":{}}`},
		{"time with a one-digit hour", `{"time":"2026-11-30T5:01:02Z","type":"user.message","data":{}}`},
		{"time zone hour out of range", `{"time":"2026-11-30T05:01:02+24:00","type":"user.message","data":{}}`},
		{"time with an empty fraction", `{"time":"2026-11-30T05:01:02.Z","type":"user.message","data":{}}`},
		{"day out of range", `{"time":"2026-02-30T05:01:02Z","type":"user.message","data":{}}`},
		{"null time", `{"time":null,"type":"user.message","data":{}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := decodeFast(nil, []byte(tc.line)); ok {
				t.Errorf("decodeFast(%s) took a line it must leave to encoding/json", tc.line)
			}
			want, wantErr := decodeSlow([]byte(tc.line))
			var got Envelope
			err := got.UnmarshalJSON([]byte(tc.line))
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("UnmarshalJSON() error = %v, want %v", err, wantErr)
			}
			if d := cmp.Diff(want, got, sameDecoding); err == nil && d != "" {
				t.Errorf("UnmarshalJSON() mismatch (-want +got):\n%s", d)
			}
		})
	}
}

// TestDecodeKeepsNoInput overwrites the input once decoded: the envelope
// must not change, since log readers reuse their buffers.
func TestDecodeKeepsNoInput(t *testing.T) {
	for i, line := range writtenLines(t) {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			want := decodeBoth(t, line)
			buf := bytes.Clone(line)
			var got Envelope
			if err := got.UnmarshalJSON(buf); err != nil {
				t.Fatal(err)
			}
			for i := range buf {
				buf[i] = 'x'
			}
			if d := cmp.Diff(want, got, sameDecoding); d != "" {
				t.Errorf("envelope changed with its input (-want +got):\n%s", d)
			}
		})
	}
}

// FuzzEnvelopeFast checks the fast path against encoding/json: whenever
// decodeFast takes a line, decodeSlow must accept it too and give exactly
// the same envelope.
func FuzzEnvelopeFast(f *testing.F) {
	for _, line := range writtenLines(f) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		fast, ok := decodeFast(nil, line)
		if !ok {
			return
		}
		slow, err := decodeSlow(line)
		if err != nil {
			t.Fatalf("decodeFast took %q, which encoding/json refuses: %v", line, err)
		}
		if d := cmp.Diff(slow, fast, sameDecoding); d != "" {
			t.Fatalf("decodeFast(%q) mismatch (-slow +fast):\n%s", line, d)
		}
		if _, err := json.Marshal(fast); err != nil {
			t.Fatalf("an envelope decodeFast took does not encode: %v", err)
		}
		// A Decoder gives the same, whether it makes the strings (the
		// first time) or has them already.
		var d Decoder
		for range 2 {
			env, err := d.Decode(line)
			if err != nil {
				t.Fatalf("Decode(%q): %v", line, err)
			}
			if d := cmp.Diff(slow, env, sameDecoding); d != "" {
				t.Fatalf("Decode(%q) mismatch (-slow +Decode):\n%s", line, d)
			}
		}
	})
}

// TestParseTimeAsTimeParse checks parseTime, and its own parser of UTC
// times, against time.Parse and time.Time's UnmarshalJSON at the edges:
// leap days, ends of months, fields out of range, fractions of every
// length.
func TestParseTimeAsTimeParse(t *testing.T) {
	times := []string{
		"2026-11-30T05:01:02Z", "2026-11-30T05:01:02.1Z", "2026-11-30T05:01:02.123456789Z",
		"2026-11-30T05:01:02.1234567891Z", "2026-11-30T05:01:02.999999999999Z", "2026-11-30T05:01:02.000000000100Z",
		"2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2000-02-29T12:00:00Z", "1900-02-29T12:00:00Z",
		"2026-04-30T23:59:59Z", "2026-04-31T00:00:00Z", "2026-12-31T23:59:59.5Z", "2026-01-32T00:00:00Z",
		"2026-00-10T00:00:00Z", "2026-13-10T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-01T24:00:00Z",
		"2026-01-01T00:60:00Z", "2026-01-01T00:00:60Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z",
		"2026-11-30T05:01:02+05:30", "2026-11-30T05:01:02.25-08:00",
	}
	for _, v := range times {
		t.Run(v, func(t *testing.T) {
			want, err := time.Parse(time.RFC3339Nano, v)
			var unmarshalled time.Time
			uerr := unmarshalled.UnmarshalJSON([]byte(`"` + v + `"`))
			got, ok := parseTime([]byte(v), true)
			if ok != (err == nil) || ok != (uerr == nil) {
				t.Fatalf("parseTime() ok = %v; time.Parse error %v, UnmarshalJSON error %v", ok, err, uerr)
			}
			if d := cmp.Diff(want, got, sameDecoding); ok && d != "" {
				t.Errorf("parseTime() mismatch (-time.Parse +parseTime):\n%s", d)
			}
		})
	}
}
