package database

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmendpoints/endpoints/database/internal/jsonquote"
	"github.com/wasmendpoints/endpoints/database/internal/sqlitemem"
	"github.com/wasmendpoints/endpoints/internal/sqlredact"
)

func init() { Register(DriverSQLite, openSQLite) }

// SQLiteBusyTimeout is how long a statement waits for another connection's
// write lock before it fails with [CodeBusy]; the request's deadline
// stops the wait sooner.
const SQLiteBusyTimeout = 5 * time.Second

// sqliteWALSizeLimit is the size, in bytes, the -wal file of a database
// is brought back to (PRAGMA journal_size_limit) when a checkpoint has
// copied it all and a write starts it over: a burst of writes during a
// long read grows the file past its usual 4 MB (the 1000 pages of the
// automatic checkpoint), and without a limit it would keep that size for
// as long as a connection stays open. Twice the usual size, so that the
// ordinary cycle never truncates it.
const sqliteWALSizeLimit = 8 << 20

// SQLitePooledMemory is the most memory, in bytes, a SQLite connection
// goes back to the pool with: 16 MiB. Each connection has a memory of its
// own (go-sqlite3 runs SQLite in a linear memory per connection), which
// grows when a statement needs it (a group_concat of 100 MB grew it to
// 254 MiB) and never shrinks; a connection whose memory grew past this
// is closed when its statement or transaction ends, instead of pooled,
// and the next statement opens a new one (about 0.8 ms of CPU: set up,
// the schema read again, the statement prepared again). Ordinary work
// stays well under it: a new connection has 512 KiB, one whose page
// cache (2 MB) and sorter (sorts and GROUP BY over a million rows spill
// to temporary files) are full under 7 MiB. So a database keeps at most
// [Options.MaxConns] times this between statements, 160 MiB with the
// defaults, rather than 256 MiB a connection (2.5 GiB).
//
// # Notes
//
//   - A statement that grows its connection past it takes that memory
//     from the system again each time it runs (a group_concat of 20 MB:
//     48 ms of CPU instead of 13, most of it page faults);
//     RATIONALE.md has the measurements.
const SQLitePooledMemory = 16 << 20

// pooledMemory is SQLitePooledMemory; tests change it (export_test.go).
var pooledMemory int64 = SQLitePooledMemory

// busyTimeout is SQLiteBusyTimeout; tests shorten it (export_test.go).
var busyTimeout = SQLiteBusyTimeout

// sqliteFileCheck is how often a pool looks whether the database file at
// its path is still the one its connections opened (sqliteDB.fileGen);
// tests set it to zero (export_test.go).
var sqliteFileCheck = 250 * time.Millisecond

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
	name   string // Options.Name
	path   string
	slots  chan struct{}    // a token per connection in use
	idle   chan *sqliteConn // connections not in use
	mu     sync.Mutex       // guards closed
	closed bool

	// file is the database file the first connection opened, nil until
	// then (or when path names no file, ":memory:"); fileMu guards it.
	// gen counts the times fileGen found another file at path, or none:
	// a connection opened before (sqliteConn.gen) is closed, not used.
	// checked is when fileGen last looked, in Unix nanoseconds.
	fileMu  sync.Mutex
	file    os.FileInfo
	gen     atomic.Uint64
	checked atomic.Int64

	// unclosed are the connections a memory fault broke that SQLite
	// would not close (a statement stopped mid-commit is not finalized
	// while the -shm file stays unwritable): they hold the file's locks,
	// the write lock perhaps, so acquire tries to close them again, until
	// it can (closeUnclosed). hasUnclosed is set while there are some;
	// unclosedMu guards unclosed.
	unclosedMu  sync.Mutex
	unclosed    []*sqliteConn
	hasUnclosed atomic.Bool
}

// sqliteConn is one connection; trusted is set while the host runs its
// own statements (BEGIN, migrations), which the guest authorizer allows.
// stmts are the guests' statements it prepared, none of them prepared
// while trusted. broken is set once the driver panicked on it
// (recoverSQLite), a migration could not turn its foreign keys on
// again (Migrate), or a statement found the files read-only (failed),
// temp once a guest's statement made a temporary table,
// index, view or trigger on it: release closes it instead of pooling it.
type sqliteConn struct {
	conn    *sqlite3.Conn
	trusted bool
	broken  bool
	faulted bool // broken by a memory fault (errFault)
	// script is set while a migration's script runs (sqliteMigration),
	// whose own BEGIN, COMMIT and ROLLBACK the authorizer refuses,
	// setting txRefused.
	script    bool
	txRefused bool
	temp      bool
	// migrated is set once a migration ran on it: the PRAGMAs a trusted
	// script may run (ignore_check_constraints, query_only,
	// recursive_triggers...) set the connection, not the file, so
	// release closes it rather than hand them to guests.
	migrated bool
	gen      uint64 // the pool's file generation when it was opened
	stmts    stmtCache
	lock     lockWait
	// nums holds the parameter numbers of the statement being bound
	// (sqliteNumbered), kept for the next.
	nums []int
	// readOnly is set while a read-only transaction holds the
	// connection (Begin), whose PRAGMA query_only release turns off.
	readOnly bool
}

// recoverSQLite turns a panic of go-sqlite3 into *err. The driver panics
// instead of returning an error when SQLite runs out of memory
// (SQLITE_NOMEM: a guest's statement that builds a string of a gigabyte,
// printf('%.*c', 2000000000, 'x')) and on its own assertions; the host
// must answer the statement's error, and not lose the connection the
// statement held. The connection is marked broken, so that release
// closes it rather than pools it: a statement it was running was not
// given back, and its memory may have grown to gigabytes. Any other panic
// goes on.
func (c *sqliteConn) recoverSQLite(err *error) {
	v := recover()
	if v == nil {
		return
	}
	e := driverPanic(v)
	c.broken = true
	if errors.Is(e, errFault) {
		c.faulted = true
		*err = &Error{Code: CodeUnavailable, Message: "the database's files could not be written: a bus error in the shared mapping of its -shm file, which happens when the file system went read-only (after an I/O error) or the files were made unwritable (chattr +i); the connection is closed, and statements fail until the files are writable again", Err: e}
		return
	}
	if e.Error() == "sqlite3: out of memory" {
		*err = &Error{Code: CodeTooLarge, Message: "SQLite ran out of memory running the statement: it builds a value or a result too large for the host (strings and blobs of hundreds of megabytes)", Err: e}
		return
	}
	*err = &Error{Code: CodeOther, Message: "the SQLite driver failed: " + strings.TrimPrefix(e.Error(), "sqlite3: "), Err: e}
}

// close finalizes the cached statements, and any other the connection
// still has (one a panic of the driver left prepared on a broken
// connection), and closes the connection: SQLite closes no connection
// that has statements, and go-sqlite3 unmaps a connection's memory (up
// to 256 MiB) only once SQLite has closed it.
func (c *sqliteConn) close() error {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	if c.faulted {
		// A checkpoint at the close would write the -shm file's mapping
		// again, and fault in the middle of the close, the connection's
		// locks still held.
		sqliteCall(func() error {
			_, err := c.conn.Config(sqlite3.DBCONFIG_NO_CKPT_ON_CLOSE, true)
			return err
		})
	}
	c.stmts.close()
	for _, stmt := range slices.Collect(c.conn.Stmts()) {
		sqliteCall(stmt.Close)
	}
	return sqliteCall(c.conn.Close)
}

// errFault is the error of a memory fault in go-sqlite3's code: a bus
// error (SIGBUS) writing the shared mapping of a database's -shm file
// whose file system went read-only, or that was made immutable. The
// runtime would end the process on it; the calls into go-sqlite3 make it
// a panic (debug.SetPanicOnFault), which driverPanic turns into errFault.
var errFault = errors.New("memory fault in the SQLite driver")

// driverPanic is v, recovered from a panic, as the error go-sqlite3
// panicked with ("sqlite3: out of memory", "sqlite3: assertion
// failed..."), or errFault for a memory fault (runtime.Error with the
// faulting address, as debug.SetPanicOnFault makes); it panics again with
// v when v is any other panic's.
func driverPanic(v any) error {
	if _, ok := v.(interface{ Addr() uintptr }); ok {
		if re, ok := v.(runtime.Error); ok {
			return fmt.Errorf("%w: %v", errFault, re)
		}
	}
	e, ok := v.(error)
	if !ok || !strings.HasPrefix(e.Error(), "sqlite3: ") {
		panic(v)
	}
	return e
}

// sqliteCall calls f, a go-sqlite3 call that ends something (a
// statement's reset or finalize, a connection's close), and returns its
// error, or the error it panicked with: after SQLITE_NOMEM each of them
// returns that code again, on which go-sqlite3 panics, though what it
// ended is ended.
func sqliteCall(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = driverPanic(v)
		}
	}()
	return f()
}

func openSQLite(ctx context.Context, opts Options) (DB, error) {
	if opts.Path == "" {
		return nil, errors.New("the sqlite driver needs a path")
	}
	return &sqliteDB{
		name:  opts.Name,
		path:  opts.Path,
		slots: make(chan struct{}, opts.MaxConns),
		idle:  make(chan *sqliteConn, opts.MaxConns),
	}, nil
}

func (db *sqliteDB) System() string { return "sqlite" }

func (db *sqliteDB) Location() string { return "sqlite " + db.path }

// connect opens a connection set up for guests: WAL, a busy timeout,
// foreign keys enforced, no ATTACH, and the authorizer.
//
// Once a connection has opened the file, it is no longer created, nor
// its directory: a file deleted (or its app moved away) while the host
// serves it is an error until it is restored, rather than an empty
// database the app's tables are missing from, in directories made again
// where the app was.
func (db *sqliteDB) connect() (*sqliteConn, error) {
	gen := db.gen.Load()
	db.fileMu.Lock()
	opened := db.file != nil
	db.fileMu.Unlock()
	flags := sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE
	if opened {
		flags = sqlite3.OPEN_READWRITE
	} else if err := os.MkdirAll(filepath.Dir(db.path), 0o755); err != nil {
		return nil, &Error{Code: CodeUnavailable, Message: err.Error(), Err: err}
	}
	conn, err := sqlite3.OpenFlags(db.path, flags)
	if err != nil {
		if _, serr := os.Stat(db.path); opened && errors.Is(serr, fs.ErrNotExist) {
			return nil, &Error{Code: CodeUnavailable, Message: fmt.Sprintf("the database file %s was deleted or moved (its directory too, perhaps) while the host served it: put it back where it was (from a backup), or restart the host to start an empty database", db.path), Err: err}
		}
		return nil, &Error{Code: CodeUnavailable, Message: fmt.Sprintf("opening %s: %v", db.path, err), Err: err}
	}
	c := &sqliteConn{conn: conn, gen: gen, lock: lockWait{timeout: busyTimeout}}
	err = c.setup()
	if err == nil && !opened {
		db.fileMu.Lock()
		if fi, serr := os.Stat(db.path); serr == nil && db.file == nil {
			db.file = fi
		}
		db.fileMu.Unlock()
	}
	if err != nil {
		c.close()
		// sqliteError's message says what to check (a directory the
		// host cannot write, where the -wal and -shm files go).
		msg := AsError(sqliteError(context.Background(), err)).Message
		return nil, &Error{Code: CodeUnavailable, Message: fmt.Sprintf("setting up %s: %s", db.path, msg), Err: err}
	}
	return c, nil
}

// setup sets a new connection up for guests (connect); the first
// statements read the -shm file, which may fault (errFault).
func (c *sqliteConn) setup() (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer c.recoverSQLite(&err)
	err = c.conn.BusyHandler(c.lock.busy)
	for _, pragma := range []string{"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON", "PRAGMA journal_size_limit=" + strconv.Itoa(sqliteWALSizeLimit)} {
		if err == nil {
			err = c.conn.Exec(pragma)
		}
	}
	if err == nil {
		c.conn.Limit(sqlite3.LIMIT_ATTACHED, 0)
		err = c.conn.SetAuthorizer(c.authorize)
	}
	if err == nil {
		err = c.defineLike()
	}
	if err == nil {
		err = c.defineStringFuncs()
	}
	if err == nil {
		err = c.defineRegexp()
	}
	return err
}

// authorize is the authorizer of a guest's statements: no ATTACH or
// DETACH, no load_extension, no transaction control in SQL (db_begin
// does it), only the PRAGMAs of sqliteAllowedPragmas. A temporary object
// is allowed, and marks the connection (temp): it lives on the
// connection, which the pool would hand to other calls, where a
// temporary table shadows the app's table of its name, a temporary
// trigger runs on their writes, and the next CREATE TEMP TABLE of the
// same name fails as already there.
func (c *sqliteConn) authorize(action sqlite3.AuthorizerActionCode, name3rd, name4th, schema, inner string) sqlite3.AuthorizerReturnCode {
	switch action {
	case sqlite3.AUTH_CREATE_TEMP_TABLE, sqlite3.AUTH_CREATE_TEMP_INDEX, sqlite3.AUTH_CREATE_TEMP_VIEW, sqlite3.AUTH_CREATE_TEMP_TRIGGER:
		c.temp = true // a migration's too (trusted)
	}
	if c.script && action == sqlite3.AUTH_TRANSACTION {
		// The migration's transaction is the host's: a COMMIT of the
		// script's would commit what ran before it, unrecorded.
		c.txRefused = true
		return sqlite3.AUTH_DENY
	}
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
			return nil, PoolFullError(db.name, cap(db.slots), wait.Err())
		}
	}
	db.mu.Lock()
	closed := db.closed
	db.mu.Unlock()
	if closed {
		<-db.slots
		return nil, &Error{Code: CodeUnavailable, Message: "the database is closed"}
	}
	if db.hasUnclosed.Load() {
		db.closeUnclosed()
	}
	select {
	case c := <-db.idle:
		if c.gen == db.fileGen() {
			return c, nil
		}
		c.close() // it writes to a file no longer at the path
	default:
	}
	c, err := db.connect()
	if err != nil {
		<-db.slots
		return nil, err
	}
	return c, nil
}

// fileGen is the generation of the database file at the path: it counts
// the times the file was found deleted or replaced (a backup restored, a
// file moved over it) since the pool opened it. A connection opened
// before goes on reading and writing the file it opened, whose writes
// are lost with the connection: acquire closes it instead. It looks at
// the file at most once per sqliteFileCheck, so that a statement costs
// no system call.
func (db *sqliteDB) fileGen() uint64 {
	now := time.Now().UnixNano()
	last := db.checked.Load()
	if now-last < int64(sqliteFileCheck) || !db.checked.CompareAndSwap(last, now) {
		return db.gen.Load()
	}
	db.fileMu.Lock()
	defer db.fileMu.Unlock()
	if db.file == nil {
		return db.gen.Load()
	}
	fi, err := os.Stat(db.path)
	if err != nil || !os.SameFile(fi, db.file) {
		if err == nil {
			db.file = fi
		}
		return db.gen.Add(1)
	}
	return db.gen.Load()
}

// release gives a connection back, closing it instead when it is left
// in a transaction (an interrupted COMMIT), the driver panicked on it
// (broken), a guest made temporary objects on it (temp: they end with
// the connection, so with the statement or transaction that made them),
// a migration ran on it (migrated: the settings its PRAGMAs left end with
// it), its memory grew past pooledMemory (grown), or the pool is closed.
func (db *sqliteDB) release(c *sqliteConn) {
	c.conn.SetInterrupt(context.Background())
	c.trusted = false
	c.lock.gaveUp = false
	if c.readOnly {
		c.readOnly = false
		// The next holder writes: a connection that stays query_only
		// would refuse it.
		if c.control(context.Background(), "PRAGMA query_only=OFF") != nil {
			c.broken = true
		}
	}
	db.mu.Lock()
	closed := db.closed
	db.mu.Unlock()
	if closed || c.broken || c.temp || c.migrated || !c.conn.GetAutocommit() || c.grown() {
		db.closeConn(c)
	} else {
		db.idle <- c
	}
	<-db.slots
}

// grown reports whether the connection's memory grew past pooledMemory
// (SQLitePooledMemory): what its statements took, which it would keep
// for as long as the pool kept it. A driver whose connections
// sqlitemem.Size cannot measure (its tests fail then) pools them as
// before.
func (c *sqliteConn) grown() bool {
	n, err := sqlitemem.Size(c.conn)
	return err == nil && n > pooledMemory
}

// closeConn closes c, which no one uses; a connection a memory fault
// broke that does not close is kept in unclosed, to be closed later.
func (db *sqliteDB) closeConn(c *sqliteConn) {
	if err := c.close(); err == nil || !c.faulted {
		return
	}
	db.unclosedMu.Lock()
	db.unclosed = append(db.unclosed, c)
	db.hasUnclosed.Store(true)
	db.unclosedMu.Unlock()
}

// closeUnclosed tries again to close the connections that did not close
// (closeConn), as the files may be writable again; it returns at once
// when another goroutine is at it.
func (db *sqliteDB) closeUnclosed() {
	if !db.unclosedMu.TryLock() {
		return
	}
	defer db.unclosedMu.Unlock()
	left := db.unclosed[:0]
	for _, c := range db.unclosed {
		if c.close() != nil {
			left = append(left, c)
		}
	}
	clear(db.unclosed[len(left):])
	db.unclosed = left
	db.hasUnclosed.Store(len(left) > 0)
}

func (db *sqliteDB) Query(ctx context.Context, sql string, args []any) (rows Rows, err error) {
	c, err := db.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			db.release(c)
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer c.recoverSQLite(&err)
	return c.query(ctx, sql, args, db)
}

func (db *sqliteDB) Exec(ctx context.Context, sql string, args []any) (r ExecResult, err error) {
	c, err := db.acquire(ctx)
	if err != nil {
		return ExecResult{}, err
	}
	defer db.release(c)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer c.recoverSQLite(&err)
	return c.exec(ctx, sql, args)
}

// Begin opens a transaction. SQLite's are serializable whatever
// opts.Isolation asks (each level asks for no more). A read-write one
// begins IMMEDIATE, taking the write lock now, waiting up to the busy
// timeout: a transaction that reads then writes cannot fail on the
// upgrade. A read-only one begins DEFERRED: it never takes the write
// lock, so it runs beside the writer and other readers (WAL gives it a
// snapshot at its first read), and PRAGMA query_only makes SQLite refuse
// its writes, which failed reports with CodeDenied.
func (db *sqliteDB) Begin(ctx context.Context, opts TxOptions) (Tx, error) {
	c, err := db.acquire(ctx)
	if err != nil {
		return nil, err
	}
	begin := "BEGIN IMMEDIATE"
	if opts.ReadOnly {
		c.readOnly = true
		if err := c.control(ctx, "PRAGMA query_only=ON"); err != nil {
			db.release(c)
			return nil, err
		}
		begin = "BEGIN DEFERRED"
	}
	if err := c.control(ctx, begin); err != nil {
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
//
// Foreign keys are off in the transaction, and checked before it commits
// (PRAGMA foreign_key_check): SQLite's procedure for the changes ALTER
// TABLE cannot make (a new table, the rows copied, the old one dropped,
// the new one renamed). A migration's own PRAGMA foreign_keys=OFF does
// nothing in a transaction, and with foreign keys on, dropping the old
// table would delete the rows that refer to it through their ON DELETE
// CASCADE. So ON DELETE and ON UPDATE actions do not run in a migration:
// one that leaves rows naming no row fails, saying which (rows that named
// none before it, written with foreign keys off, are not its doing).
//
// A panic of the driver (recoverSQLite) is the migration's error: the
// connection, closed rather than pooled, takes the transaction with it.
func (db *sqliteDB) Migrate(ctx context.Context, fn func(Migration) error) (err error) {
	c, err := db.acquire(ctx)
	if err != nil {
		return err
	}
	defer db.release(c)
	c.migrated = true
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer c.recoverSQLite(&err)
	guests := c.lock.timeout
	c.lock.timeout = migrationBusyTimeout
	defer func() { c.lock.timeout = guests }()
	if err := c.control(ctx, "PRAGMA foreign_keys=OFF"); err != nil {
		return err
	}
	defer func() {
		// A connection whose foreign keys could not be turned on again
		// is closed, never handed to a guest.
		if c.control(context.WithoutCancel(ctx), "PRAGMA foreign_keys=ON") != nil || !c.conn.GetAutocommit() {
			c.broken = true
		}
	}()
	if err := c.control(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	before, err := c.orphanCounts(ctx)
	if err == nil {
		err = fn(&sqliteMigration{sqliteTx{db: db, c: c}})
	}
	if err == nil {
		err = c.foreignKeyCheck(ctx, before)
	}
	if err == nil {
		return c.control(ctx, "COMMIT")
	}
	if rerr := c.control(context.WithoutCancel(ctx), "ROLLBACK"); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

// fkOrphans are the rows of one table whose foreign key names no row
// (PRAGMA foreign_key_check): how many, the parent table of the first,
// the first rows' rowids.
type fkOrphans struct {
	parent string
	rowids []string
	n      int
}

// orphans runs PRAGMA foreign_key_check: the tables that hold rows whose
// foreign key names no row, in the order found, and those rows.
func (c *sqliteConn) orphans(ctx context.Context) (tables []string, found map[string]*fkOrphans, _ error) {
	c.conn.SetInterrupt(ctx)
	stmt, _, err := c.conn.Prepare("PRAGMA foreign_key_check")
	if err != nil {
		return nil, nil, sqliteError(ctx, err)
	}
	defer stmt.Close()
	found = map[string]*fkOrphans{}
	for stmt.Step() {
		table := stmt.ColumnText(0)
		o := found[table]
		if o == nil {
			o = &fkOrphans{parent: stmt.ColumnText(2)}
			found[table] = o
			tables = append(tables, table)
		}
		o.n++
		if len(o.rowids) < 3 {
			rowid := "without rowid"
			if stmt.ColumnType(1) != sqlite3.NULL {
				rowid = "rowid " + strconv.FormatInt(stmt.ColumnInt64(1), 10)
			}
			o.rowids = append(o.rowids, rowid)
		}
	}
	if err := stmt.Err(); err != nil {
		return nil, nil, sqliteError(ctx, err)
	}
	return tables, found, nil
}

// orphanCounts is how many rows of each table name no row by their
// foreign key before a migration runs: rows written with foreign keys off
// (the sqlite3 shell's default, a tool that never turns them on), which
// are not the migration's doing.
func (c *sqliteConn) orphanCounts(ctx context.Context) (map[string]int, error) {
	_, found, err := c.orphans(ctx)
	if err != nil {
		return nil, err
	}
	counts := make(map[string]int, len(found))
	for table, o := range found {
		counts[table] = o.n
	}
	return counts, nil
}

// foreignKeyCheck is the error of a migration that leaves rows whose
// foreign key names no row (PRAGMA foreign_key_check), more in a table
// than before it (orphanCounts), nil when it leaves none: the table, the
// count and the first rows' rowids.
func (c *sqliteConn) foreignKeyCheck(ctx context.Context, before map[string]int) error {
	tables, found, err := c.orphans(ctx)
	if err != nil {
		return err
	}
	var parts []string
	for _, table := range tables {
		o := found[table]
		if o.n <= before[table] {
			continue
		}
		rows := "rows"
		if o.n == 1 {
			rows = "row"
		}
		if before[table] > 0 {
			rows += fmt.Sprintf(" of %s (%d before it)", table, before[table])
		} else {
			rows += " of " + table
		}
		more := ""
		if o.n > len(o.rowids) {
			more = ", ..."
		}
		parts = append(parts, fmt.Sprintf("%d %s whose foreign key names no row of %s (%s%s)", o.n, rows, o.parent, strings.Join(o.rowids, ", "), more))
	}
	if len(parts) == 0 {
		return nil
	}
	return &Error{Code: CodeConstraint, Kind: KindForeignKey, Message: "the migration leaves " + strings.Join(parts, "; ") +
		": SQLite migrations run with foreign keys off (checked before they commit), so ON DELETE and ON UPDATE actions do not run in them; delete or change those rows in the migration"}
}

// sqliteMigration is the transaction of Migrate.
type sqliteMigration struct{ sqliteTx }

// Script runs the statements one by one, so that an error names its
// statement. The script's own BEGIN, COMMIT and ROLLBACK are refused:
// the transaction is Migrate's.
func (m *sqliteMigration) Script(ctx context.Context, sql string) error {
	c := m.c
	c.trusted, c.script, c.txRefused = true, true, false
	defer func() { c.trusted, c.script = false, false }()
	c.conn.SetInterrupt(ctx)
	for tail := sql; strings.TrimSpace(tail) != ""; {
		stmt, rest, err := c.conn.Prepare(tail)
		if err != nil {
			e := sqliteError(ctx, err).(*Error)
			e.Statement = strings.TrimSpace(firstStatement(tail))
			if c.txRefused {
				e.Message = MigrationTransactionMessage
			}
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
			db.closeUnclosed()
			return errors.Join(errs...)
		}
	}
}

// failed is the error of a statement of c that failed with err: SQLite's
// mapped (sqliteError), saying whether a wait for the lock stopped before
// the deadline (lockWait.explain). A connection that found the files
// read-only is closed once released, not pooled: one opened while the
// -shm file could not be written maps it read-only, and would fail every
// write after the file is writable again.
func (c *sqliteConn) failed(ctx context.Context, err error) error {
	if c.readOnly && queryOnlyRefusal(err) {
		return &Error{Code: CodeDenied, Message: "attempt to write a readonly database: " + ReadOnlyMessage, Err: err}
	}
	if errors.Is(err, sqlite3.READONLY) {
		c.broken = true
	}
	return c.lock.explain(sqliteError(ctx, err))
}

// queryOnlyRefusal reports whether err is SQLite's refusal of a write
// under PRAGMA query_only, the bare SQLITE_READONLY: in a read-only
// transaction, query_only refuses a write before SQLite touches the file,
// and a file the host cannot write fails the reads too, with an extended
// code (SQLITE_READONLY_CANTINIT...).
func queryOnlyRefusal(err error) bool {
	var se *sqlite3.Error
	if errors.As(err, &se) {
		return se.ExtendedCode() == sqlite3.ExtendedErrorCode(sqlite3.READONLY)
	}
	var xc sqlite3.ExtendedErrorCode
	return errors.As(err, &xc) && xc == sqlite3.ExtendedErrorCode(sqlite3.READONLY)
}

// control runs the host's own statements (BEGIN, COMMIT, ROLLBACK, a
// migration's script), which the authorizer allows.
func (c *sqliteConn) control(ctx context.Context, sql string) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer c.recoverSQLite(&err)
	c.trusted = true
	defer func() { c.trusted = false }()
	c.conn.SetInterrupt(ctx)
	if err := c.conn.Exec(sql); err != nil {
		return c.failed(ctx, err)
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
		if err := c.bind(ctx, stmt, sql, args); err != nil {
			c.done(sql, stmt)
			return nil, err
		}
		return stmt, nil
	}
	if strings.IndexByte(sql, 0) >= 0 {
		// SQLite stops reading at a NUL: what follows would be dropped
		// unseen (and the one-statement rule with it). Never cached, so
		// a statement from the cache holds none.
		return nil, Errorf(CodeSyntax, "the SQL text holds a NUL byte, where SQLite would stop reading it: pass binary data as a parameter")
	}
	var flags sqlite3.PrepareFlag
	if cacheable(sql) {
		flags = sqlite3.PREPARE_PERSISTENT
	}
	// $N written ?N (sqliteNumbered): the same length, so that SQLite's
	// errors point where they would. A statement that fails so is
	// prepared as the guest wrote it, for SQLite's words about its text.
	text, _, _ := sqliteNumbered(sql, c.nums[:0], true)
	stmt, tail, err := c.conn.PrepareFlags(text, flags)
	if err != nil && text != sql {
		if stmt, _, err2 := c.conn.PrepareFlags(sql, 0); err2 != nil {
			err = err2
		} else if stmt != nil {
			stmt.Close()
		}
	}
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
	if err := c.bind(ctx, stmt, sql, args); err != nil {
		c.done(sql, stmt)
		return nil, err
	}
	return stmt, nil
}

// bind binds args to stmt, the statement of sql: by number when each of
// its parameters is $N or ?N (bindNumbered), else as bindAll does.
func (c *sqliteConn) bind(ctx context.Context, stmt *sqlite3.Stmt, sql string, args []any) error {
	_, nums, numbered := sqliteNumbered(sql, c.nums[:0], false)
	c.nums = nums[:0]
	if numbered {
		if done, err := bindNumbered(ctx, stmt, args, nums); done {
			return err
		}
	}
	return bindAll(ctx, stmt, args)
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
			return nil, c.failed(ctx, err)
		}
	}
	r.cols = c.stmts.columns(stmt, sql)
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
		return ExecResult{}, c.failed(ctx, err)
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

func (r *sqliteRows) Next() (more bool) {
	if r.stmt == nil || r.end {
		return false
	}
	defer func() {
		if r.err != nil {
			r.end, more = true, false
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer r.c.recoverSQLite(&r.err)
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
		r.err = r.c.failed(r.ctx, err)
	}
	return false
}

func (r *sqliteRows) Values() (_ []any, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer r.c.recoverSQLite(&err)
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
// would, reading texts and blobs where SQLite keeps them (RowAppender). A
// text or blob whose JSON would take dst past limit fails the row before
// it is copied: a value of hundreds of megabytes never reaches the host's
// memory, only SQLite's (bounded per connection).
func (r *sqliteRows) AppendRow(dst []byte, blobs []int, limit int) (_ []byte, _ []int, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer r.c.recoverSQLite(&err)
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
			text := r.stmt.ColumnRawText(i)
			if len(dst)+len(text)+len(`""`) > limit {
				return dst, blobs, &valueTooLargeError{Column: i, Bytes: len(text)}
			}
			dst = jsonquote.Bytes(dst, text)
		case sqlite3.BLOB:
			blob := r.stmt.ColumnRawBlob(i)
			if len(dst)+base64.StdEncoding.EncodedLen(len(blob))+len(`""`) > limit {
				return dst, blobs, &valueTooLargeError{Column: i, Bytes: len(blob), Blob: true}
			}
			dst = appendBlob(dst, blob)
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
	r.finish()
	r.stmt = nil
	if r.pool != nil {
		r.pool.release(r.c)
	}
	return r.err
}

// finish hands the statement back to its connection (done). Resetting a
// write whose rows were not all read (INSERT ... RETURNING) commits it,
// which writes the -shm file's mapping as a step does, and may fault as
// one does (errFault): the rows' error, and the connection closed.
func (r *sqliteRows) finish() {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer r.c.recoverSQLite(&r.err)
	r.c.done(r.sql, r.stmt)
}

// sqliteTx is a transaction on one connection of the pool, held until it
// ends.
type sqliteTx struct {
	db   *sqliteDB
	c    *sqliteConn
	done bool
}

func (tx *sqliteTx) Query(ctx context.Context, sql string, args []any) (_ Rows, err error) {
	if tx.done {
		return nil, Errorf(CodeTransaction, "the transaction has ended")
	}
	if err := tx.rolledBack(); err != nil {
		return nil, err
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer tx.c.recoverSQLite(&err)
	return tx.c.query(ctx, sql, args, nil)
}

func (tx *sqliteTx) Exec(ctx context.Context, sql string, args []any) (_ ExecResult, err error) {
	if tx.done {
		return ExecResult{}, Errorf(CodeTransaction, "the transaction has ended")
	}
	if err := tx.rolledBack(); err != nil {
		return ExecResult{}, err
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer tx.c.recoverSQLite(&err)
	return tx.c.exec(ctx, sql, args)
}

// rolledBack is the error of a statement or a commit of a transaction
// SQLite rolled back by itself, nil while the transaction is open. SQLite
// rolls back the whole transaction when it stops a write of it
// (SQLITE_INTERRUPT: a statement timeout, the call's deadline), and may
// when a statement fails for want of memory or disk (SQLITE_NOMEM,
// SQLITE_FULL, SQLITE_IOERR); the
// connection is then in autocommit mode, where the statements that follow
// would each commit at once, outside the transaction the guest still
// thinks it is in, and stay whatever it does next.
func (tx *sqliteTx) rolledBack() error {
	if !tx.c.conn.GetAutocommit() {
		return nil
	}
	return Errorf(CodeTransaction, "SQLite rolled the transaction back when one of its statements failed (a write stopped at its timeout, or out of memory or disk, an I/O error): nothing of it is left; run the transaction again")
}

func (tx *sqliteTx) Commit(ctx context.Context) error {
	if tx.done {
		return Errorf(CodeTransaction, "the transaction has ended")
	}
	tx.done = true
	if err := tx.rolledBack(); err != nil {
		tx.db.release(tx.c)
		return err
	}
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
	if tx.rolledBack() != nil {
		tx.db.release(tx.c)
		return nil // SQLite rolled it back already
	}
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
		return &Error{Code: CodeOther, Message: err.Error(), Redacted: sqlredact.Message(err.Error()), Err: err}
	}
	e := &Error{Message: msg, Err: err}
	defer func() {
		if xc == sqlite3.CONSTRAINT_TRIGGER {
			// A trigger's RAISE: its message is the app's expression,
			// which may hold the row's values unquoted.
			e.Redacted = RaisedMessage
		} else {
			e.redact(msg)
		}
	}()
	switch code {
	case sqlite3.CONSTRAINT:
		e.Code, e.Kind = CodeConstraint, sqliteKinds[xc]
		// "UNIQUE constraint failed: users.email" names it (columns, or
		// a CHECK's name); "FOREIGN KEY constraint failed" names none,
		// nor does a trigger's RAISE, whatever its text says.
		if i := strings.LastIndex(msg, "constraint failed: "); i >= 0 && !strings.HasSuffix(msg, "constraint failed") && xc != sqlite3.CONSTRAINT_TRIGGER {
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
