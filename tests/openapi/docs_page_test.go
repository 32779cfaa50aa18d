package openapi_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// TestDocsPageRendersInABrowser loads /_endpoints/docs of the example app in
// headless Chromium, with the Scalar reference served by the host from local
// assets (the npm package pinned in lint/package.json, so no network is
// needed), and checks that the page shows the app's operations.
func TestDocsPageRendersInABrowser(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	assets, _ := filepath.Abs(filepath.Join("lint", "node_modules", "@scalar", "api-reference", "dist", "browser"))
	if _, statErr := os.Stat(filepath.Join(assets, "standalone.js")); err != nil || statErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs chromium and the Scalar assets (test.sh installs both): %v %v", err, statErr)
		}
		t.Skipf("needs chromium and `npm ci` in tests/openapi/lint: %v %v", err, statErr)
	}
	app := buildUsers(t)
	cfg := `{"openApi": {"title": "Users API", "version": "1.0.0", "docs": {"assets": "` + assets + `"}}}`
	if err := os.WriteFile(filepath.Join(app, config.File), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), app, host.Options{Mode: host.Development, Logger: slog.New(slog.DiscardHandler),
		CacheDir: filepath.Join(os.TempDir(), "endpoints-test-cache")})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h)
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=20000", "--dump-dom", srv.URL+config.DefaultDocsPath)
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	for _, want := range []string{"Users API", "Get a user", "Search users", "Create a user", "Change a user"} {
		if !strings.Contains(string(dom), want) {
			t.Errorf("the rendered docs page does not show %q (%d bytes of DOM)", want, len(dom))
		}
	}
}
