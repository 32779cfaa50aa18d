package postgres

import (
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
)

// valuesOnly hides the rows' own AppendRow, so that
// database.AppendQueryResult encodes them through Values and
// database.AppendValue.
type valuesOnly struct{ database.Rows }

// TestAppendRowFromWire checks that rows appending their values straight
// from the bytes the server sent give the JSON that the values pgx decodes
// give, one by one, for every type read from the wire, NULL of each, and
// results that mix in a type that is not (then every column goes through
// Values); and that the wire is read exactly when every column allows.
func TestAppendRowFromWire(t *testing.T) {
	url, _, _ := databasetest.StartPostgres(t)
	db, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: url, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tests := []struct {
		name, sql string
		args      []any
		wire      bool
		want      string
	}{
		{"integers", "SELECT 0::int8 AS a, (-1)::int8 AS b, 9223372036854775807::int8 AS c, (-9223372036854775808)::int8 AS d, (-2147483648)::int4 AS e, 32767::int2 AS f, (-32768)::int2 AS g, 4294967295::oid AS h", nil, true,
			`{"columns":["a","b","c","d","e","f","g","h"],"rows":[[0,-1,9223372036854775807,-9223372036854775808,-2147483648,32767,-32768,4294967295]]}`},
		{"floats", "SELECT 0.25::float8 AS a, '-1e300'::float8 AS b, 'NaN'::float8 AS nan, 'Infinity'::float8 AS inf, '-Infinity'::float4 AS ninf, 1.5::float4 AS c, 0.1::float4 AS d", nil, true,
			`{"columns":["a","b","nan","inf","ninf","c","d"],"rows":[[0.25,-1e+300,null,null,null,1.5,0.10000000149011612]]}`},
		{"booleans", "SELECT true AS t, false AS f", nil, true, `{"columns":["t","f"],"rows":[[true,false]]}`},
		{"texts", "SELECT $1::text AS quoted, $2::text AS unicode, ''::text AS empty, 'abc'::varchar(5) AS v, 'ab'::char(4) AS c, 'pg'::name AS n", []any{"a \"b\" \\ c\n\t\x01</>", "Grâce 🐍"}, true,
			`{"columns":["quoted","unicode","empty","v","c","n"],"rows":[["a \"b\" \\ c\n\t\u0001</>","Grâce 🐍","","abc","ab  ","pg"]]}`},
		{"blobs", "SELECT '\\x00ff10'::bytea AS b, ''::bytea AS empty, NULL::bytea AS n, $1::bytea AS param", []any{[]byte("hi")}, true,
			`{"columns":["b","empty","n","param"],"blobs":[[0,0],[0,1],[0,3]],"rows":[["AP8Q","",null,"aGk="]]}`},
		{"nulls", "SELECT NULL::int8 AS a, NULL::int4 AS b, NULL::int2 AS c, NULL::bool AS d, NULL::float8 AS e, NULL::float4 AS f, NULL::text AS g, NULL::oid AS h", nil, true,
			`{"columns":["a","b","c","d","e","f","g","h"],"rows":[[null,null,null,null,null,null,null,null]]}`},
		{"several rows", "SELECT i AS id, 'user ' || i AS name, i % 2 = 0 AS even FROM generate_series(1, 3) AS i", nil, true,
			`{"columns":["id","name","even"],"rows":[[1,"user 1",false],[2,"user 2",true],[3,"user 3",false]]}`},
		{"more columns than kept inline", "SELECT 1 AS a, 2 AS b, 3 AS c, 4 AS d, 5 AS e, 6 AS f, 7 AS g, 8 AS h, 9 AS i, 'ten'::text AS j", nil, true,
			`{"columns":["a","b","c","d","e","f","g","h","i","j"],"rows":[[1,2,3,4,5,6,7,8,9,"ten"]]}`},
		{"a type not read from the wire", "SELECT 1::int8 AS id, 12.50::numeric(10,2) AS balance, '2026-01-02'::date AS day, '\\x01'::bytea AS b", nil, false,
			`{"columns":["id","balance","day","b"],"blobs":[[0,3]],"rows":[[1,"12.50","2026-01-02T00:00:00Z","AQ=="]]}`},
		{"no rows", "SELECT 1::int8 AS v WHERE false", nil, true, `{"columns":["v"],"rows":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got [2]string
			for i, wrap := range []func(database.Rows) database.Rows{func(r database.Rows) database.Rows { return r }, func(r database.Rows) database.Rows { return valuesOnly{r} }} {
				rs, err := db.Query(t.Context(), tt.sql, tt.args)
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := rs.(database.RowAppender); !ok {
					t.Fatalf("PostgreSQL rows are a %T, which does not append its rows itself", rs)
				}
				if wire := rs.(*rows).kinds != nil; wire != tt.wire {
					t.Errorf("read from the wire: %t, want %t", wire, tt.wire)
				}
				b, err := database.AppendQueryResult(nil, wrap(rs), 1<<20)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = string(b)
			}
			if got[0] != got[1] {
				t.Errorf("appended from the wire:\n%s\nthrough Values:\n%s", got[0], got[1])
			}
			if got[0] != tt.want {
				t.Errorf("got  %s\nwant %s", got[0], tt.want)
			}
		})
	}
}

// TestAppendWireRefusesABadLength: a value whose length is not its
// type's is an error naming both, not a misread number.
func TestAppendWireRefusesABadLength(t *testing.T) {
	for _, k := range []wireKind{wireInt8, wireInt4, wireInt2, wireOID, wireBool, wireFloat8, wireFloat4} {
		if _, err := appendWire(nil, k, []byte{1, 2, 3}); err == nil {
			t.Errorf("kind %d: 3 bytes accepted", k)
		}
	}
}

// undecodable is a result whose row pgx cannot decode.
type undecodable struct{ pgx.Rows }

func (undecodable) Values() ([]any, error) {
	return nil, errors.New("can't scan into dest[0]: cannot decode")
}

// TestValueReadErrorIsNotAnOutage: a value pgx cannot decode is the code
// other, saying what could not be read, not unavailable (which a handler
// answers 503, and which resets the pool): Values reads the row pgx has,
// without I/O.
func TestValueReadErrorIsNotAnOutage(t *testing.T) {
	_, err := (&rows{r: undecodable{}}).Values()
	if database.CodeOf(err) != database.CodeOther || !strings.Contains(err.Error(), "cannot decode") {
		t.Errorf("got %v, want the code other, saying what could not be read", err)
	}
}
