package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/tether"
)

// inputGrace is how long a stdio server has to exit once its input is
// closed, before it is sent SIGTERM; closeGrace how long it has then,
// before its process group is killed.
const (
	inputGrace = 200 * time.Millisecond
	closeGrace = 2 * time.Second
)

// process is a running stdio server: the program rein started in its own
// process group, tethered to rein (package tether), with pipes rein holds
// the other ends of.
type process struct {
	cmd  *exec.Cmd
	in   *os.File // its standard input, written by rein
	out  *os.File // its standard output, read by rein
	done chan struct{}
	err  error // how it exited, once done is closed
}

// connect returns the transport to s, whose messages are read under g,
// and, for a stdio server, the process it started (nil otherwise).
func (m *Manager) connect(ctx context.Context, s Server, g *guard) (sdk.Transport, *process, error) {
	if m.opts.Connect != nil {
		t, err := m.opts.Connect(ctx, s)
		return t, nil, err
	}
	if s.URL != "" {
		return m.httpTransport(s, g), nil, nil
	}
	p, err := m.start(s)
	if err != nil {
		return nil, nil, err
	}
	// Closing the session closes the server's input, and it exits; rein
	// closes its output only then (stop), so that what the server writes
	// as it goes never meets a broken pipe.
	return &stdioTransport{r: p.out, w: p.in, guard: g}, p, nil
}

// start starts the program of stdio server s, its standard error appended
// to its log file.
func (m *Manager) start(s Server) (*process, error) {
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = m.serverDir(s)
	cmd.Env = m.serverEnv(s)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A server that ignores the end of its input, and what it started in
	// its group, die with rein all the same, kill -9 included.
	if err := tether.Wrap(cmd); err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("mcp: %w", err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	if log := m.serverLog(s.Name); log != nil {
		log.mark(fmt.Sprintf("--- rein starts %s at %s\n", s.Name, time.Now().UTC().Format(time.RFC3339)))
		cmd.Stderr = log
		// A process the server left behind may hold its stderr open:
		// Wait does not wait for it longer than this.
		cmd.WaitDelay = closeGrace
	}
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("starting %s: %w", s.Command, err)
	}
	p := &process{cmd: cmd, in: inW, out: outR, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		// The program is gone; what it left in its group goes with it,
		// and rein's end of its output then reads EOF.
		killGroup(cmd.Process.Pid)
		close(p.done)
	}()
	return p, nil
}

// stop ends p as MCP's stdio transport says: its input is closed; a
// program still running after inputGrace gets SIGTERM, and after
// closeGrace more its group is killed. It returns once the program has
// exited.
func (p *process) stop() {
	if p == nil {
		return
	}
	p.in.Close()
	select {
	case <-p.done:
	case <-time.After(inputGrace):
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(closeGrace):
			killGroup(p.cmd.Process.Pid)
			<-p.done
		}
	}
	p.out.Close()
}

// ended is closed once p's program has exited; nil (never ready) for no
// process.
func (p *process) ended() <-chan struct{} {
	if p == nil {
		return nil
	}
	return p.done
}

// exited says how p ended, waiting a moment for it: the connection may
// close just before the program is reaped. Empty when it is still running.
func (p *process) exited() string {
	if p == nil {
		return ""
	}
	select {
	case <-p.done:
	case <-time.After(500 * time.Millisecond):
		return ""
	}
	if p.err == nil {
		return "exit status 0"
	}
	return p.err.Error()
}

// killGroup kills every process of the group pgid.
func killGroup(pgid int) {
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		syscall.Kill(pgid, syscall.SIGKILL)
	}
}

// serverDir is the working directory of stdio server s.
func (m *Manager) serverDir(s Server) string {
	switch {
	case s.Cwd == "":
		return m.opts.Dir
	case filepath.IsAbs(s.Cwd):
		return s.Cwd
	}
	return filepath.Join(m.opts.Dir, s.Cwd)
}

// serverEnv is the environment of stdio server s: rein's, stripped like a
// tool's, with the variables of its own configuration set over it.
func (m *Manager) serverEnv(s Server) []string {
	names := slices.Sorted(maps.Keys(s.Env))
	var env []string
	if m.opts.Strip != nil {
		env = m.opts.Strip(m.opts.Environ, append(slices.Clone(m.opts.Passthrough), names...), m.opts.Secrets)
	} else {
		for _, kv := range m.opts.Environ {
			if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "HOME=") {
				env = append(env, kv)
			}
		}
	}
	env = slices.DeleteFunc(env, func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		_, set := s.Env[name]
		return set
	})
	for _, k := range names {
		env = append(env, k+"="+s.Env[k])
	}
	return env
}

// logPath is the file the standard error of server name goes to; empty
// when there is none.
func (m *Manager) logPath(name string) string {
	if m.opts.LogDir == "" || m.opts.Connect != nil {
		return ""
	}
	return filepath.Join(m.opts.LogDir, "mcp-"+id.SafeName(name)+".log")
}

// httpTransport is the streamable HTTP transport to s, sending its
// headers and bearer token with every request, reading its responses
// under g.
func (m *Manager) httpTransport(s Server, g *guard) sdk.Transport {
	h := http.Header{}
	for k, v := range s.Headers {
		h.Set(k, v)
	}
	if s.BearerEnv != "" {
		if tok := m.getenv(s.BearerEnv); tok != "" {
			h.Set("Authorization", "Bearer "+tok)
		}
	}
	origin, _ := url.Parse(s.URL) // checked by the configuration
	client := &http.Client{Transport: &limitTransport{guard: g,
		base: &headerTransport{base: http.DefaultTransport, header: h, origin: origin}}}
	// The SDK's own bound on an event is past rein's, which refuses first
	// and says why.
	return &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: client, MaxEventSize: int(g.limit) + 64<<10}
}

// getenv looks name up in Options.Environ.
func (m *Manager) getenv(name string) string {
	for _, kv := range slices.Backward(m.opts.Environ) {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// headerTransport adds headers to each request to the server's origin,
// and to no other: a redirect elsewhere gets none of them (they carry the
// server's credentials).
type headerTransport struct {
	base   http.RoundTripper
	header http.Header
	origin *url.URL
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.origin == nil || r.URL.Scheme != t.origin.Scheme || r.URL.Host != t.origin.Host {
		return t.base.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	for k, v := range t.header {
		r.Header[k] = v
	}
	return t.base.RoundTrip(r)
}
