package contract

import "hash/maphash"

// Decoder reads the lines of a log as [Envelope.UnmarshalJSON] does, with
// one difference that cannot be seen: the short strings that repeat from
// line to line (the session, the run, a cause naming an earlier event, a
// tool's name, a model's, an intent's id) are made once for all the lines
// it decodes rather than once a line. Reading a long log, that is most of
// the allocations (a 1,000,000-event session has some fifteen strings an
// event, most of them repeats).
//
// The zero Decoder is ready to use. A Decoder is not safe for concurrent
// use; it holds on to at most a few hundred KB of strings it has made,
// which it shares with the envelopes it returned.
type Decoder struct {
	in *interner
}

// Decode decodes the envelope line b, as UnmarshalJSON into a zero
// Envelope would: the same envelope, or the same error. The envelope
// never refers to b's memory.
func (d *Decoder) Decode(b []byte) (Envelope, error) {
	if d.in == nil {
		d.in = &interner{seed: maphash.MakeSeed()}
	}
	if env, ok := decodeFast(d.in, b); ok {
		return env, nil
	}
	return decodeSlow(b)
}

// The shape of an interner: internSlots strings, each at most internMax
// bytes long (longer ones are rarely repeated: texts, outputs).
const (
	internBits  = 10
	internSlots = 1 << internBits
	internMax   = 128
)

// interner makes strings from bytes, giving back the string it made last
// time for the same bytes when it still has it: a cache of internSlots
// slots, a string's slot chosen by its hash, a newer string taking the
// slot of an older one. A nil *interner makes a new string every time.
type interner struct {
	seed  maphash.Seed
	slots [internSlots]string
}

// string returns string(b), made earlier if it can.
func (in *interner) string(b []byte) string {
	if in == nil || len(b) == 0 || len(b) > internMax {
		return string(b)
	}
	slot := &in.slots[maphash.Bytes(in.seed, b)>>(64-internBits)]
	if *slot != string(b) { // a comparison, which does not allocate
		*slot = string(b)
	}
	return *slot
}
