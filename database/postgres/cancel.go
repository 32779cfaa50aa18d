package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// cancelHandler stops a statement whose context ended, as pgx's
// CancelRequestContextWatcherHandler does (a cancel request at once, the
// connection dropped if the server does not stop within delay), but lets
// the cancel request finish as libpq does: the server, not the client,
// closes its connection. pgx's cuts it short once the statement returned,
// and PgBouncer before 1.20.1 exited on a cancel request whose client
// closed first (pgbouncer/pgbouncer#801), taking every app behind it
// down on the first call that passed its deadline.
type cancelHandler struct {
	conn  *pgconn.PgConn
	delay time.Duration
	done  chan struct{}
}

// HandleCancel sends the cancel request and bounds the connection's
// reads and writes by delay.
func (h *cancelHandler) HandleCancel(context.Context) {
	deadline := time.Now().Add(h.delay)
	h.conn.Conn().SetDeadline(deadline)
	h.done = make(chan struct{})
	go func() {
		defer close(h.done)
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		defer cancel()
		h.conn.CancelRequest(ctx)
		// The server has the request, but its backend may not have
		// seen it yet: wait, as pgx does, so that it cannot stop the
		// connection's next statement instead.
		time.Sleep(100 * time.Millisecond)
	}()
}

// HandleUnwatchAfterCancel waits for the cancel request to finish and
// lifts the deadline.
func (h *cancelHandler) HandleUnwatchAfterCancel() {
	<-h.done
	h.conn.Conn().SetDeadline(time.Time{})
}
