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
		{"a parameter pgx refuses", "SELECT id FROM users WHERE id = $1", []any{2.5},
			"2.5", "other: a parameter does not fit its type: args[0], a value its type int8 (OID 20) cannot hold"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := db.Exec(context.Background(), tt.sql, tt.args)
			if err == nil {
				t.Fatal("the statement succeeded")
			}
			e := database.AsError(err)
			if !strings.Contains(e.Message, tt.guest) {
				t.Errorf("the guest's message %q does not hold %q", e.Message, tt.guest)
			}
			r := e.Redact()
			if got := r.Error(); got != tt.redacted {
				t.Errorf("redacted:\n got %q\nwant %q", got, tt.redacted)
			}
			if r.Err != nil {
				t.Errorf("the redacted error keeps the driver's: %v", r.Err)
			}
			for _, v := range []string{secret, "99999999991", "2020-13-31", "ada@example.com", "2.5"} {
				if strings.Contains(r.Error(), v) {
					t.Errorf("the redacted error %q holds %q", r.Error(), v)
				}
			}
		})
	}
}
