package database_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
)

// TestSQLiteManyParameters: a statement of 16000 parameters binds each
// to its value on SQLite, written $N (in order, in reverse, each twice)
// or ?, as one of 3 does.
func TestSQLiteManyParameters(t *testing.T) {
	db := openTestSQLite(t)
	const n = 16000
	args := make([]any, n)
	for i := range args {
		args[i] = int64(i + 1)
	}
	// sum is of column1 × its row's number (from 1): a value bound to
	// another parameter's place changes it.
	const sumSQL = "SELECT count(*), sum(column1 * rowid) FROM (SELECT column1, row_number() OVER () AS rowid FROM (VALUES "
	want := func(values func(row int) int64) string {
		var sum int64
		for row := 1; row <= n; row++ {
			sum += values(row) * int64(row)
		}
		return `[[` + strconv.Itoa(n) + `,` + strconv.FormatInt(sum, 10) + `]]`
	}
	for _, tt := range []struct {
		name   string
		mark   func(row int) string
		values func(row int) int64 // the value bound at row
	}{
		{"$N in order", func(row int) string { return "$" + strconv.Itoa(row) }, func(row int) int64 { return int64(row) }},
		{"$N in reverse", func(row int) string { return "$" + strconv.Itoa(n+1-row) }, func(row int) int64 { return int64(n + 1 - row) }},
		{"?", func(int) string { return "?" }, func(row int) int64 { return int64(row) }},
		{"?N in reverse", func(row int) string { return "?" + strconv.Itoa(n+1-row) }, func(row int) int64 { return int64(n + 1 - row) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString(sumSQL)
			for row := 1; row <= n; row++ {
				if row > 1 {
					b.WriteByte(',')
				}
				b.WriteString("(" + tt.mark(row) + ")")
			}
			b.WriteString("))")
			rows, err := db.Query(t.Context(), b.String(), args)
			if err != nil {
				t.Fatal(err)
			}
			got, err := database.AppendQueryResult(nil, rows, 1<<20)
			var r struct{ Rows json.RawMessage }
			if err != nil || json.Unmarshal(got, &r) != nil || string(r.Rows) != want(tt.values) {
				t.Errorf("got %s, %v; want rows %s", got, err, want(tt.values))
			}
		})
	}
}

// TestSQLiteParameterText: $N is a parameter where SQLite reads one, and
// text where it does not (a string, a quoted name, a comment, within an
// identifier); a column without AS is named as the guest wrote it; errors
// quote the statement as written.
func TestSQLiteParameterText(t *testing.T) {
	db := openTestSQLite(t)
	for _, tt := range []struct {
		name, sql, params, want string
		code                    database.Code
		message                 string
	}{
		{name: "in a string, a quoted name, a comment", sql: `SELECT '$1' AS s, $1 AS "$2", [$3] AS "$3" FROM (SELECT 7 AS [$3]) /* $4 */ -- $5`, params: `["x"]`, want: `{"columns":["s","$2","$3"],"rows":[["$1","x",7]]}`},
		{name: "within an identifier", sql: `SELECT a$1 FROM (SELECT $1 AS a$1)`, params: `[5]`, want: `{"columns":["a$1"],"rows":[[5]]}`},
		{name: "a column named by its text", sql: `SELECT $1, $2 + 1, '?' || $1`, params: `["a", 1]`, want: `{"columns":["$1","$2 + 1","'?' || $1"],"rows":[["a",2,"?a"]]}`},
		{name: "? and $N together", sql: `SELECT ?, $1`, params: `["a"]`, want: `{"columns":["?","$1"],"rows":[["a","a"]]}`},
		{name: "a parameter used twice", sql: `SELECT $1 AS a, $2 AS b, $1 AS c`, params: `["a", "b"]`, want: `{"columns":["a","b","c"],"rows":[["a","b","a"]]}`},
		{name: "a named parameter", sql: `SELECT $1abc`, params: `["x"]`, code: database.CodeSyntax, message: "the parameter $1abc is not $1, $2... nor ?: parameters are numbered, not named"},
		{name: "a Tcl parameter", sql: `SELECT $1(x)`, params: `["x"]`, code: database.CodeSyntax, message: "the parameter $1(x) is not $1, $2... nor ?: parameters are numbered, not named"},
		{name: "a parameter not given", sql: `SELECT $2, $1`, params: `["x"]`, code: database.CodeSyntax, message: "the statement takes parameter 2, but 1 were given"},
		{name: "a parameter not used", sql: `SELECT $1, $1, $3`, params: `[1, 2, 3]`, code: database.CodeSyntax, message: "3 parameters were given, but the statement does not use parameter 2"},
		{name: "a syntax error quotes the text as written", sql: `SELECT $1 $2`, params: `[1, 2]`, code: database.CodeSyntax, message: `near "$2": syntax error`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := query(t, db, tt.sql, tt.params)
			if tt.code != "" {
				if database.CodeOf(err) != tt.code || !strings.Contains(err.Error(), tt.message) {
					t.Fatalf("got %q, %v; want code %s saying %s", got, err, tt.code, tt.message)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %s, %v\nwant %s", got, err, tt.want)
			}
		})
	}
}
