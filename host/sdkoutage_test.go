package host_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/poll"
)

// TestSDKDatabaseOutage builds the route testdata/sdkoutage/down.get.<ext>
// in each guest language but Go (whose HandleFunc answers 503 itself) and
// fails its statement the way a handler written from the README fails it:
// Rust returns the DbError with ? or unwraps it (a panic), C returns 1 or
// aborts, AssemblyScript throws. After a syntax error each is the guest's
// failure, a 500; with the database down (its SQLite file deleted while the
// host serves: "unavailable") each is the outage's, a 503 with Retry-After.
func TestSDKDatabaseOutage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: compiling the routes takes seconds each")
	}
	languages := []struct {
		name, ext, tool string
		hows            []string // the x-how values: how the route fails
	}{
		{"rust", "rs", "rustc", []string{"err", "panic"}},
		{"c", "c", "clang", []string{"err", "abort"}},
		{"assemblyscript", "ts", "npm", []string{"throw"}},
	}
	for _, lang := range languages {
		t.Run(lang.name, func(t *testing.T) {
			t.Parallel()
			requireTool(t, lang.tool)
			src, err := os.ReadFile(filepath.Join("testdata", "sdkoutage", "down.get."+lang.ext))
			if err != nil {
				t.Fatal(err)
			}
			a := newApp(t).file("server/routes/down.get."+lang.ext, src)
			if lang.ext == "ts" {
				linkAssemblyScript(t, a.dir)
			}
			if _, err := guestbuild.App(t.Context(), a.dir, a.dir, nil); err != nil {
				t.Fatal(err)
			}
			srv, logs := a.serve(host.Options{})
			query := func(sql, how string) response {
				return do(t, srv, "GET", "/down", "", "x-sql", sql, "x-how", how)
			}
			if got := query("SELECT 1", lang.hows[0]); got.status != 200 || got.body != "up" {
				t.Fatalf("the database up: %d %s, want 200 up\n%s", got.status, got.body, logs)
			}
			for _, how := range lang.hows {
				if got := query("SELEC 1", how); got.status != 500 || got.header.Get("Retry-After") != "" {
					t.Errorf("%s after a syntax error: %d (Retry-After %q), want 500 without Retry-After\n%s", how, got.status, got.header.Get("Retry-After"), logs)
				}
			}

			path := filepath.Join(a.dir, filepath.FromSlash(config.DefaultDatabasePath))
			for _, f := range []string{path, path + "-wal", path + "-shm"} {
				if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
			// The pool notices the file is gone within its check interval;
			// until then the statement succeeds.
			var down response
			if !poll.Until(10*time.Second, func() bool { down = query("SELECT 1", lang.hows[0]); return down.status != 200 }) {
				t.Fatalf("the database file deleted, the route still answers %d %s\n%s", down.status, down.body, logs)
			}
			for _, how := range lang.hows {
				got := query("SELECT 1", how)
				if s, err := strconv.Atoi(got.header.Get("Retry-After")); got.status != 503 || err != nil || s < 1 {
					t.Errorf("%s with the database down: %d %s (Retry-After %q), want 503 with Retry-After in seconds\n%s", how, got.status, got.body, got.header.Get("Retry-After"), logs)
				}
			}
		})
	}
}
