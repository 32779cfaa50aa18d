// Package postgres registers the PostgreSQL driver of package database
// ("postgres"), on pgx's connection pool. A program links it, and pgx,
// only when it imports it:
//
// Experimental: this driver and its settings may change before 1.0
// (README.md, "Stability before 1.0").
//
//	import _ "github.com/wasmendpoints/endpoints/database/postgres"
//
// The endpoints command imports it.
//
// # Notes
//
//   - Every statement uses the extended protocol (prepared, parameters
//     bound), which refuses several statements in one: a guest's SQL is
//     one statement. The url's default_query_exec_mode is kept (exec
//     behind a pooler in transaction mode), except simple_protocol,
//     which is refused (checkExecMode).
//   - A statement whose context ends is cancelled in the server (a cancel
//     request), not only abandoned by the client; it returns once the
//     request is done, and a connection the request may still reach
//     (its statement ended otherwise) runs nothing for a pause
//     (cancelHandler).
//   - The pool is bounded (database.Options.MaxConns); a call that finds
//     every connection taken until its deadline fails with
//     database.CodeUnavailable. statement_timeout bounds each statement
//     in the server too (database.Options.StatementTimeout), and a
//     statement past it fails with database.CodeTimeout, as one past the
//     call's db_timeout does.
//   - A connection that breaks (its backend terminated, its socket
//     dropped by a proxy) fails its statement unavailable and is closed
//     alone; the pool drops all of its connections only when the server
//     cannot be reached (db.serverGone).
//   - Session state is the pool's: a guest may not run SET, RESET,
//     DISCARD, LISTEN, COPY, LOAD, PREPARE, DEALLOCATE or transaction
//     control in SQL (database.CodeDenied); db_begin opens transactions.
//     A statement that leaves something in its session (a temporary
//     table, a session-level advisory lock, a setting changed with
//     set_config or in a DO block or a query given as text to
//     query_to_xml, random()'s seed) has its connection closed, not
//     pooled, when it or its transaction ends. keepsSession reads the
//     statement's text only: the same done by a function, view, rule,
//     trigger or column default the statement runs is not seen, and
//     stays on the pooled connection. Resetting every connection
//     (DISCARD ALL but its prepared statements) would catch it, at a
//     round trip per statement, or a third more CPU sent ahead of the
//     next one (BenchmarkPostgresSessionReset, internal/appdb): not
//     done, and abi/README.md §4.5 says what app code does instead.
//   - A transaction takes its connection at Begin, but its BEGIN is sent
//     with its first statement, in one round trip; one that runs no
//     statement costs the server nothing (tx).
package postgres

import (
	"bytes"
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/internal/sqlredact"
)

func init() { database.Register(database.DriverPostgres, open) }

// rowOverhead is what a row message holds beside its values (a count and
// a length per column), allowed past database.Options.MaxRowBytes.
const rowOverhead = 64 << 10

// defaultConnectTimeout bounds a connection attempt whose url sets no
// connect_timeout (nor PGCONNECT_TIMEOUT, nor the pg_service.conf service
// it names): it then fails unavailable.
var defaultConnectTimeout = 10 * time.Second

// open makes the pool; it connects lazily, so a host starts while the
// server is down.
func open(ctx context.Context, opts database.Options) (database.DB, error) {
	cfg, err := pgxpool.ParseConfig(opts.URL)
	switch {
	case err != nil && opts.URL == "":
		return nil, fmt.Errorf("libpq's environment (PG* variables): %w", err)
	case err != nil:
		return nil, fmt.Errorf("url: %w", err)
	case opts.URL == "":
		if err := checkEnvironment(&cfg.ConnConfig.Config, opts.Name); err != nil {
			return nil, err
		}
	}
	if cfg.ConnConfig.ConnectTimeout == 0 && !strings.Contains(opts.URL, "connect_timeout") && os.Getenv("PGCONNECT_TIMEOUT") == "" {
		// A server that accepts the connection and never answers (a
		// proxy without its backend) held a load's migrations, and so a
		// start, or `endpoints migrate` for ever; a statement of a call
		// is bounded by its deadline too.
		cfg.ConnConfig.ConnectTimeout = defaultConnectTimeout
	}
	if !strings.Contains(opts.URL, "statement_cache_capacity") {
		cfg.ConnConfig.StatementCacheCapacity = statementCacheSize
	}
	if !strings.Contains(opts.URL, "description_cache_capacity") {
		cfg.ConnConfig.DescriptionCacheCapacity = statementCacheSize
	}
	cfg.MaxConns = int32(opts.MaxConns)
	cfg.MinConns = 0
	cfg.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(opts.StatementTimeout.Milliseconds(), 10)
	if err := checkExecMode(cfg.ConnConfig); err != nil {
		return nil, err
	}
	if n := opts.MaxRowBytes; n > 0 {
		cfg.ConnConfig.BuildFrontend = func(r io.Reader, w io.Writer) *pgproto3.Frontend {
			f := pgproto3.NewFrontend(r, w)
			// Every message the server sends is bounded: a row's
			// (DataRow), and the others, which are small.
			f.SetMaxBodyLen(n + rowOverhead)
			return f
		}
	}
	cfg.AfterConnect = func(_ context.Context, c *pgx.Conn) error {
		// json and jsonb values are their JSON text (abi/README.md
		// §4.5), not decoded: see jsonText.
		m := c.TypeMap()
		registerNestedArrays(m)
		m.RegisterType(&pgtype.Type{Name: "json", OID: pgtype.JSONOID, Codec: &pgtype.JSONCodec{Marshal: json.Marshal, Unmarshal: jsonText}})
		m.RegisterType(&pgtype.Type{Name: "jsonb", OID: pgtype.JSONBOID, Codec: &pgtype.JSONBCodec{Marshal: json.Marshal, Unmarshal: jsonText}})
		// Their arrays hold each element's JSON as it is (jsonRaw), so
		// that the array's JSON keeps every number exact, where pgx's
		// own codec decoded them into float64s; and their dimensions, as
		// every array's (registerNestedArrays).
		m.RegisterType(&pgtype.Type{Name: "_json", OID: pgtype.JSONArrayOID, Codec: nestedArrays{&pgtype.ArrayCodec{ElementType: &pgtype.Type{Name: "json", OID: pgtype.JSONOID, Codec: &pgtype.JSONCodec{Marshal: json.Marshal, Unmarshal: jsonRaw}}}}})
		m.RegisterType(&pgtype.Type{Name: "_jsonb", OID: pgtype.JSONBArrayOID, Codec: nestedArrays{&pgtype.ArrayCodec{ElementType: &pgtype.Type{Name: "jsonb", OID: pgtype.JSONBOID, Codec: &pgtype.JSONBCodec{Marshal: json.Marshal, Unmarshal: jsonRaw}}}}})
		// xml is text, which pgx gave as bytes (a blob to the guest).
		m.RegisterType(&pgtype.Type{Name: "xml", OID: pgtype.XMLOID, Codec: pgtype.TextCodec{}})
		return nil
	}
	cfg.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		// Cancel the statement in the server at once; drop the
		// connection if the server does not stop within a second.
		return newCancelHandler(c, time.Second)
	}
	cfg.ConnConfig.OnPgError = noteError
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	mode := cfg.ConnConfig.DefaultQueryExecMode
	return &db{pool: pool, name: opts.Name, max: cfg.MaxConns, probeConfig: cfg.ConnConfig.Config.Copy(), where: location(&cfg.ConnConfig.Config),
		caches: mode == pgx.QueryExecModeCacheStatement || mode == pgx.QueryExecModeCacheDescribe}, nil
}

// db is the pool. inUse counts the connections its statements and
// transactions hold, which tells when a statement will wait for one.
// beginAlone is the statements whose transactions send their BEGIN
// alone (tx.begin says why). probeConfig is the pool's connection
// settings, with which serverGone connects, and probing is set while it
// does.
type db struct {
	pool        *pgxpool.Pool
	name        string // database.Options.Name
	max         int32
	inUse       atomic.Int32
	beginAlone  statementSet
	probeConfig *pgconn.Config
	probing     atomic.Bool
	where       string // Location
	// caches is set when the url's exec mode keeps statements by their
	// SQL text (cache_statement, cache_describe): queryArgs then runs a
	// long one uncached.
	caches bool
}

// maxCachedSQL is the longest SQL text of a statement pgx may keep by its
// text, prepared under a name (cache_statement: the text on the host, the
// plan in the server) or described (cache_describe), as SQLite's driver
// bounds its own cache. A longer one is prepared unnamed for each run
// (describe_exec, a round trip more): pgx keeps 512 statements a
// connection, and a guest that sends distinct long statements would fill
// the host's memory and the server's with them.
const maxCachedSQL = 4096

// statementCacheSize is how many statements pgx keeps a connection
// (prepared under a name, or described), unless the url says otherwise
// (statement_cache_capacity, description_cache_capacity): as many as
// SQLite's driver keeps, more than the distinct statements of most apps.
// pgx's own 512 let a guest's distinct statements take the server's
// memory: each keeps its plan in the server, 800 KB for one of 4 KiB
// (maxCachedSQL), 410 MB a connection.
const statementCacheSize = 64

// queryArgs are the arguments pgx's Query takes for a guest's statement:
// its parameters exact (exactArgs), after describe_exec when its text is
// too long to cache (maxCachedSQL) and the connections cache.
func (d *db) queryArgs(sql string, args []any) []any {
	args = exactArgs(args)
	if !d.uncached(sql) {
		return args
	}
	return append([]any{pgx.QueryExecModeDescribeExec}, args...)
}

// uncached reports whether sql runs without pgx's caches (queryArgs): in
// a migration's transaction too, which has its db (to name the database
// in errors).
func (d *db) uncached(sql string) bool { return d != nil && d.caches && len(sql) > maxCachedSQL }

// acquire takes a connection of the pool for a statement or a
// transaction. When none is idle, it waits for one to come free, or to be
// made (a server that does not answer may keep the dial waiting), until
// database.WaitContext ends, a little before the call's deadline, and
// then fails unavailable (waitError), leaving the call time to answer.
func (d *db) acquire(ctx context.Context) (*pgxpool.Conn, error) {
	wait := ctx
	if d.inUse.Load() >= d.max || d.pool.Stat().IdleConns() == 0 {
		var cancel context.CancelFunc
		wait, cancel = database.WaitContext(ctx)
		defer cancel()
	}
	c, err := d.pool.Acquire(wait)
	if err != nil {
		// pgxpool gives the context's own error, unwrapped, when the
		// wait ends.
		if err == wait.Err() {
			return nil, d.waitError(err)
		}
		return nil, d.fail(ctx, err)
	}
	d.inUse.Add(1)
	return c, nil
}

// release gives back a connection acquire took; pgxpool closes one left
// in a transaction or broken.
func (d *db) release(c *pgxpool.Conn) {
	d.inUse.Add(-1)
	c.Release()
}

// giveBack gives back a connection acquire took, or closes it instead
// when a guest's statement left something in its session (discard, see
// keepsSession): a temporary table would outlive the call on the pooled
// connection, shadow the app's table of its name in the next calls there
// and make their CREATE TEMP TABLE of its name fail as already there; a
// session-level advisory lock would be held for good. A connection a
// cancel request may still reach (unsettled: its statement ended as the
// request went out, not stopped by it) is closed too, rather than kept
// from the pool, or its caller kept waiting, for the pause: it is rare
// (a deadline that came as the statement ended), and costs the next
// statement a connection, as the cancel request cost the server one.
func (d *db) giveBack(c *pgxpool.Conn, discard bool) {
	if !discard && !unsettled(c.Conn()) {
		d.release(c)
		return
	}
	d.inUse.Add(-1)
	conn := c.Hijack()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	conn.Close(ctx)
}

func (d *db) System() string { return "postgresql" }

func (d *db) Location() string { return d.where }

func (d *db) Query(ctx context.Context, sql string, args []any) (database.Rows, error) {
	if err := checkStatement(sql); err != nil {
		return nil, err
	}
	c, err := d.acquire(ctx)
	if err != nil {
		return nil, err
	}
	discard := keepsSession(sql)
	for attempt := 0; ; attempt++ {
		r, err := c.Query(ctx, sql, d.queryArgs(sql, args)...)
		if err != nil {
			if attempt == 0 && staleStatement(err) {
				continue
			}
			d.giveBack(c, discard)
			return nil, withStatement(d.fail(ctx, err), sql)
		}
		// The first row is read now, where the error of a statement
		// whose cached plan a schema change made stale comes: it runs
		// again, once, prepared anew.
		rs := newRows(ctx, d.name, r)
		if !rs.first() && attempt == 0 && staleStatement(r.Err()) {
			continue
		}
		rs.db, rs.conn, rs.discard, rs.sql = d, c, discard, sql
		return rs, nil
	}
}

func (d *db) Exec(ctx context.Context, sql string, args []any) (database.ExecResult, error) {
	c, err := d.acquire(ctx)
	if err != nil {
		return database.ExecResult{}, err
	}
	defer d.giveBack(c, keepsSession(sql))
	r, err := d.execOn(ctx, c, sql, args)
	if staleStatement(err) {
		r, err = d.execOn(ctx, c, sql, args)
	}
	if err != nil {
		return r, withStatement(d.fail(ctx, err), sql)
	}
	return r, nil
}

// staleStatement reports whether err is PostgreSQL's refusal of a
// prepared statement whose result's columns changed since it was prepared
// (a migration altered a table a "SELECT *" reads): each connection of
// the pool prepared its own, so each would fail once after a migration
// that another host or `endpoints migrate` applied. pgx has then dropped it
// from its cache, and nothing ran: outside a transaction the statement
// runs again, prepared anew; in one, which PostgreSQL has aborted,
// mapError says to run the transaction again.
func staleStatement(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "0A000" && strings.Contains(pe.Message, "cached plan must not change result type")
}

// fail maps err, the error of acquiring a connection or of a statement
// on one (failed).
func (d *db) fail(ctx context.Context, err error) error {
	if err == ctx.Err() {
		return d.waitError(err)
	}
	return d.failed(ctx, err)
}

// failed maps err, the error of a statement outside a transaction or of a
// connection of the pool. When the server itself is gone (serverGone) it
// also drops the pool's connections, which a restarted server no longer
// knows, so that the statements after an outage connect anew instead of
// failing once per stale connection. A failure of one connection (its
// backend terminated, its socket dropped by a proxy) costs that
// connection only: pgx has closed it, and the pool destroys it when it is
// given back; the others go on serving.
//
// A connection the server refused for having too many (53300) says which
// setting to lower.
func (d *db) failed(ctx context.Context, err error) error {
	mapped := mapError(ctx, d.name, err)
	if database.CodeOf(mapped) != database.CodeUnavailable {
		return mapped
	}
	var pe *pgconn.PgError
	var e *database.Error
	if errors.As(err, &pe) && pe.Code == "53300" && errors.As(mapped, &e) {
		e.Message += fmt.Sprintf(": the server refuses more connections (its max_connections, or a connection limit of the role or database): lower %s, counting every host that shares the server, or raise the server's limit", database.Setting(d.name, "maxConns"))
	}
	if d.serverGone(ctx, err) {
		d.pool.Reset()
	}
	return mapped
}

// probeTimeout bounds serverGone's connection to the server.
const probeTimeout = 2 * time.Second

// serverGone reports whether err, which mapError made unavailable, says
// that the server cannot be reached, rather than that one connection
// failed:
//   - a failed connect (a dial refused, a server starting up or shutting
//     down) is the server gone, unless the server answered it otherwise
//     (too many connections: it is there, and busy);
//   - a statement's own error (a PgError of severity ERROR: out of
//     memory, disk full) leaves its connection open: nothing is gone;
//   - a connection that broke (a FATAL error, such as its backend
//     terminated, or its socket closed) is only itself gone, unless a
//     new connection to the server fails too, within probeTimeout and
//     ctx. One call at a time finds out: a call that finds another doing
//     so leaves the decision to it.
func (d *db) serverGone(ctx context.Context, err error) bool {
	var ce *pgconn.ConnectError
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &ce):
		return !serverAnswered(err)
	case errors.As(err, &pe) && pe.Severity != "FATAL" && pe.Severity != "PANIC":
		return false
	}
	if !d.probing.CompareAndSwap(false, true) {
		return false
	}
	defer d.probing.Store(false)
	probe, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	c, err := pgconn.ConnectConfig(probe, d.probeConfig)
	if err != nil {
		// A call that ended while its probe connected does not know.
		return ctx.Err() == nil && !serverAnswered(err)
	}
	c.Close(probe)
	return false
}

// serverAnswered reports whether err, a failed connect, is the server's
// answer that it is there: an error it sent, other than one of class 57P
// (shutting down, starting up, crashed), which says it is going or
// coming back.
func serverAnswered(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && !strings.HasPrefix(pe.Code, "57P")
}

// waitError is the error of a statement whose context ended while it
// waited for a connection: pgxpool gives the context's own error then,
// unwrapped (a statement stopped in the server is a *pgconn.PgError, one
// stopped on the wire a wrapped error). It is unavailable, as a server
// that cannot be reached: the host answers 503, not 500.
func (d *db) waitError(err error) error {
	if st := d.pool.Stat(); st.AcquiredConns() >= st.MaxConns() {
		return database.PoolFullError(d.name, int(st.MaxConns()), err)
	}
	return &database.Error{Code: database.CodeUnavailable, Err: err, Message: "no connection to the server was made in time"}
}

// execOn runs an exec on a connection of the pool through Query: pgx's
// Exec takes the simple protocol for a statement without parameters,
// which would run several. Its errors are pgx's, which the caller maps.
func (d *db) execOn(ctx context.Context, c *pgxpool.Conn, sql string, args []any) (database.ExecResult, error) {
	if err := checkStatement(sql); err != nil {
		return database.ExecResult{}, err
	}
	r, err := c.Query(ctx, sql, d.queryArgs(sql, args)...)
	if err != nil {
		return database.ExecResult{}, err
	}
	return execResult(r)
}

// execResult closes r, the rows of an exec, and says what it changed, or
// pgx's error.
func execResult(r pgx.Rows) (database.ExecResult, error) {
	r.Close()
	if err := r.Err(); err != nil {
		return database.ExecResult{}, err
	}
	return database.ExecResult{RowsAffected: r.CommandTag().RowsAffected()}, nil
}

// Begin takes a connection for the transaction and sends nothing yet:
// its BEGIN (BEGIN ISOLATION LEVEL ... READ ONLY, as opts ask) goes with
// its first statement, in the same round trip (see tx). A pool whose connections are all taken fails it as a statement
// (acquire).
func (d *db) Begin(ctx context.Context, opts database.TxOptions) (database.Tx, error) {
	c, err := d.acquire(ctx)
	if err != nil {
		return nil, err
	}
	return &tx{db: d, conn: c, opts: txOptions(opts)}, nil
}

// MigrationLock is the key of the transaction-level advisory lock a
// migration holds while it runs (pg_advisory_xact_lock): a host or an
// `endpoints migrate` that finds it taken waits for it. An operator sees
// who holds it, and who waits, in pg_locks:
//
//	SELECT pid, granted FROM pg_locks WHERE locktype = 'advisory'
//	  AND classid = 1701733488 AND objid = 1869180532 AND objsubid = 1;
const MigrationLock int64 = 0x656e64706f696e74 // "endpoint"

// Migrate runs fn in a transaction holding MigrationLock. The wait for
// the lock and the migration's statements are bounded by ctx only, not
// by the statement timeout (database.Options.StatementTimeout), which is
// the guests': a migration that builds an index on a large table, and the
// host that waits for it, take what it takes.
//
// Its connection is closed afterwards, not pooled: what a migration leaves
// in its session (a temporary table of a data migration, a setting it
// changed for itself) is not the guests'.
func (d *db) Migrate(ctx context.Context, fn func(database.Migration) error) error {
	c, err := d.pool.Acquire(ctx)
	if err != nil {
		return mapError(ctx, d.name, err)
	}
	defer func() {
		conn := c.Hijack()
		closing, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		conn.Close(closing)
	}()
	t, err := c.Begin(ctx)
	if err != nil {
		return mapError(ctx, d.name, err)
	}
	defer t.Rollback(context.WithoutCancel(ctx))
	if _, err := t.Exec(ctx, "SET LOCAL statement_timeout = 0"); err != nil {
		return mapError(ctx, d.name, err)
	}
	if _, err := t.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", MigrationLock); err != nil {
		return mapError(ctx, d.name, err)
	}
	if err := fn(&migration{tx{t: t, db: d}}); err != nil {
		return err
	}
	settle(ctx, t.Conn())
	if err := t.Commit(ctx); err != nil {
		return mapError(ctx, d.name, err)
	}
	return nil
}

// migration is the transaction of Migrate.
type migration struct{ tx }

// Script runs the statements in turn with the simple protocol, inside the
// transaction. An error names the statement that failed: the one at its
// position when PostgreSQL gives one (a syntax error, which stops the
// script before anything runs), else the one after those that completed.
// A script's own transaction statements are refused before anything
// runs (scriptTransaction).
func (m *migration) Script(ctx context.Context, sql string) error {
	if stmt := scriptTransaction(sql); stmt != "" {
		return &database.Error{Code: database.CodeDenied, Message: database.MigrationTransactionMessage, Statement: stmt}
	}
	settle(ctx, m.t.Conn())
	mrr := m.t.Conn().PgConn().Exec(ctx, sql)
	completed := 0
	for mrr.NextResult() {
		if _, err := mrr.ResultReader().Close(); err == nil {
			completed++
		}
	}
	if err := mrr.Close(); err != nil {
		err = mapError(ctx, m.db.name, err)
		var e *database.Error
		var pe *pgconn.PgError
		if errors.As(err, &e) && errors.As(err, &pe) {
			if pe.Position > 0 {
				e.Statement = statementAt(sql, byteOffset(sql, int(pe.Position)-1))
			} else if stmts := statements(sql); completed < len(stmts) {
				e.Statement = stmts[completed]
			}
		}
		return withStatement(err, sql)
	}
	return nil
}

// scriptTransaction is the first statement of a migration script that
// would end or nest the migration's transaction (BEGIN, START
// TRANSACTION, COMMIT, END, ROLLBACK, ABORT, PREPARE TRANSACTION), or ""
// when it has none. ROLLBACK TO a savepoint stays within the transaction,
// as SAVEPOINT and RELEASE do; a COMMIT within a function's body is not
// a statement of the script.
func scriptTransaction(sql string) string {
	for _, stmt := range statements(sql) {
		w, rest := nextWord(stmt, false)
		switch {
		case isWord(w, "BEGIN", "START", "COMMIT", "END", "ABORT"):
			return stmt
		case isWord(w, "ROLLBACK"): // ROLLBACK [WORK | TRANSACTION] [TO ...]
			next, after := nextWord(rest, false)
			if isWord(next, "WORK", "TRANSACTION") {
				next, _ = nextWord(after, false)
			}
			if !isWord(next, "TO") {
				return stmt
			}
		case isWord(w, "PREPARE"):
			if next, _ := nextWord(rest, false); isWord(next, "TRANSACTION") {
				return stmt
			}
		}
	}
	return ""
}

// byteOffset is the byte offset in s of the character at pos (PostgreSQL's
// error positions count characters), or len(s) past the end.
func byteOffset(s string, pos int) int {
	n := 0
	for i := range s {
		if n == pos {
			return i
		}
		n++
	}
	return len(s)
}

func (d *db) Ping(ctx context.Context) error {
	if err := d.pool.Ping(ctx); err != nil {
		return d.fail(ctx, err)
	}
	return nil
}

func (d *db) Close() error {
	d.pool.Close()
	return nil
}

// deniedKeywords start statements that change the pooled session or the
// transaction behind the host's back, or load code into the server.
// DEALLOCATE would drop the statements pgx prepared and caches on the
// connection, each of which would then fail once in a later call.
var deniedKeywords = map[string]bool{
	"BEGIN": true, "START": true, "COMMIT": true, "END": true, "ROLLBACK": true, "ABORT": true,
	"SAVEPOINT": true, "RELEASE": true, "PREPARE": true, "DEALLOCATE": true, "SET": true, "RESET": true,
	"DISCARD": true, "LISTEN": true, "UNLISTEN": true, "COPY": true, "LOAD": true,
}

// checkStatement refuses a statement a guest may not run, and a text the
// protocol cannot carry: a NUL byte ends the text in the Parse message,
// whose rest the server reads as the message's other fields and refuses
// as a protocol violation, which reads as a server gone (unavailable,
// and the pool's connections dropped).
func checkStatement(sql string) error {
	if strings.IndexByte(sql, 0) >= 0 {
		return database.Errorf(database.CodeSyntax, "the SQL text holds a NUL byte, which PostgreSQL cannot take in a statement: pass binary data as a parameter")
	}
	if kw, denied := deniedKeyword(firstWord(sql)); denied {
		if kw == "SET" || kw == "RESET" {
			return database.Errorf(database.CodeDenied, kw+" is not allowed in a guest's statement: session settings belong to the host; a setting for every connection, the isolation of transactions too, goes in the database's url (postgres://...?default_transaction_isolation=serializable)")
		}
		return database.Errorf(database.CodeDenied, kw+" is not allowed in a guest's statement: use db_begin, db_commit and db_rollback for transactions; session settings belong to the host")
	}
	return nil
}

// deniedKeyword reports whether word, in any case, is one of
// deniedKeywords, and returns it upper case when it is. It allocates
// nothing for a word that is not (a statement in lower case is checked
// as cheaply as one in upper case).
func deniedKeyword(word string) (string, bool) {
	var upper [16]byte
	if len(word) > len(upper) {
		return "", false // longer than any denied keyword
	}
	for i := range len(word) {
		c := word[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		upper[i] = c
	}
	if !deniedKeywords[string(upper[:len(word)])] {
		return "", false
	}
	return string(upper[:len(word)]), true
}

// firstWord is the first word of sql (letters and underscores), past
// white space, opening parentheses, empty statements and comments, as
// PostgreSQL reads them: a line comment ends at a carriage return as at
// a line feed, block comments nest, and the semicolons of empty
// statements before the one statement the extended protocol takes are
// dropped by the server's parser (";SET x = 1" is a SET). A vertical
// tab is passed over too: PostgreSQL 15's lexer refuses it, and one that
// reads it as white space must not hide a keyword behind it.
func firstWord(sql string) string {
	s := sql
	for {
		s = strings.TrimLeft(s, " \t\r\n\f\v(;")
		switch {
		case strings.HasPrefix(s, "--"):
			i := strings.IndexAny(s, "\r\n")
			if i < 0 {
				return ""
			}
			s = s[i+1:]
		case strings.HasPrefix(s, "/*"):
			i := blockCommentEnd(s)
			if i < 0 {
				return ""
			}
			s = s[i:]
		default:
			end := strings.IndexFunc(s, func(r rune) bool {
				return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_')
			})
			if end < 0 {
				end = len(s)
			}
			return s[:end]
		}
	}
}

// keepsSession reports whether a guest's statement leaves something in
// its session that would outlive it on the pooled connection:
//   - a temporary table, view or sequence: CREATE [OR REPLACE] [GLOBAL |
//     LOCAL] {TEMP | TEMPORARY} ..., CREATE ... pg_temp.name (or
//     "pg_temp".name, pg_temp . name), SELECT ... INTO [LOCAL | GLOBAL]
//     {TEMP | TEMPORARY} ..., either under EXPLAIN ANALYZE, which runs
//     it;
//   - a session-level advisory lock: pg_advisory_lock,
//     pg_try_advisory_lock and their _shared forms (the _xact_ ones end
//     with the transaction);
//   - a setting changed with set_config(name, value, is_local) whose
//     is_local is not the word true (checkStatement refuses SET), or
//     with an UPDATE of pg_settings;
//   - the seed of random() set with setseed, which fixes the numbers
//     random() gives every later call on the connection;
//   - any of those names quoted ("set_config"(...)): quotedSessionName;
//     a name quoted with Unicode escapes (U&"pg\005Ftemp") whatever it
//     is: unicodeName;
//   - a cursor declared WITH HOLD, which outlives its transaction;
//   - a DO block, which may do any of it, and a call of a function that
//     runs a query given as text, or keeps a connection of its own in
//     the session (sqlTextNames).
//
// It reads the statement's words in one pass, without allocating,
// passing over comments, strings and quoted names as PostgreSQL's lexer
// does (nextWord): an escape string (E'it\'s') or a dollar-quoted one
// ($$'$$) hid the words after it when read otherwise. A statement
// holding a backslash is read a second time with a backslash escaping
// in every string too, as a server whose url turns
// standard_conforming_strings off reads it. A string holding such words
// may make it say yes, which costs the connection, not a wrong answer.
func keepsSession(sql string) bool {
	return keeps(sql, false) || strings.IndexByte(sql, '\\') >= 0 && keeps(sql, true)
}

// keeps is keepsSession's reading of sql, a backslash escaping the next
// byte in every string when backslashes is set (in E'...' always).
func keeps(sql string, backslashes bool) bool {
	w, rest := nextWord(sql, backslashes)
	// SELECT ... INTO TEMP, and the statements EXPLAIN ANALYZE runs.
	selects := isWord(w, "SELECT", "WITH", "EXPLAIN")
	declares := strings.EqualFold(w, "DECLARE") // DECLARE c ... WITH HOLD
	if strings.EqualFold(w, "DO") || quotedSessionName(sql) || unicodeName(sql) {
		return true
	}
	for into := false; w != ""; w, rest = nextWord(rest, backslashes) {
		if into && selects {
			if isWord(w, "TEMP", "TEMPORARY") {
				return true
			}
			if isWord(w, "LOCAL", "GLOBAL") {
				continue // INTO LOCAL TEMP: into holds
			}
		}
		into = len(w) == len("into") && strings.EqualFold(w, "INTO")
		if declares && len(w) == len("hold") && strings.EqualFold(w, "HOLD") {
			return true
		}
		if len(w) == len("create") && strings.EqualFold(w, "CREATE") && createsTemp(rest, backslashes) {
			return true
		}
		if len(w) < len("ts_stat") {
			continue // most words: none of those below
		}
		if c := w[0] | 0x20; c != 'p' && c != 's' {
			if c == 'q' || c == 't' || c == 'd' || c == 'x' {
				if isWord(w, sqlTextNames...) {
					return true
				}
			}
			continue
		}
		switch {
		case strings.EqualFold(w, "pg_temp"):
			// pg_temp.t, pg_temp . t: the session's temporary schema.
			return true
		case strings.EqualFold(w, "pg_settings"):
			// UPDATE pg_settings SET setting = ...: PostgreSQL's SET.
			return true
		case isWord(w, "pg_advisory_lock", "pg_advisory_lock_shared", "pg_try_advisory_lock", "pg_try_advisory_lock_shared"):
			return true
		case strings.EqualFold(w, "set_config") && !localSetting(rest, backslashes):
			return true
		case strings.EqualFold(w, "setseed"):
			return true
		}
	}
	return false
}

// createsTemp reports whether the CREATE that rest follows makes a
// temporary object: CREATE [OR REPLACE] [GLOBAL | LOCAL] {TEMP |
// TEMPORARY} ...
func createsTemp(rest string, backslashes bool) bool {
	w, rest := nextWord(rest, backslashes)
	for isWord(w, "OR", "REPLACE", "GLOBAL", "LOCAL") {
		w, rest = nextWord(rest, backslashes)
	}
	return isWord(w, "TEMP", "TEMPORARY")
}

// sqlTextNames are the functions after whose name keepsSession says yes,
// as it does for a DO block: built-in ones that run a query given as
// text (query_to_xml('SELECT set_config(...)', ...) ran it, in a string
// the check passes over; ts_rewrite does with two arguments, and its
// form of three costs a connection only), and those of the dblink and
// xml2 extensions that keep a connection in the session or run a query
// given as text. query_to_xmlschema only describes its query.
var sqlTextNames = []string{"query_to_xml", "query_to_xml_and_xmlschema", "ts_stat", "ts_rewrite", "xpath_table", "dblink_connect", "dblink_connect_u"}

// sessionNames are the names after which keepsSession says yes when
// they are quoted, which nextWord passes over with the other quoted
// names: "pg_temp".t, "set_config"(...), pg_catalog."pg_advisory_lock"(1).
var sessionNames = append([]string{"pg_temp", "pg_settings", "set_config", "setseed", "pg_advisory_lock", "pg_advisory_lock_shared", "pg_try_advisory_lock", "pg_try_advisory_lock_shared"}, sqlTextNames...)

// quotedSessionName reports whether sql holds one of sessionNames quoted
// (in any case: a quoted name of other case is another object, and saying
// yes for it costs a connection only).
func quotedSessionName(sql string) bool {
	for i := strings.IndexByte(sql, '"'); i >= 0; {
		j := strings.IndexByte(sql[i+1:], '"')
		if j < 0 {
			return false
		}
		if isWord(sql[i+1:i+1+j], sessionNames...) {
			return true
		}
		i += 1 + j
	}
	return false
}

// unicodeName reports whether sql may hold a name quoted with Unicode
// escapes, U&"..." (U&"pg\005Ftemp" is pg_temp, and UESCAPE may choose
// another escape character), which quotedSessionName cannot read.
func unicodeName(sql string) bool {
	for i := strings.Index(sql, `&"`); i >= 0; {
		if i > 0 && sql[i-1]|0x20 == 'u' {
			return true
		}
		j := strings.Index(sql[i+2:], `&"`)
		if j < 0 {
			return false
		}
		i += 2 + j
	}
	return false
}

// localSetting reports whether the call of set_config whose arguments
// rest starts with, "(name, value, is_local)...", sets a setting local to
// the transaction: is_local is the word true. Comments, strings and
// quoted names are passed over as nextWord passes them (backslashes
// read as it reads them).
func localSetting(rest string, backslashes bool) bool {
	s := strings.TrimLeft(rest, " \t\r\n\f")
	if !strings.HasPrefix(s, "(") {
		return false
	}
	depth, arg, start := 0, 0, 0
	for i := 0; i < len(s); {
		if j := skipQuoted(s, i, backslashes); j > i {
			i = j
			continue
		}
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return arg == 2 && strings.EqualFold(strings.TrimSpace(s[start:i]), "true")
			}
		case ',':
			if depth == 1 {
				arg++
				start = i + 1
			}
		}
		i++
	}
	return false
}

// isWord reports whether w is one of words, in any case.
func isWord(w string, words ...string) bool {
	for _, word := range words {
		if strings.EqualFold(w, word) {
			return true
		}
	}
	return false
}

// nextWord is the next word of sql (a keyword or an unquoted name:
// letters, digits, underscores, dollars) and the text after it, past
// white space, punctuation, and the comments, strings and quoted names
// skipQuoted passes over (an escape string E'...' too, whose E is no
// word; backslashes escape in every string when set); "" at the end.
func nextWord(sql string, backslashes bool) (word, rest string) {
	for i := 0; i < len(sql); {
		if j := skipQuoted(sql, i, backslashes); j > i {
			i = j
			continue
		}
		if !isWordByte(sql[i]) {
			i++
			continue
		}
		end := i + 1
		for end < len(sql) && isWordByte(sql[end]) {
			end++
		}
		if end == i+1 && sql[i]|0x20 == 'e' && end < len(sql) && sql[end] == '\'' {
			i = end + quotedEnd(sql[end:], true) // E'...'
			continue
		}
		return sql[i:end], sql[end:]
	}
	return "", ""
}

// skipQuoted is the offset past the comment, string, quoted name or
// dollar-quoted string that starts at s[i], as PostgreSQL's lexer reads
// them, or i when none starts there; len(s) when it does not end:
//   - a line comment ends at a carriage return as at a line feed;
//   - block comments nest (blockCommentEnd);
//   - in a string, a doubled quote is a quote, and a backslash escapes
//     the next byte in one after a lone E (E'it\'s') or, when backslashes
//     is set, in every one;
//   - $tag$...$tag$ (the tag empty or a name without '$') is a string
//     where it starts a token; $1 is a parameter, and a '$' within a
//     word is part of it.
func skipQuoted(s string, i int, backslashes bool) int {
	switch c := s[i]; {
	case c == '-' && strings.HasPrefix(s[i:], "--"):
		if k := strings.IndexAny(s[i:], "\r\n"); k >= 0 {
			return i + k + 1
		}
		return len(s)
	case c == '/' && strings.HasPrefix(s[i:], "/*"):
		if k := blockCommentEnd(s[i:]); k >= 0 {
			return i + k
		}
		return len(s)
	case c == '\'':
		escapes := backslashes || i > 0 && s[i-1]|0x20 == 'e' && (i == 1 || !isWordByte(s[i-2]))
		return i + quotedEnd(s[i:], escapes)
	case c == '"':
		return i + quotedEnd(s[i:], false)
	case c == '$' && (i == 0 || !isWordByte(s[i-1])):
		if tag, ok := dollarTag(s[i:]); ok {
			if k := strings.Index(s[i+len(tag):], tag); k >= 0 {
				return i + len(tag) + k + len(tag)
			}
			return len(s)
		}
	}
	return i
}

// isWordByte reports whether c may be part of a word for nextWord (a
// byte of a multibyte character too: PostgreSQL's names may hold them).
func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '$' || c >= 0x80
}

// quotedEnd is the offset just past the quoted string or name s starts
// with (its quote doubled inside it, or after a backslash when
// backslashes is set), len(s) when it does not end.
func quotedEnd(s string, backslashes bool) int {
	q := s[0]
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if backslashes {
				i++
			}
		case q:
			if i+1 < len(s) && s[i+1] == q {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(s)
}

// blockCommentEnd is the offset just past the block comment s starts
// with, -1 when it does not end. PostgreSQL's block comments nest
// ("/* /* */ */" is one comment), unlike C's and SQLite's: the first "*/"
// ends the comment only when no other "/*" opened inside it.
func blockCommentEnd(s string) int {
	depth := 0
	for i := 0; i+1 < len(s); {
		switch {
		case s[i] == '/' && s[i+1] == '*':
			depth++
			i += 2
		case s[i] == '*' && s[i+1] == '/':
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return -1
}

// rows converts pgx's values to the types package database promises.
// When first read the first row ahead (stepped), row is what its Next
// returned. Rows of the pool hold their connection (conn, of db) until
// their end or Close; a transaction's hold none, but those of its first
// statement hold the batch that began it (tx), closed at their end. kinds are how AppendRow
// reads each column from the wire, nil when a column's type is not one it
// reads (wireKind): then it converts the row's Values as they are. cols
// and kinds use the arrays for results of up to inlineColumns columns.
type rows struct {
	ctx     context.Context
	r       pgx.Rows
	cols    []string
	kinds   []wireKind
	vals    []any
	stepped bool
	row     bool
	db      *db
	conn    *pgxpool.Conn
	tx      *tx
	discard bool // the statement left something in the session (giveBack)
	// readOnly is set for the rows of a read-only transaction's
	// statement, whose refused write is the guest's (readOnlyDenied).
	readOnly bool
	err      error  // Err's, once mapped
	name     string // the database's, for mapError
	sql      string // the statement's, for withStatement

	colsArray  [inlineColumns]string
	kindsArray [inlineColumns]wireKind
}

// inlineColumns is how many columns' names and kinds a result keeps
// without allocating for them: most statements select a few.
const inlineColumns = 8

// end gives the connection back, or closes the batch of a transaction's
// first statement, once the rows are over.
func (r *rows) end() {
	if r.conn != nil {
		r.db.giveBack(r.conn, r.discard)
		r.conn = nil
	}
	if r.tx != nil {
		r.tx.closeBatch()
		r.tx = nil
	}
}

// first reads the first row ahead and reports whether there is one; when
// there is none, the rows are closed and r.Err says why.
func (r *rows) first() bool {
	r.stepped, r.row = true, r.r.Next()
	return r.row
}

func newRows(ctx context.Context, name string, r pgx.Rows) *rows {
	fds := r.FieldDescriptions()
	rs := &rows{ctx: ctx, r: r, name: name}
	if len(fds) <= inlineColumns {
		rs.cols, rs.kinds = rs.colsArray[:len(fds)], rs.kindsArray[:len(fds)]
	} else {
		rs.cols, rs.kinds = make([]string, len(fds)), make([]wireKind, len(fds))
	}
	for i, fd := range fds {
		rs.cols[i] = fd.Name
		if rs.kinds != nil {
			if rs.kinds[i] = kindOf(fd); rs.kinds[i] == wireOther {
				rs.kinds = nil
			}
		}
	}
	return rs
}

func (r *rows) Columns() []string { return r.cols }

func (r *rows) Next() bool {
	more := r.row
	if r.stepped {
		r.stepped = false
	} else {
		more = r.r.Next()
	}
	if !more {
		r.end()
	}
	return more
}

func (r *rows) Values() ([]any, error) {
	vs, err := r.r.Values()
	if err != nil {
		// Values decodes the row pgx has read, without I/O: its errors
		// are a value pgx cannot decode, not the server gone, which
		// mapError's last case takes any other error for.
		return nil, &database.Error{Code: database.CodeOther, Message: "reading the row's values: " + err.Error(), Redacted: "reading the row's values: " + sqlredact.Message(err.Error()), Err: err}
	}
	if r.vals == nil {
		r.vals = make([]any, len(r.cols))
	}
	for i, v := range vs {
		r.vals[i] = convert(v)
	}
	return r.vals, nil
}

// AppendRow appends the current row's values as Values and
// database.AppendValue would (database.RowAppender): read from the bytes
// the server sent when every column's type allows (kinds), through Values
// otherwise.
//
// limit is not needed: a row is bounded as it arrives
// (database.Options.MaxRowBytes).
func (r *rows) AppendRow(dst []byte, blobs []int, _ int) ([]byte, []int, error) {
	if r.kinds == nil {
		vals, err := r.Values()
		if err != nil {
			return dst, blobs, err
		}
		for i, v := range vals {
			if i > 0 {
				dst = append(dst, ',')
			}
			if _, ok := v.([]byte); ok {
				blobs = append(blobs, i)
			}
			dst = database.AppendValue(dst, v)
		}
		return dst, blobs, nil
	}
	for i, raw := range r.r.RawValues() {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendWire(dst, r.kinds[i], raw); err != nil {
			return dst, blobs, &database.Error{Code: database.CodeOther, Message: fmt.Sprintf("column %q: %v", r.cols[i], err), Redacted: fmt.Sprintf("column %q: %s", r.cols[i], sqlredact.Message(err.Error())), Err: err}
		}
		if r.kinds[i] == wireBytea && raw != nil {
			blobs = append(blobs, i)
		}
	}
	return dst, blobs, nil
}

// Err is the rows' error, mapped once: a statement's of the pool as
// db.failed maps it (its connection may have broken, or the server gone),
// a transaction's as mapError does.
func (r *rows) Err() error {
	if r.err != nil {
		return r.err
	}
	err := r.r.Err()
	switch {
	case err == nil:
		return nil
	case r.db != nil:
		r.err = withStatement(r.db.failed(r.ctx, err), r.sql)
	default:
		r.err = withStatement(readOnlyDenied(mapError(r.ctx, r.name, err), r.readOnly), r.sql)
	}
	return r.err
}

func (r *rows) Close() error {
	r.r.Close()
	r.end()
	return r.Err()
}

// convert maps a value pgx decoded to nil, bool, int64, float64, string or
// []byte (abi/README.md §4.5 lists the mapping):
// integers exact, numeric as its exact decimal text, timestamps and dates
// RFC 3339 (a date at midnight UTC), uuid in its canonical form, json and jsonb as their
// JSON text, arrays and composites as their JSON (elements converted
// alike, by element; an array of more dimensions nested, nestedArrays),
// and other types as their PostgreSQL text.
func convert(v any) any {
	switch v := v.(type) {
	case nil, bool, int64, float64, string, []byte:
		return v
	case int16:
		return int64(v)
	case int32:
		return int64(v)
	case int:
		return int64(v)
	case uint32:
		return int64(v)
	case float32:
		return float64(v)
	case time.Time:
		// timestamptz, timestamp and date alike (a date is its midnight
		// UTC): RFC 3339, which every language parses.
		return v.Format(time.RFC3339Nano)
	case pgtype.Numeric:
		return numericText(v)
	case pgtype.Range[any]:
		return rangeText(v)
	case [16]byte:
		return fmt.Sprintf("%x-%x-%x-%x-%x", v[0:4], v[4:6], v[6:8], v[8:10], v[10:16])
	case map[string]any, []any:
		// An array (or a composite) is its JSON, each element as a
		// value of its own would be: a timestamp in RFC 3339, an interval
		// or a point as PostgreSQL writes it, rather than pgx's structs.
		b, err := json.Marshal(element(v))
		if err != nil {
			return fmt.Sprint(v)
		}
		return string(b)
	case driver.Valuer:
		// pgx's values of the geometric types, interval, time, bit
		// strings...: their PostgreSQL text. fmt.Sprint gave Go's
		// struct syntax ("{{1 2} true}" for the point (1,2)).
		if dv, err := v.Value(); err == nil {
			if s, ok := dv.(string); ok {
				return s
			}
		}
		return fmt.Sprint(v)
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprint(v)
}

// jsonText is the Unmarshal of the json and jsonb codecs: a value read
// for a row (into an any) is its JSON text, compacted, as PostgreSQL sent
// it. pgx's own decodes it into Go values, which rounds its numbers to
// float64 (12345678901234567890 became 12345678901234567000), fails on
// one past float64's range (valid JSON, which json keeps), and gives a
// scalar string without its quotes. Any other target is decoded as
// encoding/json does.
func jsonText(data []byte, v any) error {
	return compactInto(data, v, func(b []byte) any { return string(b) })
}

// compactInto is jsonText and jsonRaw: data compacted and made a value by
// as, when v is an *any; else data decoded into v as encoding/json does.
func compactInto(data []byte, v any, as func([]byte) any) error {
	p, ok := v.(*any)
	if !ok {
		return json.Unmarshal(data, v)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		return err
	}
	*p = as(b.Bytes())
	return nil
}

// element is v, an element of an array or a composite pgx decoded, as
// convert gives a value, for the array's JSON: arrays within it stay
// arrays, and json and jsonb elements their JSON (jsonRaw).
func element(v any) any {
	switch v := v.(type) {
	case json.RawMessage, pgtype.Numeric:
		return v // their JSON is exact: a number's digits as they are
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = element(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = element(e)
		}
		return out
	}
	return convert(v)
}

// jsonRaw is jsonText for the elements of a json or jsonb array: the
// element's compacted JSON as a json.RawMessage, which the array's JSON
// (convert) embeds as it is.
func jsonRaw(data []byte, v any) error {
	return compactInto(data, v, func(b []byte) any { return json.RawMessage(b) })
}

// rangeText is a range's text as PostgreSQL writes it, "[1,5)", "empty",
// "(,10]", its bounds as convert gives them (a timestamp in RFC 3339,
// which PostgreSQL reads back); NULL is nil.
func rangeText(r pgtype.Range[any]) any {
	if !r.Valid {
		return nil
	}
	if r.LowerType == pgtype.Empty {
		return "empty"
	}
	var b strings.Builder
	b.WriteByte('(')
	if r.LowerType == pgtype.Inclusive {
		b.Reset()
		b.WriteByte('[')
	}
	if r.LowerType != pgtype.Unbounded {
		fmt.Fprint(&b, convert(r.Lower))
	}
	b.WriteByte(',')
	if r.UpperType != pgtype.Unbounded {
		fmt.Fprint(&b, convert(r.Upper))
	}
	if r.UpperType == pgtype.Inclusive {
		b.WriteByte(']')
	} else {
		b.WriteByte(')')
	}
	return b.String()
}

// numericText is a numeric's exact decimal text ("12.50"), "NaN" or
// "Infinity"; NULL is nil.
func numericText(n pgtype.Numeric) any {
	if !n.Valid {
		return nil
	}
	switch {
	case n.NaN:
		return "NaN"
	case n.InfinityModifier == pgtype.Infinity:
		return "Infinity"
	case n.InfinityModifier == pgtype.NegativeInfinity:
		return "-Infinity"
	}
	digits := new(big.Int).Abs(n.Int).String()
	neg := n.Int.Sign() < 0
	if n.Exp >= 0 {
		digits += strings.Repeat("0", int(n.Exp))
	} else {
		frac := int(-n.Exp)
		if len(digits) <= frac {
			digits = strings.Repeat("0", frac-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-frac] + "." + digits[len(digits)-frac:]
	}
	if neg {
		digits = "-" + digits
	}
	return digits
}

// exactArgs is args with each float64 made an exactFloat, so that a real
// bound to an integer parameter is refused when it is not whole; args
// itself is not changed.
func exactArgs(args []any) []any {
	var out []any
	for i, a := range args {
		if f, ok := a.(float64); ok {
			if out == nil {
				out = slices.Clone(args)
			}
			out[i] = exactFloat(f)
		}
	}
	if out == nil {
		return args
	}
	return out
}

// exactFloat is a real parameter. pgx encodes a float64 for an integer
// parameter by truncating it (2.5 becomes 2, silently); exactFloat gives
// the integer only when the real is whole and within int64, and an error
// otherwise, as PostgreSQL refuses '2.5'::bigint. For a real or numeric
// parameter it is the float64; for any other, pgx treats it as one.
type exactFloat float64

// Float64Value is the real, for float4, float8 and numeric parameters.
func (f exactFloat) Float64Value() (pgtype.Float8, error) {
	return pgtype.Float8{Float64: float64(f), Valid: true}, nil
}

// Int64Value is the real as an integer, for bigint, int and smallint
// parameters (pgx checks the smaller types' ranges), when it is whole.
func (f exactFloat) Int64Value() (pgtype.Int8, error) {
	v := float64(f)
	// -2^63 is an int64; 2^63 is not.
	if v != math.Trunc(v) || v < -(1<<63) || v >= 1<<63 {
		return pgtype.Int8{}, fmt.Errorf("%v is not an integer of 64 bits, which the parameter's type wants", v)
	}
	return pgtype.Int8{Int64: int64(v), Valid: true}, nil
}

// argumentError is the error of arguments pgx refused before sending the
// statement, or nil: their count is not the statement's (CodeSyntax, as
// SQLite says it), or a value its parameter's type cannot hold (2.5 for a
// bigint: CodeOther). pgx gives both as plain text. They are the handler's
// mistake, not an outage: neither 503 nor a reset of the pool.
func argumentError(err error) error {
	m := err.Error()
	switch {
	case strings.Contains(m, "expected ") && strings.Contains(m, " arguments, got "),
		strings.Contains(m, "mismatched param and argument count"):
		return &database.Error{Code: database.CodeSyntax, Message: "the parameters do not match the statement's: " + m, Err: err}
	case strings.Contains(m, "failed to encode args["):
		return &database.Error{Code: database.CodeOther, Message: "a parameter does not fit its type: " + m, Redacted: "a parameter does not fit its type: " + encodeFailure(m), Err: err}
	}
	return nil
}

// encodeFailure is pgx's refusal of a parameter without its value:
// "failed to encode args[0]: unable to encode 2.5 into binary format
// for int8 (OID 20): ..." is "args[0], a value of another type than
// int8 (OID 20)".
func encodeFailure(m string) string {
	i := strings.Index(m, "args[")
	j := strings.Index(m[i:], "]")
	if j < 0 {
		return "a parameter's value"
	}
	arg := m[i : i+j+1]
	k := strings.Index(m, " format for ")
	l := strings.Index(m, ")")
	if k < 0 || l < k {
		return arg + ", a value its type cannot hold"
	}
	return arg + ", a value its type " + m[k+len(" format for "):l+1] + " cannot hold"
}

// keptClasses are the SQLSTATE classes whose messages quote names (of
// tables, columns, constraints, types, users), never values: an
// integrity constraint's message names the constraint and the table,
// and its DETAIL, which the host never shows, quotes the row. Of class
// 42 (syntax error or access rule violation) 42601 is not: "syntax
// error at or near" quotes the statement's text, a literal too.
var keptClasses = map[string]bool{
	"08": true, // connection exception
	"0A": true, // feature not supported
	"23": true, // integrity constraint violation
	"25": true, // invalid transaction state
	"28": true, // invalid authorization specification
	"3D": true, // invalid catalog name
	"3F": true, // invalid schema name
	"40": true, // transaction rollback
	"42": true, // syntax error or access rule violation
	"44": true, // with check option violation
	"53": true, // insufficient resources
	"55": true, // object not in prerequisite state
	"57": true, // operator intervention
}

// redactedMessage is msg, the message of a *database.Error made of pe
// (pe.Message, perhaps with the host's advice after it), as it may leave
// the guest's call (database.Error.Redacted), without the values
// PostgreSQL quoted in it:
//   - a message raised by the app's own code (PL/pgSQL's RAISE and
//     ASSERT, class P0, whatever SQLSTATE it chose) is left out whole:
//     it may hold values unquoted ("bad email ada@example.com");
//   - the messages of the classes that quote names only (keptClasses)
//     stay;
//   - those of data exceptions (class 22), program limits (class
//     54) and syntax errors (42601), which write a value after a colon
//     ("invalid input syntax for type integer: \"abc\"", "date field
//     value out of range: 2020-13-01", a value cast to regclass:
//     "improper relation name (too many dotted names): a.b.c.d") or
//     between quotes ("value \"99999999999\" is out of range for type
//     integer", "syntax error at or near \"'secret\""), are cut at the
//     colon, and the rest redacted as other messages are:
//     sqlredact.Message, which replaces quoted text and byte sequences.
//
// The names a message of the classes in nameClasses quotes may be a
// value's; withStatement keeps only those the statement holds.
//
// The host's advice after PostgreSQL's message stays; a message the host
// wrote instead of PostgreSQL's is its own.
func redactedMessage(pe *pgconn.PgError, msg string) string {
	rest, ok := strings.CutPrefix(msg, pe.Message)
	if !ok {
		return msg
	}
	class := pe.Code[:min(2, len(pe.Code))]
	switch {
	case class == "P0" || strings.Contains(pe.Where, " at RAISE") || strings.Contains(pe.Where, " at ASSERT"):
		return database.RaisedMessage + rest
	case keptClasses[class] && pe.Code != "42601":
		return msg
	case class == "22" || class == "54" || pe.Code == "42601":
		head, _, cut := strings.Cut(pe.Message, ": ")
		head = sqlredact.Message(head)
		if cut {
			head += ": ?"
		}
		return head + rest
	}
	return sqlredact.Message(pe.Message) + rest
}

// kinds are the constraint kinds of PostgreSQL's SQLSTATEs (class 23,
// integrity constraint violation); the others of the class (23000,
// 23001 restrict_violation) have none.
var kinds = map[string]database.Kind{
	"23505": database.KindUnique,
	"23503": database.KindForeignKey,
	"23514": database.KindCheck,
	"23502": database.KindNotNull,
	"23P01": database.KindExclusion,
}

// atConnect reports whether err ended a connection attempt, rather than
// a statement on a connection made.
func atConnect(err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce)
}

// mapError maps a pgx error to a *database.Error. name is the database's
// (database.Options.Name), which the advice names its settings by.
func mapError(ctx context.Context, name string, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		e := &database.Error{Message: pe.Message, Detail: pe.Detail, SQLState: pe.Code, Err: err}
		defer func() { e.Redacted = redactedMessage(pe, e.Message) }()
		switch {
		case strings.HasPrefix(pe.Code, "23"):
			e.Code, e.Constraint, e.Kind = database.CodeConstraint, pe.ConstraintName, kinds[pe.Code]
		case pe.Code == "42601" && strings.Contains(pe.Message, "multiple commands"):
			e.Code = database.CodeDenied
			e.Message = "the SQL text holds more than one statement; run one per call"
		case pooledStatement(pe):
			e.Code = database.CodeOther
			e.Message += pooledStatementAdvice
		case strings.HasPrefix(pe.Code, "42"):
			e.Code = database.CodeSyntax
		case pe.Code == "40001" || pe.Code == "40P01" || pe.Code == "55P03":
			e.Code = database.CodeBusy
		case staleStatement(pe):
			// Outside a transaction the statement ran again (staleStatement).
			e.Code = database.CodeBusy
			e.Message += ": the table's columns changed (a migration ran) since this connection prepared the statement, and PostgreSQL aborted the transaction; run the transaction again"
		case pe.Code == "08P01" && atConnect(err) && strings.HasPrefix(pe.Message, "unsupported startup parameter"):
			// A pooler (PgBouncer) refuses the parameters it does not
			// know: the settings' mistake, not the server gone.
			e.Code = database.CodeOther
			e.Message += startupParameterAdvice(name, pe.Message)
		case pe.Code == "08P01" && strings.HasPrefix(pe.Message, "bind message supplies"):
			// The server's count of the parameters (exec mode, which
			// does not describe the statement first).
			e.Code = database.CodeSyntax
			e.Message = "the parameters do not match the statement's: " + e.Message
		case strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "53") || strings.HasPrefix(pe.Code, "57P"):
			e.Code = database.CodeUnavailable
		case pe.Code == "54000":
			e.Code = database.CodeTooLarge
		case (pe.Code == "28P01" || pe.Code == "28000") && atConnect(err):
			// invalid_password, invalid_authorization_specification (no
			// such role, no pg_hba.conf entry): the settings' mistake.
			e.Code = database.CodeOther
			e.Message += ": check the user and password of the database's url"
		case pe.Code == "3D000" && atConnect(err):
			// invalid_catalog_name: no such database.
			e.Code = database.CodeOther
			e.Message += ": create the database, or correct its name in the database's url"
		case pe.Code == "25006":
			// read_only_sql_transaction: the server takes no writes (a
			// standby, one a failover left behind, or one set
			// default_transaction_read_only), which a guest cannot
			// change (db_begin opens read-write transactions; a
			// read-only one's refusal is the guest's, readOnlyDenied);
			// the deployment's state, as a server that is down.
			e.Code = database.CodeUnavailable
			e.Message += ": the server takes no writes (a standby, or default_transaction_read_only is on); point the database's url at the primary, or list every server in it with target_session_attrs=read-write so that connections go to the one that takes writes"
		case pe.Code == "25P03":
			// idle_in_transaction_session_timeout: the server closed the
			// connection of a transaction the call held open between
			// statements for longer.
			e.Code = database.CodeOther
			e.Message += ": the server's idle_in_transaction_session_timeout ended the transaction, which waited that long between two statements, and nothing of it was committed; keep the transaction's statements together (call other services before it begins), or raise the setting"
		case pe.Code == "57014" && ctx.Err() == nil && strings.Contains(pe.Message, "statement timeout"):
			// query_canceled by the server's statement_timeout, not by
			// the cancel request of a call's deadline: the statement ran
			// past a bound of the statement, as under db_timeout, and the
			// call goes on (timeout, which a guest answers from a
			// fallback).
			e.Code = database.CodeTimeout
			e.Message += ": the statement ran past the server's statement_timeout (" + database.Setting(name, "statementTimeout") + ", 30 s unless set; or the role's or database's own, behind a pooler that ignores it); make it faster (an index, a smaller result), or raise the setting"
		case pe.Code == "25P02":
			// SQLite goes on after a failed statement; PostgreSQL does
			// not, which surprises code written against SQLite.
			e.Code = database.CodeOther
			e.Message += ": an earlier statement of this transaction failed, and PostgreSQL runs no other until it rolls back; return that statement's error from the transaction, or keep it from failing (INSERT ... ON CONFLICT DO NOTHING)"
		default:
			e.Code = database.CodeOther
		}
		return e
	}
	tooBig := (*pgproto3.ExceededMaxBodyLenErr)(nil)
	if atConnect(err) && errors.As(err, &tooBig) {
		// The first answer was no PostgreSQL message: another service
		// (an HTTP server answers "HTTP/1.1 400", read as a message of
		// a gigabyte) listens at the url's address.
		return &database.Error{Code: database.CodeOther, Err: err, Message: "the server at the url's address does not speak PostgreSQL (it answered the startup message with something else: an HTTP server or another service on that port?); check the host and port of the database's url: " + err.Error()}
	}
	if errors.As(err, &tooBig) {
		// pgx closes the connection, whose stream it cannot follow past
		// the message: the statement's, not the server's, failure.
		return &database.Error{Code: database.CodeTooLarge, Err: err, Message: fmt.Sprintf("a row of the result is larger than limits.sqlResultBytes (%d bytes, as the host started with): select fewer or shorter columns", tooBig.MaxExpectedBodyLen-rowOverhead)}
	}
	if errors.Is(err, pgx.ErrTxCommitRollback) {
		// The COMMIT of a transaction a failed statement aborted: the
		// handler's transaction, not the server gone.
		return &database.Error{Code: database.CodeTransaction, Message: "PostgreSQL rolled the transaction back instead of committing it: one of its statements failed, which aborts a PostgreSQL transaction, and nothing of it was written; return that statement's error, or roll back and run the transaction again", Err: err}
	}
	if ctx.Err() != nil {
		return &database.Error{Code: database.CodeOther, Message: "the statement was stopped: " + context.Cause(ctx).Error(), Err: err}
	}
	var ae *database.Error
	if errors.As(err, &ae) {
		return err
	}
	if e := argumentError(err); e != nil {
		return e
	}
	if atConnect(err) && errors.Is(err, context.DeadlineExceeded) {
		return &database.Error{Code: database.CodeUnavailable, Err: err, Message: fmt.Sprintf("no answer from the server within the connect timeout (the url's connect_timeout, %s when it sets none): %v", defaultConnectTimeout, err)}
	}
	// Dial and I/O failures: the server is down or unreachable.
	return &database.Error{Code: database.CodeUnavailable, Message: err.Error(), Err: err}
}
