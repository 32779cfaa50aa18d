package database_test

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/internal/cputime"
)

// BenchmarkSQLitePooledMemory measures what closing a connection whose
// memory grew (database.SQLitePooledMemory) costs the statements that
// follow, which open a new one: "kept" pools every connection (as before
// the bound), "bounded" is the host's default, "new" opens a connection
// for every statement (the bound at 0: what a statement pays when the
// one before it grew its connection). A point SELECT on a schema of 20
// tables shows a new connection's cost against the statement it serves
// (the connection opened, set up, its schema read, the statement
// prepared again); a group_concat of 20 MB is a statement that grows its
// connection past the bound, against which the new connection's cost is
// small.
//
//	go test ./database -run '^$' -bench SQLitePooledMemory -benchtime 200x
func BenchmarkSQLitePooledMemory(b *testing.B) {
	statements := []struct{ name, sql string }{
		{"point select", "SELECT v FROM t0 WHERE id = 7"},
		{"group_concat of 20 MB", "SELECT length(group_concat(x, '')) FROM (SELECT printf('%.*c', 1048576, 'x') AS x FROM generate_series(1, 20))"},
	}
	bounds := []struct {
		name  string
		bytes int64
	}{
		{"kept", math.MaxInt64},
		{"bounded", database.SQLitePooledMemory},
		{"new", 0},
	}
	db, err := database.Open(b.Context(), database.DriverSQLite, database.Options{Path: filepath.Join(b.TempDir(), "bench.db"), MaxConns: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	for i := range 20 {
		for _, sql := range []string{
			fmt.Sprintf("CREATE TABLE t%d (id INTEGER PRIMARY KEY, v TEXT NOT NULL, n INTEGER, created TEXT DEFAULT CURRENT_TIMESTAMP)", i),
			fmt.Sprintf("CREATE INDEX t%d_v ON t%d (v)", i, i),
			fmt.Sprintf("INSERT INTO t%d (v, n) SELECT printf('v%%d', value), value FROM generate_series(1, 100)", i),
		} {
			if _, err := db.Exec(b.Context(), sql, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, st := range statements {
		for _, bound := range bounds {
			b.Run(st.name+"/"+bound.name, func(b *testing.B) {
				database.SetPooledMemory(b, bound.bytes)
				run := func() {
					rows, err := db.Query(b.Context(), st.sql, nil)
					if err != nil {
						b.Fatal(err)
					}
					for rows.Next() {
					}
					if err := rows.Close(); err != nil {
						b.Fatal(err)
					}
				}
				run() // the connection as the bound leaves it
				b.ReportAllocs()
				defer cputime.Report(b)()
				for b.Loop() {
					run()
				}
			})
		}
	}
}
