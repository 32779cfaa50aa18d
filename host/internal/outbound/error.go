package outbound

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/wasmendpoints/endpoints/abi"
)

// Error is why an outbound request failed: a code of [abi.HTTPError] and a
// message for the guest's log, which says what failed, with which host and
// port, and what to do, in words of its own:
//
//	connecting to 127.0.0.1:9: the connection was refused: nothing listens
//	there; check that the service runs and the URL's port
//
// The Go error it comes from, when it comes from one, is its Cause
// (Unwrap), for the host's debug log; the guest never reads it.
type Error struct {
	// Code is an abi.HTTPError... code.
	Code string
	// Message says what failed.
	Message string
	// Cause is the Go error the request failed with; nil for a refusal
	// of the host's own (the allowlist, a limit, a malformed request).
	Cause error
}

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Unwrap is the Go error the request failed with (Cause), if any.
func (e *Error) Unwrap() error { return e.Cause }

// Errno is the errno a guest gets for the error.
func (e *Error) Errno() abi.Errno {
	switch e.Code {
	case abi.HTTPErrorNotAllowed:
		return abi.ErrNotAllowed
	case abi.HTTPErrorLimit:
		return abi.ErrLimit
	case abi.HTTPErrorInvalid:
		return abi.ErrInvalid
	}
	return abi.ErrIO
}

// JSON is the error as http_error writes it ([abi.HTTPError]).
func (e *Error) JSON() []byte {
	b, _ := json.Marshal(abi.HTTPError{Code: e.Code, Message: e.Message})
	return b
}

// classify turns what the HTTP client returned for a request to hostport
// into an *Error: one of ours (the allowlist, a redirect), the deadline,
// TLS, connecting, or the protocol, each phrased (describe) with err as
// its cause.
func classify(ctx context.Context, hostport string, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	// A redirect's failure is the host's it went to.
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			if host, port, perr := hostPort(u); perr == nil {
				hostport = net.JoinHostPort(host, strconv.Itoa(int(port)))
			}
		}
	}
	code, message := describe(ctx, hostport, err)
	return &Error{Code: code, Message: message, Cause: err}
}

// describe is the code and message of err, which a request to hostport
// failed with.
func describe(ctx context.Context, hostport string, err error) (code, message string) {
	var (
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		record   tls.RecordHeaderError
		alert    tls.AlertError
		op       *net.OpError
	)
	// The certificate's own error, under tls's wrapping.
	cert := err
	if errors.As(err, &verify) {
		cert = verify.Err
	}
	var own *requestTimeout
	switch {
	case ctx.Err() != nil && errors.As(context.Cause(ctx), &own):
		return abi.HTTPErrorTimeout, fmt.Sprintf("%s did not answer within the request's timeout of %s (its \"timeout\" member); "+
			"the call goes on with the rest of its time: answer from a fallback, or give the request a longer timeout", hostport, own.d)
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return abi.HTTPErrorTimeout, fmt.Sprintf("%s did not answer in time: requests end shortly before the call's deadline "+
			"(limits.timeout, or the operation's timeout), so the handler can still answer; give the operation a longer timeout "+
			"if the service is this slow", hostport)
	case errors.Is(err, context.Canceled):
		return abi.HTTPErrorTimeout, fmt.Sprintf("the request to %s ended with the call (the client went away, or the host shuts down)", hostport)
	case errors.As(cert, &unknown):
		return abi.HTTPErrorTLS, fmt.Sprintf("TLS with %s: its certificate is signed by an authority this host does not trust; "+
			"for a private authority, name its certificate in outbound.caFile", hostport)
	case errors.As(cert, &hostname):
		names := "no DNS name"
		if hostname.Certificate != nil && len(hostname.Certificate.DNSNames) > 0 {
			names = strings.Join(hostname.Certificate.DNSNames, ", ")
		}
		return abi.HTTPErrorTLS, fmt.Sprintf("TLS with %s: its certificate is for %s, not for %s; call the service by a name its "+
			"certificate holds", hostport, names, hostname.Host)
	case errors.As(cert, &invalid):
		return abi.HTTPErrorTLS, fmt.Sprintf("TLS with %s: its certificate is not valid (%s); the service must renew or fix it",
			hostport, strings.TrimPrefix(invalid.Error(), "x509: "))
	case verify != nil:
		return abi.HTTPErrorTLS, fmt.Sprintf("TLS with %s: its certificate could not be verified (%s)", hostport,
			strings.TrimPrefix(verify.Err.Error(), "x509: "))
	case errors.As(err, &record) || strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return abi.HTTPErrorTLS, fmt.Sprintf("TLS with %s: the server does not speak TLS; if it serves plain HTTP, call it with an http:// URL", hostport)
	case errors.As(err, &alert):
		return abi.HTTPErrorTLS, fmt.Sprintf("TLS with %s: the server refused the handshake (%s); check the URL's port and that "+
			"the service accepts TLS 1.2 or newer", hostport, strings.TrimPrefix(alert.Error(), "tls: "))
	case strings.Contains(err.Error(), "response headers exceeded") || strings.Contains(err.Error(), "response header list larger than"):
		// net/http's words for MaxResponseHeaderBytes passed (HTTP/1,
		// HTTP/2): no error value of its own to match.
		return abi.HTTPErrorLimit, fmt.Sprintf("the status and headers of %s's response passed %d bytes, the most the host reads "+
			"of a response's head (abi.HTTPResponseHeaderMaxBytes); the service must send fewer or smaller header fields", hostport, abi.HTTPResponseHeaderMaxBytes)
	case strings.Contains(err.Error(), "connection error: PROTOCOL_ERROR"):
		// HTTP/2 ends the connection so, among other breaches, when a
		// header list passes the bound by far: Go then stops reading it.
		return abi.HTTPErrorProtocol, fmt.Sprintf("%s broke HTTP/2 (a protocol error, which ended the connection); a service whose "+
			"response headers pass abi.HTTPResponseHeaderMaxBytes (%d bytes) by far ends it so", hostport, abi.HTTPResponseHeaderMaxBytes)
	case errors.As(err, &op) && op.Op == "dial":
		return abi.HTTPErrorConnect, connectMessage(hostport, op.Err)
	case errors.Is(err, syscall.ECONNRESET):
		return abi.HTTPErrorProtocol, fmt.Sprintf("%s reset the connection before its answer was whole; the service may have "+
			"failed: check its logs", hostport)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return abi.HTTPErrorProtocol, fmt.Sprintf("%s closed the connection before its answer was whole; the service may have "+
			"failed: check its logs", hostport)
	}
	return abi.HTTPErrorProtocol, fmt.Sprintf("%s broke HTTP (%s); check that the URL's port is the service's HTTP port", hostport, innermost(err))
}

// requestTimeout is the cause of the end of a request's context when the
// request's own timeout ([abi.HTTPRequest.Timeout]) ended it, not the
// call's deadline.
type requestTimeout struct{ d time.Duration }

func (e *requestTimeout) Error() string {
	return fmt.Sprintf("the request's timeout of %s passed", e.d)
}

// connectMessage is the message of a dial to hostport that failed with
// err.
func connectMessage(hostport string, err error) string {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("connecting to %s: the connection was refused: nothing listens there; check that the service runs "+
			"and the URL's port", hostport)
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return fmt.Sprintf("connecting to %s: no route to it from this host's network; check the URL's host and the network", hostport)
	case errors.Is(err, syscall.ETIMEDOUT), os.IsTimeout(err):
		return fmt.Sprintf("connecting to %s: it did not answer; check the URL's host and port, and any firewall between", hostport)
	}
	return fmt.Sprintf("connecting to %s failed (%s)", hostport, innermost(err))
}

// dnsMessage is the message of a lookup of host (the request's to
// hostport) that failed with err.
func dnsMessage(hostport string, err error) string {
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns) && dns.IsNotFound:
		return fmt.Sprintf("resolving the host of %s: no such host; check the URL's host name", hostport)
	case errors.As(err, &dns) && dns.IsTimeout:
		return fmt.Sprintf("resolving the host of %s: the DNS server did not answer in time; try again, or check the host's DNS settings", hostport)
	case errors.As(err, &dns):
		return fmt.Sprintf("resolving the host of %s failed (%s); check the URL's host name and the host's DNS settings", hostport, dns.Err)
	}
	return fmt.Sprintf("resolving the host of %s failed (%s)", hostport, innermost(err))
}

// innermost is the text of the error err wraps last: Go's own words
// without the layers that repeat the method, URL and address
// ("Get \"url\": dial tcp ...:").
func innermost(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			break
		}
		err = next
	}
	return strings.TrimPrefix(strings.TrimPrefix(err.Error(), "net/http: "), "http: ")
}
