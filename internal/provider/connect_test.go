package provider

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// timeoutError is an error that says it is a timeout, as net/http's are.
type timeoutError struct{ msg string }

func (e timeoutError) Error() string { return e.msg }
func (e timeoutError) Timeout() bool { return true }
func (timeoutError) Temporary() bool { return true }

// TestConnectErrors classifies the errors of a request that got no
// response, as the client returns them: a connection that could not be
// made is network, with a short cause and a hint.
func TestConnectErrors(t *testing.T) {
	dial := func(err error) error {
		return &url.Error{Op: "Post", URL: "http://u:p@127.0.0.1:1/v1/chat/completions?key=sk-secret",
			Err: &net.OpError{Op: "dial", Net: "tcp", Err: err}}
	}
	syscallErr := func(call string, errno syscall.Errno) error { return os.NewSyscallError(call, errno) }
	for _, tc := range []struct {
		name string
		err  error
		kind contract.ErrorKind
		msg  string // the whole message, or its start when it ends in "…"
	}{
		{"refused", dial(syscallErr("connect", syscall.ECONNREFUSED)), contract.KindNetwork,
			"could not connect to http://127.0.0.1:18099/v1 (connection refused): is the server running?"},
		{"no such host", dial(&net.DNSError{Err: "no such host", Name: "api.example.invalid", IsNotFound: true}), contract.KindNetwork,
			"could not connect to http://127.0.0.1:18099/v1 (no such host): is the host name right?"},
		{"DNS failure", dial(&net.DNSError{Err: "server misbehaving", Name: "api.example.com", IsTemporary: true}), contract.KindNetwork,
			"could not connect to http://127.0.0.1:18099/v1 (DNS lookup failed: server misbehaving): is the network up?"},
		{"closed under the request", &url.Error{Op: "Post", Err: &net.OpError{Op: "write", Net: "tcp", Err: net.ErrClosed}}, contract.KindNetwork,
			"could not connect to http://127.0.0.1:18099/v1 (connection closed before any response): is the server running?"},
		{"closed while idle", &url.Error{Op: "Post", Err: errors.New("http: server closed idle connection")}, contract.KindNetwork,
			"could not connect to http://127.0.0.1:18099/v1 (connection closed before any response): is the server running?"},
		{"untrusted certificate", &url.Error{Op: "Post", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}, contract.KindNetwork,
			"could not connect to http://127.0.0.1:18099/v1 (TLS handshake failed: x509: certificate signed by unknown authority): is the scheme right…"},
		{"wrong host in the certificate", &url.Error{Op: "Post", Err: x509.HostnameError{Certificate: &x509.Certificate{DNSNames: []string{"a.example"}}, Host: "b.example"}}, contract.KindNetwork,
			"could not connect to http://127.0.0.1:18099/v1 (TLS handshake failed: x509: certificate is valid for a.example, not b.example): …"},
		{"a plain server behind https", &url.Error{Op: "Post", Err: tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}}, contract.KindNetwork,
			"could not connect to http://127.0.0.1:18099/v1 (TLS handshake failed: the server does not speak TLS): …"},
		{"an alert from the server", &url.Error{Op: "Post", Err: &net.OpError{Op: "remote error", Err: errors.New("tls: handshake failure")}}, contract.KindNetwork,
			"could not connect to http://127.0.0.1:18099/v1 (TLS handshake failed: remote error: tls: handshake failure): …"},
		{"TLS handshake timeout", &url.Error{Op: "Post", Err: timeoutError{"net/http: TLS handshake timeout"}}, contract.KindNetwork,
			"could not connect to http://127.0.0.1:18099/v1 (TLS handshake failed: timeout): …"},
		{"reset before any byte", &url.Error{Op: "Post", Err: &net.OpError{Op: "read", Err: syscallErr("read", syscall.ECONNRESET)}}, contract.KindNetwork,
			"could not connect to http://127.0.0.1:18099/v1 (connection reset): is the server running?"},
		{"closed before any byte", &url.Error{Op: "Post", Err: io.EOF}, contract.KindNetwork,
			"could not connect to http://127.0.0.1:18099/v1 (connection closed before any response): is the server running?"},
		{"closed while the request was written", &url.Error{Op: "Post", Err: &net.OpError{Op: "write", Err: syscallErr("write", syscall.EPIPE)}}, contract.KindNetwork,
			"could not connect to http://127.0.0.1:18099/v1 (connection closed before any response): is the server running?"},
		{"dial timeout", dial(os.ErrDeadlineExceeded), contract.KindNetwork,
			"could not connect to http://127.0.0.1:18099/v1 (connection timed out): is the network up?"},
		{"unreachable", dial(syscallErr("connect", syscall.ENETUNREACH)), contract.KindNetwork,
			"could not connect to http://127.0.0.1:18099/v1 (network is unreachable): is the network up?"},
		{"headers too slow: a timeout, not network", &url.Error{Op: "Post", URL: "http://h/?key=sk-secret", Err: timeoutError{"net/http: timeout awaiting response headers"}}, contract.KindTimeout,
			"net/http: timeout awaiting response headers"},
		{"anything else: unknown", &url.Error{Op: "Post", URL: "http://h/?key=sk-secret", Err: errors.New("proxyconnect tcp: boom")}, contract.KindUnknown,
			"cannot reach the server: proxyconnect tcp: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := transportError(context.Background(), contract.ProviderRef{Name: "p"}, "http://127.0.0.1:18099/v1", tc.err, false)
			if e.Kind != tc.kind || !e.Retryable || !errors.Is(e, tc.err) {
				t.Errorf("kind %s, retryable %v, wraps the cause %v; want %s, retryable, wrapping", e.Kind, e.Retryable, errors.Is(e, tc.err), tc.kind)
			}
			if want, ok := strings.CutSuffix(tc.msg, "…"); ok && !strings.HasPrefix(e.Message, want) || !ok && e.Message != tc.msg {
				t.Errorf("message\n%q\nwant\n%q", e.Message, tc.msg)
			}
			if strings.Contains(e.Message, "sk-secret") || strings.Contains(e.Message, "u:p") {
				t.Errorf("message %q shows the URL's credentials", e.Message)
			}
		})
	}
}

// TestShownURL shows the configured endpoint without its credentials.
func TestShownURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://127.0.0.1:18099/v1", "http://127.0.0.1:18099/v1"},
		{"https://rein:hunter2@proxy.example/v1?key=sk-secret&x=1#top", "https://proxy.example/v1"},
		{"https://proxy.example/v1beta?", "https://proxy.example/v1beta"},
		{"://bad", "the server"},
		{"/no/host", "the server"},
	} {
		if got := shownURL(tc.in); got != tc.want {
			t.Errorf("shownURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestPostCannotConnect makes real connections that fail on 127.0.0.1,
// through Post and the default client: each is network, retryable, and
// names the configured base (or the scheme and host of the URL).
func TestPostCannotConnect(t *testing.T) {
	closed := func(t *testing.T) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr
	}
	// hangUp accepts connections, reads the request (when read) and closes:
	// with reset, with an RST instead of a FIN. Without read it is a port
	// forward with nothing behind it.
	hangUp := func(t *testing.T, reset, read bool) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				if read {
					buf := make([]byte, 4096)
					c.Read(buf) // the request, or enough of it
				}
				if reset {
					c.(*net.TCPConn).SetLinger(0)
				}
				c.Close()
			}
		}()
		return "http://" + l.Addr().String()
	}
	tlsSrv := httptest.NewUnstartedServer(http.NotFoundHandler())
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake fails on purpose
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	plain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plain.Close)

	for _, tc := range []struct {
		name, url, base string
		want            string // the message, "…" where it varies
	}{
		{"refused", closed(t) + "/v1/chat/completions", "{base}/v1", "could not connect to {base}/v1 (connection refused): is the server running?"},
		{"refused, no base", closed(t) + "/v1/chat/completions", "", "could not connect to {base} (connection refused): is the server running?"},
		{"closed after the request", hangUp(t, false, true) + "/v1/messages", "{base}", "could not connect to {base} (connection closed before any response): is the server running?"},
		{"reset after the request", hangUp(t, true, true) + "/v1/messages", "{base}", "could not connect to {base} (connection reset): is the server running?"},
		{"closed at once", hangUp(t, false, false) + "/v1/messages", "{base}", "could not connect to {base} (connection …"},
		{"untrusted certificate", tlsSrv.URL + "/v1/responses", "{base}/v1", "could not connect to {base}/v1 (TLS handshake failed: x509: certificate signed by unknown authority): …"},
		{"https to a plain server", strings.Replace(plain.URL, "http:", "https:", 1) + "/v1beta/models/m", "{base}/v1beta", "could not connect to {base}/v1beta (TLS handshake failed: the server does not speak TLS): …"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := url.Parse(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			root := u.Scheme + "://" + u.Host
			ref := contract.ProviderRef{Name: "p"}
			c := Call{URL: tc.url, Base: strings.ReplaceAll(tc.base, "{base}", root), Body: []byte(`{}`)}
			resp, perr := Post(t.Context(), DefaultClient(), &ref, c, func(contract.ProviderRef, *http.Response) *contract.ProviderError {
				t.Fatal("an HTTP response")
				return nil
			})
			if resp != nil {
				resp.Body.Close()
				t.Fatal("a response")
			}
			want := strings.ReplaceAll(tc.want, "{base}", root)
			if perr == nil || perr.Kind != contract.KindNetwork || !perr.Retryable {
				t.Fatalf("error %+v, want a retryable network error", perr)
			}
			if prefix, ok := strings.CutSuffix(want, "…"); ok && !strings.HasPrefix(perr.Message, prefix) || !ok && perr.Message != want {
				t.Errorf("message\n%q\nwant\n%q", perr.Message, want)
			}
		})
	}
}
