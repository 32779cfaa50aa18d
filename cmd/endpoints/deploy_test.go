package main

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/storage/storagetest"
)

// TestDeployTopology runs deploy/compose.yaml's topology without
// containers: the app precompiled as deploy/Dockerfile does (`endpoints
// build --cache-dir`), one redis-server, two `endpoints serve` processes
// configured only by compose.yaml's environment variables, and a
// round-robin reverse proxy in front (nginx in compose, Go's here). A
// request with an Idempotency-Key answered by one host is replayed by the
// other; both start warm from the cache, compiling nothing.
func TestDeployTopology(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts redis-server and two endpoints processes")
	}
	env := composeEnv(t)
	redisURL, _, _ := storagetest.StartRedis(t)
	pgURL, _, _ := databasetest.StartPostgres(t)
	for i, kv := range env {
		switch {
		case strings.HasPrefix(kv, "ENDPOINTS_STORAGE_URL="):
			env[i] = "ENDPOINTS_STORAGE_URL=" + redisURL // redis:6379 in compose
		case strings.HasPrefix(kv, "ENDPOINTS_DATABASES_MAIN_URL="):
			env[i] = "ENDPOINTS_DATABASES_MAIN_URL=" + pgURL // postgres:5432 in compose
		}
	}
	app, bin := ordersApp(t)
	cache := filepath.Join(t.TempDir(), "cache")
	if out, err := exec.Command(bin, "build", app, "--cache-dir", cache).CombinedOutput(); err != nil {
		t.Fatalf("endpoints build --cache-dir: %v\n%s", err, out)
	}
	hosts := []*process{startServeWith(t, bin, app, env, "--cache-dir", cache), startServeWith(t, bin, app, env, "--cache-dir", cache)}

	var next atomic.Int64
	proxy := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		u, _ := url.Parse(hosts[next.Add(1)%2].url)
		r.SetURL(u)
		r.SetXForwarded()
	}})
	defer proxy.Close()

	first, body, h := postOrder(t, proxy.URL, "deploy-1")
	if first != 201 || h.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first POST = %d %s (replayed %q)", first, body, h.Get("Idempotent-Replayed"))
	}
	again, body2, h2 := postOrder(t, proxy.URL, "deploy-1")
	if again != 201 || h2.Get("Idempotent-Replayed") != "true" || body2 != body {
		t.Errorf("the same key through the other host = %d %s (replayed %q), want the first answer replayed", again, body2, h2.Get("Idempotent-Replayed"))
	}
	for i, p := range hosts {
		// Access log lines are written up to ~20 ms after their request.
		if !waitUntil(t, 10*time.Second, func() bool { return strings.Contains(p.logs.String(), `msg="POST /api/orders"`) }) {
			t.Errorf("host %d served no request; the proxy should spread them:\n%s", i, p.logs)
		}
		if out := p.stdout.String(); regexp.MustCompile(`compiled \d+/`).MatchString(out) {
			t.Errorf("host %d compiled at start; the precompiled cache should serve it:\n%s", i, out)
		}
	}
	res, err := http.Get(proxy.URL + "/nothing-here")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Errorf("GET /nothing-here through the proxy = %d", res.StatusCode)
	}
}

// composeEnv returns the environment deploy/compose.yaml gives the hosts,
// checking that each variable names a setting of endpoints.json.
func composeEnv(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "deploy", "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, m := range regexp.MustCompile(`(?m)^\s+(ENDPOINTS_[A-Z_]+):\s*(\S+)\s*$`).FindAllStringSubmatch(string(data), -1) {
		if _, err := config.OverridesFromEnv([]string{m[1] + "=" + m[2]}); err != nil {
			t.Errorf("deploy/compose.yaml sets %s, which names no setting of endpoints.json: %v", m[1], err)
		}
		env = append(env, m[1]+"="+m[2])
	}
	if len(env) < 2 {
		t.Fatalf("deploy/compose.yaml sets %d ENDPOINTS_* variables; want the storage ones at least", len(env))
	}
	return env
}
