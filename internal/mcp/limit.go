package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxMessage is Options.MaxMessage when it is 0: the largest
// message rein takes from a server, in bytes.
const DefaultMaxMessage = 16 << 20

// TooLargeError is a server's message that rein refused, unread past its
// limit: a line of a stdio server, the body of an HTTP server's response,
// an event of its stream.
type TooLargeError struct {
	// Limit is the limit it passed, in bytes.
	Limit int64
}

// Error says what was refused, and the setting that raises the limit.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the server sent a message of more than %s, rein's limit (mcp_max_message_bytes in your config.toml)", size(e.Limit))
}

// maxPendingWrites is how many messages to a stdio server may wait to be
// written at once. More means the server does not read what rein sends
// while it goes on sending (requests rein answers, each answer waiting):
// each waiting answer holds its message and a goroutine, so without a
// bound such a server grows rein without end.
const maxPendingWrites = 64

// maxBatch is the most messages one JSON-RPC batch may hold: a line under
// the limit could otherwise be hundreds of thousands of tiny messages,
// each decoded and held many times the line's size.
const maxBatch = 256

// StalledError is a stdio server that stopped reading what rein sends it
// while it went on sending: rein ends the connection rather than hold
// every answer.
type StalledError struct {
	// Pending is how many messages were waiting to be written.
	Pending int
}

// Error says what the server did.
func (e *StalledError) Error() string {
	return fmt.Sprintf("the server does not read what rein sends it (%d messages were waiting to be written)", e.Pending)
}

// guard is what one connection to a server reads under: its limit, and
// whether the connection was refused (a message passed the limit, or the
// server stopped reading). Once it has been, the connection is over: the
// Manager ends it, and every later read of it fails. It is safe for
// concurrent use.
type guard struct {
	limit   int64
	once    sync.Once
	why     error         // set once, before refused is closed
	refused chan struct{} // closed once the connection is refused
}

func newGuard(limit int64) *guard {
	return &guard{limit: limit, refused: make(chan struct{})}
}

// refuse records that a message passed the limit, and returns the error
// that says so.
func (g *guard) refuse() error {
	return g.refuseFor(&TooLargeError{Limit: g.limit})
}

// refuseFor records that the connection is refused for why (the first
// reason stands), and returns the reason.
func (g *guard) refuseFor(why error) error {
	g.once.Do(func() {
		g.why = why
		close(g.refused)
	})
	return g.why
}

// refusal returns why g refused the connection, nil when it has not;
// nil for a nil guard.
func (g *guard) refusal() error {
	if g == nil {
		return nil
	}
	select {
	case <-g.refused:
		return g.why
	default:
		return nil
	}
}

// stdioTransport is rein's end of a stdio server's connection: a JSON-RPC
// message a line. It is the go-sdk's IOTransport but for how it reads: a
// line is read into a buffer that grows up to the guard's limit and is
// refused as soon as it passes it, so a huge message is never held whole
// (the SDK's decoder buffers a frame twice over before it checks it), and
// the refusal is known to the Manager, which tells the call why.
type stdioTransport struct {
	r     io.Reader
	w     io.WriteCloser
	guard *guard
}

func (t *stdioTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &lineConn{w: t.w, guard: t.guard, incoming: make(chan lineRead), closed: make(chan struct{})}
	go c.read(bufio.NewReaderSize(t.r, 64<<10), t.guard)
	return c, nil
}

// lineConn is a connection of stdioTransport.
type lineConn struct {
	incoming chan lineRead
	queue    []jsonrpc.Message // the rest of a batch; only Read uses it

	writeMu sync.Mutex
	w       io.WriteCloser
	pending atomic.Int64 // messages waiting to be written, or being
	guard   *guard

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

// lineRead is a message read, or why none could be.
type lineRead struct {
	msgs []jsonrpc.Message
	err  error
}

// read reads the server's messages until its output ends, the
// connection closes, or a line is refused or does not decode. It runs in
// a goroutine of its own, so that Close unblocks Read; it ends when the
// server's output does (the Manager closes it once the program exits).
func (c *lineConn) read(r *bufio.Reader, g *guard) {
	var buf []byte
	for {
		line, err := readLine(r, buf, g)
		var msgs []jsonrpc.Message
		if err == nil {
			msgs, err = decodeLine(line)
		}
		if err == nil && len(msgs) == 0 {
			continue // a blank line
		}
		select {
		case c.incoming <- lineRead{msgs, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
		// Decoding copied what the messages keep: the buffer is reused,
		// unless a large message grew it.
		if buf = line[:0]; cap(buf) > 1<<20 {
			buf = nil
		}
	}
}

// readLine reads the next line of r into buf, without its end. A line
// longer than the guard's limit is refused as soon as it passes it, so at
// most the limit is held (and, as the buffer grows, half of it more).
func readLine(r *bufio.Reader, buf []byte, g *guard) ([]byte, error) {
	buf = buf[:0]
	for {
		chunk, err := r.ReadSlice('\n')
		n := len(buf) + len(chunk)
		content := n // the line without its end
		if err == nil {
			content = len(buf) + len(bytes.TrimRight(chunk, "\r\n"))
		}
		if int64(content) > g.limit {
			return nil, g.refuse()
		}
		if n > cap(buf) {
			grown := make([]byte, len(buf), min(max(2*cap(buf), n, 4<<10), int(g.limit)+2))
			copy(grown, buf)
			buf = grown
		}
		buf = append(buf, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == nil:
			return bytes.TrimRight(buf, "\r\n"), nil
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return buf, nil // a last line without its end; EOF comes next
		}
		return nil, err
	}
}

// decodeLine decodes a line: one message, or a batch of them (JSON-RPC's,
// which MCP dropped in 2025-06-18 but an older server may send); none for a
// blank line.
func decodeLine(line []byte) ([]jsonrpc.Message, error) {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		return nil, nil
	case line[0] != '[':
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			return nil, err
		}
		return []jsonrpc.Message{msg}, nil
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(line, &batch); err != nil {
		return nil, err
	}
	if len(batch) == 0 {
		return nil, errors.New("an empty batch")
	}
	if len(batch) > maxBatch {
		return nil, fmt.Errorf("a batch of %d messages, more than the %d rein reads", len(batch), maxBatch)
	}
	msgs := make([]jsonrpc.Message, 0, len(batch))
	for _, raw := range batch {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, msg)
	}
	return msgs, nil
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if len(c.queue) > 0 {
		msg := c.queue[0]
		c.queue = c.queue[1:]
		return msg, nil
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case in := <-c.incoming:
		if in.err != nil {
			return nil, in.err
		}
		c.queue = in.msgs[1:]
		return in.msgs[0], nil
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if n := c.pending.Add(1); n > maxPendingWrites {
		c.pending.Add(-1)
		err := c.guard.refuseFor(&StalledError{Pending: int(n - 1)})
		c.Close()
		return err
	}
	defer c.pending.Add(-1)
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.w.Write(append(data, '\n'))
	return err
}

// Close closes the server's input (it then exits, as MCP's stdio
// transport says); its output is closed by the Manager once it has.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = c.w.Close()
		close(c.closed)
	})
	return c.closeErr
}

func (c *lineConn) SessionID() string { return "" }

// limitTransport bounds the bodies of an HTTP server's responses: a JSON
// body (one message) past the guard's limit is refused, and so is an
// event of an event stream past it (the stream itself may last the whole
// session).
type limitTransport struct {
	base  http.RoundTripper
	guard *guard
}

func (t *limitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	resp.Body = &limitedBody{rc: resp.Body, guard: t.guard, events: media == "text/event-stream", lineStart: true}
	return resp, nil
}

// limitedBody is a response body read under a guard: it counts the bytes
// of the message being read (the whole body, or the event since the last
// blank line of a stream) and fails past the limit.
type limitedBody struct {
	rc     io.ReadCloser
	guard  *guard
	events bool
	n      int64 // bytes of the message so far

	lineStart, cr bool // where the stream is: at a line's start, after a \r
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if err := b.guard.refusal(); err != nil {
		return 0, err // the connection is over
	}
	n, err := b.rc.Read(p)
	if !b.events {
		b.n += int64(n)
	} else {
		b.count(p[:n])
	}
	if b.n > b.guard.limit {
		return 0, b.guard.refuse()
	}
	return n, err
}

// count counts the bytes of p into the event being read; a blank line
// (after \n, \r or \r\n) ends it.
func (b *limitedBody) count(p []byte) {
	for _, c := range p {
		b.n++
		switch {
		case c == '\n' && b.cr:
			b.cr = false
			continue // the end of a \r\n, counted at its \r
		case c == '\n' || c == '\r':
			if b.lineStart {
				b.n = 0
			}
			b.lineStart, b.cr = true, c == '\r'
		default:
			b.lineStart, b.cr = false, false
		}
	}
}

func (b *limitedBody) Close() error { return b.rc.Close() }
