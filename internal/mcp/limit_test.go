package mcp

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rein-agent/rein/internal/tool/builtin"
)

// A result over the limit is refused, not read: the call says why and
// names the setting, the server's tools leave and come back as after a
// crash, and the next call works. Over stdio, and over HTTP with a JSON
// body and with an event stream.
func TestMessageOverTheLimit(t *testing.T) {
	const limit = 1 << 20
	check := func(t *testing.T, m *Manager, ch changes, name string) {
		t.Helper()
		c := ch.next(t)
		if len(c.Tools) != 8 {
			t.Fatalf("change = %q with %v", c.Reason, names(c))
		}
		_, err := run(t, find(t, c, "mcp__"+name+"__big"), `{"mb":3}`)
		var tooLarge *TooLargeError
		if !errors.As(err, &tooLarge) || tooLarge.Limit != limit {
			t.Fatalf("big over the limit: %v; want a TooLargeError of %d", err, limit)
		}
		for _, want := range []string{`the MCP server "` + name + `"`, "more than 1 MiB", "mcp_max_message_bytes", "starts the server again"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("the error %q does not say %q", err, want)
			}
		}
		gone := ch.next(t)
		if len(gone.Tools) != 0 || !strings.Contains(gone.Reason, "more than 1 MiB") {
			t.Errorf("after the refusal: %q with %v", gone.Reason, names(gone))
		}
		back := ch.next(t)
		if back.Reason != "the server is back" || len(back.Tools) != 8 {
			t.Fatalf("after the restart: %q with %v", back.Reason, names(back))
		}
		if out, err := run(t, find(t, back, "mcp__"+name+"__echo"), `{"text":"again"}`); err != nil || out != "echo: again" {
			t.Errorf("echo after the restart = %q, %v", out, err)
		}
		if st := m.Status(); st[0].State != StateReady {
			t.Errorf("status after the restart = %+v", st[0])
		}
	}

	t.Run("stdio", func(t *testing.T) {
		logs := t.TempDir()
		m, ch := start(t, &Options{Servers: []Server{stdio("local", nil)}, Environ: os.Environ(), Strip: builtin.ToolEnv,
			LogDir: logs, MaxMessage: limit})
		check(t, m, ch, "local")
		m.Close()
		if log, err := os.ReadFile(filepath.Join(logs, "mcp-local.log")); err != nil || strings.Count(string(log), "rein-test: serving") != 2 {
			t.Errorf("the server did not start twice (%v):\n%s", err, log)
		}
	})
	for _, mode := range []struct {
		name string
		json bool
	}{{"http json", true}, {"http events", false}} {
		t.Run(mode.name, func(t *testing.T) {
			handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return testServer() },
				&sdk.StreamableHTTPOptions{JSONResponse: mode.json})
			srv := httptest.NewServer(handler)
			t.Cleanup(srv.Close)
			m, ch := start(t, &Options{Servers: []Server{{Name: "remote", URL: srv.URL}}, MaxMessage: limit})
			check(t, m, ch, "remote")
		})
	}
}

// readLine holds a line up to the limit, and refuses one past it.
func TestReadLine(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // the lines read, then "!" for a refusal
	}{
		{"lines", "a\nbb\r\n\nccc", []string{"a", "bb", "", "ccc"}},
		{"at the limit", "12345678\n1234\n", []string{"12345678", "1234"}},
		{"at the limit with CRLF", "12345678\r\nx\n", []string{"12345678", "x"}},
		{"past the limit", "123\n123456789\nnever\n", []string{"123", "!"}},
		{"past the limit at the end", "123456789", []string{"!"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGuard(8)
			r := bufio.NewReaderSize(strings.NewReader(tc.in), 16) // smaller than a line: pieces
			var got []string
			var buf []byte
			for {
				line, err := readLine(r, buf, g)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					if _, ok := errors.AsType[*TooLargeError](err); !ok || g.refusal() == nil {
						t.Fatalf("readLine: %v", err)
					}
					got = append(got, "!")
					break
				}
				got = append(got, string(line))
				buf = line[:0]
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("lines %q, want %q", got, tc.want)
			}
		})
	}
}

// An event stream may be long; only one event of it is bounded.
func TestLimitedBodyBoundsAnEvent(t *testing.T) {
	read := func(body string, events bool) error {
		b := &limitedBody{rc: io.NopCloser(strings.NewReader(body)), guard: newGuard(16), events: events, lineStart: true}
		_, err := io.Copy(io.Discard, smallReads{b})
		return err
	}
	many := strings.Repeat("data: 0123456\n\n", 100) + strings.Repeat("data: 01234\r\n\r\n", 100) + strings.Repeat("data: 0123\r\r", 100)
	if err := read(many, true); err != nil {
		t.Errorf("a stream of small events: %v", err)
	}
	if err := read("data: 0123456\ndata: 0123456\n\n", true); err == nil {
		t.Error("an event of 30 bytes passed a limit of 16")
	}
	if err := read(strings.Repeat("x", 16), false); err != nil {
		t.Errorf("a body at the limit: %v", err)
	}
	if err := read(strings.Repeat("x", 17), false); err == nil {
		t.Error("a body past the limit passed")
	}
}

// smallReads reads three bytes at a time, so that a limit and an event's end fall
// inside reads and across them.
type smallReads struct{ r io.Reader }

func (o smallReads) Read(p []byte) (int, error) {
	if len(p) > 3 {
		p = p[:3]
	}
	return o.r.Read(p)
}

// A server that stops reading what rein sends it, while it goes on
// sending requests rein answers, does not grow rein without end: past
// maxPendingWrites answers waiting, the connection is refused (the
// Manager then starts the server again) and the writes waiting fail.
func TestAServerThatStopsReadingIsRefused(t *testing.T) {
	serverIn, rein := io.Pipe() // nobody reads the server's input
	defer serverIn.Close()
	out, _ := io.Pipe()
	g := newGuard(DefaultMaxMessage)
	conn, err := (&stdioTransport{r: out, w: rein, guard: g}).Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	id, err := jsonrpc.MakeID(float64(1))
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, maxPendingWrites+1)
	for range maxPendingWrites + 1 {
		go func() { errs <- conn.Write(t.Context(), &jsonrpc.Response{ID: id}) }()
	}
	first := <-errs // the one past the bound; the others wait on the pipe
	var stalled *StalledError
	if !errors.As(first, &stalled) || stalled.Pending != maxPendingWrites {
		t.Fatalf("the write past the bound: %v; want a StalledError of %d", first, maxPendingWrites)
	}
	if !errors.As(g.refusal(), &stalled) || !strings.Contains(g.refusal().Error(), "does not read what rein sends it") {
		t.Errorf("the guard's refusal = %v", g.refusal())
	}
	for range maxPendingWrites {
		if err := <-errs; err == nil {
			t.Error("a write waiting on a closed connection succeeded")
		}
	}
}

// A batch is read up to maxBatch messages; a longer one ends the
// connection instead of being decoded into many times its size.
func TestABatchIsBounded(t *testing.T) {
	one := `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`
	ok := "[" + strings.TrimSuffix(strings.Repeat(one+",", maxBatch), ",") + "]"
	if msgs, err := decodeLine([]byte(ok)); err != nil || len(msgs) != maxBatch {
		t.Fatalf("a batch of %d: %d messages, %v", maxBatch, len(msgs), err)
	}
	long := "[" + strings.TrimSuffix(strings.Repeat(one+",", maxBatch+1), ",") + "]"
	if _, err := decodeLine([]byte(long)); err == nil || !strings.Contains(err.Error(), "more than the 256") {
		t.Errorf("a batch of %d: %v; want it refused", maxBatch+1, err)
	}
}
