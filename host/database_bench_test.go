package host_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
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
// and PostgreSQL on a server the benchmark starts. The Go guests differ in
// that read alone (testdata/guests/user-kv.get, user-sql.get). It reports
// each variant's requests per second through ServeHTTP and their ratios
// to the KV path, and the CPU time per request of the KV and SQLite paths
// and their ratio (sqlite/kv-cpu), which a busy machine does not skew.
//
//	go test ./host -run '^$' -bench UsersGetDatabase -benchtime 20000x
func BenchmarkUsersGetDatabase(b *testing.B) {
	build := func(name string) string {
		out := filepath.Join(b.TempDir(), name+".wasm")
		if err := guestbuild.Go(context.Background(), filepath.Join("testdata", "guests", name), out); err != nil {
			b.Fatal(err)
		}
		return out
	}
	kvWasm, sqlWasm := build("user-kv.get"), build("user-sql.get")
	app := func(wasm string, migration bool) string {
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
	pgURL, _, _ := databasetest.StartPostgres(b)
	variants := []struct {
		name      string
		dir       string
		overrides []config.Override
	}{
		{"kv", app(kvWasm, false), nil},
		{"sqlite", app(sqlWasm, true), nil},
		{"postgres", app(sqlWasm, true), onPostgres(pgURL)},
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
	reportRates(b, rates, vs)
	// SQLite runs in the process, so its CPU time per request is its
	// whole cost (PostgreSQL's server is another process): the ratio of
	// the two paths' CPU times reads the same on a busy machine.
	b.ReportMetric(float64(cpu[0].Nanoseconds()), "kv-cpu-ns/req")
	b.ReportMetric(float64(cpu[1].Nanoseconds()), "sqlite-cpu-ns/req")
	b.ReportMetric(float64(cpu[0])/float64(cpu[1]), "sqlite/kv-cpu")
}
