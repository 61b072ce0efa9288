package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rein-agent/rein/internal/registry"
)

// Manager runs a session's MCP servers: each in a goroutine of its own
// that starts it, reports its tools, notices when it stops and starts it
// again after a capped backoff.
type Manager struct {
	opts   Options
	logger *slog.Logger

	// emit serialises the reports to OnChange, and the state updates
	// that go with them, so that a server's changes arrive in order.
	emit sync.Mutex

	mu      sync.Mutex
	servers []*server
	logs    map[string]*serverLog
	cancel  context.CancelFunc
	closed  bool
	wg      sync.WaitGroup
}

// server is one server's configuration and what it is doing now; the
// fields after cfg are guarded by the Manager's mu.
type server struct {
	cfg     Server
	first   chan struct{} // closed once its first attempt has settled
	settled bool

	state   string
	tools   []registry.Tool
	skipped []string
	err     string
	since   time.Time
	session *sdk.ClientSession
	guard   *guard // what session reads under
	// relisting says a listing of the tools is under way, again that the
	// server said they changed since it began.
	relisting, again bool
}

// New returns a Manager of opts' servers; none is started before Start.
func New(opts *Options) *Manager {
	m := &Manager{opts: *opts, logger: opts.Logger}
	if m.logger == nil {
		m.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	m.opts.Backoff = m.opts.Backoff.orDefault()
	now := time.Now()
	for _, s := range opts.Servers {
		m.servers = append(m.servers, &server{cfg: s, first: make(chan struct{}), state: StateStarting, since: now})
	}
	return m
}

// Start starts every server in the background and returns at once: a
// slow server never delays the session, its tools join when it is ready.
// The servers run until Close (or until ctx is done).
func (m *Manager) Start(ctx context.Context) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cancel != nil || m.closed {
		return
	}
	ctx, m.cancel = context.WithCancel(ctx)
	for _, s := range m.servers {
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			m.run(ctx, s)
		}()
	}
}

// Settled waits until every server is ready or has failed its first
// attempt, or until ctx is done.
func (m *Manager) Settled(ctx context.Context) error {
	for _, s := range m.servers {
		select {
		case <-s.first:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Status returns what each server is doing, in the order of the
// configuration.
func (m *Manager) Status() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Status, 0, len(m.servers))
	for _, s := range m.servers {
		st := Status{Name: s.cfg.Name, Source: s.cfg.Source, Transport: s.cfg.Transport(), State: s.state,
			Skipped: slices.Clone(s.skipped), Error: s.err, Log: m.logPath(s.cfg.Name), Since: s.since}
		for _, t := range s.tools {
			st.Tools = append(st.Tools, t.Name)
		}
		out = append(out, st)
	}
	return out
}

// Close stops every server: no more attempts, each session closed and
// each stdio server's process group killed. It returns once the
// servers' goroutines have ended; no OnChange call follows it.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	cancel := m.cancel
	m.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	m.wg.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, l := range m.logs {
		l.close()
	}
	return nil
}

// run keeps server s going until ctx is done.
func (m *Manager) run(ctx context.Context, s *server) {
	delay := m.opts.Backoff.Min
	for ctx.Err() == nil {
		began := time.Now()
		ready, why := m.attempt(ctx, s)
		if ctx.Err() != nil {
			break
		}
		if ready && time.Since(began) > m.opts.Backoff.Max {
			delay = m.opts.Backoff.Min
		}
		state := StateReconnecting
		if !ready {
			state = StateFailed
		}
		m.down(s, state, fmt.Sprintf("%s; rein tries again in %s", why, delay))
		select {
		case <-ctx.Done():
		case <-time.After(delay):
		}
		delay = min(delay*2, m.opts.Backoff.Max)
	}
	m.update(s, nil, func() (Change, bool) {
		s.state, s.since, s.session, s.guard = StateStopped, time.Now(), nil, nil
		s.settle()
		return Change{}, false
	})
}

// attempt starts s once and, when it is up, waits until it stops or ctx
// is done. It says whether the server got ready, and why it stopped.
func (m *Manager) attempt(ctx context.Context, s *server) (ready bool, why string) {
	g := newGuard(m.maxMessage())
	cs, proc, tools, skipped, err := m.open(ctx, s, g)
	if err != nil {
		if r := g.refusal(); r != nil {
			return false, "the server did not start: " + r.Error()
		}
		return false, err.Error()
	}
	defer proc.stop()
	defer cs.Close()
	m.update(s, nil, func() (Change, bool) {
		reason := "the server started"
		if s.settled {
			reason = "the server is back"
		}
		s.state, s.since, s.err, s.session, s.guard, s.tools, s.skipped = StateReady, time.Now(), "", cs, g, tools, skipped
		s.settle()
		return Change{Server: s.cfg.Name, Tools: tools, Reason: reason + withSkipped(skipped)}, true
	})
	ended := make(chan error, 1)
	go func() { ended <- cs.Wait() }()
	select {
	case <-ctx.Done():
		return true, "rein stopped"
	case <-g.refused:
		// The connection is over: closing it fails the call the message
		// answered, which says why (call).
		return true, g.refusal().Error()
	case <-proc.ended():
		// The program is gone even if something it left holds its
		// output open: the session is over.
		return true, fmt.Sprintf("the server exited (%s)", proc.exited())
	case err := <-ended:
		if r := g.refusal(); r != nil {
			return true, r.Error()
		}
		if how := proc.exited(); how != "" {
			return true, fmt.Sprintf("the server exited (%s)", how)
		}
		if err != nil && !errors.Is(err, sdk.ErrConnectionClosed) {
			return true, fmt.Sprintf("the connection to the server ended: %v", err)
		}
		return true, "the connection to the server closed"
	}
}

// open connects to s, its messages read under g, initializes the session
// and lists its tools, within the server's startup timeout.
func (m *Manager) open(ctx context.Context, s *server, g *guard) (*sdk.ClientSession, *process, []registry.Tool, []string, error) {
	limit := s.cfg.startupTimeout()
	sctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	fail := func(err error) error {
		if errors.Is(sctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("the server did not start within %s", limit)
		}
		return fmt.Errorf("the server did not start: %v", err)
	}
	t, proc, err := m.connect(sctx, s.cfg, g)
	if err != nil {
		return nil, nil, nil, nil, fail(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "rein", Version: m.version()}, &sdk.ClientOptions{
		Logger: m.logger,
		ToolListChangedHandler: func(_ context.Context, req *sdk.ToolListChangedRequest) {
			m.changed(ctx, s, req.Session)
		},
	})
	cs, err := client.Connect(sctx, t, nil)
	if err != nil {
		proc.stop()
		return nil, nil, nil, nil, fail(err)
	}
	tools, skipped, err := m.list(sctx, s, cs)
	if err != nil {
		cs.Close()
		proc.stop()
		return nil, nil, nil, nil, fail(err)
	}
	return cs, proc, tools, skipped, nil
}

// changed lists the tools of s again after the server said they changed:
// one listing at a time, and one more after it when the server said so
// again meanwhile, so that a flood of notifications costs two listings.
func (m *Manager) changed(ctx context.Context, s *server, cs *sdk.ClientSession) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.relisting {
		s.again = true
		return
	}
	s.relisting = true
	// The server's run goroutine counts in wg while its session lives, so
	// Close waits for this one too.
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		for {
			m.relist(ctx, s, cs)
			m.mu.Lock()
			again := s.again && ctx.Err() == nil
			s.again, s.relisting = false, again
			m.mu.Unlock()
			if !again {
				return
			}
		}
	}()
}

// relist lists the tools of s again after the server said they changed,
// unless cs is no longer its session.
func (m *Manager) relist(ctx context.Context, s *server, cs *sdk.ClientSession) {
	lctx, cancel := context.WithTimeout(ctx, s.cfg.startupTimeout())
	defer cancel()
	tools, skipped, err := m.list(lctx, s, cs)
	if err != nil {
		if ctx.Err() == nil && m.current(s) == cs {
			m.logger.Warn("mcp: listing the tools again", "server", s.cfg.Name, "err", err)
		}
		return
	}
	m.update(s, cs, func() (Change, bool) {
		s.tools, s.skipped = tools, skipped
		return Change{Server: s.cfg.Name, Tools: tools, Reason: "the server listed new tools" + withSkipped(skipped)}, true
	})
}

// down records that s is not serving, and reports that its tools left
// when it had any (or when its first attempt failed, so that its failure
// is known).
func (m *Manager) down(s *server, state, why string) {
	m.update(s, nil, func() (Change, bool) {
		had := len(s.tools) > 0 || !s.settled
		s.state, s.since, s.err, s.session, s.guard, s.tools, s.skipped = state, time.Now(), why, nil, nil, nil, nil
		s.settle()
		return Change{Server: s.cfg.Name, Reason: why}, had
	})
}

// update runs f with the Manager's lock held and then, when f says so,
// reports its change, all under emit. A non-nil cs is the session the
// change comes from: when it is no longer s's, f does not run.
func (m *Manager) update(s *server, cs *sdk.ClientSession, f func() (Change, bool)) {
	m.emit.Lock()
	defer m.emit.Unlock()
	m.mu.Lock()
	if cs != nil && s.session != cs {
		m.mu.Unlock()
		return
	}
	c, report := f()
	m.mu.Unlock()
	if report && m.opts.OnChange != nil {
		m.opts.OnChange(c)
	}
}

// settle marks the first attempt of s as over; the Manager's mu is held.
func (s *server) settle() {
	if !s.settled {
		s.settled = true
		close(s.first)
	}
}

// current returns the session of s, nil when it is not ready.
func (m *Manager) current(s *server) *sdk.ClientSession {
	cs, _ := m.connection(s)
	return cs
}

// connection returns the session of s and the guard it reads under; nil
// when it is not ready.
func (m *Manager) connection(s *server) (*sdk.ClientSession, *guard) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return s.session, s.guard
}

// maxMessage is Options.MaxMessage or its default.
func (m *Manager) maxMessage() int64 {
	if m.opts.MaxMessage > 0 {
		return m.opts.MaxMessage
	}
	return DefaultMaxMessage
}

func (m *Manager) version() string {
	if m.opts.Version != "" {
		return m.opts.Version
	}
	return "dev"
}

// withSkipped adds to a reason the tools that were left out.
func withSkipped(skipped []string) string {
	switch len(skipped) {
	case 0:
		return ""
	case 1:
		return " (one of its tools is left out: " + skipped[0] + ")"
	}
	return fmt.Sprintf(" (%d of its tools are left out: %s, ...)", len(skipped), skipped[0])
}
