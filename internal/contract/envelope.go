package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Envelope carries one event with its place in a session. It is written as
// one JSON line:
//
//	{"seq":N,"id":"…","time":"…","session":"…","run":"…","turn":N,"type":"…","cause":"…","data":{…}}
//
// Seq is dense and increasing over a session's durable events, starting at
// 1; deltas have Seq 0 and are never stored. Type always equals
// Data.EventType(). An Envelope is a value; its Data must not be modified
// once the envelope has been appended to a log.
type Envelope struct {
	Seq     uint64
	ID      string
	Time    time.Time
	Session string
	Run     string
	Turn    int
	Cause   string
	Data    Event
}

// Type returns the event type, or "" when Data is nil.
func (e Envelope) Type() string {
	if e.Data == nil {
		return ""
	}
	return e.Data.EventType()
}

// Durable reports whether the envelope belongs in the durable log.
func (e Envelope) Durable() bool { return e.Data != nil && !IsDelta(e.Type()) }

// wireEnvelope is the JSON shape of an Envelope. Field order is the order
// of DESIGN.md section 3.
type wireEnvelope struct {
	Seq     uint64          `json:"seq,omitempty"`
	ID      string          `json:"id"`
	Time    time.Time       `json:"time"`
	Session string          `json:"session"`
	Run     string          `json:"run,omitempty"`
	Turn    int             `json:"turn"`
	Type    string          `json:"type"`
	Cause   string          `json:"cause,omitempty"`
	Data    json.RawMessage `json:"data"`
}

// MarshalJSON writes the envelope in its wire shape, as one line without a
// trailing newline. Unlike json.Marshal it leaves '<', '>' and '&' as they
// are, so that a logged "go test && go vet" reads as such; call it directly
// (json.Marshal of an Envelope would escape them again).
func (e Envelope) MarshalJSON() ([]byte, error) {
	if e.Data == nil {
		return nil, errors.New("contract: marshal envelope: no data")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e.Data); err != nil {
		return nil, fmt.Errorf("contract: marshal %s data: %w", e.Type(), err)
	}
	data := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	var out bytes.Buffer
	out.Grow(len(data) + 256)
	enc = json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	err := enc.Encode(wireEnvelope{
		Seq: e.Seq, ID: e.ID, Time: e.Time, Session: e.Session, Run: e.Run,
		Turn: e.Turn, Type: e.Type(), Cause: e.Cause, Data: data,
	})
	if err != nil {
		return nil, fmt.Errorf("contract: marshal %s envelope: %w", e.Type(), err)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads an envelope. An event type this version does not know
// becomes an [*Unknown] that keeps its data verbatim; a known type whose
// data does not decode is an error.
func (e *Envelope) UnmarshalJSON(b []byte) error {
	var w wireEnvelope
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("contract: decode envelope: %w", err)
	}
	if w.Type == "" {
		return errors.New("contract: decode envelope: no type")
	}
	null := len(w.Data) == 0 || bytes.Equal(w.Data, []byte("null"))
	ev := newEvent(w.Type)
	switch {
	case ev == nil && null:
		ev = &Unknown{Type: w.Type}
	case ev == nil:
		ev = &Unknown{Type: w.Type, Data: bytes.Clone(w.Data)}
	case !null:
		if err := json.Unmarshal(w.Data, ev); err != nil {
			return fmt.Errorf("contract: decode %s data: %w", w.Type, err)
		}
	}
	*e = Envelope{
		Seq: w.Seq, ID: w.ID, Time: w.Time, Session: w.Session, Run: w.Run,
		Turn: w.Turn, Cause: w.Cause, Data: ev,
	}
	return nil
}
