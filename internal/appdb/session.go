package appdb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/internal/sqlredact"
)

// Hooks are how a [Session] reports its statements, and what stops them;
// nil hooks are skipped.
type Hooks struct {
	// Span begins the trace span of a statement (or "BEGIN", "COMMIT",
	// "ROLLBACK") on database db of system ("sqlite", "postgresql"), its
	// literals and comments replaced by "?" (sqlredact.Statement); the
	// function it returns ends it with the statement's error, redacted
	// (database.Error.Redact). Nil for no span.
	Span func(db, system, statement string) func(error)
	// Done reports a statement's database, duration and error, redacted
	// as Span's is: what the hooks report leaves the guest's call, for
	// traces, logs and metrics, and must hold none of its values.
	Done func(db string, d time.Duration, err error)
	// Stop, when it ends, ends the session's statements too, as the
	// call's context and deadline do: a host stopping the calls still
	// running at its shutdown's timeout cancels the statements they wait
	// on (a lock, a slow query), which would otherwise run, and commit,
	// until the call's deadline, after the host gave up on the call. Nil
	// for never.
	Stop context.Context
}

// Session is what one guest call does with its app's databases: the
// pending result of its last statement, and its open transactions. A
// session belongs to the goroutine of its call; [Session.End] rolls back
// what the call left open.
type Session struct {
	set         *Set
	ctx         context.Context
	deadline    time.Time
	maxResult   int
	hooks       Hooks
	txs         map[string]database.Tx
	result      []byte
	pending     bool
	lastErrCode database.Code
	// failed are the codes the session's statements failed with, each
	// once (see Failed).
	failed []database.Code
	// outage is the code of the last statement when it failed
	// unavailable or busy (see Outage), "" otherwise.
	outage database.Code
	// lastDB and lastSQL are the database name and the statement text of
	// the last statement, kept across restarts (see interned).
	lastDB, lastSQL string
	// spanSQL is lastSQL's text for a span (sqlredact.Statement), of
	// spanSystem's dialect, made once for a statement run again.
	spanSQL, spanOf, spanSystem string
	// stmt is the context of the statement that runs, reused from one
	// statement to the next (see stmtContext.restart).
	stmt stmtContext
	// args is the slice the parameters of the last statement were
	// decoded into, emptied (and its values dropped) when it ended, for
	// the next statement's.
	args []any
	// timeout bounds each statement from its start (db_timeout), within
	// the deadline; zero is none. A call starts without one.
	timeout time.Duration
}

// NewSession starts the session of a call whose context is ctx and whose
// statements must end by deadline; maxResult bounds a result's JSON
// (limits.sqlResultBytes).
func NewSession(set *Set, ctx context.Context, deadline time.Time, maxResult int, hooks Hooks) *Session {
	return &Session{set: set, ctx: ctx, deadline: deadline, maxResult: maxResult, hooks: hooks}
}

// keptResultBytes is the largest result buffer [Session.Close] keeps for
// the next call ([Session.Restart]): most results are a few rows, and a
// pooled call must not hold on to the memory of the largest result it ever
// read.
const keptResultBytes = 64 << 10

// Restart makes s the session of another call, as NewSession would, with
// the same hooks: a host that pools its calls keeps a session with each,
// and its result buffer, instead of allocating them for every request. It
// first rolls back what the last call left open, as [Session.Close] does.
func (s *Session) Restart(set *Set, ctx context.Context, deadline time.Time, maxResult int) {
	s.Close()
	*s = Session{set: set, ctx: ctx, deadline: deadline, maxResult: maxResult, hooks: s.hooks, txs: s.txs, result: s.result,
		failed: s.failed[:0], lastDB: s.lastDB, lastSQL: s.lastSQL, args: s.args,
		spanSQL: s.spanSQL, spanOf: s.spanOf, spanSystem: s.spanSystem}
}

// interned returns b as a string: last when it holds the same bytes, else
// a new string that becomes last. A pooled call's guests send the same
// database name and statements request after request, so their strings
// are made once, not for each statement.
func interned(last *string, b []byte) string {
	if string(b) != *last {
		*last = string(b)
	}
	return *last
}

// LastError is the code of the last statement of the session that
// failed, "" when none did: what the access log reports.
func (s *Session) LastError() database.Code { return s.lastErrCode }

// Failed reports whether a statement (or a transaction call) of the
// session failed with code, whatever came after it: the host adds
// Retry-After to a 503 answer of a call whose database was unavailable.
func (s *Session) Failed(code database.Code) bool { return slices.Contains(s.failed, code) }

// Outage is the code of the session's last statement (or transaction
// call) when it failed because its database was down or held
// (database.CodeUnavailable: the database could not be reached, or no
// connection of its pool came free in time; database.CodeBusy: a lock
// held past the busy timeout, a transaction that could not be
// serialized); "" when it did not fail so, or there was none. A call that
// fails after such a statement is answered 503 with Retry-After, as the
// database's failure and not the guest's; one whose guest went on to
// another statement after the outage (a retry that succeeded, one that
// failed for a reason of its own; a rollback does not count) failed on
// its own.
func (s *Session) Outage() database.Code { return s.outage }

// Result is the pending result (or error) JSON; ok is false when none is
// pending.
func (s *Session) Result() (data []byte, ok bool) { return s.result, s.pending }

// Run runs one statement on database db for db_query (exec false) or
// db_exec and keeps its result; it returns the result's size or an errno:
// ErrInvalid for params database.AppendParams refuses, with its error as
// the pending result (code other).
func (s *Session) Run(db, sql, params []byte, exec bool) (int, abi.Errno) {
	s.pending, s.result = false, s.result[:0]
	name := interned(&s.lastDB, db)
	q, system, errno := s.querier(name)
	if errno != 0 {
		return 0, errno
	}
	args, err := database.AppendParams(s.args[:0], params)
	if err != nil {
		// Pending, as db_begin_with's refused options: the guest's
		// error says which parameter and what was expected.
		fn := abi.ImportDBQuery
		if exec {
			fn = abi.ImportDBExec
		}
		s.refuse(fn, err)
		return 0, abi.ErrInvalid
	}
	defer s.keepArgs(args)
	text := interned(&s.lastSQL, sql)
	deadline, own := s.bound()
	ctx := s.stmt.restart(s.ctx, s.hooks.Stop, deadline).ownTimeout(own, s.deadline)
	defer ctx.release()
	began := time.Now()
	end := s.statementSpan(name, system, text)
	if exec {
		var r database.ExecResult
		if r, err = q.Exec(ctx, text, args); err == nil {
			s.result = database.AppendExecResult(s.result, r)
		}
	} else {
		var rows database.Rows
		if rows, err = q.Query(ctx, text, args); err == nil {
			s.result, err = database.AppendQueryResult(s.result, rows, s.maxResult)
		}
	}
	return s.finish(name, began, end, s.timedOut(ctx, own, false, err))
}

// keptArgs is the most parameters whose slice a session keeps for its
// next statement.
const keptArgs = 64

// keepArgs keeps the slice of a statement's parameters, which has ended,
// for the next statement, without its values (the strings and blobs the
// guest sent are not held on to).
func (s *Session) keepArgs(args []any) {
	clear(args)
	if cap(args) <= keptArgs {
		s.args = args[:0]
	}
}

// refuse keeps err, why the host refused the parameters or options of
// host function fn before running anything (ErrInvalid), as the pending
// result (code other), and records it as the session's last error (the
// access log's db_error, Failed): a failure of the guest's own, which
// ends an outage (Outage).
func (s *Session) refuse(fn string, err error) {
	s.result = database.AppendError(s.result[:0], database.Errorf(database.CodeOther, fn+": "+err.Error()))
	s.pending = true
	s.outage = ""
	s.failedWith(database.CodeOther)
}

// failedWith records that a statement of the session failed with code.
func (s *Session) failedWith(code database.Code) {
	s.lastErrCode = code
	if !slices.Contains(s.failed, code) {
		s.failed = append(s.failed, code)
	}
}

// finish ends a statement: its span and its report, with its error
// redacted (database.Error.Redact), and its pending result, with the
// error whole: the guest's own values are the guest's.
func (s *Session) finish(name string, began time.Time, end func(error), err error) (int, abi.Errno) {
	if end != nil || s.hooks.Done != nil {
		reported := err
		if err != nil {
			reported = database.AsError(err).Redact()
		}
		if end != nil {
			end(reported)
		}
		if s.hooks.Done != nil {
			s.hooks.Done(name, time.Since(began), reported)
		}
	}
	s.pending = true
	s.outage = ""
	if err != nil {
		e := database.AsError(err)
		if e.Code == database.CodeUnavailable || e.Code == database.CodeBusy {
			s.outage = e.Code
		}
		s.failedWith(e.Code)
		s.result = database.AppendError(s.result[:0], e)
		return len(s.result), abi.ErrDatabase
	}
	return len(s.result), 0
}

// statementSpan begins the span of a guest's statement text, with its
// literals replaced (sqlredact.Statement): a statement run again, as a
// pooled call's guests do request after request, is redacted once.
func (s *Session) statementSpan(db, system, text string) func(error) {
	if s.hooks.Span == nil {
		return nil
	}
	if text != s.spanOf || system != s.spanSystem {
		s.spanSQL, s.spanOf, s.spanSystem = sqlredact.Statement(sqlredact.DialectOf(system), text), text, system
	}
	return s.hooks.Span(db, system, s.spanSQL)
}

func (s *Session) span(db, system, statement string) func(error) {
	if s.hooks.Span == nil {
		return nil
	}
	return s.hooks.Span(db, system, statement)
}

// querier is the open transaction on database name, else the database;
// ErrNotFound for a name the app does not declare, ErrDatabase (pending
// "unavailable") when it cannot be opened.
func (s *Session) querier(name string) (database.Querier, string, abi.Errno) {
	db, err := s.set.DB(s.ctx, name)
	if err != nil {
		if errors.Is(err, ErrNotDeclared) {
			return nil, "", abi.ErrNotFound
		}
		_, errno := s.finish(name, time.Now(), nil, database.Errorf(database.CodeUnavailable, err.Error()))
		return nil, "", errno
	}
	if tx := s.txs[name]; tx != nil {
		return tx, db.System(), 0
	}
	return db, db.System(), 0
}

// Begin opens a transaction on database db for db_begin.
func (s *Session) Begin(db []byte) abi.Errno {
	return s.begin(string(db), database.TxOptions{}, false)
}

// BeginWithMargin is the least time before the call's deadline
// [Session.BeginWith] begins a transaction with: later, it fails busy at
// once, so that a guest that runs a transaction again after a busy
// failure (the Go SDK's TxOptions.Retries) stops while it can still
// answer 503, rather than be stopped at the deadline with a 500.
const BeginWithMargin = 50 * time.Millisecond

// BeginWith opens a transaction on database db with options, the JSON of
// abi.DBTxOptions, for db_begin_with: ErrInvalid for options
// database.DecodeTxOptions refuses, with its error as the pending result
// (code other); busy when less than BeginWithMargin is left before the
// deadline, unless opts is empty: no options at all begin as db_begin
// does, without the margin, as the SDKs begin with db_begin when given
// the default options.
func (s *Session) BeginWith(db, opts []byte) abi.Errno {
	name := string(db)
	o, err := database.DecodeTxOptions(opts)
	if err != nil {
		if _, ok := s.set.Spec(name); !ok {
			s.pending, s.result = false, s.result[:0]
			return abi.ErrNotFound
		}
		s.refuse(abi.ImportDBBeginWith, err)
		return abi.ErrInvalid
	}
	return s.begin(name, o, len(bytes.TrimSpace(opts)) > 0)
}

// begin opens a transaction on database name with opts; late refuses it
// when less than BeginWithMargin is left before the deadline.
func (s *Session) begin(name string, opts database.TxOptions, late bool) abi.Errno {
	s.pending, s.result = false, s.result[:0]
	d, err := s.set.DB(s.ctx, name)
	if errors.Is(err, ErrNotDeclared) {
		return abi.ErrNotFound
	}
	began := time.Now()
	if err == nil && s.txs[name] != nil {
		err = database.Errorf(database.CodeTransaction, "a transaction is already open on database "+name+" in this call: commit or roll it back first")
	}
	if left := s.deadline.Sub(began); err == nil && late && !s.deadline.IsZero() && left < BeginWithMargin {
		err = database.Errorf(database.CodeBusy, fmt.Sprintf("db_begin_with: %s left before the call's deadline, less than the %s a transaction is begun with; answer 503, so that the client retries later", left.Round(time.Millisecond), BeginWithMargin))
	}
	var end func(error)
	if err == nil {
		end = s.span(name, d.System(), "BEGIN")
		deadline, own := s.bound()
		ctx := newStmtContext(s.ctx, s.hooks.Stop, deadline).ownTimeout(own, s.deadline)
		var tx database.Tx
		tx, err = d.Begin(ctx, opts)
		err = s.timedOut(ctx, own, false, err)
		ctx.release()
		if err == nil {
			if s.txs == nil {
				s.txs = map[string]database.Tx{}
			}
			s.txs[name] = tx
		}
	}
	_, errno := s.finish(name, began, end, err)
	if errno == 0 {
		s.pending = false
	}
	return errno
}

// End ends the transaction on database db for db_commit (commit true) or
// db_rollback.
func (s *Session) End(db []byte, commit bool) abi.Errno {
	name := string(db)
	s.pending, s.result = false, s.result[:0]
	if _, ok := s.set.Spec(name); !ok {
		return abi.ErrNotFound
	}
	tx := s.txs[name]
	began := time.Now()
	var err error
	var end func(error)
	system := ""
	if d, derr := s.set.DB(s.ctx, name); derr == nil {
		system = d.System()
	}
	switch {
	case tx == nil:
		err = database.Errorf(database.CodeTransaction, "no transaction is open on database "+name+": call db_begin first")
	case commit:
		end = s.span(name, system, "COMMIT")
		deadline, own := s.bound()
		ctx := newStmtContext(s.ctx, s.hooks.Stop, deadline).ownTimeout(own, s.deadline)
		err = s.timedOut(ctx, own, true, tx.Commit(ctx))
		ctx.release()
		delete(s.txs, name)
	default:
		end = s.span(name, system, "ROLLBACK")
		err = rollback(s.ctx, tx)
		delete(s.txs, name)
	}
	outage := s.outage
	_, errno := s.finish(name, began, end, err)
	if !commit && s.outage == "" {
		// A rollback cleans up after a failure (an SDK drops the
		// transaction as its guest fails): it does not get past the
		// outage that failure may follow (Outage).
		s.outage = outage
	}
	if errno == 0 {
		s.pending = false
	}
	return errno
}

// rollbackTimeout bounds a rollback (db_rollback, or of what a call left
// open): a server that no longer answers, its connection open (a wedged
// server or pooler), would otherwise hold the call in the host function
// for good, since the call's deadline is checked when a host function
// returns. PostgreSQL's ROLLBACK takes milliseconds.
const rollbackTimeout = 5 * time.Second

// rollback rolls tx back under ctx's values but not its end: the call may
// be past its deadline or its client gone, and the rollback must run all
// the same, for at most rollbackTimeout.
func rollback(ctx context.Context, tx database.Tx) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
	defer cancel()
	return tx.Rollback(ctx)
}

// Close rolls back every transaction the call left open: it returned
// without a commit, trapped or passed its deadline. It reports how many.
// A result buffer of up to keptResultBytes stays for a restart.
func (s *Session) Close() int {
	n := 0
	for name, tx := range s.txs {
		rollback(s.ctx, tx)
		delete(s.txs, name)
		n++
	}
	s.pending, s.result = false, s.result[:0]
	if cap(s.result) > keptResultBytes {
		s.result = nil
	}
	return n
}
