package outbound

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"

	"github.com/go-json-experiment/json"

	"github.com/wasmendpoints/endpoints/abi"
)

// Error is why an outbound request failed: a code of [abi.HTTPError] and a
// message for the guest's log.
type Error struct {
	// Code is an abi.HTTPError... code.
	Code string
	// Message says what failed.
	Message string
}

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

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

// classify turns what the HTTP client returned into an *Error: one of
// ours (the allowlist, a redirect), the deadline, TLS, connecting, or the
// protocol.
func classify(ctx context.Context, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var (
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		record   tls.RecordHeaderError
		alert    tls.AlertError
		op       *net.OpError
		dns      *net.DNSError
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return errorf(abi.HTTPErrorTimeout, "the service did not answer in time: requests end shortly before the call's deadline (limits.timeout, or the operation's timeout), so the handler can still answer: %v", err)
	case errors.Is(err, context.Canceled):
		return errorf(abi.HTTPErrorTimeout, "the call ended: %v", err)
	case errors.As(err, &verify), errors.As(err, &unknown), errors.As(err, &hostname), errors.As(err, &invalid),
		errors.As(err, &record), errors.As(err, &alert):
		return errorf(abi.HTTPErrorTLS, "%v", err)
	case errors.As(err, &dns), errors.As(err, &op) && op.Op == "dial":
		return errorf(abi.HTTPErrorConnect, "%v", err)
	}
	return errorf(abi.HTTPErrorProtocol, "%v", err)
}
