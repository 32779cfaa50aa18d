package host_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// Changing an app while it serves: Reload loads what changed on disk and
// swaps it in at once; Watch does the same on every change.
func ExampleHost_Reload() {
	ctx := context.Background()
	app := copyApp("testdata/hello")
	defer os.RemoveAll(app)
	h, err := host.New(ctx, app, host.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close(ctx)

	// A request body limit of 16 bytes, from now on.
	os.WriteFile(filepath.Join(app, config.File), []byte(`{"limits": {"bodyBytes": 16}}`), 0o644)
	r := h.Reload(ctx)
	fmt.Println("changed:", r.Changed, "problems:", len(r.Problems))
	fmt.Println("bodyBytes:", h.AppConfig().Limits.BodyBytes)

	r = h.Reload(ctx)
	fmt.Println("unchanged:", r.Unchanged())
	// Output:
	// changed: [endpoints.json] problems: 0
	// bodyBytes: 16
	// unchanged: true
}

// Serving with the app's "server" settings, then stopping gracefully:
// first the http.Server, so that no new connection arrives, then the host.
func ExampleHost_Shutdown() {
	ctx := context.Background()
	h, err := host.New(ctx, "testdata/hello", host.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := h.HTTPServer() // ReadHeaderTimeout, IdleTimeout, MaxHeaderBytes from endpoints.json
	fmt.Println(srv.ReadHeaderTimeout, srv.IdleTimeout, srv.MaxHeaderBytes)
	ts := httptest.NewUnstartedServer(srv.Handler)
	ts.Config = srv
	ts.Start()

	stop, cancel := context.WithTimeout(ctx, h.ShutdownTimeout())
	defer cancel()
	ts.Config.Shutdown(stop)
	ts.Close()
	fmt.Println(h.Shutdown(stop))
	// Output:
	// 10s 1m0s 16384
	// <nil>
}

// copyApp copies the app in dir to a new temporary directory.
func copyApp(dir string) string {
	dst, err := os.MkdirTemp("", "app")
	if err != nil {
		panic(err)
	}
	if err := os.CopyFS(dst, os.DirFS(dir)); err != nil {
		panic(err)
	}
	return dst
}
