// Package database is what the host asks of a SQL database that guests
// reach through the db_* host functions (abi/README.md §4.5):
// the [DB] interface, its drivers' registry, the errors guests see and the
// JSON results they read.
//
// Experimental: the databases guests reach, and this package, may change
// before 1.0 (README.md, "Stability before 1.0").
//
// The SQLite driver ([DriverSQLite]) is built in and registered by this
// package; the PostgreSQL one is package database/postgres, which a
// program imports to link it:
//
//	import _ "github.com/wasmendpoints/endpoints/database/postgres"
//
// A statement is always one statement whose parameters are bound, never
// interpolated; the driver refuses a second statement ([CodeDenied]) and
// stops a statement whose context ends.
//
// # Notes
//
//   - A DB is safe for concurrent use; a [Tx] belongs to one goroutine.
//   - Drivers map their failures to an [*Error] with a [Code] (a unique
//     violation is [CodeConstraint]), so that a handler can answer 409
//     whatever the database.
package database

import (
	"context"
	"time"

	"github.com/wasmendpoints/endpoints/internal/registry"
)

// Driver names of [Options.Driver].
const (
	// DriverSQLite is an embedded SQLite file (this package's driver).
	DriverSQLite = "sqlite"
	// DriverPostgres is a PostgreSQL server (package database/postgres).
	DriverPostgres = "postgres"
)

// Options says which database a driver opens and how.
type Options struct {
	// Name is the database's name in the app's endpoints.json
	// ("databases": {"main": ...}), with which errors name the setting
	// to change ([Setting]); empty outside an app.
	Name string
	// Path is the SQLite file, absolute; created on first use with its
	// directory.
	Path string
	// URL locates a PostgreSQL server: postgres://user:password@host:5432/db.
	URL string
	// MaxConns bounds the connections open at once. If zero,
	// [DefaultMaxConns].
	MaxConns int
	// StatementTimeout bounds each statement inside the database, besides
	// the request's deadline (PostgreSQL's statement_timeout): one past it
	// fails with [CodeTimeout], and the call goes on. If zero,
	// [DefaultStatementTimeout].
	StatementTimeout time.Duration
	// MaxRowBytes bounds a row as the server sends it (PostgreSQL): a
	// larger one fails with [CodeTooLarge] as it arrives, before it is
	// held whole in memory, where the driver's own bound is 1 GiB. The
	// host sets it to limits.sqlResultBytes, since no larger row could be
	// returned to a guest. If zero, the driver's bound.
	MaxRowBytes int
}

// Defaults of [Options].
const (
	// DefaultMaxConns is the default of [Options.MaxConns]: 10.
	DefaultMaxConns = 10
	// DefaultStatementTimeout is the default of
	// [Options.StatementTimeout]: 30 s. The request's deadline
	// (limits.timeout) usually stops a statement long before.
	DefaultStatementTimeout = 30 * time.Second
)

// Querier runs statements: a [DB] each on a connection of its own, a [Tx]
// in its transaction.
type Querier interface {
	// Query runs one statement that returns rows. The caller closes the
	// rows.
	Query(ctx context.Context, sql string, args []any) (Rows, error)
	// Exec runs one statement for its effect.
	Exec(ctx context.Context, sql string, args []any) (ExecResult, error)
}

// DB is an open database of one app. Arguments of [Querier] methods are
// nil, bool, int64, float64, string or []byte ([DecodeParams] makes them);
// [Rows] give values of the same types.
type DB interface {
	Querier
	// Begin opens a transaction with opts (the zero value: read-write,
	// the database's default isolation); its connection stays taken
	// until Commit or Rollback.
	Begin(ctx context.Context, opts TxOptions) (Tx, error)
	// Migrate runs fn in a transaction that holds the database's
	// migration lock (PostgreSQL: an advisory lock; SQLite: the write
	// lock), so that hosts starting together apply each migration once;
	// it commits when fn returns nil, and nothing fn did remains
	// otherwise.
	Migrate(ctx context.Context, fn func(m Migration) error) error
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// System is the database's name for traces (OpenTelemetry's
	// db.system): "sqlite", "postgresql".
	System() string
	// Location says where the database is, for the start's log and
	// `endpoints migrate`: "sqlite /srv/app/.endpoints/data/main.db";
	// "postgres host=db.internal port=5432 dbname=app user=app", as the
	// url and libpq's environment (PGHOST, PGPORT, PGDATABASE, PGUSER,
	// PGSERVICE) gave them. Never a password.
	Location() string
	// Close closes every connection.
	Close() error
}

// Tx is an open transaction. Commit or Rollback ends it; Rollback after
// the end does nothing.
type Tx interface {
	Querier
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// MigrationTransactionMessage is the message of the error (code
// [CodeDenied]) a driver's [Migration.Script] gives a script that holds
// transaction statements of its own (BEGIN, COMMIT, ROLLBACK...): the
// transaction is [DB.Migrate]'s, and a COMMIT of the script's would
// commit what ran before it, unrecorded.
const MigrationTransactionMessage = "a migration runs in a transaction of its own, one per file: remove its BEGIN, COMMIT and ROLLBACK (SAVEPOINT is allowed)"

// Migration is the transaction [DB.Migrate] runs: the host's own, trusted
// statements.
type Migration interface {
	Querier
	// Script runs the statements of a migration file, without
	// parameters, in turn.
	Script(ctx context.Context, sql string) error
}

// Rows iterates a statement's result.
type Rows interface {
	// Columns are the result's column names.
	Columns() []string
	// Next advances to the next row; false at the end or on an error.
	Next() bool
	// Values are the current row's values: nil, bool, int64, float64,
	// string or []byte, valid until the next call of Next.
	Values() ([]any, error)
	// Err is the error that ended the iteration, nil at the end.
	Err() error
	// Close releases the rows; it returns the statement's error when
	// the iteration did not reach it.
	Close() error
}

// ExecResult is what a statement [Querier.Exec] ran changed.
type ExecResult struct {
	// RowsAffected counts the rows inserted, updated or deleted.
	RowsAffected int64
	// LastInsertID is the rowid of the last insert (SQLite); HasLastInsertID
	// is false where the driver has none (PostgreSQL).
	LastInsertID    int64
	HasLastInsertID bool
}

// A Driver opens a [DB]. It need not connect: a host starts while a
// server is down, and its statements fail with [CodeUnavailable] until it
// returns.
type Driver func(ctx context.Context, opts Options) (DB, error)

var drivers = registry.New[Driver]("database")

// Register makes a driver available by name, as database/sql does: a
// driver's package registers itself in its init function, so a program
// links only the drivers it imports. Registering a name twice, or a nil
// driver, panics.
func Register(name string, open Driver) { drivers.Register(name, open, open == nil) }

// Drivers returns the names of the registered drivers, sorted.
func Drivers() []string { return drivers.Names() }

// Open opens a database with the driver registered by name. The error of a
// name no import registered says which package to import.
func Open(ctx context.Context, name string, opts Options) (DB, error) {
	open, err := drivers.Lookup(name, "github.com/wasmendpoints/endpoints/database")
	if err != nil {
		return nil, err
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = DefaultMaxConns
	}
	if opts.StatementTimeout <= 0 {
		opts.StatementTimeout = DefaultStatementTimeout
	}
	return open(ctx, opts)
}
