package fetch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/httphost"
)

// Request is an outbound HTTP request.
type Request struct {
	// Method is the HTTP method; "" is GET.
	Method string
	// URL is the absolute http or https URL to call; its origin must be
	// in endpoints.json's outbound.allowedHosts.
	URL string
	// Header is sent as it is, but for the framing headers the host sets
	// itself (Host, Content-Length, Transfer-Encoding...).
	Header Header
	// Body is the request body; nil sends none.
	Body []byte
	// Stream lifts limits.outboundBytes from the response body: it is then
	// bounded by the call's deadline only. Set it when the body is passed
	// on as it is read, with Open.
	Stream bool
	// Timeout bounds the request, from when it is sent: connecting, the
	// status and headers and every Read of its body, rounded up to a
	// millisecond (at most abi.HTTPTimeoutMax). Past it, an *Error of code
	// "timeout", which errors.Is finds as context.DeadlineExceeded. Zero
	// is none: the call's deadline alone. It only shortens the call's
	// deadline; a context's deadline ([OpenContext]) bounds it too.
	Timeout time.Duration
}

// Response is a response read whole by [Send].
type Response struct {
	// StatusCode is the HTTP status, such as 200.
	StatusCode int
	// Header holds the response's headers, keys in canonical form.
	Header Header
	// Body is the whole body.
	Body []byte
}

// Error is why the host refused or failed an outbound request: its errno
// (abi.ErrNotAllowed, abi.ErrLimit, abi.ErrIO...) and the http_error code
// and message. Find it with errors.As, or test the errno with errors.Is:
//
//	if errors.Is(err, abi.ErrNotAllowed) { ... }
type Error struct {
	// Errno is what the host function returned.
	Errno abi.Errno
	// Code is the abi.HTTPError code: "not_allowed", "limit",
	// "timeout", "connect", "tls", "protocol", "redirect", "invalid".
	Code string
	// Message says what failed.
	Message string
}

func (e *Error) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("outbound request: %v (%d)", e.Errno, int32(e.Errno))
	}
	return fmt.Sprintf("outbound request: %s: %s", e.Code, e.Message)
}

// Unwrap returns the errno, so errors.Is(err, abi.ErrNotAllowed) works.
func (e *Error) Unwrap() error { return e.Errno }

// Is makes errors.Is(err, context.DeadlineExceeded) hold for an error of
// code "timeout": the request's timeout, its context's deadline or the
// margin before the call's passed, as Go's own HTTP client reports it.
func (e *Error) Is(target error) bool {
	return target == context.DeadlineExceeded && e.Code == abi.HTTPErrorTimeout
}

// Timeout reports whether the request ran out of time (code "timeout"),
// as a net.Error does: net/http's url.Error asks it.
func (e *Error) Timeout() bool { return e.Code == abi.HTTPErrorTimeout }

// maxPrealloc bounds the buffer Send sizes from a Content-Length before
// any byte arrived: a larger body grows it as it comes.
const maxPrealloc = 1 << 20

// Send sends req through the host and reads the response whole: within
// limits.outboundBytes, unless req.Stream is set. A status other than 2xx
// is a response, not an error; an error is an *Error (refused, failed,
// past a limit) or a malformed answer of the host.
func Send(req Request) (*Response, error) { return SendContext(context.Background(), req) }

// SendContext is [Send] bounded by ctx: a ctx already done fails at once
// with ctx.Err(), sending nothing; its deadline bounds the request as
// [Request.Timeout] does (the sooner of the two).
//
//	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
//	defer cancel()
//	res, err := fetch.SendContext(ctx, fetch.Request{URL: "https://rates.example.com/v1/eur"})
//	if errors.Is(err, context.DeadlineExceeded) {
//		// answer from a fallback, with the rest of the call's time
//	}
func SendContext(ctx context.Context, req Request) (*Response, error) {
	r, err := OpenContext(ctx, req)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	size := 512
	if n, err := strconv.ParseInt(r.Header.Get("Content-Length"), 10, 64); err == nil && n >= 0 {
		size = int(min(n, maxPrealloc)) + 1 // +1: the read that sees the end
	}
	body := make([]byte, 0, size)
	for {
		if len(body) == cap(body) {
			body = append(body, 0)[:len(body)]
		}
		n, err := r.Read(body[len(body):cap(body)])
		body = body[:len(body)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return &Response{StatusCode: r.StatusCode, Header: r.Header, Body: body}, nil
}

// Reader is a response whose body is read from the host as it comes; it
// is an io.ReadCloser. Close it when done, or the call's end releases it.
type Reader struct {
	// StatusCode is the HTTP status, such as 200.
	StatusCode int
	// Header holds the response's headers, keys in canonical form.
	Header Header

	h      int32
	closed bool
	err    error
}

// Open sends req through the host and returns the response once its
// status and headers arrived; its body is read from the host as it comes.
// Past limits.outboundBytes, a Read fails with an *Error of code "limit",
// unless req.Stream is set.
func Open(req Request) (*Reader, error) { return OpenContext(context.Background(), req) }

// OpenContext is [Open] bounded by ctx, as [SendContext] is: its deadline
// bounds the status and headers and every Read of the body.
func OpenContext(ctx context.Context, req Request) (*Reader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	timeout := req.Timeout
	if deadline, ok := ctx.Deadline(); ok {
		left := time.Until(deadline)
		if left <= 0 {
			return nil, context.DeadlineExceeded
		}
		if timeout <= 0 || left < timeout {
			timeout = left
		}
	}
	spec := abi.HTTPRequest{Method: req.Method, URL: req.URL, Stream: req.Stream}
	if timeout > 0 {
		spec.Timeout = int64(min((timeout+time.Millisecond-1)/time.Millisecond, abi.HTTPTimeoutMax))
	}
	if spec.Method == "" {
		spec.Method = "GET"
	}
	for name, values := range req.Header {
		for _, v := range values {
			spec.Headers = append(spec.Headers, [2]string{name, v})
		}
	}
	js, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("outbound request: encoding it for the host: %w", err)
	}
	h := httphost.Send(js, req.Body)
	if h < 0 {
		return nil, lastError(abi.Errno(h))
	}
	var head abi.HTTPResponse
	if err := json.Unmarshal(readHead(h), &head); err != nil {
		httphost.Close(h)
		return nil, fmt.Errorf("outbound request: the host's response head: %w", err)
	}
	r := &Reader{StatusCode: head.Status, Header: make(Header, len(head.Headers)), h: h}
	for _, kv := range head.Headers {
		r.Header.Add(kv[0], kv[1])
	}
	return r, nil
}

// Read reads the next bytes of the body: io.EOF at its end (the response
// is then released), an *Error when the host fails it.
func (r *Reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	n := httphost.BodyRead(r.h, p)
	switch {
	case n < 0:
		r.err = lastError(abi.Errno(n))
		return 0, r.err
	case n == 0:
		r.err = io.EOF
		r.Close()
		return 0, io.EOF
	}
	return int(n), nil
}

// Close releases the response (its connection, its slot against the
// requests in flight to its host); the body's rest is not read. It
// returns nil; closing twice does nothing.
func (r *Reader) Close() error {
	if !r.closed {
		r.closed = true
		httphost.Close(r.h)
	}
	return nil
}

// readHead reads http_response's JSON, growing the buffer as it says.
func readHead(h int32) []byte {
	buf := make([]byte, 1024)
	for {
		n := httphost.Response(h, buf)
		if n < 0 {
			return nil
		}
		if int(n) <= len(buf) {
			return buf[:n]
		}
		buf = make([]byte, n)
	}
}

// lastError is the *Error of a failed call that returned errno.
func lastError(errno abi.Errno) *Error {
	e := &Error{Errno: errno}
	buf := make([]byte, 512)
	for {
		n := httphost.Error(buf)
		if n < 0 {
			return e
		}
		if int(n) > len(buf) {
			buf = make([]byte, n)
			continue
		}
		var je abi.HTTPError
		if json.Unmarshal(buf[:n], &je) == nil {
			e.Code, e.Message = je.Code, je.Message
		}
		return e
	}
}
