package endpoints

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
)

// Headers is a set of HTTP header fields keyed by lower-case name, as the
// host delivers them (HTTP/2 style). It is a small stand-in for
// net/http.Header, which would add megabytes to every module.
//
//	h := endpoints.Headers{}
//	h.Set("Content-Type", "text/plain")
//	h.Get("content-type") // "text/plain"
type Headers map[string][]string

// Get returns the first value of the header, or "".
func (h Headers) Get(name string) string {
	if v := h[lowerName(name)]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Values returns every value of the header.
func (h Headers) Values(name string) []string { return h[lowerName(name)] }

// Set replaces the header's values with value.
func (h Headers) Set(name, value string) { h[lowerName(name)] = []string{value} }

// Add appends value to the header's values.
func (h Headers) Add(name, value string) {
	name = lowerName(name)
	h[name] = append(h[name], value)
}

// Del removes the header.
func (h Headers) Del(name string) { delete(h, lowerName(name)) }

// lowerName returns the header name in lower case. The names written most
// in their canonical form are constants here: strings.ToLower allocates
// for them, and an allocation costs a Go module in wasm a few hundred
// nanoseconds.
func lowerName(name string) string {
	switch name {
	case "Accept":
		return "accept"
	case "Authorization":
		return "authorization"
	case "Cache-Control":
		return "cache-control"
	case "Content-Disposition":
		return "content-disposition"
	case "Content-Encoding":
		return "content-encoding"
	case "Content-Length":
		return "content-length"
	case "Content-Type":
		return "content-type"
	case "Etag", "ETag":
		return "etag"
	case "If-None-Match":
		return "if-none-match"
	case "Last-Modified":
		return "last-modified"
	case "Link":
		return "link"
	case "Location":
		return "location"
	case "Retry-After":
		return "retry-after"
	case "Set-Cookie":
		return "set-cookie"
	case "User-Agent":
		return "user-agent"
	case "Vary":
		return "vary"
	case "Www-Authenticate", "WWW-Authenticate":
		return "www-authenticate"
	}
	return strings.ToLower(name)
}

// RawRequest is the request a plain route's handler receives: nothing is
// validated or decoded beyond the route's parameters.
type RawRequest struct {
	// Method is the request method in upper case. HEAD requests reach the
	// handler too; the host drops the body it writes.
	Method string
	// Route is the route template in client form: /files/:path.
	Route string
	// Path is the request path as received, still escaped.
	Path string
	// RawQuery is the query string, without '?'.
	RawQuery string
	// Params are the raw strings of the route's bracket segments; a
	// catch-all ([...path]) keeps its slashes.
	Params map[string]string
	// Headers are every request header.
	Headers Headers
	// Body reads the raw request body, in chunks, from the host. It
	// returns an error wrapping [abi.ErrBodyTooLarge] past the host's body
	// limit and [abi.ErrIO] when the client went away.
	Body io.Reader
}

// ResponseWriter writes a plain route's answer, like net/http's:
// set headers, then WriteHeader (optional: the first Write sends 200), then
// Write the body. Written bytes go to the client as they are written.
type ResponseWriter interface {
	// Header returns the headers that WriteHeader sends; changing them
	// afterwards has no effect.
	Header() Headers
	// WriteHeader sends the status code and the headers. Only the first
	// call counts.
	WriteHeader(status int)
	// Write sends body bytes, calling WriteHeader(200) first if needed.
	Write(p []byte) (int, error)
}

// bodyReader reads the request body through the body_read host function.
type bodyReader struct{}

// Read reads the next bytes of the body; io.EOF at its end.
func (bodyReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n := bodyRead(p)
	if err := check(abi.ImportBodyRead, n); err != nil {
		return 0, fmt.Errorf("endpoints: reading the request body: %w", err)
	}
	if n == 0 {
		return 0, io.EOF
	}
	return int(n), nil
}

// responseWriter sends a plain route's answer through the host functions.
// It keeps the first host error; later calls do nothing and the request
// then ends as a guest failure.
type responseWriter struct {
	header      Headers
	wroteHeader bool
	err         error
}

// Header returns the headers, made on the first call.
func (w *responseWriter) Header() Headers {
	if w.header == nil {
		w.header = Headers{}
	}
	return w.header
}

func (w *responseWriter) WriteHeader(status int) {
	if w.wroteHeader {
		hostLog(abi.LogWarn, fmt.Sprintf("endpoints: superfluous WriteHeader(%d): the status was already sent", status))
		return
	}
	w.wroteHeader = true
	if status != 200 {
		if err := check(abi.ImportResponseSetStatus, responseSetStatus(int32(status))); err != nil {
			w.err = fmt.Errorf("status %d: %w", status, err)
			return
		}
	}
	// Sorted by name, so a module answers the same bytes every time. A
	// few headers are sorted on the stack (an allocation costs a Go
	// module in wasm a few hundred nanoseconds), each with its values,
	// so that the map is not looked up again (a string's hash is a call
	// of memhashFallback in wasm); one is not sorted.
	var buf [8]sentHeader
	hs := buf[:0]
	for name, values := range w.header {
		hs = append(hs, sentHeader{name, values})
	}
	if len(hs) > 1 {
		slices.SortFunc(hs, func(a, b sentHeader) int { return strings.Compare(a.name, b.name) })
	}
	for _, h := range hs {
		for i, value := range h.values {
			fn, set := abi.ImportResponseAddHeader, responseAddHeader
			if i == 0 {
				fn, set = abi.ImportResponseSetHeader, responseSetHeader
			}
			if err := check(fn, set(h.name, value)); err != nil {
				w.err = fmt.Errorf("header %q: %w", h.name, err)
				return
			}
		}
	}
}

// sentHeader is a header WriteHeader sends.
type sentHeader struct {
	name   string
	values []string
}

func (w *responseWriter) Write(p []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(200)
	}
	if w.err != nil {
		return 0, w.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if err := check(abi.ImportResponseWrite, responseWrite(p)); err != nil {
		w.err = err
		return 0, err
	}
	return len(p), nil
}
