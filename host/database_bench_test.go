package host_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// usersMigration is the table the SQL guest of BenchmarkUsersGetDatabase
// reads, as examples/users's first migration makes it.
const usersMigration = `CREATE TABLE users (id BIGINT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL);
INSERT INTO users (id, name, email) VALUES (1, 'Ada Lovelace', 'ada@example.com'), (2, 'Grace Hopper', 'grace@example.com'), (3, 'Alan Turing', 'alan@example.com');
`

// BenchmarkUsersGetDatabase compares GET /api/users/2 read from the
// key-value store (memory) with the same read from the database: SQLite,
// and PostgreSQL on a server the benchmark starts. The KV guest
// (testdata/guests/user-kv.get) answers the stored JSON as it is; the SQL
// guest (user-sql.get) scans the row into a struct and encodes it, as a
// handler of the example does; the sqlite-json guest (user-sqljson.get)
// has SQLite make the JSON and answers it as it came, as the KV guest
// does, so that it differs from the KV path in the read alone. It reports
// each variant's requests per second through ServeHTTP and their ratios
// to the KV path, and the CPU time per request of the KV and SQLite paths
// and their ratios (sqlite/kv-cpu, sqlite-json/kv-cpu), which a busy
// machine does not skew. Then the KV and SQLite paths again as users see
// them, over loopback HTTP with keep-alive connections as
// BenchmarkUsersGetHTTP does, interleaved in rounds: their rates, CPU
// times (server and client, the client's share the same for all) and
// ratios (http-sqlite/kv, http-sqlite/kv-cpu, http-sqlite-json/kv, ...).
//
//	go test ./host -run '^$' -bench UsersGetDatabase -benchtime 20000x
func BenchmarkUsersGetDatabase(b *testing.B) {
	kvWasm, sqlWasm, sqlJSONWasm := buildUserGuest(b, "user-kv.get"), buildUserGuest(b, "user-sql.get"), buildUserGuest(b, "user-sqljson.get")
	app := func(wasm string, migration bool) string { return userApp(b, wasm, migration) }
	pgURL, _, _ := databasetest.StartPostgres(b)
	variants := []struct {
		name      string
		dir       string
		overrides []config.Override
	}{
		{"kv", app(kvWasm, false), nil},
		{"sqlite", app(sqlWasm, true), nil},
		{"postgres", app(sqlWasm, true), onPostgres(pgURL)},
		{"sqlite-json", app(sqlJSONWasm, true), nil},
	}
	var vs []variant
	for _, v := range variants {
		h, err := host.New(b.Context(), v.dir, host.Options{Mode: host.Production, CacheDir: testCacheDir(b), Logger: discardLogger(), ConfigOverrides: v.overrides})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { h.Close(context.Background()) })
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/users/2", nil))
		if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte("Grace Hopper")) {
			b.Fatalf("%s: GET /api/users/2 = %d %s", v.name, rec.Code, rec.Body)
		}
		vs = append(vs, variant{v.name, h})
	}
	req := httptest.NewRequest("GET", "/api/users/2", nil)
	rates, cpu := interleaveCPU(b, len(vs), runtime.GOMAXPROCS(0), func(i int) error {
		rec := httptest.NewRecorder()
		vs[i].handler.ServeHTTP(rec, req.WithContext(req.Context()))
		if rec.Code != 200 {
			return fmt.Errorf("%s: status %d", vs[i].name, rec.Code)
		}
		return nil
	})
	// Over loopback HTTP, the KV and SQLite paths only: PostgreSQL's
	// server is another process, whose CPU time is not counted.
	// interleaveCPU resets the timer, which clears the metrics reported
	// so far, so all are reported once both have run.
	httpRates, httpCPU := usersGetOverHTTP(b, []variant{vs[0], vs[1], vs[3]})
	reportRates(b, rates, vs)
	// SQLite runs in the process, so its CPU time per request is its
	// whole cost (PostgreSQL's server is another process): the ratio of
	// the two paths' CPU times reads the same on a busy machine.
	b.ReportMetric(float64(cpu[0].Nanoseconds()), "kv-cpu-ns/req")
	b.ReportMetric(float64(cpu[1].Nanoseconds()), "sqlite-cpu-ns/req")
	b.ReportMetric(float64(cpu[0])/float64(cpu[1]), "sqlite/kv-cpu")
	b.ReportMetric(float64(cpu[3].Nanoseconds()), "sqlite-json-cpu-ns/req")
	b.ReportMetric(float64(cpu[0])/float64(cpu[3]), "sqlite-json/kv-cpu")
	b.ReportMetric(httpRates[0], "http-kv-req/s")
	b.ReportMetric(httpRates[1], "http-sqlite-req/s")
	b.ReportMetric(httpRates[1]/httpRates[0], "http-sqlite/kv")
	b.ReportMetric(float64(httpCPU[0].Nanoseconds()), "http-kv-cpu-ns/req")
	b.ReportMetric(float64(httpCPU[1].Nanoseconds()), "http-sqlite-cpu-ns/req")
	b.ReportMetric(float64(httpCPU[0])/float64(httpCPU[1]), "http-sqlite/kv-cpu")
	b.ReportMetric(httpRates[2], "http-sqlite-json-req/s")
	b.ReportMetric(httpRates[2]/httpRates[0], "http-sqlite-json/kv")
	b.ReportMetric(float64(httpCPU[0])/float64(httpCPU[2]), "http-sqlite-json/kv-cpu")
}

// usersGetOverHTTP serves the variants overHTTP on loopback HTTP servers
// and measures GET /api/users/2 with keep-alive connections, four per
// core, interleaved: each one's requests per second and CPU time per
// request (server and client). BenchmarkUsersGetHTTP and
// BenchmarkUsersGetDatabase use it.
func usersGetOverHTTP(b *testing.B, overHTTP []variant) (rates []float64, cpu []time.Duration) {
	workers := 4 * runtime.GOMAXPROCS(0)
	urls := make([]string, len(overHTTP))
	clients := make([]*http.Client, len(overHTTP))
	for i, v := range overHTTP {
		srv := httptest.NewServer(v.handler)
		b.Cleanup(srv.Close)
		tr := &http.Transport{MaxIdleConnsPerHost: workers, MaxConnsPerHost: workers}
		b.Cleanup(tr.CloseIdleConnections)
		urls[i], clients[i] = srv.URL+"/api/users/2", &http.Client{Transport: tr}
	}
	return interleaveCPU(b, len(overHTTP), workers, func(i int) error {
		res, err := clients[i].Get(urls[i])
		if err != nil {
			return err
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			return fmt.Errorf("%s over HTTP: status %d", overHTTP[i].name, res.StatusCode)
		}
		return nil
	})
}

// buildUserGuest builds the guest testdata/guests/name and returns the
// module's path.
func buildUserGuest(b *testing.B, name string) string {
	out := filepath.Join(b.TempDir(), name+".wasm")
	if err := guestbuild.Go(context.Background(), filepath.Join("testdata", "guests", name), out); err != nil {
		b.Fatal(err)
	}
	return out
}

// userApp is an app serving GET /api/users/:id with the module at wasm,
// with the users table of usersMigration when migration is set.
func userApp(b *testing.B, wasm string, migration bool) string {
	dir := b.TempDir()
	write := func(rel string, data []byte) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	module, err := os.ReadFile(wasm)
	if err != nil {
		b.Fatal(err)
	}
	write("server/api/users/[id].get.wasm", module)
	if migration {
		write("server/migrations/001-users.sql", []byte(usersMigration))
	}
	return dir
}

// BenchmarkUsersGetDatabaseBeside splits what BenchmarkUsersGetDatabase's
// SQLite path costs beyond the KV path. Interleaved, one goroutine, CPU
// time per iteration: kv, the KV guest's GET /api/users/2 through
// ServeHTTP; read, the same SQLite read the SQL guest makes, done by the
// host's database package directly (a prepared statement from its cache,
// the result appended as JSON for a guest, as appdb's Session does);
// kv+read, the two one after the other; sqlite and sqlite-json, the
// guests of BenchmarkUsersGetDatabase that read through SQLite. So
// beside-ns (kv+read less kv and read) is what the two cost more side by
// side than apart, each slowing the other (caches: no allocation or
// goroutine is added), and sqlite less kv+read what the SQL guest's
// own database path costs (its query sent, its result parsed and
// scanned, the struct encoded; the host function's bookkeeping).
//
//	go test ./host -run '^$' -bench UsersGetDatabaseBeside -benchtime 20000x
func BenchmarkUsersGetDatabaseBeside(b *testing.B) {
	serving := func(wasm string, migration bool) *host.Host {
		h, err := host.New(b.Context(), userApp(b, wasm, migration), host.Options{Mode: host.Production, CacheDir: testCacheDir(b), Logger: discardLogger()})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { h.Close(context.Background()) })
		if err := h.WaitCompiled(context.Background()); err != nil {
			b.Fatal(err)
		}
		return h
	}
	kv := serving(buildUserGuest(b, "user-kv.get"), false)
	sqlite := serving(buildUserGuest(b, "user-sql.get"), true)
	sqliteJSON := serving(buildUserGuest(b, "user-sqljson.get"), true)
	db, err := database.Open(context.Background(), database.DriverSQLite, database.Options{Path: filepath.Join(b.TempDir(), "main.db"), MaxConns: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	for _, stmt := range strings.SplitAfter(strings.TrimSpace(usersMigration), ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := db.Exec(context.Background(), stmt, nil); err != nil {
			b.Fatal(err)
		}
	}
	var result []byte
	args := []any{int64(2)}
	read := func() error {
		// A deadline, as each statement of a call has.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		rows, err := db.Query(ctx, "SELECT id, name, email FROM users WHERE id = $1", args)
		if err == nil {
			result, err = database.AppendQueryResult(result[:0], rows, config.DefaultSQLResultBytes)
		}
		if err == nil && !bytes.Contains(result, []byte("Grace Hopper")) {
			err = fmt.Errorf("read %s", result)
		}
		return err
	}
	req := httptest.NewRequest("GET", "/api/users/2", nil)
	serve := func(h *host.Host) error {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req.WithContext(req.Context()))
		if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte("Grace Hopper")) {
			return fmt.Errorf("GET /api/users/2 = %d %s", rec.Code, rec.Body)
		}
		return nil
	}
	names := []string{"kv", "read", "kv+read", "sqlite", "sqlite-json"}
	_, cpu := interleaveCPU(b, len(names), 1, func(i int) error {
		switch i {
		case 0:
			return serve(kv)
		case 1:
			return read()
		case 2:
			if err := serve(kv); err != nil {
				return err
			}
			return read()
		case 3:
			return serve(sqlite)
		}
		return serve(sqliteJSON)
	})
	for i, name := range names {
		b.ReportMetric(float64(cpu[i].Nanoseconds()), name+"-cpu-ns")
	}
	b.ReportMetric(float64((cpu[2] - cpu[0] - cpu[1]).Nanoseconds()), "beside-ns")
	b.ReportMetric(float64((cpu[3] - cpu[2]).Nanoseconds()), "sqlite-path-ns")
}
