package postgres_test

import (
	"net"
	"net/url"
	"sync"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
)

// exchangeCounter is a loopback TCP proxy in front of a server that
// counts exchanges: the times the client sends after the server last
// answered, one per round trip however the bytes are split.
type exchangeCounter struct {
	l net.Listener

	mu        sync.Mutex
	exchanges int
	answered  bool // the server sent since the client last did
}

// newExchangeCounter proxies to addr until t's test ends.
func newExchangeCounter(t *testing.T, addr string) *exchangeCounter {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &exchangeCounter{l: l, answered: true}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			wg.Add(2)
			go func() { defer wg.Done(); p.copy(s, c, true); s.Close() }()
			go func() { defer wg.Done(); p.copy(c, s, false); c.Close() }()
		}
	}()
	return p
}

// copy copies src to dst, counting an exchange when the client sends
// after an answer.
func (p *exchangeCounter) copy(dst, src net.Conn, fromClient bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			if fromClient && p.answered {
				p.exchanges++
			}
			p.answered = !fromClient
			p.mu.Unlock()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// count is the number of exchanges so far.
func (p *exchangeCounter) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exchanges
}

// TestPostgresOneRoundTripPerStatement: once a connection has prepared
// a statement, running it again is one round trip to the server, query
// or exec, in a transaction or not: no statement_timeout SET, no
// separate prepare or describe. A transaction's BEGIN goes with its
// first statement, in the same round trip, and its COMMIT or ROLLBACK
// adds one; a transaction that ran no statement costs none.
func TestPostgresOneRoundTripPerStatement(t *testing.T) {
	raw, _, _ := databasetest.StartPostgres(t)
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newExchangeCounter(t, u.Host)
	u.Host = proxy.l.Addr().String()
	db, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: u.String(), MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := t.Context()
	if _, err := db.Exec(ctx, "CREATE TABLE users (id bigint PRIMARY KEY, name text NOT NULL)", nil); err != nil {
		t.Fatal(err)
	}
	query := func(q database.Querier) error {
		rows, err := q.Query(ctx, "SELECT id, name FROM users WHERE id = $1", []any{int64(1)})
		if err != nil {
			return err
		}
		_, err = database.AppendQueryResult(nil, rows, 1<<20)
		return err
	}
	exec := func(q database.Querier) error {
		_, err := q.Exec(ctx, "INSERT INTO users (id, name) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET name = excluded.name", []any{int64(1), "Ada"})
		return err
	}
	// inTx runs each of runs in a transaction, which it commits (or
	// rolls back).
	inTx := func(commit bool, runs ...func(database.Querier) error) func(database.Querier) error {
		return func(database.Querier) error {
			tx, err := db.Begin(ctx, database.TxOptions{})
			if err != nil {
				return err
			}
			defer tx.Rollback(ctx)
			for _, run := range runs {
				if err := run(tx); err != nil {
					return err
				}
			}
			if !commit {
				return tx.Rollback(ctx)
			}
			return tx.Commit(ctx)
		}
	}
	tests := []struct {
		name string
		run  func(database.Querier) error
		want int
	}{
		{"query", query, 1},
		{"exec", exec, 1},
		{"query in a transaction", inTx(true, query), 2},
		{"exec in a transaction", inTx(true, exec), 2},
		{"query and exec in a transaction", inTx(true, query, exec), 3},
		{"exec and query in a transaction rolled back", inTx(false, exec, query), 3},
		{"a transaction without statements committed", inTx(true), 0},
		{"a transaction without statements rolled back", inTx(false), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The first run prepares the statement on the connection.
			if err := tt.run(db); err != nil {
				t.Fatal(err)
			}
			// pgxpool pings a connection idle for over a second
			// before handing it out: a machine busy enough to pause
			// the test that long adds a round trip, and the count is
			// taken again; one that runs more each time is off every
			// time.
			const runs = 5
			got := 0
			for range 3 {
				before := proxy.count()
				for range runs {
					if err := tt.run(db); err != nil {
						t.Fatal(err)
					}
				}
				if got = proxy.count() - before; got == runs*tt.want {
					return
				}
			}
			t.Errorf("%d round trips for %d runs, want %d each", got, runs, tt.want)
		})
	}
}
