package observe

import (
	"net/http"
	"sync"
	"time"
)

// Exchange is the writer of an observed request: it counts the status and
// body bytes of the answer, and carries what routing, admission and the
// guests' calls learned of the request to the host's Request hook. It is
// owned by the request's goroutine, from [Begin] to [Exchange.End].
//
//	x := observe.Begin(w)
//	defer func() { report(x.Status(), x.Bytes()); x.End() }()
//	serve(x, r) // the pipeline sets x.Route... through [Of]
type Exchange struct {
	http.ResponseWriter
	// Start is when the host received the request.
	Start time.Time
	// Route is the template of the route that served the request, "" when
	// none did; RequestID its X-Request-Id.
	Route, RequestID string
	// SecretQuery names the query parameters that carry credentials in
	// the table that served the request, redacted in what a log shows.
	SecretQuery []string
	// Outbound and OutboundTime are the outbound HTTP requests the
	// request's guests sent and the time they took.
	Outbound     int
	OutboundTime time.Duration
	// DatabaseError is the code of a statement of the request's guests
	// that failed, the last one; "" when none did.
	DatabaseError string

	status int
	bytes  int64
}

var exchanges = sync.Pool{New: func() any { return new(Exchange) }}

// Begin returns an Exchange over w, started now, from a pool: [Exchange.End]
// gives it back.
func Begin(w http.ResponseWriter) *Exchange {
	x := exchanges.Get().(*Exchange)
	x.ResponseWriter, x.Start = w, time.Now()
	return x
}

// End clears x and returns it to the pool: x must not be used afterwards.
func (x *Exchange) End() {
	*x = Exchange{}
	exchanges.Put(x)
}

// Of returns the Exchange w is, or nil when w is not observed: the host
// notes what it learns of a request only when someone listens.
func Of(w http.ResponseWriter) *Exchange {
	x, _ := w.(*Exchange)
	return x
}

// Status is the final status written so far; 200 when none was (the
// handler wrote nothing, as net/http answers then).
func (x *Exchange) Status() int {
	if x.status == 0 {
		return http.StatusOK
	}
	return x.status
}

// Bytes counts the body bytes written.
func (x *Exchange) Bytes() int64 { return x.bytes }

// WriteHeader records the final status: not a 1xx (103 Early Hints
// precede the final status), except 101, which is final.
func (x *Exchange) WriteHeader(code int) {
	if x.status == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		x.status = code
	}
	x.ResponseWriter.WriteHeader(code)
}

// Write counts the body bytes the writer under x took.
func (x *Exchange) Write(p []byte) (int, error) {
	if x.status == 0 {
		x.status = http.StatusOK
	}
	n, err := x.ResponseWriter.Write(p)
	x.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the server's writer (Flush,
// EnableFullDuplex).
func (x *Exchange) Unwrap() http.ResponseWriter { return x.ResponseWriter }

// SetReadDeadline and SetWriteDeadline set the deadlines of the writer
// under x, sparing the host's deadlines http.ResponseController's
// allocation when that writer has the methods (net/http's own does). They
// return nil: a writer without deadlines (httptest.ResponseRecorder) is
// left alone, as the host leaves its own.
func (x *Exchange) SetReadDeadline(t time.Time) error {
	if d, ok := x.ResponseWriter.(interface{ SetReadDeadline(time.Time) error }); ok {
		_ = d.SetReadDeadline(t)
		return nil
	}
	_ = http.NewResponseController(x.ResponseWriter).SetReadDeadline(t)
	return nil
}

// SetWriteDeadline: see [Exchange.SetReadDeadline].
func (x *Exchange) SetWriteDeadline(t time.Time) error {
	if d, ok := x.ResponseWriter.(interface{ SetWriteDeadline(time.Time) error }); ok {
		_ = d.SetWriteDeadline(t)
		return nil
	}
	_ = http.NewResponseController(x.ResponseWriter).SetWriteDeadline(t)
	return nil
}
