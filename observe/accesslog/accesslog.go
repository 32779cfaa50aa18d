// Package accesslog logs one line per request an Endpoints host answers,
// through log/slog, so the handler the program chose (text, JSON, its
// own) decides the format:
//
// Experimental: the line's attributes and this package may change before 1.0
// (README.md, "Stability before 1.0").
//
//	access := accesslog.New(slog.New(slog.NewJSONHandler(os.Stderr, nil)))
//	defer access.Close() // logs the lines still queued
//	h, err := host.New(ctx, "examples/users", host.Options{Observer: access.Observer()})
//
// A text line reads
//
//	time=2026-11-25T17:00:36.132Z level=INFO msg="GET /api/users/2" method=GET route=/api/users/:id client=203.0.113.7 status=200 bytes=58 duration=41µs requestId=7f3a9c1e2b4d6f80a1c3e5d7
//
// and a JSON line has the same keys. `endpoints serve` and `dev` log
// this way (--json for JSON; with --quiet, only answers of 500 and above).
//
// # Notes
//
//   - The message is the method and the path with its query, as the
//     client sent them, except that API keys sent in the query read
//     REDACTED (host.RequestEvent.Query); route is the route's template (absent when no
//     route matched, as for a 404), client the client's address as the
//     host counts it (host.RequestEvent.Client: behind trustedProxies,
//     the address they forward), requestId the X-Request-Id the host
//     answered with (absent likewise), trace_id the trace id of the
//     request's W3C traceparent header (absent when it had no valid one;
//     observe/otel's server span gives every request one), duration the
//     time from receipt to answer, rounded to the microsecond, bytes the
//     body bytes written, db_error the code of a database statement of
//     the request that failed (constraint, unavailable...; absent when
//     none did). The record's time is when the answer was done.
//   - Answers of 500 and above are logged at [slog.LevelError], the others at
//     [slog.LevelInfo]; a logger whose level is above Info logs only the
//     former.
//   - A request only queues its line; a goroutine of the Log formats the
//     lines queued every [Delay], so a line appears up to Delay after its
//     request, after the lines the host logged while serving it, and the
//     request does not pay for slog's formatting with caches the rest of
//     its work has filled: measured by BenchmarkObservers (README,
//     "Operating"). The handler gets context.Background(): the request's
//     context is over by then.
//   - At most [MaxQueued] lines wait; past that a request waits for the
//     goroutine, so a handler whose output blocks slows the requests
//     rather than filling memory.
//   - Combine it with other observers with [host.JoinObservers].
package accesslog

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/logtext"
)

// Delay is how long the Log lets lines queue after the first one before
// it formats them all.
const Delay = 10 * time.Millisecond

// MaxQueued is the most lines a Log holds before a request waits.
const MaxQueued = 8192

// Log is an access log: pass its Observer to [host.Options], and Close it
// after the host. It is safe for concurrent use.
type Log struct {
	logger *slog.Logger
	mu     sync.Mutex
	room   sync.Cond // signalled when the queue was taken
	// queue holds the lines waiting; spare is the batch formatted last,
	// reused for the next queue.
	queue, spare []line
	closed       bool
	wake         chan struct{} // a line is queued; capacity 1
	stop         chan struct{} // closed by Close
	done         chan struct{} // closed when the goroutine has logged its last
}

// line is what a request leaves to log: the values of its event, not the
// request, which is gone by the time the line is formatted.
type line struct {
	at                                    time.Time
	level                                 slog.Level
	method, path, query, route, requestID string
	client                                string
	traceID, dbError                      string
	status                                int
	bytes                                 int64
	duration                              time.Duration
	outbound                              int
	outboundTime                          time.Duration
}

// New returns a Log writing to logger and starts its goroutine, which
// Close ends.
func New(logger *slog.Logger) *Log {
	l := &Log{logger: logger, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	l.room.L = &l.mu
	go l.run()
	return l
}

// Observer returns the hook that queues a line per request, for
// [host.Options.Observer] (or [host.JoinObservers]).
func (l *Log) Observer() *host.Observer { return &host.Observer{Request: l.request} }

func (l *Log) request(e host.RequestEvent) {
	level := slog.LevelInfo
	if e.Status >= http.StatusInternalServerError {
		level = slog.LevelError
	}
	if !l.logger.Enabled(e.Request.Context(), level) {
		return
	}
	ln := line{at: time.Now(), level: level, method: e.Method, path: e.Request.URL.Path, query: e.Query,
		route: e.Route, client: e.Client, requestID: e.RequestID, traceID: e.TraceID, status: e.Status, bytes: e.Bytes, duration: e.Duration,
		outbound: e.OutboundRequests, outboundTime: e.OutboundDuration, dbError: e.DatabaseError}
	l.mu.Lock()
	for len(l.queue) >= MaxQueued && !l.closed {
		l.room.Wait()
	}
	if l.closed {
		l.mu.Unlock()
		<-l.done // the queued lines first
		l.log(ln)
		return
	}
	l.queue = append(l.queue, ln)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default: // the goroutine is already told
	}
}

// Close logs the lines queued, ends the goroutine and returns once it has.
// A request answered after Close is logged at once. Close may be called
// more than once.
func (l *Log) Close() error {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.stop)
	}
	l.room.Broadcast()
	l.mu.Unlock()
	<-l.done
	return nil
}

func (l *Log) run() {
	defer close(l.done)
	delay := time.NewTimer(Delay)
	delay.Stop()
	for {
		select {
		case <-l.wake:
		case <-l.stop:
			l.drain()
			return
		}
		delay.Reset(Delay)
		select {
		case <-delay.C:
		case <-l.stop:
			l.drain()
			return
		}
		select {
		case <-l.wake: // what it announced is drained now
		default:
		}
		l.drain()
	}
}

// drain logs the queue until it is empty.
func (l *Log) drain() {
	for {
		l.mu.Lock()
		batch := l.queue
		l.queue, l.spare = l.spare[:0], nil
		l.room.Broadcast()
		l.mu.Unlock()
		for i := range batch {
			l.log(batch[i])
			batch[i] = line{} // drop the strings
		}
		l.mu.Lock()
		l.spare = batch[:0]
		l.mu.Unlock()
		if len(batch) == 0 {
			return
		}
	}
}

// log formats and hands one line to the logger's handler. What the
// client chose (method, path, query) is cut to logtext.MaxBytes each.
func (l *Log) log(ln line) {
	method := logtext.Cut(ln.method)
	msg := method + " " + logtext.Cut(ln.path)
	if ln.query != "" {
		msg += "?" + logtext.Cut(ln.query)
	}
	var buf [11]slog.Attr
	attrs := append(buf[:0], slog.String("method", method))
	if ln.route != "" {
		attrs = append(attrs, slog.String("route", ln.route))
	}
	if ln.client != "" {
		attrs = append(attrs, slog.String("client", ln.client))
	}
	attrs = append(attrs,
		slog.Int("status", ln.status),
		slog.Int64("bytes", ln.bytes),
		slog.Duration("duration", ln.duration.Round(time.Microsecond)))
	if ln.requestID != "" {
		attrs = append(attrs, slog.String("requestId", ln.requestID))
	}
	if ln.traceID != "" {
		attrs = append(attrs, slog.String("trace_id", ln.traceID))
	}
	if ln.outbound > 0 {
		attrs = append(attrs, slog.Int("outbound", ln.outbound),
			slog.Duration("outboundDuration", ln.outboundTime.Round(time.Microsecond)))
	}
	if ln.dbError != "" {
		attrs = append(attrs, slog.String("db_error", ln.dbError))
	}
	// A record without a caller's pc: Logger.LogAttrs would spend a fifth
	// of the line's cost on runtime.Callers for a source location that is
	// always this function.
	r := slog.NewRecord(ln.at, ln.level, msg, 0)
	r.AddAttrs(attrs...)
	_ = l.logger.Handler().Handle(context.Background(), r)
}
