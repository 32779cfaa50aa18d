package endpoints

import (
	"bytes"
	"context"
	"database/sql/driver"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/jsonenc"
)

// DB returns the database the app declares under name in endpoints.json's
// "databases" ("main" when it declares none: an SQLite file the host
// keeps under the app). It feels like database/sql:
//
//	db := endpoints.DB("main")
//	var name string
//	err := db.QueryRow("SELECT name FROM users WHERE id = $1", id).Scan(&name)
//	if errors.Is(err, endpoints.ErrNoRows) {
//		return endpoints.Respond(404, NotFound{})
//	}
//
// Statements are one SQL statement each; arguments are bound, never
// interpolated ($1, $2... work on SQLite and PostgreSQL alike; ? on
// SQLite). See abi/README.md §4.5, for the rules the host
// enforces.
//
// # Errors
//
// A statement the database refused returns a [*DBError]; test what it is
// with errors.Is: [ErrConstraint] (any constraint), or which constraint:
// [ErrUniqueViolation] (answer 409), [ErrForeignKeyViolation] (404 or 422
// for a row naming one that does not exist), [ErrCheckViolation] and
// [ErrNotNullViolation] (422);
// [ErrSyntax], [ErrBusy], [ErrDatabaseUnavailable] (a [HandleFunc] handler
// that returns either of those two answers 503, like a key-value store
// that is down),
// [ErrTooLarge], [ErrDenied], [ErrTransaction], and [ErrStatementTimeout]
// (code "timeout": the statement ran past its context's deadline, or
// PostgreSQL's statement_timeout, and the handler goes on; errors.Is(err, context.DeadlineExceeded) holds too, and
// [DBError.Timeout] says it, as the outbound package's Error.Timeout
// says an outbound request's).
//
// # Notes
//
//   - The host runs every statement under the request's deadline and rolls
//     back a transaction the handler leaves open.
//   - In a native build (go test), the databases are those
//     endpointstest.Database provides: real SQLite files, migrated.
func DB(name string) *Database { return &Database{name: name} }

// Database is one of the app's databases, by name; see [DB].
type Database struct{ name string }

// Name is the database's name in endpoints.json.
func (d *Database) Name() string { return d.name }

// DBError is a statement the database refused or failed: its code (one of
// abi.DBCodeConstraint...), the database's message and detail, and for a
// constraint the constraint's name and kind when the database gives them.
type DBError struct {
	// Database is the database's name in endpoints.json.
	Database string
	// Code is the ABI's code: abi.DBCodeConstraint, abi.DBCodeSyntax...
	Code string
	// Message is what the database said.
	Message string
	// Constraint names the constraint that refused the change, when the
	// database does (PostgreSQL: users_email_key; SQLite: the columns,
	// users.email, and nothing for a foreign key).
	Constraint string
	// Kind says which constraint it is, when the database says: one of
	// abi.DBKindUnique ("unique", a primary key too), abi.DBKindForeignKey,
	// abi.DBKindCheck, abi.DBKindNotNull or abi.DBKindExclusion
	// (PostgreSQL only); "" otherwise.
	Kind string
	// Detail is the database's detail of the failure, as the server sent
	// it: PostgreSQL's DETAIL ("Key (email)=(ada@example.com) already
	// exists."), for any code; "" when there is none (SQLite never gives
	// one). It is for a person (a log line, the message of a 409), in the
	// server's words and language: act on Code, Kind and Constraint.
	// Error leaves it out; the host never logs it (abi/README.md §4.5).
	Detail string
}

func (e *DBError) Error() string {
	s := fmt.Sprintf("endpoints: database %q: %s: %s", e.Database, e.Code, e.Message)
	if e.Constraint != "" {
		s += " (" + e.Constraint + ")"
	}
	return s
}

// Is makes errors.Is(err, ErrConstraint) hold for a DBError of that code
// (every constraint error), errors.Is(err, ErrUniqueViolation) for one of
// that kind too, and errors.Is(err, ErrStorageUnavailable) for one that
// is unavailable: a [HandleFunc] handler answers 503 then; and
// errors.Is(err, context.DeadlineExceeded) for one stopped at its
// context's deadline ([Database.QueryContext]), as database/sql's.
func (e *DBError) Is(target error) bool {
	if t, ok := target.(*DBError); ok {
		return t.Message == "" && t.Database == "" && t.Code == e.Code && (t.Kind == "" || t.Kind == e.Kind)
	}
	return e.Code == abi.DBCodeUnavailable && target == ErrStorageUnavailable ||
		e.Code == abi.DBCodeTimeout && target == context.DeadlineExceeded
}

// Timeout reports whether the statement ran past its statement timeout
// (its context's deadline, [Database.QueryContext], or PostgreSQL's
// statement_timeout) and the database stopped it: code "timeout", [ErrStatementTimeout]. It is the
// Timeout() bool of net.Error and of the outbound package's Error, whose
// "timeout" is an outbound request's.
func (e *DBError) Timeout() bool { return e.Code == abi.DBCodeTimeout }

// The kinds of [DBError], for errors.Is.
var (
	// ErrConstraint: a unique, primary key, foreign key, check or
	// not-null constraint refused the change.
	ErrConstraint error = &DBError{Code: abi.DBCodeConstraint}
	// ErrUniqueViolation: a unique or primary key constraint refused the
	// change (a row with that value exists). A handler answers 409.
	ErrUniqueViolation error = &DBError{Code: abi.DBCodeConstraint, Kind: abi.DBKindUnique}
	// ErrForeignKeyViolation: a foreign key refused the change: the row
	// names one that does not exist (a handler answers 404 or 422), or a
	// delete would leave rows naming the one it removes (409).
	ErrForeignKeyViolation error = &DBError{Code: abi.DBCodeConstraint, Kind: abi.DBKindForeignKey}
	// ErrCheckViolation: a CHECK constraint refused the value. A handler
	// answers 422.
	ErrCheckViolation error = &DBError{Code: abi.DBCodeConstraint, Kind: abi.DBKindCheck}
	// ErrNotNullViolation: a NOT NULL column was given no value. A
	// handler answers 422.
	ErrNotNullViolation error = &DBError{Code: abi.DBCodeConstraint, Kind: abi.DBKindNotNull}
	// ErrSyntax: the statement is not valid SQL, or names a table or
	// column that does not exist.
	ErrSyntax error = &DBError{Code: abi.DBCodeSyntax}
	// ErrBusy: the database is locked or the transaction could not be
	// serialized; retrying may work.
	ErrBusy error = &DBError{Code: abi.DBCodeBusy}
	// ErrDatabaseUnavailable: the database cannot be reached, or no
	// connection came free before the deadline.
	ErrDatabaseUnavailable error = &DBError{Code: abi.DBCodeUnavailable}
	// ErrTooLarge: the result is larger than limits.sqlResultBytes.
	ErrTooLarge error = &DBError{Code: abi.DBCodeTooLarge}
	// ErrDenied: the statement does what a guest may not (ATTACH,
	// PRAGMAs that touch files, transaction control in SQL, several
	// statements), or writes in a read-only transaction
	// ([TxOptions.ReadOnly]).
	ErrDenied error = &DBError{Code: abi.DBCodeDenied}
	// ErrTransaction: a commit or rollback without a transaction, or a
	// second one at once.
	ErrTransaction error = &DBError{Code: abi.DBCodeTransaction}
	// ErrStatementTimeout: the statement ran past its context's deadline
	// ([Database.QueryContext]), or PostgreSQL's statement_timeout, and
	// the database stopped it; the handler goes on. errors.Is finds it as context.DeadlineExceeded too. It is
	// the code "timeout" (Rust's Code::Timeout, C's and AssemblyScript's
	// "timeout"), named for the statement as [ErrDatabaseUnavailable] is
	// for the database: this package is one namespace, where a bare
	// ErrTimeout would read as the request's.
	ErrStatementTimeout error = &DBError{Code: abi.DBCodeTimeout}
)

// ErrNoRows is the error of [Row.Scan] when the query returned no row.
var ErrNoRows = errors.New("endpoints: no rows in the result")

// dbBuf receives results; it grows to the largest one. An instance serves
// one request at a time, so it needs no lock.
var dbBuf = make([]byte, 4096)

// argsBuf holds the arguments of the statement being sent, encoded; it
// grows to the largest seen, like dbBuf.
var argsBuf = make([]byte, 0, 256)

// Result is what [Database.Exec] changed.
type Result struct {
	// RowsAffected counts the rows inserted, updated or deleted.
	RowsAffected int64 `json:"rowsAffected"`
	// LastInsertID is the rowid of the last insert on SQLite; PostgreSQL
	// has none (HasLastInsertID is false): use INSERT ... RETURNING id
	// with [Database.QueryRow].
	LastInsertID    int64 `json:"lastInsertId"`
	HasLastInsertID bool  `json:"-"`
}

// Query runs a statement that returns rows.
//
//	rows, err := db.Query("SELECT id, name FROM users ORDER BY id LIMIT $1", 50)
//	for rows.Next() {
//		var id int64
//		var name string
//		if err := rows.Scan(&id, &name); err != nil { ... }
//	}
func (d *Database) Query(sql string, args ...any) (*Rows, error) {
	rows := new(Rows)
	if err := d.query(rows, sql, args); err != nil {
		return nil, err
	}
	return rows, nil
}

// query runs a statement that returns rows into r.
func (d *Database) query(r *Rows, sql string, args []any) error {
	data, err := d.run("Query", sql, args, false)
	if err != nil {
		return err
	}
	if err := r.parse(bytes.Clone(data)); err != nil {
		return fmt.Errorf("endpoints: database %q: reading the result: %w", d.name, err)
	}
	return nil
}

// parse reads a query's result (abi.DBQueryResult) with the SDK's
// scanner, no reflection: the values stay JSON, slices of data, until Scan
// converts them. A result costs a few allocations whatever its size: the
// column names share one string, the values one slice (Go code pays for
// each allocation and closure inside WebAssembly).
func (r *Rows) parse(data []byte) error {
	*r = Rows{pos: -1, width: -1}
	var blobs []byte
	m := scanMembers(data)
	for m.next() {
		var err error
		switch m.key {
		case "blobs":
			blobs = m.value
		case "columns":
			r.columns, err = decodeStrings(r.smallColumns[:0], m.value)
		case "rows":
			err = r.splitRows(m.value)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", m.key, err)
		}
	}
	if m.err != nil {
		return m.err
	}
	switch {
	case r.width < 0:
		r.width = len(r.columns)
	case r.width != len(r.columns):
		return fmt.Errorf("rows of %d values for %d columns", r.width, len(r.columns))
	}
	if blobs != nil {
		var err error
		r.blobs, err = parseBlobs(blobs, len(r.columns))
		return err
	}
	return nil
}

// splitRows reads the "rows" array d into r.vals, every row's values in
// order, and r.width, the values in a row, which every row must have.
func (r *Rows) splitRows(d []byte) error {
	switch {
	case r.vals != nil:
	case len(r.columns) <= len(r.smallVals):
		r.vals = r.smallVals[:0]
	default:
		r.vals = make([]json.RawMessage, 0, len(r.columns)) // one row of the columns read before
	}
	rows := scanElements(d)
	for rows.next() {
		if len(rows.value) == 0 || rows.value[0] != '[' {
			return syntaxError(rows.value, 0, "a row: an array")
		}
		n := 0
		vals := scanElements(rows.value)
		for ; vals.next(); n++ {
			r.vals = append(r.vals, vals.value)
		}
		// The outer scan found where the row ends (skipValue matches
		// its brackets), not whether its values are sound.
		if vals.err != nil {
			return fmt.Errorf("row %d: %w", r.nrows+1, vals.err)
		}
		switch {
		case r.nrows == 0:
			r.width = n
		case n != r.width:
			return fmt.Errorf("row %d has %d values, row 1 %d", r.nrows+1, n, r.width)
		}
		r.nrows++
	}
	return rows.err
}

// row is the values of row i (from 0).
func (r *Rows) row(i int) []json.RawMessage {
	return r.vals[i*r.width : (i+1)*r.width : (i+1)*r.width]
}

// decodeStrings appends the strings of the JSON array d to names, which
// it grows if they do not fit. A string without escapes is a view of d,
// which must never change (Rows own their copy of a result); one with
// escapes is decoded into a string of its own.
func decodeStrings(names []string, d []byte) ([]string, error) {
	n, err := countElements(d)
	if err != nil {
		return nil, err
	}
	names = slices.Grow(names, n)
	for e := scanElements(d); e.next(); {
		v := e.value
		if len(v) < 2 || v[0] != '"' {
			return nil, syntaxError(v, 0, "a string")
		}
		if content := v[1 : len(v)-1]; !e.escaped && utf8.Valid(content) {
			names = append(names, unsafeString(content))
			continue
		}
		s, err := decodeString(v)
		if err != nil {
			return nil, err
		}
		names = append(names, s)
	}
	return names, nil
}

// countElements counts the elements of the array d, checking its syntax.
func countElements(d []byte) (int, error) {
	n := 0
	e := scanElements(d)
	for e.next() {
		n++
	}
	return n, e.err
}

// QueryRow runs a statement that returns at most one row that matters;
// its errors wait for [Row.Scan].
func (d *Database) QueryRow(sql string, args ...any) *Row {
	row := new(Row)
	row.err = d.query(&row.rows, sql, args)
	return row
}

// Exec runs a statement for its effect.
//
//	res, err := db.Exec("UPDATE users SET name = $1 WHERE id = $2", name, id)
//	if err == nil && res.RowsAffected == 0 { ... not found ... }
func (d *Database) Exec(sql string, args ...any) (Result, error) {
	data, err := d.run("Exec", sql, args, true)
	if err != nil {
		return Result{}, err
	}
	var res Result
	err = eachMember(data, func(key string, value []byte) error {
		var err error
		switch key {
		case "rowsAffected":
			res.RowsAffected, err = strconv.ParseInt(string(value), 10, 64)
		case "lastInsertId":
			res.LastInsertID, err = strconv.ParseInt(string(value), 10, 64)
			res.HasLastInsertID = true
		}
		return err
	})
	if err != nil {
		return Result{}, fmt.Errorf("endpoints: database %q: reading the result: %w", d.name, err)
	}
	return res, nil
}

// Tx runs fn in a transaction: its statements on d run in it; it commits
// when fn returns nil and rolls back when fn returns an error (returned)
// or panics (re-panicked). A handler that returns without either has its
// transaction rolled back by the host. Return a statement's error rather
// than go on past it: SQLite runs the next statements, PostgreSQL refuses
// them until the transaction rolls back.
//
// On SQLite a transaction takes the write lock when it begins, so
// transactions run one at a time. On PostgreSQL it runs at the server's
// default isolation (READ COMMITTED unless configured): a
// read-modify-write of a row may lose a concurrent change unless the
// change is made in SQL (SET n = n + 1), the row locked (SELECT ... FOR
// UPDATE), or the transaction serializable ([Database.TxWith], which also
// begins read-only transactions and retries those that failed busy); the
// package's README.md says more.
//
//	err := db.Tx(func(tx *endpoints.Tx) error {
//		if _, err := tx.Exec("UPDATE accounts SET balance = balance - $1 WHERE id = $2", n, from); err != nil {
//			return err
//		}
//		_, err := tx.Exec("UPDATE accounts SET balance = balance + $1 WHERE id = $2", n, to)
//		return err
//	})
func (d *Database) Tx(fn func(tx *Tx) error) (err error) {
	_, err = d.tx(context.Background(), "Tx", TxOptions{}, fn)
	return err
}

// Tx is an open transaction on a database, for the function [Database.Tx]
// runs: its statements run in the transaction.
type Tx struct{ db *Database }

// Query is [Database.Query] in the transaction.
func (tx *Tx) Query(sql string, args ...any) (*Rows, error) { return tx.db.Query(sql, args...) }

// QueryRow is [Database.QueryRow] in the transaction.
func (tx *Tx) QueryRow(sql string, args ...any) *Row { return tx.db.QueryRow(sql, args...) }

// Exec is [Database.Exec] in the transaction.
func (tx *Tx) Exec(sql string, args ...any) (Result, error) { return tx.db.Exec(sql, args...) }

// run runs one statement and returns its result's JSON, read into dbBuf.
func (d *Database) run(method, sql string, args []any, exec bool) ([]byte, error) {
	params, err := encodeArgs(args)
	if err != nil {
		return nil, fmt.Errorf("endpoints: database %q: %s: %w", d.name, method, err)
	}
	fn := abi.ImportDBQuery
	if exec {
		fn = abi.ImportDBExec
	}
	rc := dbRun(d.name, sql, params, exec)
	if rc < 0 {
		return nil, d.fail(method, fn, rc)
	}
	return readResult(int(rc))
}

// readResult reads the pending result of size n.
func readResult(n int) ([]byte, error) {
	if n > len(dbBuf) {
		dbBuf = make([]byte, n)
	}
	m := dbResult(dbBuf[:n])
	if err := check(abi.ImportDBResult, m); err != nil {
		return nil, err
	}
	return dbBuf[:m], nil
}

// fail is the error of host function fn's errno rc: a *DBError for
// ErrDatabase, read from the pending result.
func (d *Database) fail(method, fn string, rc int32) error {
	switch abi.Errno(rc) {
	case abi.ErrDatabase:
		r, ok := pendingError()
		if !ok {
			return fmt.Errorf("endpoints: database %q: %s: %w", d.name, method, check(fn, rc))
		}
		return &DBError{Database: d.name, Code: r.Error.Code, Message: r.Error.Message, Constraint: r.Error.Constraint, Kind: r.Error.Kind, Detail: r.Error.Detail}
	case abi.ErrInvalid:
		if fn == abi.ImportDBBeginWith || fn == abi.ImportDBQuery || fn == abi.ImportDBExec {
			return d.invalidError(method, fn, rc)
		}
	case abi.ErrNotFound:
		return fmt.Errorf("endpoints: database %q: %s: the app declares no such database in endpoints.json's \"databases\" (in a native test, endpointstest.Database provides them): %w", d.name, method, check(fn, rc))
	}
	return fmt.Errorf("endpoints: database %q: %s: %w", d.name, method, check(fn, rc))
}

// pendingError reads the pending result as an error; ok is false when
// none is pending or it is not one.
func pendingError() (r abi.DBErrorResult, ok bool) {
	size := dbResult(dbBuf)
	if size > int32(len(dbBuf)) {
		dbBuf = make([]byte, size)
		size = dbResult(dbBuf)
	}
	if size < 0 || json.Unmarshal(dbBuf[:size], &r) != nil {
		return r, false
	}
	return r, true
}

// encodeArgs encodes statement arguments as the JSON array the host takes:
// nil, booleans, integers, floats, strings, []byte (a blob), time.Time
// (RFC 3339 text, [timeArgLayout]), pointers to those (nil is NULL), json.RawMessage
// (its text, as a string), and a driver.Valuer's value (sql.NullString,
// sql.Null[T]...).
//
// The bytes are in argsBuf, valid until the next statement: the host
// copies them.
func encodeArgs(args []any) ([]byte, error) {
	if len(args) == 0 {
		return nil, nil
	}
	b := append(argsBuf[:0], '[')
	for i, a := range args {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendArg(b, a); err != nil {
			return nil, fmt.Errorf("argument %d: %w", i+1, err)
		}
	}
	b = append(b, ']')
	argsBuf = b[:0]
	return b, nil
}

func appendArg(b []byte, a any) ([]byte, error) {
	switch v := a.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int8:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int16:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case uint:
		return appendUint(b, uint64(v))
	case uint8:
		return strconv.AppendUint(b, uint64(v), 10), nil
	case uint16:
		return strconv.AppendUint(b, uint64(v), 10), nil
	case uint32:
		return strconv.AppendUint(b, uint64(v), 10), nil
	case uint64:
		return appendUint(b, v)
	case float32:
		return appendFloat(b, float64(v), 32)
	case float64:
		return appendFloat(b, v, 64)
	case string:
		return appendJSONString(b, v), nil
	case []byte:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, `{"`+abi.DBParamBlob+`":"`...)
		b = base64.StdEncoding.AppendEncode(b, v)
		return append(b, `"}`...), nil
	case json.RawMessage:
		return appendJSONString(b, string(v)), nil
	case time.Time:
		return appendJSONString(b, v.Format(timeArgLayout)), nil
	}
	rv := reflect.ValueOf(a)
	if rv.Kind() == reflect.Pointer && rv.IsNil() {
		return append(b, "null"...), nil
	}
	if v, ok := a.(driver.Valuer); ok {
		// database/sql's types (sql.NullString, sql.Null[T]...) and the
		// application's own give their value as database/sql takes it.
		val, err := v.Value()
		if err != nil {
			return nil, fmt.Errorf("%T.Value: %w", a, err)
		}
		if _, again := val.(driver.Valuer); again {
			return nil, fmt.Errorf("%T.Value gave a %T, another driver.Valuer: give a bool, number, string, []byte, time.Time or nil", a, val)
		}
		return appendArg(b, val)
	}
	switch rv.Kind() {
	case reflect.Pointer:
		return appendArg(b, rv.Elem().Interface())
	case reflect.String:
		return appendJSONString(b, rv.String()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(b, rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return appendUint(b, rv.Uint())
	case reflect.Float32:
		return appendFloat(b, rv.Float(), 32)
	case reflect.Float64:
		return appendFloat(b, rv.Float(), 64)
	case reflect.Bool:
		return strconv.AppendBool(b, rv.Bool()), nil
	}
	return nil, fmt.Errorf("a %T cannot be a statement argument: pass a bool, number, string, []byte, time.Time, nil or a driver.Valuer", a)
}

// timeArgLayout is how a time.Time argument is written: RFC 3339 with all
// nine digits of its fraction. SQLite stores and compares times as their
// text, and time.RFC3339Nano's trimmed fraction sorts 03:04:05Z after
// 03:04:05.5Z; with a fixed width, times of one zone sort as they are.
const timeArgLayout = "2006-01-02T15:04:05.000000000Z07:00"

func appendUint(b []byte, v uint64) ([]byte, error) {
	if v > math.MaxInt64 {
		return nil, fmt.Errorf("%d is larger than an int64, which databases store", v)
	}
	return strconv.AppendUint(b, v, 10), nil
}

// appendFloat writes a real argument of bitSize bits (32 for a float32,
// whose shortest text is its own: 0.1, not 0.10000000149011612) so that
// the host binds a real: with a fraction or an exponent, 3.0 and not 3,
// which would bind an integer (abi/README.md §4.5).
func appendFloat(b []byte, f float64, bitSize int) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%v is not a number JSON can carry", f)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'g', -1, bitSize)
	if !bytes.ContainsAny(b[start:], ".e") {
		b = append(b, ".0"...)
	}
	return b, nil
}

func appendJSONString(b []byte, s string) []byte { return jsonenc.AppendString(b, s) }

// Rows are the result of [Database.Query], read whole: iterate with Next
// and Scan, as database/sql's.
type Rows struct {
	columns []string
	vals    []json.RawMessage // every row's values, row after row
	width   int               // values in a row
	nrows   int
	blobs   []blobPos // the positions of the values that are blobs, in order
	pos     int
	err     error
	// smallColumns and smallVals hold the names and values of a result
	// of up to smallResult values, which then cost no allocations of
	// their own (QueryRow's usual row).
	smallColumns [smallResult]string
	smallVals    [smallResult]json.RawMessage
}

// smallResult is the most column names, and values, [Rows] holds without
// allocating for them.
const smallResult = 4

// Columns are the result's column names.
func (r *Rows) Columns() []string { return r.columns }

// Len is the number of rows.
func (r *Rows) Len() int { return r.nrows }

// Next advances to the next row; false after the last.
func (r *Rows) Next() bool {
	if r.pos+1 >= r.nrows {
		r.pos = r.nrows
		return false
	}
	r.pos++
	return true
}

// Err is nil: the rows were read whole before Query returned. It is here
// so that code written for database/sql reads the same.
func (r *Rows) Err() error { return r.err }

// Close does nothing (the rows are read whole); it is here so that code
// written for database/sql reads the same.
func (r *Rows) Close() error { return nil }

// Scan copies the current row's columns into dest, in order: pointers to
// string (a blob as its bytes), []byte (a blob's bytes; text as its
// bytes, a number as its text, NULL as nil), bool, any integer or float
// type, time.Time (RFC 3339 text, or SQLite's "2006-01-02 15:04:05"),
// json.RawMessage (text that holds JSON, as a json or jsonb column does,
// is that JSON; other text, a number, NULL or a blob the value's JSON as
// the host wrote it: a blob its base64 string), any (the JSON value
// decoded: a blob is its base64
// text), a pointer to any of those (nil for NULL), a sql.Scanner
// (sql.NullString, sql.NullInt64, sql.NullTime, sql.Null[T]...: it gets
// nil, a bool, an int64, a float64, a string or, for a blob, a []byte, as
// from database/sql), or a type JSON decodes. NULL into a non-pointer is
// an error naming the column. The host says which values are blobs
// (abi/README.md §4.5), so text is never taken for base64.
func (r *Rows) Scan(dest ...any) error {
	if r.pos < 0 || r.pos >= r.nrows {
		return errors.New("endpoints: Rows.Scan called without a row: call Next first")
	}
	row := r.row(r.pos)
	if len(dest) != len(row) {
		return fmt.Errorf("endpoints: Rows.Scan: %d destinations for %d columns", len(dest), len(row))
	}
	for i, d := range dest {
		if err := scanValue(row[i], d, len(r.blobs) > 0 && isBlob(r.blobs, r.pos, i)); err != nil {
			return fmt.Errorf("endpoints: Rows.Scan: column %q: %w", r.columns[i], err)
		}
	}
	return nil
}

// Row is the result of [Database.QueryRow].
type Row struct {
	rows Rows
	err  error
}

// Scan copies the first row's columns into dest, as [Rows.Scan];
// [ErrNoRows] when there is none, or the query's error.
func (r *Row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	if !r.rows.Next() {
		return ErrNoRows
	}
	return r.rows.Scan(dest...)
}

// Err is the query's error, if any, before Scan.
func (r *Row) Err() error { return r.err }

var null = []byte("null")

// scanValue decodes one JSON value of a result into dest; blob says the
// value is a blob, base64 on the wire, which goes into a string, a []byte
// or a scanner as its bytes.
func scanValue(raw json.RawMessage, dest any, blob bool) error {
	isNull := bytes.Equal(raw, null)
	switch d := dest.(type) {
	case *string:
		if isNull {
			return errNull(dest)
		}
		if blob {
			b, err := decodeBlob(raw)
			*d = string(b)
			return err
		}
		if len(raw) > 0 && raw[0] != '"' {
			*d = string(raw) // a number or boolean, as text
			return nil
		}
		s, err := decodeString(raw)
		*d = s
		return err
	case *int:
		if isNull {
			return errNull(dest)
		}
		n, err := strconv.ParseInt(unsafeString(unquote(raw)), 10, 0)
		if err != nil {
			return fmt.Errorf("%s is not an integer that fits int", raw)
		}
		*d = int(n)
		return nil
	case *int64:
		if isNull {
			return errNull(dest)
		}
		n, err := strconv.ParseInt(unsafeString(unquote(raw)), 10, 64)
		if err != nil {
			return fmt.Errorf("%s is not an integer that fits int64", raw)
		}
		*d = n
		return nil
	case *float64:
		if isNull {
			return errNull(dest)
		}
		f, err := strconv.ParseFloat(unsafeString(unquote(raw)), 64)
		if err != nil {
			return fmt.Errorf("%s is not a number", raw)
		}
		*d = f
		return nil
	case *[]byte:
		switch {
		case isNull:
			*d = nil
			return nil
		case blob:
			b, err := decodeBlob(raw)
			*d = b
			return err
		case len(raw) > 0 && raw[0] != '"':
			*d = append([]byte(nil), raw...) // a number or boolean, as text
			return nil
		}
		b, err := decodeBytes(raw)
		*d = b
		return err
	case *json.RawMessage:
		// Text that holds JSON (a json or jsonb column, JSON kept in a
		// TEXT column) is that JSON, as database/sql gives a text's bytes;
		// other text, a blob, a number, NULL: the value's JSON as written.
		// Bytes of its own each time, as database/sql copies: a handler
		// may keep the value of each row scanned into one variable.
		if !blob && len(raw) > 0 && raw[0] == '"' {
			if b, err := decodeBytes(raw); err == nil && validJSON(unsafeString(b)) {
				*d = b
				return nil
			}
		}
		*d = append(json.RawMessage(nil), raw...)
		return nil
	case *any:
		if isNull {
			*d = nil
			return nil
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		return dec.Decode(d)
	case *bool:
		if isNull {
			return errNull(dest)
		}
		switch string(raw) {
		case "true", "1":
			*d = true
		case "false", "0":
			*d = false
		default:
			return fmt.Errorf("%s is not a boolean", raw)
		}
		return nil
	case *time.Time:
		if isNull {
			return errNull(dest)
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("%s is not a time: want RFC 3339 text", raw)
		}
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", "2006-01-02"} {
			if t, err := time.Parse(layout, s); err == nil {
				*d = t
				return nil
			}
		}
		return fmt.Errorf("%q is not a time: want RFC 3339 text", s)
	case scanner:
		return scanWith(raw, d, blob)
	}
	rv := reflect.ValueOf(dest)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("destination %T is not a non-nil pointer", dest)
	}
	ev := rv.Elem()
	switch ev.Kind() {
	case reflect.Pointer:
		if isNull {
			ev.SetZero()
			return nil
		}
		p := reflect.New(ev.Type().Elem())
		if err := scanValue(raw, p.Interface(), blob); err != nil {
			return err
		}
		ev.Set(p)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if isNull {
			return errNull(dest)
		}
		n, err := strconv.ParseInt(unsafeString(unquote(raw)), 10, 64)
		if err != nil || ev.OverflowInt(n) {
			return fmt.Errorf("%s is not an integer that fits %s", raw, ev.Type())
		}
		ev.SetInt(n)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if isNull {
			return errNull(dest)
		}
		n, err := strconv.ParseUint(unsafeString(unquote(raw)), 10, 64)
		if err != nil || ev.OverflowUint(n) {
			return fmt.Errorf("%s is not an integer that fits %s", raw, ev.Type())
		}
		ev.SetUint(n)
		return nil
	case reflect.Float32, reflect.Float64:
		if isNull {
			return errNull(dest)
		}
		f, err := strconv.ParseFloat(unsafeString(unquote(raw)), 64)
		if err != nil {
			return fmt.Errorf("%s is not a number", raw)
		}
		ev.SetFloat(f)
		return nil
	case reflect.String:
		var s string
		if err := scanValue(raw, &s, blob); err != nil {
			return err
		}
		ev.SetString(s)
		return nil
	case reflect.Slice:
		if ev.Type().Elem().Kind() == reflect.Uint8 {
			// A named []byte, as []byte.
			var b []byte
			if err := scanValue(raw, &b, blob); err != nil {
				return err
			}
			ev.SetBytes(b)
			return nil
		}
	}
	if isNull {
		ev.SetZero()
		return nil
	}
	// A JSON column (text on the wire) into a struct, map or slice.
	if len(raw) > 0 && raw[0] == '"' && ev.Kind() != reflect.String {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			return json.Unmarshal([]byte(s), dest)
		}
	}
	return json.Unmarshal(raw, dest)
}

// scanner is database/sql's Scanner (sql.NullString, sql.Null[T]...),
// declared here so that the SDK does not link database/sql.
type scanner interface {
	Scan(src any) error
}

// scanWith hands a value to a [scanner] as database/sql's drivers do:
// nil for NULL, a bool, an int64 for an integer, a float64 for another
// number, a string for text, a []byte for a blob (blob). Times are RFC
// 3339 text on the wire, with no type beside them: a scanner that refuses
// a string that is a time (sql.NullTime) gets the time.Time instead.
func scanWith(raw json.RawMessage, d scanner, blob bool) error {
	var src any
	switch {
	case bytes.Equal(raw, null):
		return d.Scan(nil)
	case blob:
		b, err := decodeBlob(raw)
		if err != nil {
			return err
		}
		src = b
	case string(raw) == "true", string(raw) == "false":
		src = string(raw) == "true"
	case len(raw) > 0 && raw[0] == '"':
		s, err := decodeString(raw)
		if err != nil {
			return err
		}
		err = d.Scan(s)
		if err == nil {
			return nil
		}
		var t time.Time
		if scanValue(raw, &t, false) == nil && d.Scan(t) == nil {
			return nil
		}
		return err
	default:
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			src = n
		} else if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
			src = f
		} else {
			src = string(raw)
		}
	}
	return d.Scan(src)
}

// unquote is a number's text, also when the database gave it as a string
// (PostgreSQL's numeric).
func unquote(raw []byte) []byte {
	if len(raw) >= 2 && raw[0] == '"' {
		return raw[1 : len(raw)-1]
	}
	return raw
}

func errNull(dest any) error {
	return fmt.Errorf("NULL cannot go into %T: scan into a pointer (%T) to accept NULL", dest, reflect.New(reflect.TypeOf(dest)).Interface())
}

// QueryAs runs a query and scans each row into a T, a struct whose fields
// name their columns with `db:"column"` tags (untagged fields match a
// column of their name, case-insensitively and without underscores, so
// created_at fills CreatedAt; `db:"-"` skips one). A
// column no field names is an error, so that a typo does not go unseen.
// A field takes what [Rows.Scan] takes, the same way: a blob into a
// []byte or a string is its bytes, text into a []byte its bytes.
//
//	type User struct {
//		ID    int64  `db:"id"`
//		Name  string `db:"name"`
//		Email *string `db:"email"` // NULL is nil
//	}
//	users, err := endpoints.QueryAs[User](db, "SELECT id, name, email FROM users LIMIT $1", 50)
func QueryAs[T any](q Querier, sql string, args ...any) ([]T, error) {
	switch q := q.(type) {
	case *Database:
		return queryAs[T](q, sql, args)
	case *Tx:
		return queryAs[T](q.db, sql, args)
	}
	// A copy for the interface call, after which the compiler cannot
	// tell what becomes of args: passed as they are, every caller's
	// arguments would be allocated on the heap, on the SDK's paths too.
	rows, err := q.Query(sql, slices.Clone(args)...)
	if err != nil {
		return nil, err
	}
	return ScanAll[T](rows)
}

// QueryRowAs is [QueryAs] for one row: [ErrNoRows] when there is none.
func QueryRowAs[T any](q Querier, sql string, args ...any) (T, error) {
	switch q := q.(type) {
	case *Database:
		return queryRowAs[T](q, sql, args)
	case *Tx:
		return queryRowAs[T](q.db, sql, args)
	}
	var zero T
	all, err := QueryAs[T](q, sql, args...)
	if err != nil {
		return zero, err
	}
	if len(all) == 0 {
		return zero, ErrNoRows
	}
	return all[0], nil
}

// Querier is what runs queries: a [*Database] or a [*Tx].
type Querier interface {
	Query(sql string, args ...any) (*Rows, error)
	Exec(sql string, args ...any) (Result, error)
}

// ScanAll scans every row of rows into a T, as [QueryAs] does.
func ScanAll[T any](rows *Rows) ([]T, error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("endpoints: ScanAll: %s is not a struct", t)
	}
	plan, err := scanPlanFor(t, rows.columns)
	if err != nil {
		return nil, err
	}
	out := make([]T, rows.nrows)
	for r := range rows.nrows {
		base := unsafe.Pointer(&out[r])
		for c, raw := range rows.row(r) {
			blob := len(rows.blobs) > 0 && isBlob(rows.blobs, r, c)
			if err := plan[c].set(unsafe.Add(base, plan[c].offset), raw, blob); err != nil {
				return nil, fmt.Errorf("endpoints: ScanAll: row %d, column %q into %s: %w", r+1, rows.columns[c], t, err)
			}
		}
	}
	return out, nil
}

// columnScan is how one column goes into its field: the field's offset in
// the struct and the function that decodes a value into it. Computed once
// per struct type and column list, so that a row costs no reflection:
// reflection is what Go code pays most for inside WebAssembly.
type columnScan struct {
	offset uintptr
	// set decodes raw, a blob when blob is set, into the field.
	set func(field unsafe.Pointer, raw json.RawMessage, blob bool) error
	// fast and bits are how the SDK's own queriers decode the field
	// without set (dbscan.go's fastKind).
	fast, bits uint8
}

// planKey identifies a scan plan: a struct type and a query's columns.
type planKey struct {
	t       reflect.Type
	columns string
}

var scanPlans sync.Map // planKey -> []columnScan

// scanPlanFor maps each column to the field of t that takes it.
func scanPlanFor(t reflect.Type, columns []string) ([]columnScan, error) {
	key := planKey{t, strings.Join(columns, "\x00")}
	if p, ok := scanPlans.Load(key); ok {
		return p.([]columnScan), nil
	}
	fields := map[string]reflect.StructField{}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name := f.Tag.Get("db")
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		fields[name] = f
	}
	plan := make([]columnScan, len(columns))
	for i, c := range columns {
		f, ok := fields[c]
		if !ok {
			f, ok = fields[strings.ToLower(c)]
		}
		if !ok && strings.Contains(c, "_") {
			// created_at into an untagged CreatedAt.
			f, ok = fields[strings.ReplaceAll(strings.ToLower(c), "_", "")]
			ok = ok && f.Tag.Get("db") == ""
		}
		if !ok {
			return nil, fmt.Errorf("endpoints: the column %q goes into no field of %s: tag one `db:%q`, or leave the column out of the query", c, t, c)
		}
		var offset uintptr
		ft := t
		for _, idx := range f.Index {
			if ft.Kind() != reflect.Struct {
				return nil, fmt.Errorf("endpoints: the column %q goes into %s.%s, promoted through an embedded pointer: embed the struct by value", c, t, f.Name)
			}
			sf := ft.Field(idx)
			offset += sf.Offset
			ft = sf.Type
		}
		fast, bits := fastKind(f.Type)
		plan[i] = columnScan{offset: offset, set: fieldSetter(f.Type), fast: fast, bits: bits}
	}
	scanPlans.Store(key, plan)
	return plan, nil
}

// fieldSetter is the function that scans a value into a field of type
// ft: the common types without reflection, any other through scanValue.
func fieldSetter(ft reflect.Type) func(unsafe.Pointer, json.RawMessage, bool) error {
	switch ft {
	case reflect.TypeFor[string]():
		return func(p unsafe.Pointer, raw json.RawMessage, blob bool) error {
			return scanValue(raw, (*string)(p), blob)
		}
	case reflect.TypeFor[int]():
		return func(p unsafe.Pointer, raw json.RawMessage, blob bool) error { return scanValue(raw, (*int)(p), blob) }
	case reflect.TypeFor[int64]():
		return func(p unsafe.Pointer, raw json.RawMessage, blob bool) error { return scanValue(raw, (*int64)(p), blob) }
	case reflect.TypeFor[float64]():
		return func(p unsafe.Pointer, raw json.RawMessage, blob bool) error {
			return scanValue(raw, (*float64)(p), blob)
		}
	case reflect.TypeFor[bool]():
		return func(p unsafe.Pointer, raw json.RawMessage, blob bool) error { return scanValue(raw, (*bool)(p), blob) }
	case reflect.TypeFor[[]byte]():
		return func(p unsafe.Pointer, raw json.RawMessage, blob bool) error {
			return scanValue(raw, (*[]byte)(p), blob)
		}
	case reflect.TypeFor[time.Time]():
		return func(p unsafe.Pointer, raw json.RawMessage, blob bool) error {
			return scanValue(raw, (*time.Time)(p), blob)
		}
	}
	return func(p unsafe.Pointer, raw json.RawMessage, blob bool) error {
		return scanValue(raw, reflect.NewAt(ft, p).Interface(), blob)
	}
}
