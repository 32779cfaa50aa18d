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
		{"SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", "SET"},
		{"  ( Begin", "BEGIN"},
		{"-- a comment\nrollback", "ROLLBACK"},
		{"/* a */ savepoint x", "SAVEPOINT"},
		{"unlisten *", "UNLISTEN"},
		{"Discard ALL", "DISCARD"},
		{"\tcopy users to stdout", "COPY"},
		// PostgreSQL's block comments nest: the first */ does not end
		// this one, and SET runs.
		{"/* /* */ */ SET statement_timeout = 1", "SET"},
		{"/* a /* b /* c */ */ */ reset all", "RESET"},
		{"/*/* */*/ begin", "BEGIN"},
		{"/* /* */ SET x = 1 */ SELECT 1", ""},
		{"/* /* */ unclosed */", ""},
		// DEALLOCATE drops the statements pgx prepared and cached on the
		// pooled connection: each fails once in a later call.
		{"DEALLOCATE ALL", "DEALLOCATE"},
		{"deallocate prepare stmtcache_1", "DEALLOCATE"},
		// A line comment ends at a carriage return as at a line feed,
		// and the server's parser drops empty statements: each of these
		// ran its SET, BEGIN or LISTEN on the pooled connection.
		{"-- a comment\rSET statement_timeout = 1", "SET"},
		{"-- a\r-- b\rbegin", "BEGIN"},
		{";SET role other", "SET"},
		{" ; ;\n listen jobs", "LISTEN"},
		{"\vSET statement_timeout = 1", "SET"},
		{"SELECT 1;", ""},
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
		case (tt.denied == "SET" || tt.denied == "RESET") && !strings.Contains(err.Error(), "the database's url (postgres://...?default_transaction_isolation=serializable)"):
			// SET TRANSACTION ISOLATION LEVEL is what a guest tries
			// for a transaction's isolation: the error says where a
			// setting goes instead.
			t.Errorf("%q: %q does not say where a session setting goes", tt.sql, err)
		}
	}
	for _, sql := range []string{"SELECT 1", "select 1", "Insert into t values (1)"} {
		if n := testing.AllocsPerRun(100, func() { checkStatement(sql) }); n != 0 {
			t.Errorf("%q: %v allocations to check, want 0", sql, n)
		}
	}
}

// TestCheckStatementRefusesNUL: a NUL byte ends the statement's text in
// the protocol's message, whose rest the server then reads as garbage: it
// answers a protocol violation, which reads as a server gone (503, and the
// pool's connections dropped). The text is refused before it is sent.
func TestCheckStatementRefusesNUL(t *testing.T) {
	for _, sql := range []string{"SELECT 1\x00; DROP TABLE users", "\x00", "SELECT $1 -- \x00"} {
		err := checkStatement(sql)
		if database.CodeOf(err) != database.CodeSyntax || !strings.Contains(err.Error(), "NUL") {
			t.Errorf("%q: %v, want a syntax error naming the NUL byte", sql, err)
		}
	}
}

// TestKeepsSessionTemp: the statements that make a temporary table, view
// or sequence, whose connection the pool must not hand to another call.
func TestKeepsSessionTemp(t *testing.T) {
	tests := []struct {
		sql  string
		want bool
	}{
		{"CREATE TEMP TABLE staging (v int)", true},
		{"create temporary table staging (v int)", true},
		{"  /* c */ Create Local Temp Table t (v int)", true},
		{"CREATE GLOBAL TEMPORARY TABLE t (v int)", true},
		{"CREATE OR REPLACE TEMP VIEW v AS SELECT 1", true},
		{"CREATE TEMP SEQUENCE s", true},
		{"CREATE UNLOGGED TABLE t (v int)", false},
		{"CREATE TABLE pg_temp.t (v int)", true},
		{"CREATE VIEW PG_TEMP.v AS SELECT 1", true},
		{"SELECT 1 AS v INTO TEMP t", true},
		{"select * into temporary table t from users", true},
		{"WITH x AS (SELECT 1) SELECT * INTO TEMP t FROM x", true},
		{"SELECT 1 AS v INTO LOCAL TEMP t", true},
		{"select 1 as v into global temporary table t", true},
		{`CREATE TABLE "pg_temp".t (v int)`, true},
		{`CREATE TABLE "PG_TEMP".t (v int)`, true},
		{"CREATE TABLE pg_temp . t (v int)", true},
		{"CREATE TABLE pg_temp/**/.t (v int)", true},
		{"EXPLAIN ANALYZE CREATE TEMP TABLE t AS SELECT 1", true},
		{"EXPLAIN (ANALYZE) SELECT 1 INTO TEMP t", true},
		{`SELECT "a", "b" FROM "pg_temperature"`, false},
		{"SELECT 1 INTO LOCAL t", false},
		{"CREATE TABLE temperature (v int)", false},
		{"CREATE TABLE t (temp int)", false},
		{"SELECT temp FROM readings", false},
		{"SELECT 1 INTO t", false},
		{"INSERT INTO temp_readings VALUES (1)", false},
		{"INSERT INTO temp VALUES (1)", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := keepsSession(tt.sql); got != tt.want {
			t.Errorf("%q: %v, want %v", tt.sql, got, tt.want)
		}
	}
}

// TestKeepsSession: the statements whose connection is closed rather than
// pooled, because they leave something in the session.
func TestKeepsSession(t *testing.T) {
	tests := []struct {
		sql  string
		want bool
	}{
		{"SELECT 1", false},
		{"CREATE TEMP TABLE t (v int)", true},
		{"SELECT pg_advisory_lock(1)", true},
		{"SELECT * FROM jobs WHERE pg_try_advisory_lock_shared(id)", true},
		{"SELECT pg_advisory_xact_lock(1)", false},
		{"SELECT pg_advisory_unlock(1)", false},
		{"SELECT set_config('search_path', 'x', false)", true},
		{"SELECT set_config('app.user', $1, true)", false},
		{"SELECT set_config('app.user', 'a,b)', TRUE ) AS v", false},
		{"SELECT set_config('app.user', $1, $2)", true},
		{"SELECT set_config('app.user', f(1, 2), true)", false},
		{"SELECT set_config", true},
		{"DO $$BEGIN NULL; END$$", true},
		{"DECLARE c CURSOR WITH HOLD FOR SELECT 1", true},
		{"declare c no scroll cursor with hold for select 1", true},
		{"DECLARE c CURSOR WITHOUT HOLD FOR SELECT 1", true},
		{"DECLARE c CURSOR FOR SELECT 1", false},
		{"SELECT 'set_config' AS name", false},
		{`SELECT "set_config"('statement_timeout', '1', false)`, true},
		{`SELECT pg_catalog."pg_advisory_lock"(1)`, true},
		{`SELECT "PG_TRY_ADVISORY_LOCK"(1)`, true},
		{"UPDATE pg_settings SET setting = '0' WHERE name = 'statement_timeout'", true},
		{`SELECT "set_config_x"(1), "name" FROM "t"`, false},
		{"SELECT doc FROM pages", false},
		// Strings and names read as PostgreSQL's lexer reads them: a
		// backslash escapes the quote of an escape string, a quote in a
		// dollar-quoted string is text, a line comment ends at a
		// carriage return, and U&"..." may spell any name.
		{`SELECT E'\'', pg_advisory_lock(1), 'x'`, true},
		{`SELECT e'\\', pg_advisory_lock(1)`, true},
		{`SELECT $$'$$, set_config('statement_timeout', '1', false), $$'$$`, true},
		{`SELECT $t$'$t$, pg_advisory_lock(1), $t$'$t$`, true},
		{"SELECT 1 AS a, -- x\r pg_advisory_lock(1)", true},
		{`SELECT U&"set\005Fconfig"('statement_timeout', '1', false)`, true},
		{`CREATE TABLE u&"pg\005Ftemp".t (v int)`, true},
		{`SELECT set_config('statement_timeout', substr(E'\'5', 2), false) AS a, '), true)' AS b`, true},
		{`SELECT set_config('statement_timeout', substr($$'6$$, 2), false) AS a, '), true)' AS b`, true},
		// With standard_conforming_strings off (the url's), a backslash
		// escapes in every string: read both ways.
		{`SELECT '\'', pg_advisory_lock(1), 'x'`, true},
		{`SELECT 'a\b' AS v`, false},
		{`SELECT $1, $2 FROM t WHERE a$b = 'x$$'`, false},
		{`SELECT 'it''s', "a""b" FROM t`, false},
		{`SELECT E'\'pg_advisory_lock(1)'`, false},
		{`SELECT $$ pg_advisory_lock(1) $$`, false},
		{"SELECT 1 -- pg_advisory_lock(1)", false},
		{"SELECT setseed(0.5)", true},
		{`SELECT "setseed"(0.5)`, true},
		{"SELECT random() AS r, seed FROM setseeds", false},
		// Functions that run a query given as text, or keep a
		// connection in the session.
		{`SELECT query_to_xml('SELECT pg_advisory_lock(1)', true, false, '')`, true},
		{`SELECT Query_To_Xml_And_XmlSchema('SELECT 1', true, false, '')`, true},
		{`SELECT * FROM ts_stat('SELECT v FROM docs')`, true},
		{`SELECT ts_rewrite('a'::tsquery, 'SELECT t, s FROM aliases')`, true},
		{`SELECT "ts_stat"('SELECT v FROM docs')`, true},
		{`SELECT pg_catalog.query_to_xml($1, true, false, '')`, true},
		{`SELECT dblink_connect('c', 'dbname=app')`, true},
		{`SELECT query_to_xmlschema('SELECT 1', true, false, '')`, false},
		{`SELECT ts_stats, query_to_xml_x, dblink FROM t`, false},
	}
	for _, tt := range tests {
		if got := keepsSession(tt.sql); got != tt.want {
			t.Errorf("%q: %v, want %v", tt.sql, got, tt.want)
		}
	}
}
