package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/registry"
)

// ErrToolFailed is returned by a tool whose result the server marked as
// an error; what the server said is in the output.
var ErrToolFailed = errors.New("the MCP tool reported an error")

// call calls tool name of server s with the invocation's input and writes
// its result to call.Output.
func (m *Manager) call(ctx context.Context, s *server, name string, call *registry.Call) (registry.Result, error) {
	cs, g := m.connection(s)
	if cs == nil {
		return registry.Result{}, errors.New(notConnected(s.cfg.Name))
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: call.Input})
	switch {
	case err == nil:
	case g.refusal() != nil:
		// Whether or not this call's answer was the message, the
		// connection it waited on is over.
		if _, large := errors.AsType[*TooLargeError](g.refusal()); large {
			return registry.Result{}, fmt.Errorf("the MCP server %q: %w: rein refused it unread, and starts the server again", s.cfg.Name, g.refusal())
		}
		return registry.Result{}, fmt.Errorf("the MCP server %q: %w: rein ended the connection, and starts the server again", s.cfg.Name, g.refusal())
	case ctx.Err() != nil:
		return registry.Result{}, fmt.Errorf("the call to the MCP server %q was stopped: %w", s.cfg.Name, context.Cause(ctx))
	case errors.Is(err, sdk.ErrConnectionClosed) || m.current(s) != cs || isClosed(err):
		return registry.Result{}, fmt.Errorf("the MCP server %q stopped during the call: %v", s.cfg.Name, err)
	default:
		return registry.Result{}, fmt.Errorf("the MCP server %q refused the call: %v", s.cfg.Name, err)
	}
	if err := m.render(call, res); err != nil {
		return registry.Result{}, err
	}
	if res.IsError {
		return registry.Result{}, ErrToolFailed
	}
	return registry.Result{}, nil
}

// notConnected says that the server named name is not connected.
func notConnected(name string) string {
	return fmt.Sprintf("the MCP server %q is not connected now; its tools come back when it is", name)
}

// isClosed reports whether err says the connection went away.
func isClosed(err error) bool {
	msg := err.Error()
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) ||
		strings.Contains(msg, "closed") || strings.Contains(msg, "broken pipe")
}

// render writes the content of res to call.Output: text as it is, the
// structured content as indented JSON when there is no text, images,
// audio and binary resources as files of the artifact directory with a
// line that names them.
func (m *Manager) render(call *registry.Call, res *sdk.CallToolResult) error {
	w := &lineWriter{w: call.Output}
	text := false
	for i, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			text = true
			w.block(c.Text)
		case *sdk.ImageContent:
			w.block(m.keep(call, i, "image", c.MIMEType, c.Data))
		case *sdk.AudioContent:
			w.block(m.keep(call, i, "audio", c.MIMEType, c.Data))
		case *sdk.ResourceLink:
			w.block(fmt.Sprintf("[resource link %s: %s]", c.Name, c.URI))
		case *sdk.EmbeddedResource:
			m.resource(w, call, i, c.Resource)
		default:
			w.block(fmt.Sprintf("[content of a kind rein does not show: %T]", c))
		}
	}
	if !text && res.StructuredContent != nil {
		b, err := json.MarshalIndent(res.StructuredContent, "", "  ")
		if err != nil {
			return fmt.Errorf("the structured content of the result: %w", err)
		}
		w.block(string(b))
	}
	return w.err
}

// resource writes an embedded resource: its text after its uri, or its
// blob kept as a file.
func (m *Manager) resource(w *lineWriter, call *registry.Call, i int, r *sdk.ResourceContents) {
	switch {
	case r == nil:
		w.block("[an empty resource]")
	case r.Blob != nil:
		w.block(fmt.Sprintf("[resource %s] ", r.URI) + m.keep(call, i, "resource", r.MIMEType, r.Blob))
	default:
		w.block(fmt.Sprintf("[resource %s]\n", r.URI), r.Text)
	}
}

// keep writes data, content i of a result, to the artifact directory, and
// returns the line that names the file for the output.
func (m *Manager) keep(call *registry.Call, i int, kind, mimeType string, data []byte) string {
	what := fmt.Sprintf("%s %s, %s", kind, mimeType, size(int64(len(data))))
	if m.opts.ArtifactDir == "" {
		return "[" + what + ": not kept]"
	}
	if err := os.MkdirAll(m.opts.ArtifactDir, 0o700); err != nil {
		return fmt.Sprintf("[%s: not kept: %v]", what, err)
	}
	path := filepath.Join(m.opts.ArtifactDir, id.SafeName(call.InvocationID)+"-"+strconv.Itoa(i)+extension(mimeType))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Sprintf("[%s: not kept: %v]", what, err)
	}
	return "[" + what + ": " + path + "]"
}

// extension is the file extension rein gives content of mimeType.
func extension(mimeType string) string {
	switch strings.ToLower(strings.TrimSpace(strings.Split(mimeType, ";")[0])) {
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	case "image/svg+xml":
		return ".svg"
	case "audio/wav", "audio/x-wav":
		return ".wav"
	case "audio/mpeg":
		return ".mp3"
	case "application/pdf":
		return ".pdf"
	case "application/json":
		return ".json"
	case "text/plain":
		return ".txt"
	}
	return ".bin"
}

// size says n bytes for people.
func size(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return strings.Replace(fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)), ".0 ", " ", 1)
}

// lineWriter writes blocks of output, each starting on a line of its own,
// and remembers the first error. A block goes out in pieces of at most
// len(buf): a large result's text is never copied whole on its way to the
// output (io.WriteString would, and so would the output's redaction of a
// write held back in part).
type lineWriter struct {
	w       io.Writer
	started bool
	nl      bool // the last block ended with a newline
	err     error
	buf     []byte
}

// piece is the most of a block lineWriter writes at once.
const piece = 64 << 10

// block writes a block made of parts, one after the other.
func (l *lineWriter) block(parts ...string) {
	if l.started && !l.nl {
		l.write("\n")
	}
	l.started, l.nl = true, false
	for _, s := range parts {
		l.write(s)
		if s != "" {
			l.nl = strings.HasSuffix(s, "\n")
		}
	}
}

func (l *lineWriter) write(s string) {
	for len(s) > 0 && l.err == nil {
		if l.buf == nil {
			l.buf = make([]byte, 0, min(len(s), piece))
		}
		n := min(len(s), cap(l.buf))
		_, l.err = l.w.Write(append(l.buf[:0], s[:n]...))
		s = s[n:]
	}
}
