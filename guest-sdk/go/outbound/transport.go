package outbound

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/wasmendpoints/endpoints/abi"
)

// Transport is the http.RoundTripper that sends requests through the
// host. The zero value is ready to use; in a WebAssembly module it is
// http.DefaultTransport once the package is imported.
type Transport struct{}

// Error is why the host refused or failed an outbound request: its errno
// (abi.ErrNotAllowed, abi.ErrLimit, abi.ErrIO...) and the http_error code
// and message. http.Client wraps it in a *url.Error; find it with
// errors.As, or test the errno with errors.Is:
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

// streamKey marks a request whose body may pass limits.outboundBytes.
type streamKey struct{}

// Stream returns req marked to be streamed: its response body is bounded
// by the call's deadline only, not by limits.outboundBytes. Use it when
// the guest passes the body on as it reads it.
//
//	resp, err := http.DefaultClient.Do(outbound.Stream(req))
func Stream(req *http.Request) *http.Request {
	return req.WithContext(context.WithValue(req.Context(), streamKey{}, true))
}

// RoundTrip sends req through the host and returns the response once its
// status and headers arrived; its body reads from the host as it comes.
func (Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	// http.Client turned a URL's user and password into an Authorization
	// header already; the host refuses credentials in a URL.
	u := *req.URL
	u.User = nil
	spec := abi.HTTPRequest{Method: req.Method, URL: u.String()}
	if s, _ := req.Context().Value(streamKey{}).(bool); s {
		spec.Stream = true
	}
	for name, values := range req.Header {
		for _, v := range values {
			spec.Headers = append(spec.Headers, [2]string{name, v})
		}
	}
	js, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	h := httpSend(js, body)
	if h < 0 {
		return nil, lastError(abi.Errno(h))
	}
	head := readHead(h)
	var r abi.HTTPResponse
	if err := json.Unmarshal(head, &r); err != nil {
		httpClose(h)
		return nil, fmt.Errorf("outbound request: the host's response head: %w", err)
	}
	resp := &http.Response{
		Status:        strconv.Itoa(r.Status) + " " + http.StatusText(r.Status),
		StatusCode:    r.Status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        make(http.Header, len(r.Headers)),
		Body:          &hostBody{h: h},
		ContentLength: -1,
		Request:       req,
	}
	for _, kv := range r.Headers {
		resp.Header.Add(kv[0], kv[1])
	}
	if n, err := strconv.ParseInt(resp.Header.Get("Content-Length"), 10, 64); err == nil {
		resp.ContentLength = n
	}
	if req.Method == http.MethodHead || r.Status == http.StatusNoContent || r.Status == http.StatusNotModified {
		httpClose(h)
		resp.Body = http.NoBody
	}
	return resp, nil
}

// readHead reads http_response's JSON, growing the buffer as it says.
func readHead(h int32) []byte {
	buf := make([]byte, 1024)
	for {
		n := httpResponse(h, buf)
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
		n := httpError(buf)
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

// hostBody is a response body read from the host.
type hostBody struct {
	h      int32
	closed bool
	err    error
}

func (b *hostBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	n := httpBodyRead(b.h, p)
	switch {
	case n < 0:
		b.err = lastError(abi.Errno(n))
		return 0, b.err
	case n == 0:
		b.err = io.EOF
		b.Close()
		return 0, io.EOF
	}
	return int(n), nil
}

func (b *hostBody) Close() error {
	if !b.closed {
		b.closed = true
		httpClose(b.h)
	}
	return nil
}
