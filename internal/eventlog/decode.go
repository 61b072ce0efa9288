package eventlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"slices"
	"sync"

	"github.com/rein-agent/rein/internal/contract"
)

// batchSize is the size of the batches of whole lines decodeLines reads a
// file in: large enough that handing a batch to a worker costs little
// next to decoding it, small enough that the batches in flight take
// little memory. A line longer than a batch gets a batch of its own.
const batchSize = 256 << 10

// minBatch is the smallest batch decodeLines reads a small file in.
const minBatch = 4 << 10

// maxWorkers bounds the goroutines that decode batches on machines with
// many cores, and with them the memory of the batches in flight (three
// per worker at most).
const maxWorkers = 8

// logLine is one line of a log file, as decodeLines hands it over.
type logLine struct {
	num      int   // its number, from 1
	off      int64 // the offset of its first byte
	size     int64 // its length, newline included
	complete bool  // it ends with a newline; only the last line may not
	last     bool  // nothing follows it in the file
	env      contract.Envelope
	err      error // why it does not decode; nil when it is not complete, as it is not decoded then
	// json says a line that does not decode is well-formed JSON all the
	// same: a whole write whose content this version cannot read (a newer
	// rein's), not one a crash cut short.
	json bool
}

// tornReason says why l is a torn last line, or "" if it is not one: a
// line without its trailing newline, or a last line that is not even
// well-formed JSON (a crash, or a power cut that persisted the file's
// length before its bytes, can leave either). A well-formed last line that
// does not decode is not torn: a whole line that this version cannot read
// must not be cut off.
func (l *logLine) tornReason() string {
	switch {
	case !l.complete:
		return "no trailing newline"
	case l.err != nil && l.last && !l.json:
		return l.err.Error()
	}
	return ""
}

// decoded is what a worker makes of one line of a batch.
type decoded struct {
	env      contract.Envelope
	err      error
	size     int
	complete bool
	json     bool // see logLine.json
}

// batch is a run of whole lines of the file; the last one lacks its
// newline only at the end of the file. Batches and their buffers are
// recycled once consumed.
type batch struct {
	buf   []byte
	eof   bool  // buf ends the file
	err   error // the read error that came after buf
	lines []decoded
	done  chan struct{} // receives once lines is filled
}

// decodeLines reads r to its end and calls fn with each of its lines in
// file order, on the calling goroutine. The lines are decoded ahead, in
// batches, by min(GOMAXPROCS, 8) workers. It stops at the first error fn
// returns, or at a read error ("<prefix>: read line N: <cause>", N being
// the line it was reading), and returns it. No goroutine it starts
// outlives it. The *logLine is only valid during the call to fn.
//
// A regular file smaller than a batch (a session's log, mostly) is read
// into a buffer its size, not batchSize: opening a new, empty log
// allocates almost nothing. (A pipe says its size is 0.)
func decodeLines(r io.Reader, prefix string, fn func(*logLine) error) error {
	size := batchSize
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() < batchSize {
			// One byte more than the file, so that the read that finds
			// its end needs no larger buffer; a file that grew since is
			// read all the same, its buffer grown.
			size = max(int(fi.Size())+1, minBatch)
		}
	}
	return decodeBatches(r, size, prefix, fn)
}

// decodeBatches is decodeLines with batches of about size bytes.
func decodeBatches(r io.Reader, size int, prefix string, fn func(*logLine) error) error {
	workers := min(runtime.GOMAXPROCS(0), maxWorkers)
	var (
		order = make(chan *batch, 2*workers) // batches in file order, to consume
		work  = make(chan *batch, workers)   // batches to decode
		free  = make(chan *batch, 3*workers+2)
		quit  = make(chan struct{})
		wg    sync.WaitGroup
	)
	defer func() {
		close(quit)
		wg.Wait()
	}()
	wg.Go(func() {
		defer close(order)
		defer close(work)
		rd := batchReader{r: r, size: size}
		for {
			var b *batch
			select {
			case b = <-free:
			default:
				b = &batch{done: make(chan struct{}, 1)}
			}
			rd.next(b)
			for _, ch := range []chan *batch{order, work} {
				select {
				case ch <- b:
				case <-quit:
					return
				}
			}
			if b.eof || b.err != nil {
				return
			}
		}
	})
	for range workers {
		wg.Go(func() {
			// One decoder a worker: the strings that repeat from line to
			// line of a log are made once per worker, not once per line.
			var dec contract.Decoder
			for {
				select {
				case b, ok := <-work:
					if !ok {
						return
					}
					b.decode(&dec)
					b.done <- struct{}{}
				case <-quit:
					return
				}
			}
		})
	}
	var l logLine
	for b := range order {
		<-b.done
		for i, d := range b.lines {
			l = logLine{
				num: l.num + 1, off: l.off + l.size, size: int64(d.size), complete: d.complete,
				last: b.eof && i == len(b.lines)-1, env: d.env, err: d.err, json: d.json,
			}
			if err := fn(&l); err != nil {
				return err
			}
		}
		if b.err != nil {
			return fmt.Errorf("%s: read line %d: %w", prefix, l.num+1, b.err)
		}
		// Let go of the events before the batch waits to be reused.
		clear(b.lines)
		select {
		case free <- b:
		default:
		}
	}
	return nil
}

// decode decodes the lines of the batch into b.lines with dec.
func (b *batch) decode(dec *contract.Decoder) {
	b.lines = b.lines[:0]
	for rest := b.buf; len(rest) > 0; {
		n := bytes.IndexByte(rest, '\n') + 1
		if n == 0 {
			// The end of the file, torn: not decoded.
			b.lines = append(b.lines, decoded{size: len(rest)})
			return
		}
		b.lines = append(b.lines, decoded{size: n, complete: true})
		d := &b.lines[len(b.lines)-1]
		if d.env, d.err = dec.Decode(rest[:n]); d.err != nil {
			d.json = json.Valid(rest[:n])
		}
		rest = rest[n:]
	}
}

// batchReader cuts what it reads into batches of whole lines.
type batchReader struct {
	r     io.Reader
	size  int    // the size of a batch
	carry []byte // the start of a line, read with the previous batch
}

// next fills b.buf with the next whole lines, rd.size bytes or a little
// less, or with all that is left up to the end of the file (b.eof) or up
// to a read error (b.err). A batch never ends at the last byte read: so
// when it is not the last batch, at least one byte follows it, and the
// last line of the file is always in the last batch.
func (rd *batchReader) next(b *batch) {
	buf := append(b.buf[:0], rd.carry...)
	buf = slices.Grow(buf, max(0, rd.size-len(buf)))
	rd.carry = rd.carry[:0]
	b.eof, b.err = false, nil
	scanned := 0 // buf[:scanned] has no newline that could end the batch
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, cap(buf))
		}
		n, err := rd.r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case errors.Is(err, io.EOF):
			b.buf, b.eof = buf, true
			return
		case err != nil:
			b.buf, b.err = buf[:bytes.LastIndexByte(buf, '\n')+1], err
			return
		case len(buf) < cap(buf):
			continue
		}
		if k := bytes.LastIndexByte(buf[scanned:len(buf)-1], '\n'); k >= 0 {
			k += scanned
			rd.carry = append(rd.carry, buf[k+1:]...)
			b.buf = buf[:k+1]
			return
		}
		scanned = len(buf) - 1
	}
}
