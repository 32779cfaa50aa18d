package postgres_test

import (
	"encoding/json"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
)

// TestPostgresArraysNested: an array of more than one dimension is nested
// JSON arrays, one level per dimension (the rows of a matrix), its
// elements as a one-dimensional array's are (numbers exact, json as it
// is, NULL null); its lower bounds are dropped. pgx gave them flattened
// ([1,2,3,4] for {{1,2},{3,4}}), which lost the shape.
func TestPostgresArraysNested(t *testing.T) {
	db, _ := startPG(t, database.Options{MaxConns: 1})
	tests := []struct {
		name, expr string
		args       []any
		want       string // the array's JSON, as the column's text; "null" for NULL
	}{
		{"one dimension", "ARRAY[1, 2]", nil, `[1,2]`},
		{"int matrix", "ARRAY[[1, 2], [3, 4]]", nil, `[[1,2],[3,4]]`},
		{"bigint exact, with NULL", "ARRAY[[9007199254740993::bigint, NULL], [1, 2]]", nil, `[[9007199254740993,null],[1,2]]`},
		{"int[][] of one row", "'{{1,2,3}}'::int[][]", nil, `[[1,2,3]]`},
		{"three dimensions", "'{{{1,2},{3,4}},{{5,6},{7,8}}}'::int[]", nil, `[[[1,2],[3,4]],[[5,6],[7,8]]]`},
		{"text matrix", `ARRAY[['a', 'b"c'], ['d', NULL]]`, nil, `[["a","b\"c"],["d",null]]`},
		{"numeric exact", "ARRAY[[1.50, 2], [3, NULL]]::numeric[]", nil, `[[1.50,2],[3,null]]`},
		{"float", "ARRAY[[0.1::float8, 2.5]]", nil, `[[0.1,2.5]]`},
		{"jsonb exact", `ARRAY[ARRAY['{"n": 12345678901234567890}'::jsonb, 'null'], ARRAY['[1.10]'::jsonb, NULL]]`, nil, `[[{"n":12345678901234567890},null],[[1.10],null]]`},
		{"json exact", `ARRAY[ARRAY['[1.10]'::json], ARRAY['{"a": 2e400}'::json]]`, nil, `[[[1.10]],[{"a":2e400}]]`},
		{"timestamptz", "ARRAY[ARRAY['2026-01-02T03:04:05Z'::timestamptz], ARRAY['2026-01-03T00:00:00Z'::timestamptz]]", nil, `[["2026-01-02T03:04:05Z"],["2026-01-03T00:00:00Z"]]`},
		{"bytea", `ARRAY[['\x0001'::bytea, '\x02']]`, nil, `[["AAE=","Ag=="]]`},
		{"boolean", "ARRAY[[true], [false]]", nil, `[[true],[false]]`},
		{"uuid", "ARRAY[['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid]]", nil, `[["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"]]`},
		{"empty", "'{}'::int[]", nil, `[]`},
		{"empty int[][]", "ARRAY[]::int[][]", nil, `[]`},
		{"empty text[]", "'{}'::text[]", nil, `[]`},
		{"NULL array", "NULL::int[][]", nil, `null`},
		{"lower bound dropped", "'[0:1]={1,2}'::int[]", nil, `[1,2]`},
		{"lower bounds of a matrix dropped", "'[0:1][5:6]={{1,2},{3,4}}'::int[]", nil, `[[1,2],[3,4]]`},
		{"negative lower bound", "'[-2:-1]={x,y}'::text[]", nil, `["x","y"]`},
		{"array in a record", "ROW(ARRAY[[1, 2], [3, 4]], 'x')", nil, `[[[1,2],[3,4]],"x"]`},
		// A parameter is encoded as before: its PostgreSQL text.
		{"parameter", "$1::int[]", []any{"{{1,2},{3,4}}"}, `[[1,2],[3,4]]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := result(t, db, "SELECT "+tt.expr+" AS a", tt.args...)
			if err != nil {
				t.Fatalf("%s: %v", tt.expr, err)
			}
			var r struct {
				Columns []string
				Rows    [][]*string
			}
			if err := json.Unmarshal([]byte(got), &r); err != nil || len(r.Rows) != 1 || len(r.Rows[0]) != 1 {
				t.Fatalf("%s: result %s, %v; want one value", tt.expr, got, err)
			}
			v := "null"
			if r.Rows[0][0] != nil {
				v = *r.Rows[0][0]
			}
			if v != tt.want {
				t.Errorf("%s:\ngot  %s\nwant %s", tt.expr, v, tt.want)
			}
		})
	}
}
