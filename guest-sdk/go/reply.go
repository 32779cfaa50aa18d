package endpoints

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Reply is a handler's answer: a status, an optional body and optional
// headers. Build it with [Respond] (a JSON body), [Bytes] (a binary body),
// [Stream] or [EventStream] (a body written piece by piece); the zero
// Reply is not a valid answer.
type Reply struct {
	status int
	kind   replyKind
	body   any                   // replyJSON: encoded with encoding/json
	bytes  []byte                // replyBytes
	stream func(io.Writer) error // replyStream
	// defaults are headers the SDK sets (Content-Type, Cache-Control)
	// unless headers name them too.
	defaults []headerField
	headers  []headerField
}

// replyKind says how a Reply's body is sent.
type replyKind uint8

const (
	replyJSON   replyKind = iota // Respond
	replyBytes                   // Bytes
	replyStream                  // Stream, EventStream
)

// headerField is one response header value.
type headerField struct{ name, value string }

// Respond returns a Reply with the status and body. The body is encoded
// with encoding/json; a nil body sends no body at all (for 204 or 304).
//
//	return endpoints.Respond(200, user)
//	return endpoints.Respond(204, nil)
//
// # Notes
//
//   - No Content-Type is set: the host sends application/json for a JSON
//     body, or the +json profile the status declares with [JSONAs]. Set
//     another one with [Reply.WithHeader].
//   - The status must be declared in the operation's Responses (unless they
//     are omitted) and the body must match its schema; the host checks this
//     in development (docs/spec.md §4, step 10).
//   - A nil slice encodes as null, which does not match an "array" schema:
//     return empty slices, or tag the field omitempty.
func Respond(status int, body any) Reply {
	return Reply{status: status, body: body}
}

// WithHeader returns a copy of r that also sends the header. Calling it
// twice with one name sends both values (two Set-Cookie headers, say).
//
//	return endpoints.Respond(201, u).WithHeader("Location", "/api/users/4")
//
// # Notes
//
//   - Hop-by-hop and framing headers ([abi.ForbiddenResponseHeaders]) are
//     refused by the host: the request fails with a logged error.
func (r Reply) WithHeader(name, value string) Reply {
	headers := make([]headerField, len(r.headers), len(r.headers)+1)
	copy(headers, r.headers)
	r.headers = append(headers, headerField{name, value})
	return r
}

// Status returns the reply's status code.
func (r Reply) Status() int { return r.status }

// Body returns the value the reply encodes as its body: the value given
// to [Respond], the []byte given to [Bytes]; nil for none and for a
// stream, whose body [Reply.WriteTo] writes.
func (r Reply) Body() any {
	switch r.kind {
	case replyBytes:
		return r.bytes
	case replyStream:
		return nil
	}
	return r.body
}

// WriteTo writes the reply's body to w as the SDK hands it to the host:
// the JSON of a [Respond] body, the bytes of [Bytes], or what the function
// of a [Stream] or an [EventStream] writes, each of its writes one Write
// to w. It returns the number of bytes written. It is for tests of
// handlers:
//
//	var body bytes.Buffer
//	_, err := handler(&in).WriteTo(&body)
//
// # Notes
//
//   - A stream's function runs on every call of WriteTo.
func (r Reply) WriteTo(w io.Writer) (int64, error) {
	switch r.kind {
	case replyBytes:
		n, err := w.Write(r.bytes)
		return int64(n), err
	case replyStream:
		if r.stream == nil {
			return 0, errNilStream
		}
		cw := &countingWriter{w: w}
		err := r.stream(cw)
		return cw.n, err
	}
	if r.body == nil {
		return 0, nil
	}
	// json.Marshal writes what the SDK's encoder does (HTML escaped, no
	// newline), into a buffer of its own: tests may run in parallel.
	body, err := json.Marshal(r.body)
	if err != nil {
		return 0, err
	}
	n, err := w.Write(body)
	return int64(n), err
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// StatusError is an error that answers with its own status and body when a
// [HandleFunc] handler returns it (or wraps it). Build it with [Error].
type StatusError struct {
	// Status is the HTTP status code to answer with.
	Status int
	// Body is encoded as the JSON body; nil sends none.
	Body any
}

// Error returns "status 404" followed by the body's JSON when it has one.
func (e *StatusError) Error() string {
	if e.Body == nil {
		return fmt.Sprintf("status %d", e.Status)
	}
	b, err := json.Marshal(e.Body)
	if err != nil {
		return fmt.Sprintf("status %d", e.Status)
	}
	return fmt.Sprintf("status %d: %s", e.Status, b)
}

// Error returns an error that makes a [HandleFunc] handler answer status
// with body, as if it had returned a [Reply]:
//
//	if !ok {
//		return User{}, endpoints.Error(404, NotFound{Message: "no such user"})
//	}
//
// An error wrapping [ErrStorageUnavailable] answers 503; any other error
// answers 500 with
// {"statusCode":500,"statusMessage":"Internal Server Error"}; both are
// logged.
func Error(status int, body any) error {
	return &StatusError{Status: status, Body: body}
}

// ErrorReply is the answer [HandleFunc] gives for a handler's error, for a
// [Handle] handler to give the same: an error made by [Error] (or wrapping
// one) answers its status and body; an error wrapping
// [ErrStorageUnavailable] (a database or key-value store the host could
// not reach: [ErrDatabaseUnavailable] is one) or [ErrBusy] (a database
// locked past its busy timeout, a transaction PostgreSQL could not
// serialize: trying again later may work) answers 503, and any other 500,
// each with the body of the host's own errors and logged.
//
//	n, err := notes.Create(in.Body)
//	if errors.Is(err, endpoints.ErrUniqueViolation) {
//		return endpoints.Respond(409, Conflict{Message: "that slug is taken"})
//	}
//	if err != nil {
//		return endpoints.ErrorReply(err)
//	}
//	return endpoints.Respond(201, n)
func ErrorReply(err error) Reply {
	var se *StatusError
	if errors.As(err, &se) {
		return Respond(se.Status, se.Body)
	}
	Logger().Error("handler failed", "error", err.Error())
	if errors.Is(err, ErrStorageUnavailable) || errors.Is(err, ErrBusy) {
		return Respond(503, storageUnavailable)
	}
	return Respond(500, internalError)
}

// internalError is the body of the 500 answered for a handler's error; it
// has the shape of the host's own framework errors (docs/spec.md §4).
var internalError = json.RawMessage(`{"statusCode":500,"statusMessage":"Internal Server Error"}`)

// storageUnavailable is the body of the 503 answered for a handler's error
// wrapping ErrStorageUnavailable or ErrBusy, in the same shape.
var storageUnavailable = json.RawMessage(`{"statusCode":503,"statusMessage":"Service Unavailable"}`)

// Header returns the headers the reply sends, keyed by lower-case name,
// the SDK's own (Content-Type of [Bytes] and [Stream], Cache-Control of
// [EventStream]) included. It is for tests of handlers; the map is a copy.
func (r Reply) Header() Headers {
	h := Headers{}
	for _, f := range r.headers {
		h.Add(f.name, f.value)
	}
	for _, f := range r.defaults {
		if h.Values(f.name) == nil {
			h.Set(f.name, f.value)
		}
	}
	return h
}

// overrides reports whether the reply's own headers (WithHeader) name the
// header, which then replaces the SDK's default.
func (r Reply) overrides(name string) bool {
	for _, f := range r.headers {
		if strings.EqualFold(f.name, name) {
			return true
		}
	}
	return false
}
