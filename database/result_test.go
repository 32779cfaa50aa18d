package database

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

// valuesOnly hides the rows' own AppendRow, so that AppendQueryResult
// encodes them through Values and AppendValue.
type valuesOnly struct{ Rows }

// TestAppendQueryResultDirect checks that SQLite rows appending their
// values straight from SQLite's memory give the same JSON as the values
// encoded one by one, for every type and the texts JSON must escape (an
// invalid UTF-8 byte becomes U+FFFD).
func TestAppendQueryResultDirect(t *testing.T) {
	db, err := Open(t.Context(), DriverSQLite, Options{Path: filepath.Join(t.TempDir(), "direct.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tests := []struct {
		name, sql string
		args      []any
		want      string
	}{
		{"integers", "SELECT 0, -1, 9007199254740993, 9223372036854775807, -9223372036854775808", nil,
			`{"columns":["0","-1","9007199254740993","9223372036854775807","-9223372036854775808"],"rows":[[0,-1,9007199254740993,9223372036854775807,-9223372036854775808]]}`},
		{"floats", "SELECT 0.25 AS a, -1e300 AS b, 9e999 AS inf, -9e999 AS ninf, 1.0 AS one", nil,
			`{"columns":["a","b","inf","ninf","one"],"rows":[[0.25,-1e+300,null,null,1]]}`},
		{"texts", "SELECT ? AS quoted, ? AS unicode, '' AS empty, CAST(x'ff41' AS TEXT) AS invalid", []any{"a \"b\" \\ c\n\t\x01</>", "Grâce 🐍"},
			`{"columns":["quoted","unicode","empty","invalid"],"rows":[["a \"b\" \\ c\n\t\u0001</>","Grâce 🐍","","�A"]]}`},
		{"blobs and null", "SELECT x'00ff10' AS b, x'' AS empty, NULL AS n, ? AS param", []any{[]byte("hi")},
			`{"columns":["b","empty","n","param"],"blobs":[[0,0],[0,1],[0,3]],"rows":[["AP8Q","",null,"aGk="]]}`},
		{"text that reads as base64 is no blob", "SELECT 'test' AS t, x'b5eb2d' AS b UNION ALL SELECT x'00', 'hello'", nil,
			`{"columns":["t","b"],"blobs":[[0,1],[1,0]],"rows":[["test","test"],["AA==","hello"]]}`},
		{"several rows", "SELECT column1 AS v FROM (VALUES (1), ('x'), (NULL), (2.5), (x'01'))", nil,
			`{"columns":["v"],"blobs":[[4,0]],"rows":[[1],["x"],[null],[2.5],["AQ=="]]}`},
		{"no rows", "SELECT 1 AS v WHERE 0", nil, `{"columns":["v"],"rows":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got [2]string
			for i, wrap := range []func(Rows) Rows{func(r Rows) Rows { return r }, func(r Rows) Rows { return valuesOnly{r} }} {
				rows, err := db.Query(t.Context(), tt.sql, tt.args)
				if err != nil {
					t.Fatal(err)
				}
				if _, direct := rows.(RowAppender); !direct {
					t.Fatalf("SQLite rows are a %T, which does not append its rows itself", rows)
				}
				b, err := AppendQueryResult(nil, wrap(rows), 1<<20)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = string(b)
			}
			if got[0] != got[1] {
				t.Errorf("appended directly:\n%s\nthrough Values:\n%s", got[0], got[1])
			}
			if got[0] != tt.want {
				t.Errorf("got  %s\nwant %s", got[0], tt.want)
			}
		})
	}
}

// TestAppendQueryResultBlobsCount: limits.sqlResultBytes bounds the whole
// result, its "blobs" member too, on both ways of encoding rows.
func TestAppendQueryResultBlobsCount(t *testing.T) {
	db, err := Open(t.Context(), DriverSQLite, Options{Path: filepath.Join(t.TempDir(), "cap.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	const sql = "SELECT x'01' AS b FROM (VALUES (1), (2), (3), (4))"
	const want = `{"columns":["b"],"blobs":[[0,0],[1,0],[2,0],[3,0]],"rows":[["AQ=="],["AQ=="],["AQ=="],["AQ=="]]}`
	for _, tt := range []struct {
		name string
		max  int
		ok   bool
	}{
		// The rows fit without the blobs' positions, not with them.
		{"past the limit", len(want) - len(`,"blobs":[[0,0],[1,0],[2,0],[3,0]]`), false},
		{"at the limit", len(want), true},
	} {
		for _, wrap := range []func(Rows) Rows{func(r Rows) Rows { return r }, func(r Rows) Rows { return valuesOnly{r} }} {
			rows, err := db.Query(t.Context(), sql, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := AppendQueryResult(nil, wrap(rows), tt.max)
			if tt.ok {
				if err != nil || string(b) != want {
					t.Errorf("%s: got %s, %v; want %s", tt.name, b, err, want)
				}
				continue
			}
			if e := AsError(err); err == nil || e.Code != CodeTooLarge || !strings.Contains(e.Message, "limits.sqlResultBytes") {
				t.Errorf("%s: got %s, %v; want a %s error naming limits.sqlResultBytes", tt.name, b, err, CodeTooLarge)
			}
		}
	}
}

// TestAppendQueryResultExactBound: a result of exactly
// limits.sqlResultBytes bytes passes, one byte more is too large, counting
// every byte the guest receives (the closing "]}" too), with and without
// blobs, and for a result of no rows whose columns alone pass the bound.
func TestAppendQueryResultExactBound(t *testing.T) {
	db, err := Open(t.Context(), DriverSQLite, Options{Path: filepath.Join(t.TempDir(), "bound.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	long := strings.Repeat("c", 300)
	tests := []struct {
		name, sql string
		args      []any
	}{
		{"text", "SELECT ? AS v", []any{strings.Repeat("x", 500)}},
		{"rows", "SELECT ? AS v UNION ALL SELECT 'y'", []any{strings.Repeat("x", 500)}},
		{"blob", "SELECT ? AS v", []any{[]byte(strings.Repeat("x", 500))}},
		{"no rows", "SELECT 1 AS " + long + " WHERE 0", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i, wrap := range []func(Rows) Rows{func(r Rows) Rows { return r }, func(r Rows) Rows { return valuesOnly{r} }} {
				run := func(max int) ([]byte, error) {
					rows, err := db.Query(t.Context(), tt.sql, tt.args)
					if err != nil {
						t.Fatal(err)
					}
					return AppendQueryResult(nil, wrap(rows), max)
				}
				whole, err := run(1 << 20)
				if err != nil {
					t.Fatal(err)
				}
				if got, err := run(len(whole)); err != nil || string(got) != string(whole) {
					t.Errorf("way %d: a bound of exactly its %d bytes: %v", i, len(whole), err)
				}
				if _, err := run(len(whole) - 1); CodeOf(err) != CodeTooLarge {
					t.Errorf("way %d: a bound one byte short of its %d bytes: %v, want too_large", i, len(whole), err)
				}
			}
		})
	}
}

// TestAppendError: an error's JSON carries the constraint's name and kind,
// and the database's detail, when it has them, and none of those members
// otherwise.
func TestAppendError(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  *Error
		want string
	}{
		{"syntax", &Error{Code: CodeSyntax, Message: `near "SELEC": syntax error`}, `{"error":{"code":"syntax","message":"near \"SELEC\": syntax error"}}`},
		{"unique", &Error{Code: CodeConstraint, Constraint: "users.email", Kind: KindUnique, Message: "UNIQUE constraint failed: users.email"},
			`{"error":{"code":"constraint","constraint":"users.email","kind":"unique","message":"UNIQUE constraint failed: users.email"}}`},
		{"foreign key SQLite does not name", &Error{Code: CodeConstraint, Kind: KindForeignKey, Message: "FOREIGN KEY constraint failed"},
			`{"error":{"code":"constraint","kind":"foreign_key","message":"FOREIGN KEY constraint failed"}}`},
		{"a constraint of no kind", &Error{Code: CodeConstraint, Message: "no z"}, `{"error":{"code":"constraint","message":"no z"}}`},
		{"PostgreSQL's detail", &Error{Code: CodeConstraint, Constraint: "users_email_key", Kind: KindUnique, Message: `duplicate key value violates unique constraint "users_email_key"`, Detail: "Key (email)=(ada@example.com) already exists."},
			`{"error":{"code":"constraint","constraint":"users_email_key","kind":"unique","message":"duplicate key value violates unique constraint \"users_email_key\"","detail":"Key (email)=(ada@example.com) already exists."}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := string(AppendError([]byte("x"), tt.err))
			if got != "x"+tt.want {
				t.Errorf("got  %s\nwant x%s", got, tt.want)
			}
			var r abi.DBErrorResult
			if err := json.Unmarshal([]byte(got[1:]), &r); err != nil || r.Error.Kind != string(tt.err.Kind) || r.Error.Constraint != tt.err.Constraint || r.Error.Detail != tt.err.Detail {
				t.Errorf("decoded as %+v, %v", r, err)
			}
		})
	}
}
