package provider

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/rein-agent/rein/internal/contract"
)

// connectError is the error of a request that got no response because no
// connection could be made, of kind network: "could not connect to
// ENDPOINT (CAUSE): HINT", where ENDPOINT is what the person configured
// (see [Call.Base]), shown without credentials, and CAUSE is short:
// connection refused, no such host, TLS handshake failed: ..., connection
// reset... It returns nil when err is no such failure.
func connectError(ref contract.ProviderRef, endpoint string, err error) *contract.ProviderError {
	cause, hint := connectCause(err)
	if cause == "" {
		return nil
	}
	if endpoint == "" {
		endpoint = "the server"
	}
	return NewError(ref, contract.KindNetwork, "could not connect to "+endpoint+" ("+cause+"): "+hint)
}

// connectCause returns the short cause of a connection that could not be
// made and a hint of what to check, or "" when err is no such failure.
func connectCause(err error) (cause, hint string) {
	const (
		running = "is the server running?"
		host    = "is the host name right?"
		network = "is the network up?"
		tlsHint = "is the scheme right (https for a TLS server, http for a plain one) and its certificate trusted?"
	)
	var (
		dnsErr *net.DNSError
		opErr  *net.OpError
	)
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused", running
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "no such host", host
		}
		return "DNS lookup failed: " + dnsErr.Err, network
	}
	if detail := tlsFailure(err); detail != "" {
		return "TLS handshake failed: " + detail, tlsHint
	}
	switch {
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset", running
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.EPIPE),
		errors.Is(err, net.ErrClosed), strings.Contains(err.Error(), "server closed idle connection"):
		// The server took the connection and closed it without a byte
		// of answer: a proxy or a port forward with nothing behind it.
		return "connection closed before any response", running
	case errors.As(err, &opErr) && opErr.Op == "dial":
		if opErr.Timeout() {
			return "connection timed out", network
		}
		return strings.TrimPrefix(opErr.Err.Error(), "connect: "), network
	}
	return "", ""
}

// tlsFailure returns what failed in a TLS handshake, shortly, or "" when
// err is no TLS failure.
func tlsFailure(err error) string {
	var (
		verify    *tls.CertificateVerificationError
		record    tls.RecordHeaderError
		alert     tls.AlertError
		authority x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
		opErr     *net.OpError
	)
	switch {
	case errors.As(err, &verify):
		return verify.Err.Error()
	case errors.As(err, &authority):
		return authority.Error()
	case errors.As(err, &hostname):
		return hostname.Error()
	case errors.As(err, &invalid):
		return invalid.Error()
	case errors.As(err, &record), errors.Is(err, http.ErrSchemeMismatch):
		return "the server does not speak TLS"
	case errors.As(err, &alert):
		return strings.TrimPrefix(alert.Error(), "tls: ")
	case errors.As(err, &opErr) && opErr.Op == "remote error":
		// An alert the server sent: "remote error: tls: handshake failure".
		return opErr.Error()
	case strings.Contains(err.Error(), "TLS handshake timeout"):
		return "timeout" // net/http's own, a plain error
	}
	return ""
}

// shownURL returns rawURL as an error message may show it: without a user,
// password, query or fragment, where credentials hide. A URL that does not
// parse is shown as "the server".
func shownURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "the server"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}
