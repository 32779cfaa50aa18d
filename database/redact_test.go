package database_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
)

func TestErrorRedact(t *testing.T) {
	driver := errors.New(`ERROR: invalid input syntax for type integer: "abc" (SQLSTATE 22P02)`)
	tests := []struct {
		name      string
		e         *database.Error
		want      string
		keepsSelf bool
	}{
		{"the host's own message stays, and its error",
			&database.Error{Code: database.CodeTransaction, Message: "no transaction is open on database main: call db_begin first", Err: database.ErrPoolFull},
			"transaction: no transaction is open on database main: call db_begin first", true},
		{"the database's message redacted, with its SQLSTATE",
			&database.Error{Code: database.CodeOther, Message: `invalid input syntax for type integer: "abc"`, Redacted: "invalid input syntax for type integer: ?", SQLState: "22P02", Err: driver},
			"other: invalid input syntax for type integer: ? (SQLSTATE 22P02)", false},
		{"a constraint keeps its name and kind",
			&database.Error{Code: database.CodeConstraint, Kind: database.KindUnique, Constraint: "users_email_key", Message: `duplicate key value violates unique constraint "users_email_key"`, Redacted: `duplicate key value violates unique constraint "users_email_key"`, SQLState: "23505", Err: driver},
			`constraint: duplicate key value violates unique constraint "users_email_key" (constraint users_email_key) (SQLSTATE 23505)`, false},
		{"the detail is dropped, even beside a message of the host's",
			&database.Error{Code: database.CodeBusy, Message: "the host's words", Detail: "Key (email)=(ada@example.com) already exists."},
			"busy: the host's words", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := *tt.e
			r := tt.e.Redact()
			if got := r.Error(); got != tt.want {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
			if (r == tt.e) != tt.keepsSelf {
				t.Errorf("Redact returned e itself: %v, want %v", r == tt.e, tt.keepsSelf)
			}
			if r.Detail != "" {
				t.Errorf("redacted %+v keeps the detail, which quotes the row", r)
			}
			if !tt.keepsSelf && (r.Err != nil || r.Kind != tt.e.Kind || r.Constraint != tt.e.Constraint || r.Code != tt.e.Code) {
				t.Errorf("redacted %+v, want e's code, kind and constraint, and no driver's error", r)
			}
			if tt.e.Message != before.Message || tt.e.Err != before.Err || tt.e.Detail != before.Detail {
				t.Errorf("Redact changed e: %+v", tt.e)
			}
		})
	}
}

// TestSQLiteErrorsRedacted: an SQLite message that quotes a bound value
// (a JSON path, a statement's token) keeps it for the guest and drops it
// from the redacted error; one that names columns keeps them; one a
// trigger's RAISE made, which may hold a value unquoted, is left out of
// the redacted error whole, as PostgreSQL's RAISE is.
func TestSQLiteErrorsRedacted(t *testing.T) {
	db := openSQLite(t, 1)
	if _, err := db.Exec(t.Context(), "CREATE TABLE users (email TEXT UNIQUE)", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(t.Context(), "INSERT INTO users VALUES ('ada@example.com')", nil); err != nil {
		t.Fatal(err)
	}
	// RAISE's message is an expression: the new row's values may be in it.
	if _, err := db.Exec(t.Context(), "CREATE TRIGGER no_test BEFORE INSERT ON users WHEN NEW.email LIKE '%@test' BEGIN SELECT RAISE(ABORT, 'no test address, constraint failed: ' || NEW.email); END", nil); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, sql       string
		args            []any
		guest, redacted string
	}{
		{"a JSON path", "SELECT json_extract('{}', $1)", []any{"s3cr3t"}, "bad JSON path: 's3cr3t'", "syntax: bad JSON path: ?"},
		{"a unique violation", "INSERT INTO users VALUES ($1)", []any{"ada@example.com"}, "UNIQUE constraint failed: users.email", "constraint: UNIQUE constraint failed: users.email (constraint users.email)"},
		{"a token of the statement", "SELECT 1 FROM 's3cr3t' 's3cr3t' 's3cr3t'", nil, `near "'s3cr3t'": syntax error`, "syntax: near ?: syntax error"},
		{"a trigger's RAISE", "INSERT INTO users VALUES ($1)", []any{"s3cr3t@test"}, "no test address, constraint failed: s3cr3t@test", "constraint: " + database.RaisedMessage},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := db.Exec(t.Context(), tt.sql, tt.args)
			if err == nil {
				t.Fatal("the statement succeeded")
			}
			e := database.AsError(err)
			if e.Message != tt.guest {
				t.Errorf("the guest's message: %q, want %q", e.Message, tt.guest)
			}
			r := e.Redact()
			if got := r.Error(); got != tt.redacted || strings.Contains(got, "s3cr3t") || r.Err != nil {
				t.Errorf("redacted: %q (driver's error %v), want %q", got, r.Err, tt.redacted)
			}
		})
	}
}
