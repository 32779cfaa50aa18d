package postgres

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
)

// TestCheckStatement: the statements that change the pooled session or
// the transaction are refused in any case and past comments and
// parentheses, naming the keyword; others pass, without allocating.
func TestCheckStatement(t *testing.T) {
	tests := []struct {
		sql    string
		denied string // the keyword the error names; "" when allowed
	}{
		{"SELECT id FROM users WHERE id = $1", ""},
		{"select id from users where id = $1", ""},
		{"  (select 1)", ""},
		{"settings_table", ""},
		{"SELECTED", ""},
		{"a_word_longer_than_any_denied_keyword", ""},
		{"", ""},
		{"-- only a comment", ""},
		{"/* unclosed", ""},
		{"SET statement_timeout = 0", "SET"},
		{"set statement_timeout = 0", "SET"},
		{"  ( Begin", "BEGIN"},
		{"-- a comment\nrollback", "ROLLBACK"},
		{"/* a */ savepoint x", "SAVEPOINT"},
		{"unlisten *", "UNLISTEN"},
		{"Discard ALL", "DISCARD"},
		{"\tcopy users to stdout", "COPY"},
	}
	for _, tt := range tests {
		err := checkStatement(tt.sql)
		switch {
		case tt.denied == "" && err != nil:
			t.Errorf("%q: %v, want allowed", tt.sql, err)
		case tt.denied != "" && database.CodeOf(err) != database.CodeDenied:
			t.Errorf("%q: %v, want %s denied", tt.sql, err, tt.denied)
		case tt.denied != "" && !strings.HasPrefix(database.AsError(err).Message, tt.denied+" is not allowed"):
			t.Errorf("%q: %q does not name %s", tt.sql, err, tt.denied)
		}
	}
	for _, sql := range []string{"SELECT 1", "select 1", "Insert into t values (1)"} {
		if n := testing.AllocsPerRun(100, func() { checkStatement(sql) }); n != 0 {
			t.Errorf("%q: %v allocations to check, want 0", sql, n)
		}
	}
}
