// Package eventlog is rein's append-only event log: the single source of
// truth of a session (DESIGN.md sections 3 and 5). A [Log] is two things at
// once: an in-process bus that hands every appended envelope to its
// subscribers, and a durable [Store] that keeps the durable ones.
//
// # Sequence numbers and deltas
//
// The log assigns every durable event the next sequence number: Seq is
// dense and increasing, starting at 1, and a reopened log continues after
// the last stored event. Deltas (model.text_delta, model.reasoning_delta,
// tool_intent.delta, see [contract.IsDelta]) only travel on the bus: they
// carry Seq 0 and are never stored. What they carried reaches the log once,
// coalesced, as model.text and model.reasoning events appended by the
// kernel.
//
// # Durability
//
// Appends are buffered: [Log.Append] returns once the event is in the
// store's write buffer and on the bus, not once it is on disk. An event is
// durable when a later [Log.Sync] (or [Log.Close]) has returned nil: Sync
// flushes the buffer and fsyncs the file. The log never decides on its own
// when that matters; the caller does. Write-ahead is the caller's duty: the
// kernel calls Sync after appending what it is about to do and before doing
// it (starting a tool, writing a file), and at the end of every turn, so a
// crash can lose only events whose effects never started.
// [FileOptions.SyncEveryAppend] trades throughput for fsyncing every event.
//
// A store that fails to write or sync is broken from then on: it returns
// the first error from every later Append and Sync, so a partly written
// line is never followed by more events.
//
// # The file and crash recovery
//
// [FileStore] keeps one session's log in dir/events.jsonl, one JSON
// envelope per line, each line ending with a newline. Every line is valid
// UTF-8 JSON that strict parsers (jq) accept: what an envelope embeds
// verbatim, such as a tool intent's input, has its invalid UTF-8 and lone
// surrogate escapes replaced by U+FFFD on the way. A crash can only tear
// the end of the file, so on open:
//
//   - a last line without its trailing newline is torn, even when it
//     happens to decode: the writer always ends a line with a newline, so
//     the event was never completely written, and it was never synced;
//   - a last line that ends with a newline but is not even well-formed
//     JSON is torn too (a power cut can persist a file's length before its
//     bytes); a well-formed one that does not decode is damage, below: it
//     may be a newer rein's event, and cutting it would lose it;
//   - a writable store cuts a torn last line off (the file is truncated to
//     the end of the last good line and synced) and logs a warning with the
//     line number and the number of bytes cut; a read-only store skips it
//     with a warning and writes nothing;
//   - any other damage (a line that does not decode before the last one, a
//     sequence number that is not the previous one plus one, on any line)
//     is an error naming the file and line, and the file is left untouched:
//     that is not what a crash does, and guessing would lose events.
//
// Only writers (a new run, a resume) repair a torn tail; read-only commands
// open the store with [FileOptions.ReadOnly], or read the log with
// [ReadFile], which is tolerant where OpenFile is strict: it skips and
// reports damaged lines and visits every event that can be read.
//
// Opening reads the whole file once: the lines are decoded in batches on
// up to min(GOMAXPROCS, 8) goroutines (each with one [contract.Decoder], so
// a string that repeats from line to line is made once, not once a line)
// and checked in order on the caller's, and
// [FileOptions.Visit] hands every event over on the way, so that resuming
// a session folds its state in the same pass.
//
// # Secrets
//
// [FileOptions.Secrets] keeps credentials out of the file: each line's data
// has every one of them replaced by "[REDACTED]" before it is written. What
// the store wrote is what the bus carries: when a line was changed, the
// envelope decoded from it is what [Log.Append] returns and every
// subscriber gets, so a renderer, --json and the kernel's own state hold
// exactly what the log holds (and a line without a secret costs nothing
// more). Deltas are never stored, so their appender redacts them: a
// [Redactor] cuts secrets out of plain text, and a [StreamRedactor] out of
// a text that arrives in pieces, holding back a tail that may start a
// secret until the next piece or the end of the block.
//
// # Subscribers
//
// A subscriber never slows the log down and never misses a durable event:
// each [Subscription] has its own unbounded queue, filled by Append without
// blocking. A slow subscriber may see consecutive deltas of one stream
// coalesced into one (texts concatenated, the latest tool_intent.delta of
// an index replacing the previous one); durable events are never merged or
// dropped.
package eventlog
