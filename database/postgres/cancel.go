package postgres

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// settlePause is how long a cancel request that stopped nothing may still
// reach its backend after it was sent (the server, or a pooler in between,
// acknowledged it before the backend acted on it): a connection whose
// statement ended otherwise than cancelled runs nothing more for that
// long (pgx's own handler sleeps as long after every cancel request).
var settlePause = 100 * time.Millisecond

// cancelKey is the key of a connection's cancelHandler in its
// pgconn.PgConn.CustomData.
const cancelKey = "endpoints.cancel"

// cancelHandler stops a statement whose context ended, as pgx's
// CancelRequestContextWatcherHandler does (a cancel request at once, the
// connection dropped if the server does not stop within delay), but lets
// the cancel request finish as libpq does: the server, not the client,
// closes its connection. pgx's cuts it short once the statement returned,
// and PgBouncer before 1.20.1 exited on a cancel request whose client
// closed first (pgbouncer/pgbouncer#801), taking every app behind it
// down on the first call that passed its deadline.
//
// pgx then sleeps 100 ms (settlePause) before the statement returns, so
// that a cancel its backend sees late cannot stop the connection's next
// statement instead: every statement a deadline stopped answered that
// much late. That wait is needed only when the cancel may still be on its
// way. A statement that ended with query_canceled (57014, noteError) was
// stopped by it: the backend has acted on the request, and nothing is
// left to settle. Otherwise (the statement completed, or failed on its
// own, as the request went out) the connection owes the pause before it
// runs anything else (unsettled, settle): db.giveBack closes it rather
// than pooling it, and a transaction's next statement waits for it.
type cancelHandler struct {
	conn  *pgconn.PgConn
	delay time.Duration
	done  chan struct{} // closed once the cancel request finished

	mu sync.Mutex
	// cancelling is set from HandleCancel to HandleUnwatchAfterCancel.
	cancelling bool
	// stopped says that a 57014 came while cancelling.
	stopped bool
	// sent is when the last cancel request finished.
	sent time.Time
	// settleAt is when a cancel request that stopped nothing can no
	// longer reach the backend; zero when none is owed.
	settleAt time.Time
}

// newCancelHandler is c's handler, kept in its CustomData (handlerOf).
func newCancelHandler(c *pgconn.PgConn, delay time.Duration) *cancelHandler {
	h := &cancelHandler{conn: c, delay: delay}
	c.CustomData()[cancelKey] = h
	return h
}

// handlerOf is c's cancelHandler, or nil for a connection made without
// one.
func handlerOf(c *pgconn.PgConn) *cancelHandler {
	h, _ := c.CustomData()[cancelKey].(*cancelHandler)
	return h
}

// HandleCancel sends the cancel request and bounds the connection's
// reads and writes by delay.
func (h *cancelHandler) HandleCancel(context.Context) {
	deadline := time.Now().Add(h.delay)
	h.conn.Conn().SetDeadline(deadline)
	h.mu.Lock()
	h.cancelling, h.stopped = true, false
	h.mu.Unlock()
	h.done = make(chan struct{})
	go func() {
		defer close(h.done)
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		defer cancel()
		h.conn.CancelRequest(ctx)
		h.mu.Lock()
		h.sent = time.Now()
		h.mu.Unlock()
	}()
}

// HandleUnwatchAfterCancel waits for the cancel request to finish (libpq
// does no more) and lifts the deadline. A statement the request did not
// stop leaves the connection unsettled for settlePause.
func (h *cancelHandler) HandleUnwatchAfterCancel() {
	<-h.done
	h.conn.Conn().SetDeadline(time.Time{})
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.stopped {
		h.settleAt = h.sent.Add(settlePause)
	}
	h.cancelling, h.stopped = false, false
}

// noteError is the connection's pgconn.Config.OnPgError: it gives pe to
// c's handler (note), and closes the connection on a FATAL error, as
// pgx's default does.
func noteError(c *pgconn.PgConn, pe *pgconn.PgError) bool {
	if h := handlerOf(c); h != nil {
		h.note(pe)
	}
	return !strings.EqualFold(pe.Severity, "FATAL")
}

// note notes a query_canceled (57014) that comes while a cancel request is
// out, which tells that the backend acted on it; one of
// statement_timeout's does not (the request may come after it).
func (h *cancelHandler) note(pe *pgconn.PgError) {
	if pe.Code != "57014" || strings.Contains(pe.Message, "statement timeout") {
		return
	}
	h.mu.Lock()
	if h.cancelling {
		h.stopped = true
	}
	h.mu.Unlock()
}

// unsettled reports whether c may still receive a cancel request meant
// for a statement it already finished (cancelHandler): it is not to be
// pooled.
func unsettled(c *pgx.Conn) bool {
	h := handlerOf(c.PgConn())
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.settleAt.IsZero() && time.Now().Before(h.settleAt)
}

// settleWaits counts the waits of settle that were not over at once; the
// tests read it.
var settleWaits atomic.Int64

// settle waits, before c runs another statement, until a cancel request
// that stopped none of its statements can no longer reach its backend
// (cancelHandler), or until ctx ends: pgx then runs nothing on c, and the
// wait stays owed.
func settle(ctx context.Context, c *pgx.Conn) {
	h := handlerOf(c.PgConn())
	if h == nil {
		return
	}
	h.mu.Lock()
	at := h.settleAt
	h.mu.Unlock()
	if at.IsZero() {
		return
	}
	if wait := time.Until(at); wait > 0 {
		settleWaits.Add(1)
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
	}
	h.mu.Lock()
	if h.settleAt.Equal(at) {
		h.settleAt = time.Time{}
	}
	h.mu.Unlock()
}
