package database_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
)

// manyParamsSQL is a statement of n parameters, each written as mark(i)
// (i from 1): SELECT count(*), sum(column1) FROM (VALUES ($1),($2),...).
func manyParamsSQL(n int, mark func(i int) string) string {
	var b strings.Builder
	b.WriteString("SELECT count(*), sum(column1) FROM (VALUES ")
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		b.WriteString("(" + mark(i) + ")")
	}
	b.WriteString(")")
	return b.String()
}

// BenchmarkSQLiteManyParameters runs a statement of 1000 and of 16000
// parameters on SQLite, written "?" (numbered by position) and "$N" (by
// number, as PostgreSQL writes them and the SDKs' examples do), side by
// side: a statement's time grows with its parameters the same way
// whichever way it writes them. SQLite looks a named parameter ($N) up in
// the list of those seen before, which is quadratic in their count, unless
// the host writes them as ?N first: before it did, 16000 $N took 210
// times as long as 16000 ? (10.9 s against 52 ms, on a loaded machine),
// after about as long (66 ms against 47 ms, in one run).
//
//	go test ./database -run '^$' -bench SQLiteManyParameters -benchtime 5x
func BenchmarkSQLiteManyParameters(b *testing.B) {
	db, err := database.Open(b.Context(), database.DriverSQLite, database.Options{Path: filepath.Join(b.TempDir(), "bench.db"), MaxConns: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if _, err := db.Exec(b.Context(), "SELECT 1", nil); err != nil { // the connection opened before the first
		b.Fatal(err)
	}
	for _, n := range []int{1000, 16000} {
		args := make([]any, n)
		for i := range args {
			args[i] = int64(i)
		}
		for _, style := range []struct {
			name string
			mark func(i int) string
		}{
			{"?", func(int) string { return "?" }},
			{"$N", func(i int) string { return "$" + strconv.Itoa(i) }},
		} {
			sql := manyParamsSQL(n, style.mark)
			b.Run(strconv.Itoa(n)+"/"+style.name, func(b *testing.B) {
				for b.Loop() {
					rows, err := db.Query(b.Context(), sql, args)
					if err != nil {
						b.Fatal(err)
					}
					for rows.Next() {
					}
					if err := rows.Close(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
