package postgres

import (
	"strings"
	"testing"
)

func TestStatements(t *testing.T) {
	for _, tt := range []struct {
		name, script string
		want         []string
	}{
		{"one per semicolon", "CREATE TABLE a (x int);\nINSERT INTO a VALUES (1)", []string{"CREATE TABLE a (x int)", "INSERT INTO a VALUES (1)"}},
		{"empty ones and trailing comments left out", "-- head\n;; SELECT 1; -- tail\n/* end; */\n", []string{"SELECT 1"}},
		{"a leading comment stays with its statement", "-- the users\nCREATE TABLE u (id int);", []string{"-- the users\nCREATE TABLE u (id int)"}},
		{"strings", `INSERT INTO a VALUES ('a;b', 'it''s;');SELECT 2`, []string{`INSERT INTO a VALUES ('a;b', 'it''s;')`, "SELECT 2"}},
		{"escape strings", `SELECT E'\';', e'x\\';SELECT 3`, []string{`SELECT E'\';', e'x\\'`, "SELECT 3"}},
		{"an identifier ending in e before a quote is no escape string", `SELECT some'a\';SELECT 4`, []string{`SELECT some'a\'`, "SELECT 4"}},
		{"quoted names", `CREATE TABLE "a;b" ("c""; d" int);SELECT 5`, []string{`CREATE TABLE "a;b" ("c""; d" int)`, "SELECT 5"}},
		{"nested comments", "SELECT /* a; /* b; */ c; */ 6;SELECT 7", []string{"SELECT /* a; /* b; */ c; */ 6", "SELECT 7"}},
		{"dollar quotes", "CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;CREATE FUNCTION g() RETURNS int AS $b$ SELECT $$;$$; $b$ LANGUAGE sql", []string{
			"CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql", "CREATE FUNCTION g() RETURNS int AS $b$ SELECT $$;$$; $b$ LANGUAGE sql"}},
		{"a parameter or a dollar in a name is no quote", "SELECT $1, a$b$c FROM t;SELECT 8", []string{"SELECT $1, a$b$c FROM t", "SELECT 8"}},
		{"a BEGIN ATOMIC body is one statement", "CREATE FUNCTION f(v int) RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT CASE WHEN v > 0 THEN v END; SELECT 1; END;END;SELECT 9", []string{
			"CREATE FUNCTION f(v int) RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT CASE WHEN v > 0 THEN v END; SELECT 1; END", "END", "SELECT 9"}},
		{"or replace, a procedure", "create or replace procedure p() language sql begin atomic select 1; end;SELECT 10", []string{
			"create or replace procedure p() language sql begin atomic select 1; end", "SELECT 10"}},
		{"a parameter named begin, a BEGIN outside a routine", "CREATE FUNCTION f(begin int) RETURNS int LANGUAGE sql RETURN 1;BEGIN;SELECT CASE WHEN true THEN 1 END;END", []string{
			"CREATE FUNCTION f(begin int) RETURNS int LANGUAGE sql RETURN 1", "BEGIN", "SELECT CASE WHEN true THEN 1 END", "END"}},
		{"an unclosed string runs to the end", "SELECT 'a; b", []string{"SELECT 'a; b"}},
		{"a line comment ends at a carriage return", "-- note\rCOMMIT;SELECT 11", []string{"-- note\rCOMMIT", "SELECT 11"}},
		{"none", " \n-- only a comment\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := statements(tt.script)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("statements(%q)\n = %q\nwant %q", tt.script, got, tt.want)
			}
		})
	}
}

func TestStatementAt(t *testing.T) {
	script := "CREATE TABLE é (x text DEFAULT 'a;b');\n-- between\nCREATE TABLE b (y int NOT NUL);"
	chars := func(sub string) int { return len([]rune(script[:strings.Index(script, sub)])) + 1 }
	for _, tt := range []struct {
		char int // PostgreSQL's position, from 1, in characters
		want string
	}{
		{1, "CREATE TABLE é (x text DEFAULT 'a;b')"},
		{chars("b')"), "CREATE TABLE é (x text DEFAULT 'a;b')"}, // é is two bytes, one character
		{chars("NUL)"), "-- between\nCREATE TABLE b (y int NOT NUL)"},
		{len([]rune(script)) + 5, ""}, // past the end
	} {
		if got := statementAt(script, byteOffset(script, tt.char-1)); got != tt.want {
			t.Errorf("position %d: got %q, want %q", tt.char, got, tt.want)
		}
	}
}
