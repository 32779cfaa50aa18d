package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
)

// TestErrorsRedacted runs statements whose PostgreSQL errors quote the
// values they were given (a bound parameter's, a literal's, a raised
// message's), and checks that the guest's error keeps them (ABI §4.5: the
// database's message) while what leaves the call (database.Error.Redact:
// traces, logs, observers) keeps the code, the SQLSTATE and the names,
// but no value, nor the driver's error, whose DETAIL quotes the row.
func TestErrorsRedacted(t *testing.T) {
	t.Parallel()
	db, _ := openPG(t)
	const secret = "s3cr3t-value"
	tests := []struct {
		name, sql string
		args      []any
		// guest is in the guest's message; redacted is the whole
		// redacted error.
		guest, redacted string
	}{
		{"a parameter of the wrong syntax", "SELECT id FROM users WHERE id = $1", []any{secret},
			`invalid input syntax for type bigint: "` + secret + `"`, "other: invalid input syntax for type bigint: ? (SQLSTATE 22P02)"},
		{"a literal of the wrong syntax", "SELECT '" + secret + "'::uuid", nil,
			secret, "other: invalid input syntax for type uuid: ? (SQLSTATE 22P02)"},
		{"a value out of range", "SELECT $1::int", []any{"99999999991"},
			`value "99999999991" is out of range for type integer`, "other: value ? is out of range for type integer (SQLSTATE 22003)"},
		{"a value after a colon, unquoted", "SELECT make_date(2020, 13, 31)", nil,
			"2020-13-31", "other: date field value out of range: ? (SQLSTATE 22008)"},
		{"a unique violation names its constraint", "INSERT INTO users (name, email) VALUES ($1, $2)", []any{"Ada", "ada@example.com"},
			`duplicate key value violates unique constraint "users_email_key"`, `constraint: duplicate key value violates unique constraint "users_email_key" (constraint users_email_key) (SQLSTATE 23505)`},
		{"a not-null violation names its column", "INSERT INTO users (name, email) VALUES (NULL, $1)", []any{secret},
			`null value in column "name"`, `constraint: null value in column "name" of relation "users" violates not-null constraint (SQLSTATE 23502)`},
		{"a raised message", "DO $$BEGIN RAISE EXCEPTION 'no user %', '" + secret + "' USING ERRCODE = 'unique_violation'; END$$", nil,
			"no user " + secret, "constraint: a message raised by the app's SQL code (left out: it may hold values) (SQLSTATE 23505)"},
		{"a syntax error near a literal", "SELECT 'a' '" + secret + "'", nil,
			secret, "syntax: syntax error at or near ? (SQLSTATE 42601)"},
		{"a name the statement used stays", "SELECT * FROM no_such_table", nil,
			`relation "no_such_table" does not exist`, `syntax: relation "no_such_table" does not exist (SQLSTATE 42P01)`},
		{"a qualified name in another case stays", "SELECT * FROM Public.No_Such_Table", nil,
			`relation "public.no_such_table" does not exist`, `syntax: relation "public.no_such_table" does not exist (SQLSTATE 42P01)`},
		{"a quoted name stays", `SELECT * FROM "No Such"`, nil,
			`relation "No Such" does not exist`, `syntax: relation "No Such" does not exist (SQLSTATE 42P01)`},
		{"a column and its table stay", "INSERT INTO users (nme) VALUES ($1)", []any{secret},
			`column "nme" of relation "users" does not exist`, `syntax: column "nme" of relation "users" does not exist (SQLSTATE 42703)`},
		{"a parameter cast to regclass", "SELECT $1::regclass", []any{secret},
			`relation "` + secret + `" does not exist`, "syntax: relation ? does not exist (SQLSTATE 42P01)"},
		{"a literal cast to regrole", "SELECT '" + secret + "'::regrole", nil,
			`role "` + secret + `" does not exist`, "syntax: role ? does not exist (SQLSTATE 42704)"},
		{"a parameter cast to regproc", "SELECT $1::regproc", []any{secret},
			`function "` + secret + `" does not exist`, "syntax: function ? does not exist (SQLSTATE 42883)"},
		{"a parameter naming a sequence", "SELECT nextval($1)", []any{"public." + secret},
			`relation "public.` + secret + `" does not exist`, "syntax: relation ? does not exist (SQLSTATE 42P01)"},
		{"a parameter naming a schema", "SELECT $1::regclass", []any{"ada@example.com"},
			`schema "ada@example" does not exist`, "other: schema ? does not exist (SQLSTATE 3F000)"},
		{"a parameter of three parts", "SELECT $1::regclass", []any{"a." + secret + ".c"},
			`cross-database references are not implemented: "a.` + secret + `.c"`, "other: cross-database references are not implemented: ? (SQLSTATE 0A000)"},
		{"a parameter of many parts", "SELECT $1::regclass", []any{"a.b.c." + secret},
			`improper relation name (too many dotted names): a.b.c.` + secret, "syntax: improper relation name (too many dotted names): ? (SQLSTATE 42601)"},
		{"a parameter naming a database", "SELECT has_database_privilege($1, 'connect')", []any{secret},
			`database "` + secret + `" does not exist`, "other: database ? does not exist (SQLSTATE 3D000)"},
		{"a parameter pgx refuses", "SELECT id FROM users WHERE id = $1", []any{2.5},
			"2.5", "other: a parameter does not fit its type: args[0], a value its type int8 (OID 20) cannot hold"},
	}
	ctx := context.Background()
	// Each statement runs as an exec and as a query (whose error comes
	// with its rows), alone and in a transaction, as its first statement
	// (sent with BEGIN) and after another.
	query := func(q database.Querier, sql string, args []any) error {
		rows, err := q.Query(ctx, sql, args)
		if err != nil {
			return err
		}
		_, err = database.AppendQueryResult(nil, rows, 1<<20)
		return err
	}
	inTx := func(before bool, run func(database.Querier) error) error {
		tx, err := db.Begin(ctx, database.TxOptions{})
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		if before {
			if _, err := tx.Exec(ctx, "SELECT 1", nil); err != nil {
				return err
			}
		}
		return run(tx)
	}
	for _, tt := range tests {
		for _, how := range []string{"exec", "query", "exec first in a transaction", "query in a transaction"} {
			t.Run(tt.name+"/"+how, func(t *testing.T) {
				exec := func(q database.Querier) error { _, err := q.Exec(ctx, tt.sql, tt.args); return err }
				q := func(q database.Querier) error { return query(q, tt.sql, tt.args) }
				var err error
				switch how {
				case "exec":
					err = exec(db)
				case "query":
					err = q(db)
				case "exec first in a transaction":
					err = inTx(false, exec)
				default:
					err = inTx(true, q)
				}
				check(t, tt.guest, tt.redacted, err, secret, "99999999991", "2020-13-31", "ada@example", "2.5")
			})
		}
	}
}

// check checks err, a failed statement's error, as TestErrorsRedacted
// says: the guest's message holds guest, and the redacted error is
// redacted, without the driver's error or any of values.
func check(t *testing.T, guest, redacted string, err error, values ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("the statement succeeded")
	}
	e := database.AsError(err)
	if !strings.Contains(e.Message, guest) {
		t.Errorf("the guest's message %q does not hold %q", e.Message, guest)
	}
	r := e.Redact()
	if got := r.Error(); got != redacted {
		t.Errorf("redacted:\n got %q\nwant %q", got, redacted)
	}
	if r.Err != nil {
		t.Errorf("the redacted error keeps the driver's: %v", r.Err)
	}
	for _, v := range values {
		if strings.Contains(r.Error(), v) {
			t.Errorf("the redacted error %q holds %q", r.Error(), v)
		}
	}
}
