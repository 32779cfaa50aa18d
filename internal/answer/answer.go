// Package answer writes whole answers in one way each: those the host
// makes itself (its error bodies, Problem Details: [Write]) and those a
// guest made and the host buffered (a handler's, a middleware's, a stored
// one replayed: [Buffered]).
package answer

import (
	"net/http"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// errorBody is the shape of host.FrameworkError, which documents it.
type errorBody struct {
	StatusCode    int    `json:"statusCode"`
	StatusMessage string `json:"statusMessage"`
	Data          any    `json:"data,omitempty"`
}

// ErrorBody is the body of an answer the host makes itself, for a
// request it refuses or a guest that failed (host.FrameworkError), byte
// for byte: statusCode, statusMessage (message, or http.StatusText of
// status when message is ""), then data unless it is nil or empty, a
// map's members in name order. The OpenAPI document's examples of these
// answers are made by it too, so that they hold the very values, escaped
// alike.
//
//	body, err := answer.ErrorBody(413, "", map[string]int64{"limit": 1048576})
//	// {"statusCode":413,"statusMessage":"Request Entity Too Large","data":{"limit":1048576}}
func ErrorBody(status int, message string, data any) ([]byte, error) {
	if message == "" {
		message = http.StatusText(status)
	}
	return json.Marshal(errorBody{StatusCode: status, StatusMessage: message, Data: data}, json.Deterministic(true), jsontext.AllowInvalidUTF8(true))
}

// Write answers r with status and body, of media type contentType.
func Write(w http.ResponseWriter, r *http.Request, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// NoBody reports whether an answer of status carries no body (RFC 9110
// §15.3.5, §15.4.5; 1xx): what a guest writes with it is dropped.
func NoBody(status int) bool {
	return status == http.StatusNoContent || status == http.StatusNotModified || status < 200
}

// Buffered answers r with a whole answer a guest made, whose headers are
// in w's already: [Describe] then [Send].
func Buffered(w http.ResponseWriter, r *http.Request, status int, defaultType string, body []byte) {
	Describe(w.Header(), status, defaultType, body)
	Send(w, r, status, body)
}

// Describe sets the headers that describe a buffered body in h: when the
// body is not empty and h names no Content-Type, defaultType (none when
// it is ""); its Content-Length, unless the status has no body (NoBody).
func Describe(h http.Header, status int, defaultType string, body []byte) {
	// The keys are canonical: indexing h does what h.Get and h.Set do,
	// without canonicalising them again for every answer.
	if NoBody(status) {
		return
	}
	if defaultType != "" && len(body) > 0 && (len(h["Content-Type"]) == 0 || h["Content-Type"][0] == "") {
		// Both values in one allocation, each slice capped at its own
		// element, so that an Add to one cannot write into the other.
		vs := []string{defaultType, strconv.Itoa(len(body))}
		h["Content-Type"], h["Content-Length"] = vs[0:1:1], vs[1:2:2]
		return
	}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
}

// Send writes the status, then the body unless the request is a HEAD or
// the status has none (NoBody). The headers are w's as they are.
func Send(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	w.WriteHeader(status)
	if r.Method != http.MethodHead && !NoBody(status) {
		_, _ = w.Write(body)
	}
}
