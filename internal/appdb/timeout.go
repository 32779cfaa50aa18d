package appdb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/wasmendpoints/endpoints/database"
)

// A session's statement timeout (db_timeout, abi/README.md §4.5): a bound
// of each statement from its start, below the call's deadline, whose end
// is the guest's to handle (code timeout) rather than the end of the call.

// SetTimeout bounds each later statement of the session (a query, an
// exec, a begin or a commit; not a rollback) to d from its start, for
// db_timeout: one that runs past it is stopped in the database and fails
// with [database.CodeTimeout], and the call goes on. It only shortens: the
// deadline still ends a statement whose timeout reaches past it. Zero
// lifts it.
func (s *Session) SetTimeout(d time.Duration) { s.timeout = d }

// bound is the deadline of a statement that begins now: the session's, or
// its timeout from now when that comes first (own true).
func (s *Session) bound() (deadline time.Time, own bool) {
	if s.timeout <= 0 {
		return s.deadline, false
	}
	if d := time.Now().Add(s.timeout); d.Before(s.deadline) {
		return d, true
	}
	return s.deadline, false
}

// timedOut is err as the statement timeout's error when the statement's
// own timeout (own) ended it: ctx, the statement's context, passed its
// deadline while the call's context and stop did not end, and the driver
// reported a stopped statement (code other). Otherwise it is err. commit:
// the statement is a COMMIT, whose outcome the error then says is not
// known.
func (s *Session) timedOut(ctx context.Context, own, commit bool, err error) error {
	if err == nil || !own || !errors.Is(ctx.Err(), context.DeadlineExceeded) || s.ctx.Err() != nil ||
		s.hooks.Stop != nil && s.hooks.Stop.Err() != nil || database.CodeOf(err) != database.CodeOther {
		return err
	}
	if commit {
		// The server may have committed before the cancel reached it: a
		// guest told to run the transaction again could apply it twice.
		return &database.Error{Code: database.CodeTimeout, Err: err, Message: fmt.Sprintf(
			"the COMMIT ran past its timeout of %s (db_timeout; a Go context's deadline) and was stopped: "+
				"whether the transaction committed is not known; read back what it wrote before running it again, "+
				"or leave the commit without a timeout", s.timeout)}
	}
	return &database.Error{Code: database.CodeTimeout, Err: err, Message: fmt.Sprintf(
		"the statement ran past its timeout of %s (db_timeout; a Go context's deadline) and was stopped in the database; "+
			"the call goes on: answer from a fallback, or make the statement faster (an index, a smaller result). "+
			"In a transaction, roll back and run it again: PostgreSQL runs no other statement of it, "+
			"and SQLite rolls back the whole transaction of a write it stops", s.timeout)}
}
