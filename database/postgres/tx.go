package postgres

import (
	"context"
	"errors"
	"hash/maphash"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/wasmendpoints/endpoints/database"
)

// tx is a transaction. One that Begin opened holds a connection acquire
// took (conn, given back to db when it ends) and has not begun in the
// server: its BEGIN is sent with its first statement, in one batch and
// one round trip (begin), and a transaction that ends before any
// statement ran sends nothing. Migrate's has begun (t set, conn nil;
// db set only to name the database in errors).
//
// # Notes
//
//   - t is pgx's transaction once BEGIN ran; nil before.
//   - batch and first are the batch of BEGIN and the first statement, and
//     that statement's rows, while they are read: nothing else may run on
//     the connection until the batch is closed (closeBatch), which the
//     rows' end does, and every method does first.
//   - aborted says that the first statement failed in the server before
//     BEGIN ran (PostgreSQL refused to prepare it: a syntax error, a table
//     that does not exist). PostgreSQL aborts a transaction in which a
//     statement fails; this one then answers as such a transaction would,
//     with no round trip: its statements refused, its commit a rollback.
//   - opts are the options of its BEGIN (database.TxOptions as pgx's).
//   - discard is set once a statement of it left something in the
//     session (keepsSession): the connection is closed when the
//     transaction ends, not pooled (db.giveBack).
//   - Each statement, and the commit or rollback, first waits out a
//     cancel request that may still reach the connection (settle).
type tx struct {
	opts    pgx.TxOptions // its BEGIN's: isolation, read-only
	t       pgx.Tx
	db      *db
	conn    *pgxpool.Conn
	batch   pgx.BatchResults
	first   pgx.Rows
	aborted bool
	done    bool
	discard bool
}

// errAborted is PostgreSQL's refusal of a statement in a transaction a
// statement of which failed, for one whose BEGIN never ran (tx.aborted):
// mapError gives it the code and advice it gives the server's.
var errAborted = &pgconn.PgError{Severity: "ERROR", Code: "25P02", Message: "current transaction is aborted, commands ignored until end of transaction block"}

// errEnded is the error of a statement, or commit, after the end.
func errEnded() error { return database.Errorf(database.CodeTransaction, "the transaction has ended") }

// end closes what is open and gives the connection back (or closes it:
// discard).
func (t *tx) end() {
	t.closeBatch()
	if t.conn != nil {
		t.db.giveBack(t.conn, t.discard)
		t.conn = nil
	}
}

// closeBatch closes the batch that began the transaction, if it is still
// open, after the rows of its first statement. Their error is the
// statement's, which its caller has (the rows' Err); one of the batch
// alone is the connection's, which pgx then closes, and the next
// statement reports.
func (t *tx) closeBatch() {
	if t.batch != nil {
		t.first.Close()
		t.batch.Close()
		t.batch, t.first = nil, nil
	}
}

// query sends a statement in the transaction, beginning it with the
// first; it returns the statement's rows (a batch's, for the first:
// t.batch is then set) or the mapped error.
func (t *tx) query(ctx context.Context, sql string, args []any) (pgx.Rows, error) {
	if t.done {
		return nil, errEnded()
	}
	if err := checkStatement(sql); err != nil {
		return nil, err
	}
	t.discard = t.discard || keepsSession(sql)
	t.closeBatch()
	if t.lost() {
		return nil, errLost()
	}
	if t.t == nil {
		if t.aborted {
			return nil, mapError(ctx, t.db.name, errAborted)
		}
		if err := t.reconnect(ctx); err != nil {
			return nil, err
		}
		settle(ctx, t.conn.Conn())
		if !t.db.beginAlone.has(sql) && !t.db.uncached(sql) {
			// A batch runs in the connection's exec mode: a statement
			// too long to cache (queryArgs) is sent after BEGIN.
			return t.begin(ctx, sql, args)
		}
		pt, err := t.conn.BeginTx(ctx, t.opts)
		if err != nil {
			return nil, t.db.fail(ctx, err)
		}
		t.t = pt
	} else {
		settle(ctx, t.t.Conn())
	}
	r, err := t.t.Query(ctx, sql, t.db.queryArgs(sql, args)...)
	if err != nil {
		return nil, t.mapError(ctx, err)
	}
	return r, nil
}

// readOnly reports whether the transaction began READ ONLY.
func (t *tx) readOnly() bool { return t.opts.AccessMode == pgx.ReadOnly }

// mapError is mapError for a statement of t (readOnlyDenied).
func (t *tx) mapError(ctx context.Context, err error) error {
	return readOnlyDenied(mapError(ctx, t.db.name, err), t.readOnly())
}

// readOnlyDenied is err, mapped, but for a write PostgreSQL refused in a
// transaction that began READ ONLY (25006, read_only_sql_transaction):
// the guest asked for it, so it is CodeDenied, where elsewhere 25006 is a
// server that takes no writes (mapError: unavailable). Its SQLState is
// PostgreSQL's, which logs and observers show.
func readOnlyDenied(err error, readOnly bool) error {
	var pe *pgconn.PgError
	if !readOnly || !errors.As(err, &pe) || pe.Code != "25006" {
		return err
	}
	msg := pe.Message + ": " + database.ReadOnlyMessage
	return &database.Error{Code: database.CodeDenied, Message: msg, Redacted: redactedMessage(pe, msg), SQLState: pe.Code, Err: err}
}

// txOptions are opts as pgx's: BEGIN ISOLATION LEVEL ... READ ONLY.
func txOptions(opts database.TxOptions) pgx.TxOptions {
	var o pgx.TxOptions
	switch opts.Isolation {
	case database.IsolationReadCommitted:
		o.IsoLevel = pgx.ReadCommitted
	case database.IsolationRepeatableRead:
		o.IsoLevel = pgx.RepeatableRead
	case database.IsolationSerializable:
		o.IsoLevel = pgx.Serializable
	}
	if opts.ReadOnly {
		o.AccessMode = pgx.ReadOnly
	}
	return o
}

// lost reports whether the transaction began and its connection was
// closed since: by pgx, after a statement of it failed on the wire (a row
// past database.Options.MaxRowBytes, the server gone). The server rolled
// it back; nothing more of it can run.
func (t *tx) lost() bool {
	return t.t != nil && t.conn != nil && t.conn.Conn().IsClosed()
}

// errLost is the error of a statement, or commit, of a lost transaction:
// the guest's transaction ended, which is not the server being down.
func errLost() error {
	return database.Errorf(database.CodeTransaction, "the transaction ended when its connection was closed after one of its statements failed (see that statement's error); nothing of it was committed: run it again")
}

// reconnect gives back the connection of a transaction that has not
// begun, when it is closed (a failed first statement closed it), and
// takes another: nothing of the transaction is on the server yet. A
// transaction an earlier reconnect left without one (its acquire failed)
// takes one too.
func (t *tx) reconnect(ctx context.Context) error {
	if t.conn != nil {
		if !t.conn.Conn().IsClosed() {
			return nil
		}
		t.db.release(t.conn)
		t.conn = nil
	}
	c, err := t.db.acquire(ctx)
	if err != nil {
		return err
	}
	t.conn = c
	return nil
}

// begin sends BEGIN and the transaction's first statement in one batch:
// one round trip, or two when the connection has not yet prepared the
// statement (pgx prepares it first, as for any statement). A failure
// before BEGIN ran is reported as Begin reported it: the server
// unreachable is unavailable, and the pool's connections are dropped
// (db.fail). The statement's own refusal in the server (it could not be
// prepared) leaves the transaction aborted, as PostgreSQL's would be.
//
// pgx refuses parameters that do not fit the statement (argumentError)
// before it sends them, but after it queued BEGIN, and then closes the
// connection, whose batch it cannot finish. The transaction stays as it
// was, to begin on another connection (reconnect); and the statement is
// kept in db.beginAlone, so that the transactions it begins later send
// their BEGIN alone, as before this batch, and bad input cannot make the
// pool connect anew for every request.
//
// The cached-plan retry of statements outside a transaction (db.Query)
// is not made here: PostgreSQL aborted the transaction, and mapError
// says to run it again.
func (t *tx) begin(ctx context.Context, sql string, args []any) (pgx.Rows, error) {
	b := &pgx.Batch{}
	b.BeginTx(t.opts)
	b.Queue(sql, exactArgs(args)...)
	br := t.conn.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		br.Close()
		// pgx says which step of the batch failed; the error is the
		// step's own.
		var pre pgx.ErrPreprocessingBatch
		if errors.As(err, &pre) {
			err = pre.Unwrap()
		}
		var pe *pgconn.PgError
		switch {
		case errors.As(err, &pe) && !t.conn.Conn().IsClosed():
			t.aborted = true
			return nil, t.mapError(ctx, err)
		case argumentError(err) != nil:
			t.db.beginAlone.add(sql)
		}
		return nil, t.db.fail(ctx, err)
	}
	t.t = br.Tx()
	r, err := br.Query()
	if err != nil {
		br.Close()
		return nil, t.mapError(ctx, err)
	}
	t.batch, t.first = br, r
	return r, nil
}

func (t *tx) Query(ctx context.Context, sql string, args []any) (database.Rows, error) {
	r, err := t.query(ctx, sql, args)
	if err != nil {
		return nil, withStatement(err, sql)
	}
	rs := newRows(ctx, t.db.name, r)
	rs.readOnly, rs.sql = t.readOnly(), sql
	if t.batch != nil {
		rs.tx = t
	}
	return rs, nil
}

func (t *tx) Exec(ctx context.Context, sql string, args []any) (database.ExecResult, error) {
	r, err := t.query(ctx, sql, args)
	if err != nil {
		return database.ExecResult{}, withStatement(err, sql)
	}
	res, err := execResult(r)
	t.closeBatch()
	if err != nil {
		return res, withStatement(t.mapError(ctx, err), sql)
	}
	return res, nil
}

func (t *tx) Commit(ctx context.Context) error {
	if t.done {
		return errEnded()
	}
	t.done = true
	defer t.end()
	t.closeBatch()
	switch {
	case t.aborted:
		// PostgreSQL's COMMIT of an aborted transaction rolls it back,
		// which pgx reports so.
		return mapError(ctx, t.db.name, pgx.ErrTxCommitRollback)
	case t.t == nil:
		return nil // nothing began
	case t.lost():
		return errLost()
	}
	settle(ctx, t.t.Conn())
	if err := t.t.Commit(ctx); err != nil {
		return mapError(ctx, t.db.name, err)
	}
	return nil
}

func (t *tx) Rollback(ctx context.Context) error {
	if t.done {
		return nil
	}
	t.done = true
	defer t.end()
	t.closeBatch()
	if t.t == nil {
		return nil // nothing began, or nothing remains of it
	}
	settle(ctx, t.t.Conn())
	if err := t.t.Rollback(ctx); err != nil && !errors.Is(err, pgx.ErrTxClosed) {
		return mapError(ctx, t.db.name, err)
	}
	return nil
}

// statementSet is a set of statements, safe for concurrent use, that
// holds up to maxStatements: adding one more empties it first. It keeps
// each statement's hash, not its text, so that its size does not grow
// with the statements' (a long one made from input, with arguments that
// do not fit it, would be kept whole): two statements of one hash (one
// chance in 2^64 for a pair) share their membership, which for
// beginAlone costs a round trip.
type statementSet struct {
	mu   sync.RWMutex
	seed maphash.Seed
	m    map[uint64]struct{}
}

// maxStatements bounds a statementSet. The statements it holds are those
// of an app's code, which are few; the bound is for an app that makes
// its SQL text from input.
const maxStatements = 1024

// has reports whether sql is in s.
func (s *statementSet) has(sql string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.m == nil {
		return false
	}
	_, ok := s.m[maphash.String(s.seed, sql)]
	return ok
}

// add puts sql in s.
func (s *statementSet) add(sql string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.seed = maphash.MakeSeed()
	}
	if s.m == nil || len(s.m) >= maxStatements {
		s.m = make(map[uint64]struct{})
	}
	s.m[maphash.String(s.seed, sql)] = struct{}{}
}
