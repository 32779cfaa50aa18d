package endpoints

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
)

// Isolation is a transaction's isolation level ([TxOptions.Isolation]),
// as database/sql's IsolationLevel and pgx's TxIsoLevel; see
// abi/README.md §4.5.
type Isolation string

// Isolation levels of [TxOptions]. SQLite's transactions are always
// serializable, which each level allows: it accepts all three.
const (
	// DefaultIsolation is the database's own level: READ COMMITTED on
	// PostgreSQL unless the server is set otherwise; serializable on
	// SQLite.
	DefaultIsolation Isolation = ""
	// ReadCommitted: each statement sees what was committed before it
	// began.
	ReadCommitted Isolation = abi.DBIsolationReadCommitted
	// RepeatableRead: the transaction sees one snapshot, taken at its
	// first statement; changing a row another transaction changed since
	// fails with [ErrBusy].
	RepeatableRead Isolation = abi.DBIsolationRepeatableRead
	// Serializable: the transaction behaves as if it ran alone; one that
	// cannot be serialized with the others fails with [ErrBusy], and
	// running it again ([TxOptions.Retries]) may succeed.
	Serializable Isolation = abi.DBIsolationSerializable
)

// TxOptions are the options of a transaction [Database.TxWith] runs; the
// zero value is [Database.Tx]'s: read-write, the database's isolation, no
// retry.
type TxOptions struct {
	// Isolation is the isolation level. Defaults to [DefaultIsolation].
	Isolation Isolation
	// ReadOnly makes the transaction refuse writes: a write's error is an
	// [ErrDenied] saying the transaction is read-only. On SQLite a
	// read-only transaction takes no write lock, so it runs beside a
	// writer and other readers, where a read-write one waits for the
	// writer. On PostgreSQL at READ COMMITTED each of its statements
	// reads a snapshot of its own; a report of several statements takes
	// Isolation [RepeatableRead] too, to read one.
	ReadOnly bool
	// Retries is how many times fn runs again when the transaction
	// failed with [ErrBusy] (a serialization failure or a deadlock on
	// PostgreSQL): after its statements or its commit failed so, never
	// when the begin itself did. A read-write SQLite transaction takes
	// the write lock at its begin (waiting up to the busy timeout), so
	// its busy failure is the begin's, which is not retried. Each retry waits a little first (5 ms, doubling up to 100 ms,
	// jittered). Defaults to 0: none.
	//
	// Retry only a function that does nothing but its statements, or
	// whose other effects may happen twice: an outbound call, a
	// key-value write or a log line of a failed attempt is not undone
	// with its transaction.
	Retries int
}

// Backoff bounds of [TxOptions.Retries].
const (
	txRetryFirstPause = 5 * time.Millisecond
	txRetryMaxPause   = 100 * time.Millisecond
)

// TxWith runs fn in a transaction begun with opts, as [Database.Tx] runs
// one: it commits when fn returns nil and rolls back when fn returns an
// error (returned) or panics (re-panicked). With opts.Retries, fn runs
// again in a new transaction while the transaction fails with [ErrBusy]:
//
//	// Two requests incrementing one counter at once: one of them fails
//	// to serialize, and runs again on the value the other committed.
//	err := db.TxWith(endpoints.TxOptions{Isolation: endpoints.Serializable, Retries: 3}, func(tx *endpoints.Tx) error {
//		var n int64
//		if err := tx.QueryRow("SELECT n FROM counters WHERE id = $1", id).Scan(&n); err != nil {
//			return err
//		}
//		_, err := tx.Exec("UPDATE counters SET n = $1 WHERE id = $2", n+1, id)
//		return err
//	})
//
// # Notes
//
//   - The retries run under the call's deadline, as everything the
//     handler does. The host begins no transaction with less than 50 ms
//     left (abi/README.md §4.5): the retries then stop with [ErrBusy],
//     which a [HandleFunc] handler answers 503, with Retry-After.
//   - An error fn returns that wraps the statement's (fmt.Errorf's %w)
//     is retried too: errors.Is finds [ErrBusy] in it.
//   - The transaction begins with db_begin_with (abi/README.md §4.5);
//     with the zero TxOptions, as [Database.Tx], with db_begin, as it
//     always did.
func (d *Database) TxWith(opts TxOptions, fn func(tx *Tx) error) error {
	return d.txWith(context.Background(), "TxWith", opts, fn)
}

// TxWithContext is [Database.TxWith] with each attempt's begin and
// commit bounded by ctx, as [Database.TxContext] bounds them, as
// database/sql's BeginTx takes a context and options: a ctx already done
// fails at once with ctx.Err(), beginning nothing, and no retry begins
// once ctx is done: the error is then the last attempt's (errors.Is finds
// [ErrBusy] in it) with ctx.Err() beside it.
func (d *Database) TxWithContext(ctx context.Context, opts TxOptions, fn func(tx *Tx) error) error {
	return d.txWith(ctx, "TxWithContext", opts, fn)
}

// txWith is TxWith and TxWithContext, for method.
func (d *Database) txWith(ctx context.Context, method string, opts TxOptions, fn func(tx *Tx) error) error {
	for attempt := 0; ; attempt++ {
		began, err := d.tx(ctx, method, opts, fn)
		if err == nil || !began || attempt >= opts.Retries || !errors.Is(err, ErrBusy) {
			return err
		}
		time.Sleep(txRetryPause(attempt))
		if cerr := ctxDone(ctx); cerr != nil {
			// The busy error stays the answer (503): ctx's alone would
			// hide why the transaction failed.
			return fmt.Errorf("%w (not run again: %w)", err, cerr)
		}
	}
}

// txRetryPause is the pause before retry attempt+1: txRetryFirstPause
// doubled at each attempt up to txRetryMaxPause, between half of it and
// all of it at random, so that the transactions that failed together do
// not run again together.
func txRetryPause(attempt int) time.Duration {
	d := txRetryMaxPause
	if attempt < 5 {
		d = min(txRetryFirstPause<<attempt, txRetryMaxPause)
	}
	return d/2 + rand.N(d/2+1)
}

// tx runs fn in one transaction begun with opts, for method, its begin
// and commit bounded by ctx (as [Database.QueryContext] bounds a
// statement); began is false when the transaction could not begin.
func (d *Database) tx(ctx context.Context, method string, opts TxOptions, fn func(tx *Tx) error) (began bool, err error) {
	if err := d.bound(ctx, method); err != nil {
		return false, err
	}
	// With retries too: db_begin_with begins nothing close to the
	// deadline, which stops them (TxWith's notes).
	var rc int32
	fnName := abi.ImportDBBegin
	if opts == (TxOptions{}) {
		rc = dbBegin(d.name)
	} else {
		fnName = abi.ImportDBBeginWith
		rc = dbBeginWith(d.name, appendTxOptions(argsBuf[:0], opts))
	}
	d.unbound(ctx)
	if rc < 0 {
		return false, d.fail(method, fnName, rc)
	}
	committed := false
	defer func() {
		if !committed {
			dbEnd(d.name, false)
		}
	}()
	if err := fn(&Tx{d}); err != nil {
		return true, err
	}
	committed = true
	if err := d.bound(ctx, method); err != nil {
		dbEnd(d.name, false)
		return true, err
	}
	rc = dbEnd(d.name, true)
	d.unbound(ctx)
	if rc < 0 {
		return true, d.fail(method, abi.ImportDBCommit, rc)
	}
	return true, nil
}

// appendTxOptions appends opts as db_begin_with takes them
// (abi.DBTxOptions): {"isolation":"serializable","readOnly":true}.
func appendTxOptions(b []byte, opts TxOptions) []byte {
	b = append(b, '{')
	if opts.Isolation != DefaultIsolation {
		b = append(b, `"isolation":`...)
		b = appendJSONString(b, string(opts.Isolation))
	}
	if opts.ReadOnly {
		if opts.Isolation != DefaultIsolation {
			b = append(b, ',')
		}
		b = append(b, `"readOnly":true`...)
	}
	return append(b, '}')
}

// invalidError is the error of the ErrInvalid of fn (db_begin_with's
// options, db_query's or db_exec's parameters): the pending result's
// message, which says what the host expected (a host before it left
// none).
func (d *Database) invalidError(method, fn string, rc int32) error {
	if r, ok := pendingError(); ok {
		return fmt.Errorf("endpoints: database %q: %s: %s: %w", d.name, method, r.Error.Message, check(fn, rc))
	}
	return fmt.Errorf("endpoints: database %q: %s: %w", d.name, method, check(fn, rc))
}
