package postgres

import (
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestRedactedMessage(t *testing.T) {
	tests := []struct {
		name string
		pe   pgconn.PgError
		// advice is what the host added after PostgreSQL's message.
		advice, want string
	}{
		{"a data exception is cut at its colon", pgconn.PgError{Code: "22P02", Message: `invalid input syntax for type integer: "abc"`}, "",
			"invalid input syntax for type integer: ?"},
		{"a data exception's quoted value", pgconn.PgError{Code: "22003", Message: `value "1"2" is out of range for type integer`}, "",
			"value ? is out of range for type integer"},
		{"a data exception's bytes, and its quotes from the first to the last", pgconn.PgError{Code: "22021", Message: `character with byte sequence 0xe2 0x82 0xac in encoding "UTF8" has no equivalent in encoding "LATIN1"`}, "",
			"character with byte sequence ? ? ? in encoding ?"},
		{"a data exception without a value stays", pgconn.PgError{Code: "22012", Message: "division by zero"}, "",
			"division by zero"},
		{"a program limit's value", pgconn.PgError{Code: "54000", Message: "requested character too large for encoding: 99999999"}, "",
			"requested character too large for encoding: ?"},
		{"an integrity constraint's names stay", pgconn.PgError{Code: "23505", Message: `duplicate key value violates unique constraint "users_email_key"`, Detail: "Key (email)=(ada@example.com) already exists."}, "",
			`duplicate key value violates unique constraint "users_email_key"`},
		{"an undefined table's name stays", pgconn.PgError{Code: "42P01", Message: `relation "nowhere" does not exist`}, "",
			`relation "nowhere" does not exist`},
		{"a syntax error's token goes", pgconn.PgError{Code: "42601", Message: `unterminated quoted string at or near "'secret"`}, "",
			"unterminated quoted string at or near ?"},
		{"a syntax error's value after a colon goes", pgconn.PgError{Code: "42601", Message: "improper relation name (too many dotted names): a.b.c.secret"}, "",
			"improper relation name (too many dotted names): ?"},
		{"a raised message goes whole", pgconn.PgError{Code: "P0001", Message: "no user ada@example.com"}, "",
			"a message raised by the app's SQL code (left out: it may hold values)"},
		{"a raised message with a SQLSTATE of its choice", pgconn.PgError{Code: "23505", Message: "taken: ada", Where: "PL/pgSQL function f() line 3 at RAISE"}, "",
			"a message raised by the app's SQL code (left out: it may hold values)"},
		{"an assertion", pgconn.PgError{Code: "P0004", Message: "x was 5"}, "",
			"a message raised by the app's SQL code (left out: it may hold values)"},
		{"another class's quotes go", pgconn.PgError{Code: "XX000", Message: `unexpected value "secret"`}, "",
			"unexpected value ?"},
		{"the host's advice stays", pgconn.PgError{Code: "57014", Message: "canceling statement due to statement timeout"}, ": make it faster",
			"canceling statement due to statement timeout: make it faster"},
		{"the host's advice after a redacted message", pgconn.PgError{Code: "22P02", Message: `invalid input syntax for type uuid: "x"`}, `: the host's "advice"`,
			`invalid input syntax for type uuid: ?: the host's "advice"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := redactedMessage(&tt.pe, tt.pe.Message+tt.advice); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
	if got := redactedMessage(&pgconn.PgError{Code: "42601", Message: "syntax error"}, "the host's own words"); got != "the host's own words" {
		t.Errorf("a message the host wrote instead of PostgreSQL's: %q, want it as is", got)
	}
}
