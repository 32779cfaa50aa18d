package database

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// BenchmarkSQLiteFuncs compares SQLite's own instr, replace, trim and
// REGEXP (sqlite-ns/stmt) with the host's (host-ns/stmt) on the same
// statement over 1000 rows of 40 to 280 bytes of text, run in turn, and
// reports the ratio (host/sqlite): the cost of the calls into Go on the
// ordinary path. "scan", with no function, is what the rest costs.
func BenchmarkSQLiteFuncs(b *testing.B) {
	open := func(b *testing.B, host bool) *sqlite3.Conn {
		conn, err := sqlite3.Open(":memory:")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { conn.Close() })
		if host {
			c := &sqliteConn{conn: conn}
			if err := c.defineStringFuncs(); err != nil {
				b.Fatal(err)
			}
			if err := c.defineRegexp(); err != nil {
				b.Fatal(err)
			}
		}
		if err := conn.Exec("CREATE TABLE notes (body TEXT)"); err != nil {
			b.Fatal(err)
		}
		stmt, _, err := conn.Prepare("INSERT INTO notes VALUES (?)")
		if err != nil {
			b.Fatal(err)
		}
		defer stmt.Close()
		for i := range 1000 {
			body := fmt.Sprintf("  note %d: %s about the café, tagged x%d  ", i, strings.Repeat("words ", i%40), i%7)
			if err := stmt.BindText(1, body); err != nil {
				b.Fatal(err)
			}
			if err := stmt.Exec(); err != nil {
				b.Fatal(err)
			}
		}
		return conn
	}
	for _, c := range []struct{ name, sql string }{
		{"scan", "SELECT sum(length(body)) FROM notes"}, // no function: the rest
		{"instr", "SELECT count(*) FROM notes WHERE instr(body, 'tagged x3') > 0"},
		{"replace", "SELECT sum(length(replace(body, 'words', 'w'))) FROM notes"},
		{"trim", "SELECT sum(length(trim(body, ' x'))) FROM notes"},
		{"regexp", "SELECT count(*) FROM notes WHERE body REGEXP 'caf. , tagged x[34]'"},
	} {
		b.Run(c.name, func(b *testing.B) {
			var stmts [2]*sqlite3.Stmt
			for i, host := range []bool{false, true} {
				stmt, _, err := open(b, host).Prepare(c.sql)
				if err != nil {
					b.Fatal(err)
				}
				defer stmt.Close()
				stmts[i] = stmt
			}
			// The two in turn, each first every other time, so that a machine's
			// load falls on both.
			var took [2]time.Duration
			for n := 0; b.Loop(); n++ {
				var answer [2]int64
				for k := range stmts {
					i := (k + n) % 2 // each first every other time
					stmt := stmts[i]
					start := time.Now()
					if !stmt.Step() {
						b.Fatal(stmt.Err())
					}
					answer[i] = stmt.ColumnInt64(0)
					if err := stmt.Reset(); err != nil {
						b.Fatal(err)
					}
					took[i] += time.Since(start)
				}
				if answer[0] != answer[1] {
					b.Fatalf("SQLite's own answered %d, the host's %d", answer[0], answer[1])
				}
			}
			b.ReportMetric(float64(took[0].Nanoseconds())/float64(b.N), "sqlite-ns/stmt")
			b.ReportMetric(float64(took[1].Nanoseconds())/float64(b.N), "host-ns/stmt")
			b.ReportMetric(float64(took[1])/float64(took[0]), "host/sqlite")
		})
	}
}
