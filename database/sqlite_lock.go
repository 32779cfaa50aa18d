package database

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// lockWaitSleep bounds the pause between two attempts at a lock another
// connection holds: short, as go-sqlite3's own busy timeout (about 2 ms),
// so that a write goes on soon after the lock is released.
const lockWaitSleep = 2 * time.Millisecond

// lockWaitMinMargin is the least time a wait for a lock leaves before
// the deadline: a tenth of the time left shrinks at each statement of a
// call that waits again after a busy error (db_begin, then db_exec), and
// would leave the last one too little to answer.
const lockWaitMinMargin = 50 * time.Millisecond

// lockWait is a connection's busy handler: how long a statement waits for
// a lock another connection or process holds. It waits up to timeout (the
// busy timeout, or a migration's), and never past a margin before the
// deadline of the statement's context (the margin of [WaitContext], at
// least lockWaitMinMargin), so that a statement of a call whose deadline
// comes first fails busy while the call can still answer it (503 with
// Retry-After), rather than at the deadline, where the call is stopped
// and the host answers 500. A statement's own timeout ([CallDeadlineKey])
// has a tenth of the time left as its margin, no less: the call goes on
// past it.
type lockWait struct {
	timeout time.Duration
	// end is when the wait in progress gives up; early is set when that
	// is a margin before the deadline rather than at the timeout, own
	// when that deadline is the statement's own timeout. gaveUp is set
	// when a wait gave up there, until explain reads it.
	end    time.Time
	early  bool
	own    bool
	gaveUp bool
}

// busy is the handler go-sqlite3 calls (Conn.BusyHandler) with the
// statement's context (the connection's interrupt) each time the lock is
// found taken, count the times before in this wait; it reports whether
// to try again, after a short pause.
func (w *lockWait) busy(ctx context.Context, count int) bool {
	now := time.Now()
	if count == 0 {
		w.end, w.early, w.own, w.gaveUp = now.Add(w.timeout), false, false, false
		if deadline, ok := ctx.Deadline(); ok {
			stop, own := deadline.Add(-callMargin(now, deadline)), false
			if call, ok := ctx.Value(CallDeadlineKey{}).(time.Time); ok && deadline.Before(call) {
				stop = deadline.Add(-min(deadline.Sub(now)/10, MaxWaitMargin))
				if callStop := call.Add(-callMargin(now, call)); callStop.Before(stop) {
					stop = callStop
				} else {
					own = true
				}
			}
			if stop.Before(w.end) {
				w.end, w.early, w.own = stop, true, own
			}
		}
	}
	left := w.end.Sub(now)
	if left <= 0 {
		w.gaveUp = w.early
		return false
	}
	time.Sleep(min(left, lockWaitSleep/4+rand.N(lockWaitSleep)))
	return true
}

// callMargin is the time a wait that began at now leaves before a call's
// deadline: a tenth of the time left, lockWaitMinMargin to
// MaxWaitMargin.
func callMargin(now, deadline time.Time) time.Duration {
	return max(min(deadline.Sub(now)/10, MaxWaitMargin), lockWaitMinMargin)
}

// explain is err, a statement's error (sqliteError's), saying so when it
// is busy because the wait for the lock stopped before the call's
// deadline or the statement's own timeout rather than at the busy
// timeout.
func (w *lockWait) explain(err error) error {
	gaveUp := w.gaveUp
	w.gaveUp = false
	e, ok := err.(*Error)
	if !ok || !gaveUp || e.Code != CodeBusy {
		return err
	}
	msg, _, _ := strings.Cut(e.Message, ": another connection")
	if w.own {
		e.Message = fmt.Sprintf("%s: another connection or process held the database's write lock until just before the statement's timeout (db_timeout; a Go context's deadline); the wait stopped a tenth of it before, and the call goes on (a retry after a while may work)", msg)
		return e
	}
	e.Message = fmt.Sprintf("%s: another connection or process held the database's write lock until just before the call's deadline; the wait stopped then so that the call can still answer (a retry after a while may work)", msg)
	return e
}
