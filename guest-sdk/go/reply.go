package endpoints

import (
	"encoding/json"
	"fmt"
)

// Reply is a handler's answer: a status, an optional body and optional
// headers. Build it with [Respond]; the zero Reply is not a valid answer.
type Reply struct {
	status  int
	body    any
	headers []headerField
}

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
//     body. Set another one with [Reply.WithHeader] (a +json profile such
//     as application/problem+json must be declared in the contract).
//   - The status must be declared in the operation's Responses (unless they
//     are omitted) and the body must match its schema; the host checks this
//     in development (SPEC.md §4, step 8).
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

// Body returns the value the reply encodes as its body, nil for none.
func (r Reply) Body() any { return r.body }

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
// Any other error answers 500 with
// {"statusCode":500,"statusMessage":"Internal Server Error"} and is logged.
func Error(status int, body any) error {
	return &StatusError{Status: status, Body: body}
}

// internalError is the body of the 500 answered for a handler's error; it
// has the shape of the host's own framework errors (SPEC.md §4).
var internalError = json.RawMessage(`{"statusCode":500,"statusMessage":"Internal Server Error"}`)

// Header returns the headers the reply sends, keyed by lower-case name.
// It is for tests of handlers; the map is a copy.
func (r Reply) Header() Headers {
	h := Headers{}
	for _, f := range r.headers {
		h.Add(f.name, f.value)
	}
	return h
}
