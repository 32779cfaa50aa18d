package host

import (
	"net/http"
)

// writeDocsError answers a request the docs page or the document route
// refuses as the host's other errors.
func writeDocsError(w http.ResponseWriter, r *http.Request, status int, data any) {
	writeError(w, r, status, "", data)
}
