package appdb_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/internal/cputime"
)

// resetStatements reset what DISCARD ALL resets of a session but its
// prepared statements: the role, every setting (to its value at connect,
// the host's statement_timeout too), cursors, LISTEN, session-level
// advisory locks, temporary tables and sequences' state.
var resetStatements = []string{"SET SESSION AUTHORIZATION DEFAULT", "RESET ALL", "CLOSE ALL", "UNLISTEN *", "SELECT pg_advisory_unlock_all()", "DISCARD TEMP", "DISCARD SEQUENCES"}

// BenchmarkPostgresSessionReset is what resetting a connection's session
// after each statement would cost a point query (what a function, view
// or trigger of the app's may leave in the session, which the driver
// does not see: abi/README.md §4.5), each way side by side, one read of
// each in turn (in an order that rotates) on one server, each on a pool
// of its own:
//
//   - none: the read alone, as the driver runs it;
//   - reset: the read, then sessionReset on its connection before it is
//     given back (a round trip more; pgxpool's AfterRelease would run
//     it after the call, costing the same CPU and holding the connection
//     as long, though the call does not wait for it);
//   - reset-batched: sessionReset's statements and the read in one pgx
//     batch, one round trip (the reset sent ahead of a connection's next
//     statement rather than after its last);
//   - discard-all: the read, then DISCARD ALL, which drops the prepared
//     statements too, so that every read describes its statement again
//     (pgx's describe_exec: the round trip that preparing takes).
//
// Each reports its wall time, the host's CPU and the server's CPU (its
// pool's backends, from /proc/PID/schedstat) per read, and its wall and
// total CPU over none's.
//
//	go test ./internal/appdb -run '^$' -bench PostgresSessionReset -benchtime 3000x
func BenchmarkPostgresSessionReset(b *testing.B) {
	url, _, _ := databasetest.StartPostgres(b)
	ctx := context.Background()
	setup, err := pgxpool.New(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer setup.Close()
	if _, err := setup.Exec(ctx, "CREATE TABLE users (id BIGINT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL); INSERT INTO users SELECT i, 'User ' || i, 'user' || i || '@example.com' FROM generate_series(1, 100) i"); err != nil {
		b.Fatal(err)
	}
	const point = "SELECT id, name, email FROM users WHERE id = $1"
	// One simple query: one round trip.
	sessionReset := strings.Join(resetStatements, "; ")
	type way struct {
		name string
		read func(ctx context.Context, c *pgxpool.Conn) error
		pool *pgxpool.Pool
	}
	var (
		id          int64
		name, email string
	)
	ways := []*way{
		{name: "none", read: func(ctx context.Context, c *pgxpool.Conn) error {
			return c.QueryRow(ctx, point, int64(2)).Scan(&id, &name, &email)
		}},
		{name: "reset", read: func(ctx context.Context, c *pgxpool.Conn) error {
			if err := c.QueryRow(ctx, point, int64(2)).Scan(&id, &name, &email); err != nil {
				return err
			}
			_, err := c.Exec(ctx, sessionReset)
			return err
		}},
		{name: "reset-batched", read: func(ctx context.Context, c *pgxpool.Conn) error {
			batch := &pgx.Batch{}
			for _, s := range resetStatements {
				batch.Queue(s)
			}
			batch.Queue(point, int64(2)).QueryRow(func(r pgx.Row) error { return r.Scan(&id, &name, &email) })
			return c.SendBatch(ctx, batch).Close()
		}},
		{name: "discard-all", read: func(ctx context.Context, c *pgxpool.Conn) error {
			if err := c.QueryRow(ctx, point, pgx.QueryExecModeDescribeExec, int64(2)).Scan(&id, &name, &email); err != nil {
				return err
			}
			_, err := c.Exec(ctx, "DISCARD ALL")
			return err
		}},
	}
	for _, w := range ways {
		cfg, err := pgxpool.ParseConfig(url)
		if err != nil {
			b.Fatal(err)
		}
		cfg.MaxConns = 1
		if w.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
			b.Fatal(err)
		}
		defer w.pool.Close()
	}
	run := func(w *way) error {
		// The host's statements run under a deadline.
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		c, err := w.pool.Acquire(ctx)
		if err != nil {
			return err
		}
		defer c.Release()
		return w.read(ctx, c)
	}
	// Each pool's one connection is open, its statement prepared, and
	// its backend known.
	pids := make([]int32, len(ways))
	for i, w := range ways {
		for range 20 {
			if err := run(w); err != nil {
				b.Fatalf("%s: %v", w.name, err)
			}
		}
		if err := w.pool.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pids[i]); err != nil {
			b.Fatal(err)
		}
		if backendCPU(pids[i]) < 0 {
			b.Skipf("the server's CPU time is not readable from /proc/%d/schedstat", pids[i])
		}
	}
	wall := make([]time.Duration, len(ways))
	cpu := make([]time.Duration, len(ways))
	server := make([]time.Duration, len(ways))
	i := 0
	for b.Loop() {
		for k := range ways {
			j := (i + k) % len(ways)
			s, c, t := backendCPU(pids[j]), cputime.Process(), time.Now()
			if err := run(ways[j]); err != nil {
				b.Fatalf("%s: %v", ways[j].name, err)
			}
			wall[j] += time.Since(t)
			cpu[j] += cputime.Process() - c
			server[j] += backendCPU(pids[j]) - s
		}
		i++
	}
	for j, w := range ways {
		b.ReportMetric(float64(wall[j])/float64(b.N), w.name+"-ns/op")
		b.ReportMetric(float64(cpu[j])/float64(b.N), w.name+"-cpu-ns/op")
		b.ReportMetric(float64(server[j])/float64(b.N), w.name+"-server-cpu-ns/op")
		if j > 0 {
			b.ReportMetric(float64(wall[j])/float64(wall[0]), w.name+"/none")
			b.ReportMetric(float64(cpu[j]+server[j])/float64(cpu[0]+server[0]), w.name+"/none-cpu")
		}
	}
}
