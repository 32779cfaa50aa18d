package abi

// Database functions (abi/README.md §4.5), added within ABI v1
// (§8): optional host functions a module imports only when it uses a
// database. Each names one database the app declares in endpoints.json's
// "databases" member (or "main", the embedded SQLite file an app that
// declares none gets), by its UTF-8 name.
//
// A statement is one SQL statement, never several; its parameters are a
// JSON array ([DBParamBlob] for a blob), always bound, never interpolated:
//
//	db_query("main", "SELECT id, name FROM users WHERE id = $1", "[7]")
//	-> 44, then db_result(buf, 44) writes
//	{"columns":["id","name"],"rows":[[7,"Ada"]]}
//
// The result of db_query and db_exec (or their error, [ErrDatabase]) is
// kept by the host until the next database call of the same guest call;
// [ImportDBResult] writes it with the buffer convention.
const (
	// ImportDBQuery runs one statement that returns rows. The result is
	// [DBQueryResult] as JSON; its size is returned, or a negative errno:
	// [ErrNotFound] for a database the app does not declare, [ErrInvalid]
	// for params that are not a JSON array of values (the pending result
	// is then a [DBErrorResult], code "other", saying why), [ErrState]
	// outside a request, [ErrDatabase] when the statement failed (the result is then
	// a [DBErrorResult]). params_len 0 means no parameters.
	//
	//	db_query(db i32, db_len i32, sql i32, sql_len i32, params i32, params_len i32) -> size i32
	ImportDBQuery = "db_query"

	// ImportDBExec runs one statement for its effect. The result is
	// [DBExecResult] as JSON: {"rowsAffected":1,"lastInsertId":7}
	// (lastInsertId absent where the driver has none, as PostgreSQL, where
	// a statement says RETURNING id and runs with db_query). Errnos as
	// [ImportDBQuery].
	//
	//	db_exec(db i32, db_len i32, sql i32, sql_len i32, params i32, params_len i32) -> size i32
	ImportDBExec = "db_exec"

	// ImportDBResult writes the pending result of the last db_query or
	// db_exec (or its error) when it fits, and returns its size either
	// way; [ErrNotFound] when no result is pending.
	//
	//	db_result(buf i32, buf_len i32) -> size i32
	ImportDBResult = "db_result"

	// ImportDBBegin opens a transaction on the database for the rest of
	// the guest call: its statements run in it until db_commit or
	// db_rollback. One per database per call ([ErrDatabase], code
	// "transaction", for a second); a transaction still open when the
	// call ends, traps or passes its deadline is rolled back.
	//
	//	db_begin(db i32, db_len i32) -> errno i32
	ImportDBBegin = "db_begin"

	// ImportDBBeginWith opens a transaction as [ImportDBBegin] does, with
	// options: opts is a [DBTxOptions] as JSON, an isolation level and
	// whether the transaction is read-only. opts_len 0 is no options (as
	// db_begin). Errnos as db_begin's, and [ErrInvalid] for options that
	// are not such an object (an unknown member or level; longer than
	// [DBTxOptionsMaxBytes]): the pending
	// result ([ImportDBResult]) is then a [DBErrorResult] (code "other")
	// saying what was expected; [ErrDatabase] (code "busy") with less
	// than 50 ms left before the call's deadline, where db_begin would
	// begin, so that a guest retrying a busy transaction stops while it
	// can answer 503. A read-only transaction refuses writes with the
	// code [DBCodeDenied].
	//
	//	db_begin_with("main", `{"isolation":"serializable","readOnly":true}`) -> 0
	//
	//	db_begin_with(db i32, db_len i32, opts i32, opts_len i32) -> errno i32
	ImportDBBeginWith = "db_begin_with"

	// ImportDBCommit commits the database's open transaction;
	// [ErrDatabase] (code "transaction") when none is open, or the code
	// of the commit's failure.
	//
	//	db_commit(db i32, db_len i32) -> errno i32
	ImportDBCommit = "db_commit"

	// ImportDBRollback rolls the database's open transaction back;
	// [ErrDatabase] (code "transaction") when none is open.
	//
	//	db_rollback(db i32, db_len i32) -> errno i32
	ImportDBRollback = "db_rollback"
)

// DBTxOptions are the options of [ImportDBBeginWith], as JSON; each
// member is optional, and a member the host does not know is refused
// ([ErrInvalid]), never ignored.
//
//	{"isolation":"serializable","readOnly":true}
type DBTxOptions struct {
	// Isolation is the transaction's isolation level, a
	// [DBIsolationReadCommitted]...; absent (or "") is the database's
	// default: READ COMMITTED on PostgreSQL unless the server says
	// otherwise; SQLite's transactions are always serializable.
	Isolation string `json:"isolation,omitempty"`
	// ReadOnly makes the transaction refuse writes ([DBCodeDenied]). On
	// SQLite a read-only transaction does not take the write lock, so it
	// runs beside a writer and other readers.
	ReadOnly bool `json:"readOnly,omitempty"`
}

// DBTxOptionsMaxBytes is the longest [DBTxOptions] JSON [ImportDBBeginWith]
// takes: a longer one is [ErrInvalid], unread. The longest options
// object is some 50 bytes.
const DBTxOptionsMaxBytes = 1024

// Isolation levels of [DBTxOptions], the SQL standard's (ISO/IEC 9075-2
// §4.35.4; PostgreSQL's BEGIN ISOLATION LEVEL). SQLite accepts them all
// and gives serializable, which is stronger than each.
const (
	// DBIsolationReadCommitted: each statement sees what was committed
	// before it began.
	DBIsolationReadCommitted = "read_committed"
	// DBIsolationRepeatableRead: the transaction sees one snapshot, taken
	// at its first statement; a row it changes that another transaction
	// changed since fails busy.
	DBIsolationRepeatableRead = "repeatable_read"
	// DBIsolationSerializable: the transaction behaves as if it ran
	// alone; one that cannot be serialized with the others fails busy,
	// and running it again may succeed.
	DBIsolationSerializable = "serializable"
)

// ErrDatabase: the database refused or failed the statement (or the
// transaction call); the pending result ([ImportDBResult]) is a
// [DBErrorResult] saying why.
const ErrDatabase Errno = -8

// DBParamsMax is the most parameters one statement takes: PostgreSQL's
// protocol carries no more (SQLite takes 32766). The host refuses a
// longer params array ([ErrInvalid]) as it reads it, so that a guest's
// memory of "[0,0,0,...]" never becomes gigabytes of the host's.
const DBParamsMax = 65535

// DBParamBlob is the key of the one-member object that passes a blob
// parameter, base64 (RFC 4648 §4, padded):
//
//	[1, "Ada", {"$blob": "AAEC"}]
const DBParamBlob = "$blob"

// DBQueryResult is the result of [ImportDBQuery]: the column names once,
// then each row as an array of JSON values. Integers are exact (int64),
// reals are numbers, text is a string, a blob a base64 string, NULL null.
// PostgreSQL types map as abi/README.md §4.5 lists. Blobs lists the
// [row, column] positions (from 0) of the values that are blobs, in
// order; the host writes it between the columns and the rows, and only
// when a value is a blob.
//
//	{"columns":["id","name"],"rows":[[1,"Ada"],[2,null]]}
//	{"columns":["id","photo"],"blobs":[[0,1]],"rows":[[1,"AAE="],[2,null]]}
type DBQueryResult struct {
	Columns []string `json:"columns"`
	Blobs   [][2]int `json:"blobs,omitempty"`
	Rows    [][]any  `json:"rows"`
}

// DBExecResult is the result of [ImportDBExec].
type DBExecResult struct {
	RowsAffected int64  `json:"rowsAffected"`
	LastInsertID *int64 `json:"lastInsertId,omitempty"`
}

// DBErrorResult is the pending result after [ErrDatabase].
//
//	{"error":{"code":"constraint","constraint":"users_email_key","message":"duplicate key value violates unique constraint \"users_email_key\""}}
type DBErrorResult struct {
	Error DBError `json:"error"`
}

// DBError says why a statement failed: a [DBCode...] code, the database's
// message, for [DBCodeConstraint] the constraint's name and kind (a
// [DBKind...]) when the database says them, and the database's detail
// when it gives one.
//
//	{"code":"constraint","kind":"foreign_key","message":"FOREIGN KEY constraint failed"}
//	{"code":"constraint","constraint":"users_email_key","kind":"unique","message":"duplicate key value violates unique constraint \"users_email_key\"","detail":"Key (email)=(ada@example.com) already exists."}
type DBError struct {
	Code       string `json:"code"`
	Message    string `json:"message"`
	Constraint string `json:"constraint,omitempty"`
	Kind       string `json:"kind,omitempty"`
	// Detail is the database's detail of the failure as the server sent
	// it: PostgreSQL's DETAIL ("Key (email)=(ada@example.com) already
	// exists.", "Key (user_id)=(7) is not present in table \"users\"."),
	// for any code; absent when there is none (SQLite never gives one).
	// It is meant for a person (a log line, a 409's message), in the
	// server's words and language (lc_messages), not for a program to
	// parse. Added within v1 (abi/README.md §8): a guest may ignore it.
	Detail string `json:"detail,omitempty"`
}

// Kinds of a [DBCodeConstraint] error: which constraint refused the
// change, the "kind" member of a [DBError]. It is absent when the
// database does not say (an SQLite trigger's RAISE, a STRICT table's
// type); a guest that meets a kind it does not know treats it as absent.
const (
	// DBKindUnique: a unique or primary key constraint (PostgreSQL
	// SQLSTATE 23505; SQLite SQLITE_CONSTRAINT_UNIQUE, _PRIMARYKEY,
	// _ROWID). A handler answers 409.
	DBKindUnique = "unique"
	// DBKindForeignKey: a foreign key constraint (23503;
	// SQLITE_CONSTRAINT_FOREIGNKEY): the row names a row that does not
	// exist (a handler answers 404 or 422), or a delete would leave rows
	// naming the one it removes (409).
	DBKindForeignKey = "foreign_key"
	// DBKindCheck: a CHECK constraint (23514; SQLITE_CONSTRAINT_CHECK).
	// A handler answers 422.
	DBKindCheck = "check"
	// DBKindNotNull: a NOT NULL constraint (23502;
	// SQLITE_CONSTRAINT_NOTNULL). A handler answers 422.
	DBKindNotNull = "not_null"
	// DBKindExclusion: an exclusion constraint, PostgreSQL only (23P01),
	// such as two bookings of one room that overlap. A handler answers
	// 409.
	DBKindExclusion = "exclusion"
)

// Codes of a [DBError].
const (
	// DBCodeConstraint: a unique, primary key, foreign key, check or
	// not-null constraint refused the change. A handler answers 409.
	DBCodeConstraint = "constraint"
	// DBCodeSyntax: the statement is not valid SQL, or names a table or
	// column that does not exist.
	DBCodeSyntax = "syntax"
	// DBCodeBusy: the database is locked by another writer past its busy
	// timeout, or a transaction could not be serialized; retrying may
	// work.
	DBCodeBusy = "busy"
	// DBCodeUnavailable: the database cannot be reached, or no connection
	// of its bounded pool came free before the deadline. The SDKs answer
	// 503.
	DBCodeUnavailable = "unavailable"
	// DBCodeTooLarge: the result is larger than limits.sqlResultBytes.
	DBCodeTooLarge = "too_large"
	// DBCodeDenied: the statement does what a guest may not: ATTACH,
	// load_extension, a PRAGMA that is not on the allowed list,
	// transaction control in SQL (use db_begin), or more than one
	// statement; or it writes in a read-only transaction
	// ([DBTxOptions.ReadOnly]).
	DBCodeDenied = "denied"
	// DBCodeTransaction: db_commit or db_rollback without db_begin, or a
	// second db_begin.
	DBCodeTransaction = "transaction"
	// DBCodeOther: any other failure; the message says what.
	DBCodeOther = "other"
	// DBCodeTimeout: the statement ran past a statement timeout and was
	// stopped in the database: the call's ([ImportDBTimeout]), or
	// PostgreSQL's statement_timeout (databases.NAME.statementTimeout,
	// SQLSTATE 57014); the call goes on, with the rest of its time. A guest that does not know the code
	// treats it as [DBCodeOther].
	DBCodeTimeout = "timeout"
)

// ImportDBTimeout bounds each later statement of the call (db_query,
// db_exec, db_begin, db_commit, on any database) to timeout_ms
// milliseconds from its start, waiting for a connection included, until
// another db_timeout changes it; 0 lifts it. A statement past it is
// stopped in the database (SQLite is interrupted; PostgreSQL gets a
// cancel request) and fails with [ErrDatabase], code [DBCodeTimeout],
// while the call goes on: the handler answers from a fallback with the
// rest of its time. It only shortens: the call's deadline still ends a
// statement whose timeout reaches past it (code "other", and the call is
// stopped). A value below 0 or past [DBTimeoutMax] is [ErrInvalid];
// outside a request, [ErrState]. A call starts with none; the timeout
// lasts until the call ends.
//
// This is what Go's QueryContext(ctx, ...) does with ctx's deadline: the
// Go SDK calls db_timeout with the time left before each statement given
// a context.
//
//	db_timeout(300)                          ;; 0
//	db_query("main", "SELECT ...", ...)      ;; -8, db_result: {"error":{"code":"timeout",...}}
//	db_timeout(0)                            ;; 0: the call's deadline alone again
//
//	db_timeout(timeout_ms i32) -> errno i32
const ImportDBTimeout = "db_timeout"

// DBTimeoutMax is the largest timeout [ImportDBTimeout] takes, in
// milliseconds: one hour, longer than any call may run
// (limits.maxTimeout).
const DBTimeoutMax = 3_600_000
