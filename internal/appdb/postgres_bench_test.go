package appdb_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	_ "github.com/wasmendpoints/endpoints/database/postgres"
	"github.com/wasmendpoints/endpoints/internal/appdb"
	"github.com/wasmendpoints/endpoints/internal/cputime"
)

// BenchmarkPostgresRead splits what a PostgreSQL read costs the host into
// the layers it passes, side by side on one server the benchmark starts:
//
//   - pgx: pgxpool's QueryRow and Scan (rows.Next and Scan for many rows)
//     into typed variables, the fastest idiomatic use of the library: the
//     round trip, the server and pgx's own work;
//   - pgx-deadline: the same under a context with a deadline, which pgx
//     watches to cancel the statement in the server (as the host's
//     statements are): what that watch costs;
//   - driver: the database/postgres driver's Query, as the host calls it,
//     and AppendQueryResult making the guest's JSON;
//   - session: appdb's Session.Run, what a guest's db_query costs the host
//     (parameters decoded from JSON, the statement's context, the result);
//   - session-unix: the same over the server's Unix socket instead of
//     TCP on loopback (a url with host=/path/to/socket/dir).
//
// for a point query (one row) and a query of 50 rows. cpu-ns/op is the
// host process's CPU alone (the server is another process): the part
// that is ours; server-cpu-ns/op is the CPU of the server's backends
// (Linux, from /proc/PID/schedstat); the rest of ns/op is waiting: for
// the network and for the processes to be woken and scheduled. Each runs the statement a few times first, so
// that every connection has it prepared.
//
//	go test ./internal/appdb -run '^$' -bench PostgresRead -benchtime 5000x
func BenchmarkPostgresRead(b *testing.B) {
	url, _, _ := databasetest.StartPostgres(b)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	var seed strings.Builder
	seed.WriteString("CREATE TABLE users (id BIGINT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL); INSERT INTO users VALUES ")
	for i := 1; i <= 100; i++ {
		if i > 1 {
			seed.WriteByte(',')
		}
		fmt.Fprintf(&seed, "(%d, 'User %d', 'user%d@example.com')", i, i, i)
	}
	if _, err := pool.Exec(ctx, seed.String()); err != nil {
		b.Fatal(err)
	}
	unixURL, ok := databasetest.PostgresUnixURL(url)
	if !ok {
		b.Fatalf("no Unix socket URL for %s", url)
	}
	set := appdb.New(b.TempDir(), map[string]config.Database{
		"main": {Driver: config.DatabasePostgres, URL: url},
		"unix": {Driver: config.DatabasePostgres, URL: unixURL},
	})
	defer set.Close()
	db, err := set.DB(ctx, "main")
	if err != nil {
		b.Fatal(err)
	}
	queries := []struct {
		name, sql string
		arg       int64
		rows      int
	}{
		{"1row", "SELECT id, name, email FROM users WHERE id = $1", 2, 1},
		{"50rows", "SELECT id, name, email FROM users WHERE id > $1 ORDER BY id LIMIT 50", 10, 50},
	}
	for _, q := range queries {
		// newPgxRun is one read through pgx.
		newPgxRun := func(b *testing.B, deadline bool) func() {
			var (
				id          int64
				name, email string
			)
			return func() {
				ctx := ctx
				if deadline {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, time.Minute)
					defer cancel()
				}
				if q.rows == 1 {
					if err := pool.QueryRow(ctx, q.sql, q.arg).Scan(&id, &name, &email); err != nil {
						b.Fatal(err)
					}
					return
				}
				rows, err := pool.Query(ctx, q.sql, q.arg)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for rows.Next() {
					if err := rows.Scan(&id, &name, &email); err != nil {
						b.Fatal(err)
					}
					n++
				}
				if rows.Err() != nil || n != q.rows {
					b.Fatalf("%d rows, %v", n, rows.Err())
				}
			}
		}
		pgxRun := func(b *testing.B, deadline bool) {
			run := newPgxRun(b, deadline)
			run()
			b.ReportAllocs()
			defer cputime.Report(b)()
			defer reportServerCPU(b, pool)()
			for b.Loop() {
				run()
			}
		}
		b.Run(q.name+"/pgx", func(b *testing.B) { pgxRun(b, false) })
		b.Run(q.name+"/pgx-deadline", func(b *testing.B) { pgxRun(b, true) })
		b.Run(q.name+"/driver", func(b *testing.B) {
			var out []byte
			args := []any{q.arg}
			run := func() {
				// The host's statement context has a deadline.
				ctx, cancel := context.WithTimeout(ctx, time.Minute)
				defer cancel()
				rows, err := db.Query(ctx, q.sql, args)
				if err != nil {
					b.Fatal(err)
				}
				if out, err = database.AppendQueryResult(out[:0], rows, 1<<20); err != nil {
					b.Fatal(err)
				}
			}
			run()
			if n := strings.Count(string(out), "@example.com"); n != q.rows {
				b.Fatalf("%d rows: %s", n, out)
			}
			b.ReportAllocs()
			defer cputime.Report(b)()
			defer reportServerCPU(b, pool)()
			for b.Loop() {
				run()
			}
		})
		// newSessionRun is one read through a session on database,
		// checked once.
		newSessionRun := func(b *testing.B, database string) func() {
			s := appdb.NewSession(set, ctx, time.Now().Add(time.Hour), 1<<20, appdb.Hooks{})
			name, sql, params := []byte(database), []byte(q.sql), fmt.Appendf(nil, "[%d]", q.arg)
			if _, e := s.Run(name, sql, params, false); e != 0 {
				r, _ := s.Result()
				b.Fatalf("%d %s", e, r)
			}
			if r, _ := s.Result(); strings.Count(string(r), "@example.com") != q.rows {
				b.Fatalf("want %d rows: %s", q.rows, r)
			}
			return func() {
				if _, e := s.Run(name, sql, params, false); e != 0 {
					b.Fatal(e)
				}
			}
		}
		session := func(b *testing.B, database string) {
			run := newSessionRun(b, database)
			b.ReportAllocs()
			defer cputime.Report(b)()
			defer reportServerCPU(b, pool)()
			for b.Loop() {
				run()
			}
		}
		b.Run(q.name+"/session", func(b *testing.B) { session(b, "main") })
		b.Run(q.name+"/session-unix", func(b *testing.B) { session(b, "unix") })
		// pgx under a deadline and the session, TCP and Unix socket,
		// one read of each in turn (in an order that rotates), so that
		// the machine's other load weighs on them alike: each one's
		// wall and CPU time per read, and the session's over pgx's.
		b.Run(q.name+"/interleaved", func(b *testing.B) {
			names := []string{"pgx-deadline", "session", "session-unix"}
			runs := []func(){newPgxRun(b, true), newSessionRun(b, "main"), newSessionRun(b, "unix")}
			var wall, cpu [3]time.Duration
			i := 0
			for b.Loop() {
				for k := range runs {
					j := (i + k) % len(runs)
					c, t := cputime.Process(), time.Now()
					runs[j]()
					wall[j] += time.Since(t)
					cpu[j] += cputime.Process() - c
				}
				i++
			}
			for j, n := range names {
				b.ReportMetric(float64(wall[j])/float64(b.N), n+"-ns/op")
				b.ReportMetric(float64(cpu[j])/float64(b.N), n+"-cpu-ns/op")
			}
			b.ReportMetric(float64(wall[1])/float64(wall[0]), "session/pgx")
			b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "session/pgx-cpu")
			b.ReportMetric(float64(wall[2])/float64(wall[1]), "unix/tcp")
			b.ReportMetric(float64(cpu[2])/float64(cpu[1]), "unix/tcp-cpu")
		})
	}
	// The point query from as many goroutines as GOMAXPROCS, as
	// concurrent requests run it: each takes a connection of the pool.
	const point = "SELECT id, name, email FROM users WHERE id = $1"
	parallel := func(b *testing.B, newRun func() func() error) {
		// Every goroutine's connection is open before the count starts.
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				run := newRun()
				for range 50 {
					if err := run(); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		b.ReportAllocs()
		defer cputime.Report(b)()
		defer reportServerCPU(b, pool)()
		b.RunParallel(func(pb *testing.PB) {
			run := newRun()
			for pb.Next() {
				if err := run(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.Run("1row-parallel/pgx-deadline", func(b *testing.B) {
		parallel(b, func() func() error {
			var (
				id          int64
				name, email string
			)
			return func() error {
				ctx, cancel := context.WithTimeout(ctx, time.Minute)
				defer cancel()
				return pool.QueryRow(ctx, point, int64(2)).Scan(&id, &name, &email)
			}
		})
	})
	b.Run("1row-parallel/session", func(b *testing.B) {
		parallel(b, func() func() error {
			s := appdb.NewSession(set, ctx, time.Now().Add(time.Hour), 1<<20, appdb.Hooks{})
			name, sql, params := []byte("main"), []byte(point), []byte("[2]")
			return func() error {
				if _, e := s.Run(name, sql, params, false); e != 0 {
					r, _ := s.Result()
					return fmt.Errorf("errno %d: %s", e, r)
				}
				return nil
			}
		})
	})
}

// BenchmarkPostgresTransaction is a guest's transaction on PostgreSQL
// through a session, as the db_* host functions run it, on a server it
// starts: db_begin, then a point query ("1 statement") or a point query
// and an update ("2 statements"), then db_commit; and "empty", db_begin
// and db_commit alone. BEGIN goes with the first statement, in one round
// trip (TestPostgresOneRoundTripPerStatement counts them): 2, 3 and 0
// round trips. Its metrics are BenchmarkPostgresRead's.
//
//	go test ./internal/appdb -run '^$' -bench PostgresTransaction -benchtime 2000x
func BenchmarkPostgresTransaction(b *testing.B) {
	url, _, _ := databasetest.StartPostgres(b)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, "CREATE TABLE users (id BIGINT PRIMARY KEY, name TEXT NOT NULL, seen BIGINT NOT NULL DEFAULT 0); INSERT INTO users (id, name) VALUES (1, 'Ada'), (2, 'Grace')"); err != nil {
		b.Fatal(err)
	}
	set := appdb.New(b.TempDir(), map[string]config.Database{"main": {Driver: config.DatabasePostgres, URL: url}})
	defer set.Close()
	main := []byte("main")
	statements := []struct{ sql, params []byte }{
		{[]byte("SELECT id, name, seen FROM users WHERE id = $1"), []byte("[2]")},
		{[]byte("UPDATE users SET seen = seen + 1 WHERE id = $1"), []byte("[2]")},
	}
	for _, tt := range []struct {
		name       string
		statements int
	}{
		{"empty", 0},
		{"1statement", 1},
		{"2statements", 2},
	} {
		b.Run(tt.name, func(b *testing.B) {
			s := appdb.NewSession(set, ctx, time.Now().Add(time.Hour), 1<<20, appdb.Hooks{})
			fail := func(what string, e abi.Errno) {
				r, _ := s.Result()
				b.Fatalf("%s: errno %d: %s", what, e, r)
			}
			run := func() {
				if e := s.Begin(main); e != 0 {
					fail("begin", e)
				}
				for i, st := range statements[:tt.statements] {
					if _, e := s.Run(main, st.sql, st.params, i > 0); e != 0 {
						fail(string(st.sql), e)
					}
				}
				if e := s.End(main, true); e != 0 {
					fail("commit", e)
				}
			}
			// The first run prepares the statements on the connection.
			run()
			b.ReportAllocs()
			defer cputime.Report(b)()
			defer reportServerCPU(b, pool)()
			for b.Loop() {
				run()
			}
		})
	}
}

// reportServerCPU starts counting the CPU time of the server's client
// backends (those open now, listed through pool); the function it returns
// reports it per operation of b as server-cpu-ns/op. Where
// /proc/PID/schedstat cannot be read (not Linux), it reports nothing.
func reportServerCPU(b *testing.B, pool *pgxpool.Pool) func() {
	rows, err := pool.Query(context.Background(), "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend'")
	if err != nil {
		b.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		b.Fatal(err)
	}
	total := func() (time.Duration, bool) {
		var sum time.Duration
		for _, pid := range pids {
			ns := backendCPU(pid)
			if ns < 0 {
				return 0, false
			}
			sum += ns
		}
		return sum, true
	}
	start, ok := total()
	return func() {
		if end, ok2 := total(); ok && ok2 {
			b.ReportMetric(float64(end-start)/float64(b.N), "server-cpu-ns/op")
		}
	}
}

// backendCPU is the CPU time the server's process pid (a backend) has
// had, from /proc/PID/schedstat (Linux); -1 when it cannot be read.
func backendCPU(pid int32) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
	if err != nil {
		return -1
	}
	// The first field is the time on a CPU, in nanoseconds.
	f, _, _ := strings.Cut(string(data), " ")
	ns, err := strconv.ParseInt(f, 10, 64)
	if err != nil {
		return -1
	}
	return time.Duration(ns)
}
