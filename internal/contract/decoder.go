package contract

import "encoding/binary"

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
		d.in = new(interner)
	}
	if env, ok := decodeFast(d.in, b); ok {
		d.in.lastID = env.ID
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
	slots [internSlots]string
	// lastID is the id of the line decoded last, which is often the
	// cause of the next.
	lastID string
}

// string returns string(b), made earlier if it can.
func (in *interner) string(b []byte) string {
	if in == nil || len(b) == 0 || len(b) > internMax {
		return string(b)
	}
	slot := &in.slots[hash(b)>>(64-internBits)]
	if *slot != string(b) { // a comparison, which does not allocate
		*slot = string(b)
	}
	return *slot
}

// cause returns string(b) for the cause of an envelope: the id of the line
// before when it is that one, else as string does.
func (in *interner) cause(b []byte) string {
	if in != nil && in.lastID == string(b) {
		return in.lastID
	}
	return in.string(b)
}

// hash is a quick hash of b for the slot of an interner: its length and
// its first, middle and last eight bytes (all of them up to 24), mixed by
// multiplication. Strings that differ only elsewhere share a slot, which
// costs a string made again, never a wrong one.
func hash(b []byte) uint64 {
	const k1, k2, k3 = 0x9e3779b97f4a7c15, 0xc2b2ae3d27d4eb4f, 0x165667b19e3779f9
	n := len(b)
	var first, middle, last uint64
	if n >= 8 {
		first = binary.LittleEndian.Uint64(b)
		middle = binary.LittleEndian.Uint64(b[n/2-4:])
		last = binary.LittleEndian.Uint64(b[n-8:])
	} else {
		for _, c := range b {
			first = first<<8 | uint64(c)
		}
	}
	h := (first ^ uint64(n)) * k1
	h = (h ^ h>>29 ^ middle) * k2
	return (h ^ h>>32 ^ last) * k3
}
