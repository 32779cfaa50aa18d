package database

import (
	"path/filepath"
	"testing"
)

// valuesOnly hides the rows' own appendRow, so that AppendQueryResult
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
			`{"columns":["b","empty","n","param"],"rows":[["AP8Q","",null,"aGk="]]}`},
		{"several rows", "SELECT column1 AS v FROM (VALUES (1), ('x'), (NULL), (2.5), (x'01'))", nil,
			`{"columns":["v"],"rows":[[1],["x"],[null],[2.5],["AQ=="]]}`},
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
				if _, direct := rows.(rowAppender); !direct {
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
