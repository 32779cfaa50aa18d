package endpoints

import (
	"context"
	"fmt"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
)

// QueryContext is [Database.Query] bounded by ctx, as database/sql's
// QueryContext: a ctx already done fails at once with ctx.Err(), running
// nothing; with a deadline, the statement must end by it (the host calls
// db_timeout, abi/README.md §4.5, with the time left), or the database
// stops it and the error is a [*DBError] of code abi.DBCodeTimeout, which
// errors.Is finds as [ErrStatementTimeout] and as
// context.DeadlineExceeded. The handler then has the rest of its time to
// answer.
//
//	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
//	defer cancel()
//	rows, err := db.QueryContext(ctx, "SELECT id, total FROM report($1)", month)
//	if errors.Is(err, context.DeadlineExceeded) {
//		return endpoints.Respond(200, cachedReport) // a fallback
//	}
//
// # Notes
//
//   - The deadline only shortens: the call's own deadline still ends a
//     statement whose context reaches past it.
//   - A module is single-threaded while a statement runs: a ctx canceled
//     without a deadline stops a statement only before it starts.
func (d *Database) QueryContext(ctx context.Context, sql string, args ...any) (*Rows, error) {
	if err := d.bound(ctx, "QueryContext"); err != nil {
		return nil, err
	}
	defer d.unbound(ctx)
	return d.Query(sql, args...)
}

// QueryRowContext is [Database.QueryRow] bounded by ctx, as
// [Database.QueryContext] is; its errors (ctx.Err() too) wait for
// [Row.Scan].
func (d *Database) QueryRowContext(ctx context.Context, sql string, args ...any) *Row {
	if err := d.bound(ctx, "QueryRowContext"); err != nil {
		return &Row{err: err}
	}
	defer d.unbound(ctx)
	return d.QueryRow(sql, args...)
}

// ExecContext is [Database.Exec] bounded by ctx, as
// [Database.QueryContext] is.
func (d *Database) ExecContext(ctx context.Context, sql string, args ...any) (Result, error) {
	if err := d.bound(ctx, "ExecContext"); err != nil {
		return Result{}, err
	}
	defer d.unbound(ctx)
	return d.Exec(sql, args...)
}

// TxContext is [Database.Tx] with its begin and commit bounded by ctx, as
// [Database.QueryContext] bounds a statement; fn's statements are bounded
// by the contexts they are given ([Tx.QueryContext]...). A ctx already
// done fails at once with ctx.Err(), beginning nothing. A commit stopped
// at ctx's deadline may have committed or not, as with database/sql: its
// error says so; read back what fn wrote before running it again.
func (d *Database) TxContext(ctx context.Context, fn func(tx *Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := d.tx(ctx, "TxContext", TxOptions{}, fn)
	return err
}

// QueryContext is [Database.QueryContext] in the transaction. On
// PostgreSQL a statement stopped at ctx's deadline aborts the
// transaction, and SQLite rolls back the transaction of a write it
// stops: return its error, which rolls it back.
func (tx *Tx) QueryContext(ctx context.Context, sql string, args ...any) (*Rows, error) {
	return tx.db.QueryContext(ctx, sql, args...)
}

// QueryRowContext is [Database.QueryRowContext] in the transaction.
func (tx *Tx) QueryRowContext(ctx context.Context, sql string, args ...any) *Row {
	return tx.db.QueryRowContext(ctx, sql, args...)
}

// ExecContext is [Database.ExecContext] in the transaction.
func (tx *Tx) ExecContext(ctx context.Context, sql string, args ...any) (Result, error) {
	return tx.db.ExecContext(ctx, sql, args...)
}

// bound prepares the next statement of method under ctx: ctx.Err() when
// ctx is done (or its deadline passed), else db_timeout with the time
// left before its deadline, rounded up to a millisecond, when it has one.
func (d *Database) bound(ctx context.Context, method string) error {
	if err := ctxDone(ctx); err != nil {
		return err
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		return nil
	}
	left := time.Until(deadline)
	if left <= 0 {
		return context.DeadlineExceeded // it passed since ctxDone looked
	}
	ms := min((left+time.Millisecond-1)/time.Millisecond, abi.DBTimeoutMax)
	if rc := dbTimeout(int32(ms)); rc < 0 {
		return fmt.Errorf("endpoints: database %q: %s: %w", d.name, method, check(abi.ImportDBTimeout, rc))
	}
	return nil
}

// ctxDone is ctx.Err(), or context.DeadlineExceeded once ctx's deadline
// passed though its timer has not fired yet (a module runs no other
// goroutine while it computes).
func ctxDone(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if deadline, ok := ctx.Deadline(); ok && !time.Now().Before(deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// unbound lifts the timeout bound set for ctx, so that the call's next
// statements without a context have the call's deadline alone, as
// before.
func (d *Database) unbound(ctx context.Context) {
	if _, ok := ctx.Deadline(); ok {
		dbTimeout(0)
	}
}
