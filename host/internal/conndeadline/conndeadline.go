// Package conndeadline sets the read and write deadlines of the
// connection under an [http.ResponseWriter], as [http.ResponseController]
// does, without its allocation when the writer is net/http's own, which
// has the methods itself. The host sets them per request
// (server.readTimeout, server.writeTimeout, a call's deadline).
package conndeadline

import (
	"net/http"
	"time"
)

// SetRead sets the read deadline of the connection under w to t. A writer
// that has none, such as httptest.ResponseRecorder, is left alone.
func SetRead(w http.ResponseWriter, t time.Time) {
	if d, ok := w.(interface{ SetReadDeadline(time.Time) error }); ok {
		_ = d.SetReadDeadline(t)
		return
	}
	_ = http.NewResponseController(w).SetReadDeadline(t)
}

// SetWrite sets the write deadline of the connection under w to t. A
// writer that has none, such as httptest.ResponseRecorder, is left alone.
func SetWrite(w http.ResponseWriter, t time.Time) {
	if d, ok := w.(interface{ SetWriteDeadline(time.Time) error }); ok {
		_ = d.SetWriteDeadline(t)
		return
	}
	_ = http.NewResponseController(w).SetWriteDeadline(t)
}
