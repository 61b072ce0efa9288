package anthropic

import (
	"context"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

// normalize runs Normalize over body, without any network.
func normalize(t *testing.T, ctx context.Context, body string) providertest.Result {
	t.Helper()
	p := providertest.Func(func(ctx context.Context, _ *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
		return Normalize(ctx, strings.NewReader(body), ref("req_file"))
	})
	return providertest.Collect(t, ctx, p, nil)
}

func TestNormalizeWithoutNetwork(t *testing.T) {
	r := normalize(t, t.Context(), readFile(t, "parallel.sse"))
	want := streamBody(t, "parallel.sse", readFile(t, "parallel.sse"))
	// The same events as through HTTP, but for the request id.
	got := strings.ReplaceAll(render(r), "req_file", "req_fixture")
	if d := cmp.Diff(render(want), got); d != "" {
		t.Errorf("Normalize and Stream differ (-stream +normalize):\n%s", d)
	}
}

func TestNormalizeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	r := normalize(t, ctx, readFile(t, "text.sse"))
	if d := cmp.Diff([]string{"model.started"}, types(r.Events)); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	if r.Err == nil || r.Err.Kind != contract.KindAborted {
		t.Errorf("error %v, want aborted", r.Err)
	}
}

func TestNormalizeLineEndings(t *testing.T) {
	lf := readFile(t, "thinking.sse")
	want := render(normalize(t, t.Context(), lf))
	for name, body := range map[string]string{
		"CRLF":              strings.ReplaceAll(lf, "\n", "\r\n"),
		"CR":                strings.ReplaceAll(lf, "\n", "\r"),
		"no final blank":    strings.TrimRight(lf, "\n"),
		"leading blank":     "\n\n" + lf,
		"comments anywhere": strings.ReplaceAll(lf, "\n\nevent: content_block_stop", "\n\n: keep-alive\n\nevent: content_block_stop"),
	} {
		t.Run(name, func(t *testing.T) {
			if d := cmp.Diff(want, render(normalize(t, t.Context(), body))); d != "" {
				t.Errorf("(-LF +%s):\n%s", name, d)
			}
		})
	}
}

// TestNormalizeCutOrGarbage tells a body that ends inside an event (a cut:
// stream_interrupted, retryable) from a complete event whose data is not
// JSON (garbage: unknown, not retryable).
func TestNormalizeCutOrGarbage(t *testing.T) {
	start := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"content\":[]}}\n\n"
	for _, tc := range []struct {
		name string
		body string
		want contract.ErrorKind
	}{
		{"cut inside the data", start + "event: content_block_delta\ndata: {\"type\":\"content_blo", contract.KindStreamInterrupted},
		{"cut after the event name", start + "event: content_block_delta\n", contract.KindStreamInterrupted},
		{"cut inside an error event", start + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_er", contract.KindStreamInterrupted},
		{"cut before message_stop's data", start + "event: message_stop\n", contract.KindStreamInterrupted},
		{"cut after a whole event without its blank line", start + "event: ping\ndata: {\"type\":\"ping\"}", contract.KindStreamInterrupted},
		{"garbage with its blank line", start + "event: content_block_delta\ndata: {\"type\":\"content_blo\n\n", contract.KindUnknown},
		{"garbage with CRLF blank line", start + "event: content_block_delta\r\ndata: nope\r\n\r\n", contract.KindUnknown},
		{"garbage followed by more", start + "data: nope\n\nevent: ping\ndata: {}\n\n", contract.KindUnknown},
		{"whole JSON cut short", `{"type":"message","content":[{"type":"text","te`, contract.KindStreamInterrupted},
		{"whole JSON of another shape", `{"choices":[]}`, contract.KindUnknown},
		{"whole JSON error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, contract.KindOverloaded},
		{"plain text", "Internal Server Error", contract.KindStreamInterrupted},
		{"empty", "", contract.KindStreamInterrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := normalize(t, t.Context(), tc.body)
			if r.Err == nil || r.Err.Kind != tc.want || r.Err.Retryable != tc.want.Retryable() {
				t.Errorf("error %v, want %s", r.Err, tc.want)
			}
		})
	}
}

// TestDroppedConnection: the connection closes in the middle of a chunked
// body, as a crashed proxy does: stream_interrupted, retryable.
func TestDroppedConnection(t *testing.T) {
	body := readFile(t, "parallel.sse")
	half := body[:strings.Index(body, "event: content_block_stop")]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(half)) // the client going away is not the test's failure
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer srv.Close()
	r := providertest.Collect(t, t.Context(), New(&Options{BaseURL: srv.URL}), &contract.ModelRequest{Model: testModel})
	if r.Err == nil || r.Err.Kind != contract.KindStreamInterrupted || !r.Err.Retryable {
		t.Errorf("error %v, want retryable stream_interrupted", r.Err)
	}
	if len(proposed(r.Events)) != 0 {
		t.Error("a call whose block never ended was proposed")
	}
}

// TestUnreachable: a refused connection is a retryable failure before any
// event.
func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	r := providertest.Collect(t, t.Context(), New(&Options{BaseURL: url}), &contract.ModelRequest{Model: testModel})
	if len(r.Events) != 0 || r.Err == nil || !r.Err.Retryable {
		t.Errorf("events %v, error %v; want only a retryable error", providertest.JSON(r.Events), r.Err)
	}
}

func TestStreamNilRequest(t *testing.T) {
	r := providertest.Collect(t, t.Context(), New(nil), nil)
	if r.Err == nil || r.Err.Kind != contract.KindBadRequest || r.Err.Model != DefaultModel {
		t.Errorf("error %+v, want bad_request naming the default model", r.Err)
	}
}
