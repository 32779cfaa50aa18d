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

// Writes is the write deadline of one request's connection as last set
// through it, so that a deadline that would barely move it is not set
// again: updating a connection's deadline costs a runtime timer's update
// and a clock reading (about 80 ns on a loopback TCP connection, 2 cores,
// 2026-11-27), and a streamed answer would otherwise pay it at every
// write. The zero Writes knows no deadline
// and sets the first; a nil *Writes sets every one. It belongs to the
// goroutine serving the request, and every write deadline of the request
// must be set through it, or [Writes.Record]ed.
type Writes struct {
	at int64 // unix nanoseconds; 0 for none known
}

// Set sets the write deadline of the connection under w to t, unless the
// deadline last set is no later than t and earlier by less than slack:
// then it stays, which leaves a write at least the time it was given
// less slack. A deadline earlier than the last (the end of a guest call
// that comes before the write timeout) is always set.
func (d *Writes) Set(w http.ResponseWriter, t time.Time, slack time.Duration) {
	if d == nil {
		SetWrite(w, t)
		return
	}
	n := t.UnixNano()
	if d.at != 0 && d.at <= n && n-d.at < int64(slack) {
		return
	}
	d.at = n
	SetWrite(w, t)
}

// Record notes that the write deadline was set to t by other means
// ([SetWrite] before d existed).
func (d *Writes) Record(t time.Time) { d.at = t.UnixNano() }
