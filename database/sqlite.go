package database

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/ncruces/go-sqlite3"
)

func init() { Register(DriverSQLite, openSQLite) }

// SQLiteBusyTimeout is how long a statement waits for another connection's
// write lock before it fails with [CodeBusy]; the request's deadline
// stops the wait sooner.
const SQLiteBusyTimeout = 5 * time.Second

// busyTimeout is SQLiteBusyTimeout; tests shorten it (export_test.go).
var busyTimeout = SQLiteBusyTimeout

// sqliteAllowedPragmas are the PRAGMAs a guest may run: they read the
// schema or check it, and touch no file and no setting of the connection
// (which the pool hands to the next request).
var sqliteAllowedPragmas = map[string]bool{
	"table_info": true, "table_xinfo": true, "table_list": true,
	"index_list": true, "index_info": true, "index_xinfo": true,
	"foreign_key_list": true, "foreign_key_check": true,
	"integrity_check": true, "quick_check": true,
	"user_version": true, "schema_version": true, "data_version": true,
	"collation_list": true, "function_list": true, "pragma_list": true,
}

// sqliteDB is the SQLite driver's DB: a bounded pool of connections to one
// file. SQLite connections are not safe for concurrent use: each statement
// (or transaction) takes one for itself.
type sqliteDB struct {
	path   string
	slots  chan struct{}    // a token per connection in use
	idle   chan *sqliteConn // connections not in use
	mu     sync.Mutex       // guards closed
	closed bool
}

// sqliteConn is one connection; trusted is set while the host runs its
// own statements (BEGIN, migrations), which the guest authorizer allows.
// stmts are the guests' statements it prepared, none of them prepared
// while trusted.
type sqliteConn struct {
	conn    *sqlite3.Conn
	trusted bool
	stmts   stmtCache
}

// close finalizes the cached statements and closes the connection.
func (c *sqliteConn) close() error {
	c.stmts.close()
	return c.conn.Close()
}

func openSQLite(ctx context.Context, opts Options) (DB, error) {
	if opts.Path == "" {
		return nil, errors.New("the sqlite driver needs a path")
	}
	return &sqliteDB{
		path:  opts.Path,
		slots: make(chan struct{}, opts.MaxConns),
		idle:  make(chan *sqliteConn, opts.MaxConns),
	}, nil
}

func (db *sqliteDB) System() string { return "sqlite" }

// connect opens a connection set up for guests: WAL, a busy timeout,
// foreign keys enforced, no ATTACH, and the authorizer.
func (db *sqliteDB) connect() (*sqliteConn, error) {
	if err := os.MkdirAll(filepath.Dir(db.path), 0o755); err != nil {
		return nil, &Error{Code: CodeUnavailable, Message: err.Error(), Err: err}
	}
	conn, err := sqlite3.OpenFlags(db.path, sqlite3.OPEN_READWRITE|sqlite3.OPEN_CREATE)
	if err != nil {
		return nil, &Error{Code: CodeUnavailable, Message: fmt.Sprintf("opening %s: %v", db.path, err), Err: err}
	}
	c := &sqliteConn{conn: conn}
	err = conn.BusyTimeout(busyTimeout)
	for _, pragma := range []string{"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON"} {
		if err == nil {
			err = conn.Exec(pragma)
		}
	}
	if err == nil {
		conn.Limit(sqlite3.LIMIT_ATTACHED, 0)
		err = conn.SetAuthorizer(c.authorize)
	}
	if err != nil {
		conn.Close()
		// sqliteError's message says what to check (a directory the
		// host cannot write, where the -wal and -shm files go).
		msg := AsError(sqliteError(context.Background(), err)).Message
		return nil, &Error{Code: CodeUnavailable, Message: fmt.Sprintf("setting up %s: %s", db.path, msg), Err: err}
	}
	return c, nil
}

// authorize is the authorizer of a guest's statements: no ATTACH or
// DETACH, no load_extension, no transaction control in SQL (db_begin
// does it), only the PRAGMAs of sqliteAllowedPragmas.
func (c *sqliteConn) authorize(action sqlite3.AuthorizerActionCode, name3rd, name4th, schema, inner string) sqlite3.AuthorizerReturnCode {
	if c.trusted {
		return sqlite3.AUTH_OK
	}
	switch action {
	case sqlite3.AUTH_ATTACH, sqlite3.AUTH_DETACH, sqlite3.AUTH_TRANSACTION, sqlite3.AUTH_SAVEPOINT:
		return sqlite3.AUTH_DENY
	case sqlite3.AUTH_PRAGMA:
		if !sqliteAllowedPragmas[strings.ToLower(name3rd)] || (name4th != "" && isSetting(name3rd)) {
			return sqlite3.AUTH_DENY
		}
	case sqlite3.AUTH_FUNCTION:
		if strings.EqualFold(name4th, "load_extension") {
			return sqlite3.AUTH_DENY
		}
	}
	return sqlite3.AUTH_OK
}

// isSetting reports whether an allowed PRAGMA with an argument would
// change a setting rather than read about a table.
func isSetting(pragma string) bool {
	switch strings.ToLower(pragma) {
	case "user_version", "schema_version", "data_version":
		return true
	}
	return false
}

// acquire takes a connection, waiting for one to come free until ctx
// ends.
func (db *sqliteDB) acquire(ctx context.Context) (*sqliteConn, error) {
	select {
	case db.slots <- struct{}{}:
	default:
		// Only a wait asks for ctx.Done, which may cost the context a
		// timer; it ends before the call's deadline (WaitContext).
		wait, cancel := WaitContext(ctx)
		select {
		case db.slots <- struct{}{}:
			cancel()
		case <-wait.Done():
			cancel()
			return nil, PoolFullError(cap(db.slots), wait.Err())
		}
	}
	db.mu.Lock()
	closed := db.closed
	db.mu.Unlock()
	if closed {
		<-db.slots
		return nil, &Error{Code: CodeUnavailable, Message: "the database is closed"}
	}
	select {
	case c := <-db.idle:
		return c, nil
	default:
	}
	c, err := db.connect()
	if err != nil {
		<-db.slots
		return nil, err
	}
	return c, nil
}

// release gives a connection back, closing it instead when it is left
// in a transaction (an interrupted COMMIT) or the pool is closed.
func (db *sqliteDB) release(c *sqliteConn) {
	c.conn.SetInterrupt(context.Background())
	c.trusted = false
	db.mu.Lock()
	closed := db.closed
	db.mu.Unlock()
	if closed || !c.conn.GetAutocommit() {
		c.close()
	} else {
		db.idle <- c
	}
	<-db.slots
}

func (db *sqliteDB) Query(ctx context.Context, sql string, args []any) (Rows, error) {
	c, err := db.acquire(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := c.query(ctx, sql, args, db)
	if err != nil {
		db.release(c)
	}
	return rows, err
}

func (db *sqliteDB) Exec(ctx context.Context, sql string, args []any) (ExecResult, error) {
	c, err := db.acquire(ctx)
	if err != nil {
		return ExecResult{}, err
	}
	defer db.release(c)
	return c.exec(ctx, sql, args)
}

func (db *sqliteDB) Begin(ctx context.Context) (Tx, error) {
	c, err := db.acquire(ctx)
	if err != nil {
		return nil, err
	}
	// IMMEDIATE takes the write lock now, waiting up to the busy timeout:
	// a transaction that reads then writes cannot fail on the upgrade.
	if err := c.control(ctx, "BEGIN IMMEDIATE"); err != nil {
		db.release(c)
		return nil, err
	}
	return &sqliteTx{db: db, c: c}, nil
}

// migrationBusyTimeout is how long Migrate's BEGIN IMMEDIATE waits for
// the write lock: what ctx allows, as PostgreSQL's advisory lock, so that
// a host starting beside another one that applies a long migration to the
// same file waits for it (SQLite's busy handler stops at ctx's end).
const migrationBusyTimeout = 24 * time.Hour

// Migrate runs fn in a transaction holding the write lock, waiting for
// the lock until ctx ends rather than the busy timeout.
func (db *sqliteDB) Migrate(ctx context.Context, fn func(Migration) error) error {
	c, err := db.acquire(ctx)
	if err != nil {
		return err
	}
	defer db.release(c)
	if err := c.conn.BusyTimeout(migrationBusyTimeout); err != nil {
		return sqliteError(ctx, err)
	}
	defer c.conn.BusyTimeout(busyTimeout)
	if err := c.control(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	err = fn(&sqliteMigration{sqliteTx{db: db, c: c}})
	if err == nil {
		return c.control(ctx, "COMMIT")
	}
	if rerr := c.control(context.WithoutCancel(ctx), "ROLLBACK"); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

// sqliteMigration is the transaction of Migrate.
type sqliteMigration struct{ sqliteTx }

// Script runs the statements one by one, so that an error names its
// statement.
func (m *sqliteMigration) Script(ctx context.Context, sql string) error {
	c := m.c
	c.trusted = true
	defer func() { c.trusted = false }()
	c.conn.SetInterrupt(ctx)
	for tail := sql; strings.TrimSpace(tail) != ""; {
		stmt, rest, err := c.conn.Prepare(tail)
		if err != nil {
			e := sqliteError(ctx, err).(*Error)
			e.Statement = strings.TrimSpace(firstStatement(tail))
			return e
		}
		tail = rest
		if stmt == nil {
			continue
		}
		err = stmt.Exec()
		text := stmt.SQL()
		stmt.Close()
		if err != nil {
			e := sqliteError(ctx, err).(*Error)
			e.Statement = strings.TrimSpace(text)
			return e
		}
	}
	return nil
}

// firstStatement is the text up to the first semicolon: the statement
// SQLite could not prepare, near enough for an error.
func firstStatement(sql string) string {
	if i := strings.IndexByte(sql, ';'); i >= 0 {
		return sql[:i]
	}
	return sql
}

func (db *sqliteDB) Ping(ctx context.Context) error {
	rows, err := db.Query(ctx, "SELECT 1", nil)
	if err != nil {
		return err
	}
	return rows.Close()
}

func (db *sqliteDB) Close() error {
	db.mu.Lock()
	db.closed = true
	db.mu.Unlock()
	var errs []error
	for {
		select {
		case c := <-db.idle:
			errs = append(errs, c.close())
		default:
			return errors.Join(errs...)
		}
	}
}

// control runs the host's own statements (BEGIN, COMMIT, ROLLBACK, a
// migration's script), which the authorizer allows.
func (c *sqliteConn) control(ctx context.Context, sql string) error {
	c.trusted = true
	defer func() { c.trusted = false }()
	c.conn.SetInterrupt(ctx)
	if err := c.conn.Exec(sql); err != nil {
		return sqliteError(ctx, err)
	}
	return nil
}

// prepare takes the statement of sql from the connection's cache, or
// prepares it, and binds args; the caller gives it back with done. A
// second statement after the first (SQL injection's favourite) is
// refused, and never cached.
func (c *sqliteConn) prepare(ctx context.Context, sql string, args []any) (*sqlite3.Stmt, error) {
	c.conn.SetInterrupt(ctx)
	if stmt := c.stmts.take(sql); stmt != nil {
		if err := bindAll(ctx, stmt, args); err != nil {
			c.done(sql, stmt)
			return nil, err
		}
		return stmt, nil
	}
	var flags sqlite3.PrepareFlag
	if cacheable(sql) {
		flags = sqlite3.PREPARE_PERSISTENT
	}
	stmt, tail, err := c.conn.PrepareFlags(sql, flags)
	if err != nil {
		return nil, sqliteError(ctx, err)
	}
	if stmt == nil {
		return nil, Errorf(CodeSyntax, "the SQL text holds no statement")
	}
	for strings.TrimSpace(tail) != "" {
		next, rest, err := c.conn.Prepare(tail)
		if next != nil {
			next.Close()
		}
		if next != nil || err != nil {
			stmt.Close()
			return nil, Errorf(CodeDenied, "the SQL text holds more than one statement; run one per call")
		}
		tail = rest
	}
	if err := bindAll(ctx, stmt, args); err != nil {
		c.done(sql, stmt)
		return nil, err
	}
	return stmt, nil
}

// done gives back a statement prepare returned: to the cache while the
// connection is a guest's, finalized when the host's own statements
// (trusted) prepared it.
func (c *sqliteConn) done(sql string, stmt *sqlite3.Stmt) {
	if c.trusted {
		c.stmts.finalize(stmt)
		return
	}
	c.stmts.put(sql, stmt)
}

// bindAll binds args to the statement's parameters: ? in order, and $N
// (or ?N) to argument N wherever it appears, as PostgreSQL numbers them.
// SQLite numbers parameters in their order of first appearance, so
// "SET name = $2 WHERE id = $1" binds by name, not by index. Each argument
// must be used.
func bindAll(ctx context.Context, stmt *sqlite3.Stmt, args []any) error {
	n := stmt.BindCount()
	used := make([]bool, len(args))
	next := 0 // the argument a plain ? takes
	for i := 1; i <= n; i++ {
		arg := next
		if name := stmt.BindName(i); name != "" {
			k, err := strconv.Atoi(name[1:])
			if err != nil || k < 1 || (name[0] != '$' && name[0] != '?') {
				return Errorf(CodeSyntax, fmt.Sprintf("the parameter %s is not $1, $2... nor ?: parameters are numbered, not named", name))
			}
			arg = k - 1
		} else {
			next++
		}
		if arg >= len(args) {
			return Errorf(CodeSyntax, fmt.Sprintf("the statement takes parameter %d, but %d were given", arg+1, len(args)))
		}
		used[arg] = true
		if err := bindSQLite(stmt, i, args[arg]); err != nil {
			return sqliteError(ctx, err)
		}
	}
	for i, u := range used {
		if !u {
			return Errorf(CodeSyntax, fmt.Sprintf("%d parameters were given, but the statement does not use parameter %d", len(args), i+1))
		}
	}
	return nil
}

func bindSQLite(stmt *sqlite3.Stmt, i int, a any) error {
	switch a := a.(type) {
	case nil:
		return stmt.BindNull(i)
	case bool:
		return stmt.BindBool(i, a)
	case int64:
		return stmt.BindInt64(i, a)
	case float64:
		return stmt.BindFloat(i, a)
	case string:
		return stmt.BindText(i, a)
	case []byte:
		return stmt.BindBlob(i, a)
	}
	return fmt.Errorf("parameter %d: unsupported type %T", i, a)
}

// query runs a statement that returns rows; closing them gives the
// connection back to pool, nil in a transaction.
func (c *sqliteConn) query(ctx context.Context, sql string, args []any, pool *sqliteDB) (Rows, error) {
	stmt, err := c.prepare(ctx, sql, args)
	if err != nil {
		return nil, err
	}
	// The first step runs before the columns are read: a cached
	// statement whose schema changed since (ALTER TABLE, a table made
	// anew) is prepared again by SQLite at that step, and its columns are
	// then those of the statement that runs.
	r := &sqliteRows{ctx: ctx, c: c, sql: sql, stmt: stmt, pool: pool, stepped: true}
	r.row = stmt.Step()
	if !r.row {
		if err := stmt.Err(); err != nil {
			c.done(sql, stmt)
			return nil, sqliteError(ctx, err)
		}
	}
	r.cols = c.stmts.columns(stmt)
	return r, nil
}

func (c *sqliteConn) exec(ctx context.Context, sql string, args []any) (ExecResult, error) {
	stmt, err := c.prepare(ctx, sql, args)
	if err != nil {
		return ExecResult{}, err
	}
	err = stmt.Exec()
	c.done(sql, stmt)
	if err != nil {
		return ExecResult{}, sqliteError(ctx, err)
	}
	return ExecResult{RowsAffected: c.conn.Changes(), LastInsertID: c.conn.LastInsertRowID(), HasLastInsertID: true}, nil
}

// sqliteRows are the rows of one statement of c, whose text is sql;
// closing them gives c back to pool (nil in a transaction). The
// statement's first step ran before the rows were made (stepped, its
// outcome row); end is set once a step found no more rows. vals are made
// at the first call of Values.
type sqliteRows struct {
	ctx     context.Context
	c       *sqliteConn
	pool    *sqliteDB
	sql     string
	stmt    *sqlite3.Stmt
	cols    []string
	vals    []any
	err     error
	stepped bool
	row     bool
	end     bool
}

func (r *sqliteRows) Columns() []string { return r.cols }

func (r *sqliteRows) Next() bool {
	if r.stmt == nil || r.end {
		return false
	}
	if r.stepped {
		r.stepped = false
		r.end = !r.row
		return r.row
	}
	if r.stmt.Step() {
		return true
	}
	r.end = true
	if err := r.stmt.Err(); err != nil {
		r.err = sqliteError(r.ctx, err)
	}
	return false
}

func (r *sqliteRows) Values() ([]any, error) {
	if r.vals == nil {
		r.vals = make([]any, len(r.cols))
	}
	for i := range r.vals {
		switch r.stmt.ColumnType(i) {
		case sqlite3.INTEGER:
			r.vals[i] = r.stmt.ColumnInt64(i)
		case sqlite3.FLOAT:
			r.vals[i] = r.stmt.ColumnFloat(i)
		case sqlite3.TEXT:
			r.vals[i] = r.stmt.ColumnText(i)
		case sqlite3.BLOB:
			r.vals[i] = r.stmt.ColumnBlob(i, nil)
		default:
			r.vals[i] = nil
		}
	}
	return r.vals, nil
}

// AppendRow appends the current row's values as Values and AppendValue
// would, reading texts and blobs where SQLite keeps them (RowAppender).
func (r *sqliteRows) AppendRow(dst []byte, blobs []int) ([]byte, []int, error) {
	for i := range r.cols {
		if i > 0 {
			dst = append(dst, ',')
		}
		switch r.stmt.ColumnType(i) {
		case sqlite3.INTEGER:
			dst = strconv.AppendInt(dst, r.stmt.ColumnInt64(i), 10)
		case sqlite3.FLOAT:
			dst = appendFloat(dst, r.stmt.ColumnFloat(i))
		case sqlite3.TEXT:
			dst, _ = jsontext.AppendQuote(dst, r.stmt.ColumnRawText(i))
		case sqlite3.BLOB:
			dst = appendBlob(dst, r.stmt.ColumnRawBlob(i))
			blobs = append(blobs, i)
		default:
			dst = append(dst, "null"...)
		}
	}
	return dst, blobs, nil
}

func (r *sqliteRows) Err() error { return r.err }

func (r *sqliteRows) Close() error {
	if r.stmt == nil {
		return r.err
	}
	r.c.done(r.sql, r.stmt)
	r.stmt = nil
	if r.pool != nil {
		r.pool.release(r.c)
	}
	return r.err
}

// sqliteTx is a transaction on one connection of the pool, held until it
// ends.
type sqliteTx struct {
	db   *sqliteDB
	c    *sqliteConn
	done bool
}

func (tx *sqliteTx) Query(ctx context.Context, sql string, args []any) (Rows, error) {
	if tx.done {
		return nil, Errorf(CodeTransaction, "the transaction has ended")
	}
	return tx.c.query(ctx, sql, args, nil)
}

func (tx *sqliteTx) Exec(ctx context.Context, sql string, args []any) (ExecResult, error) {
	if tx.done {
		return ExecResult{}, Errorf(CodeTransaction, "the transaction has ended")
	}
	return tx.c.exec(ctx, sql, args)
}

func (tx *sqliteTx) Commit(ctx context.Context) error {
	if tx.done {
		return Errorf(CodeTransaction, "the transaction has ended")
	}
	tx.done = true
	err := tx.c.control(ctx, "COMMIT")
	if err != nil && !tx.c.conn.GetAutocommit() {
		err = errors.Join(err, tx.c.control(context.WithoutCancel(ctx), "ROLLBACK"))
	}
	tx.db.release(tx.c)
	return err
}

func (tx *sqliteTx) Rollback(ctx context.Context) error {
	if tx.done {
		return nil
	}
	tx.done = true
	err := tx.c.control(ctx, "ROLLBACK")
	tx.db.release(tx.c)
	return err
}

// sqliteKinds are the kinds of SQLite's extended constraint codes. The
// others (a trigger's RAISE, a STRICT table's type, a virtual table's)
// have none.
var sqliteKinds = map[sqlite3.ExtendedErrorCode]Kind{
	sqlite3.CONSTRAINT_UNIQUE:     KindUnique,
	sqlite3.CONSTRAINT_PRIMARYKEY: KindUnique,
	sqlite3.CONSTRAINT_ROWID:      KindUnique,
	sqlite3.CONSTRAINT_FOREIGNKEY: KindForeignKey,
	sqlite3.CONSTRAINT_CHECK:      KindCheck,
	sqlite3.CONSTRAINT_NOTNULL:    KindNotNull,
}

// sqliteError maps an SQLite error to an *Error the guest understands.
// The driver gives an *sqlite3.Error when SQLite's message says more than
// its code, and the bare code (sqlite3.ExtendedErrorCode) when it does
// not: "database is locked", "attempt to write a readonly database",
// "database or disk is full". Both map alike.
func sqliteError(ctx context.Context, err error) error {
	var se *sqlite3.Error
	var xc sqlite3.ExtendedErrorCode
	var code sqlite3.ErrorCode
	var msg string
	switch {
	case errors.As(err, &se):
		// se.Error() is the code's generic text, then SQLite's message:
		// "sqlite3: constraint failed: UNIQUE constraint failed: users.name".
		// The code travels as e.Code, so the message keeps SQLite's own
		// words alone, or the generic text when SQLite gave none.
		xc, code, msg = se.ExtendedCode(), se.Code(), se.Error()
		if rest, ok := strings.CutPrefix(msg, se.ExtendedCode().Error()+": "); ok && rest != "" {
			msg = rest
		} else {
			msg = strings.TrimPrefix(msg, "sqlite3: ")
		}
	case errors.As(err, &xc):
		code, msg = xc.Code(), strings.TrimPrefix(xc.Error(), "sqlite3: ")
	default:
		if errors.Is(err, sqlite3.INTERRUPT) {
			return &Error{Code: CodeOther, Message: "the statement was stopped: " + context.Cause(ctx).Error(), Err: err}
		}
		return &Error{Code: CodeOther, Message: err.Error(), Err: err}
	}
	e := &Error{Message: msg, Err: err}
	switch code {
	case sqlite3.CONSTRAINT:
		e.Code, e.Kind = CodeConstraint, sqliteKinds[xc]
		// "UNIQUE constraint failed: users.email" names it (columns, or
		// a CHECK's name); "FOREIGN KEY constraint failed" names none.
		if i := strings.LastIndex(msg, "constraint failed: "); i >= 0 && !strings.HasSuffix(msg, "constraint failed") {
			e.Constraint = msg[i+len("constraint failed: "):]
		}
	case sqlite3.ERROR:
		e.Code = CodeSyntax
	case sqlite3.AUTH:
		e.Code = CodeDenied
		e.Message = "not authorized: a guest may not ATTACH, load extensions, run PRAGMAs other than schema information, or control transactions in SQL (db_begin does)"
	case sqlite3.BUSY, sqlite3.LOCKED:
		e.Code = CodeBusy
		if code == sqlite3.BUSY && ctx.Err() == nil {
			e.Message += fmt.Sprintf(": another connection or process held the database's write lock longer than the busy timeout (%s)", busyTimeout)
		}
	case sqlite3.TOOBIG:
		e.Code = CodeTooLarge
	case sqlite3.INTERRUPT:
		e.Code = CodeOther
		if ctx.Err() != nil {
			e.Message = "the statement was stopped: " + context.Cause(ctx).Error()
		}
	case sqlite3.IOERR, sqlite3.FULL:
		e.Code = CodeUnavailable
		if !strings.Contains(msg, ": ") { // no system error says more
			e.Message += ": check the free space and the file system of the database file (and of its -wal and -shm beside it)"
		}
	case sqlite3.READONLY:
		e.Code = CodeUnavailable
		e.Message += ": the host must be able to write the database file, its directory, and the -wal and -shm files beside it"
	case sqlite3.CANTOPEN, sqlite3.CORRUPT, sqlite3.NOTADB, sqlite3.PERM:
		e.Code = CodeUnavailable
	default:
		e.Code = CodeOther
	}
	return e
}
