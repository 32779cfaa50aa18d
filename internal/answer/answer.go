// Package answer writes the complete answers the host makes itself (its
// error bodies, Problem Details) in one way: the body's type and length,
// nosniff, the status, and the body unless the request is a HEAD.
package answer

import (
	"net/http"
	"strconv"
)

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
