package prometheus_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/wattest"
	"github.com/wasmendpoints/endpoints/observe/prometheus"
)

// module is a WAT route module: a contract (none for a plain route) and the
// body of endpoints_handle, answering body when it is not empty.
func module(contract, handle, body string) string {
	var b strings.Builder
	b.WriteString(`(module
  (import "endpoints" "response_set_status" (func $set_status (param i32) (result i32)))
  (import "endpoints" "response_write" (func $write (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "endpoints_abi_version") (result i32) (i32.const 1))
`)
	if contract != "" {
		fmt.Fprintf(&b, "  (data (i32.const 1024) %q)\n", contract)
		fmt.Fprintf(&b, "  (func (export \"endpoints_contract\") (result i64) (i64.const %d))\n", int64(1024)<<32|int64(len(contract)))
	}
	if body != "" {
		fmt.Fprintf(&b, "  (data (i32.const 8192) %q)\n", body)
		handle += fmt.Sprintf(" (drop (call $write (i32.const 8192) (i32.const %d)))", len(body))
	}
	fmt.Fprintf(&b, "  (func (export \"endpoints_handle\") (result i32) %s (i32.const 0)))\n", handle)
	return b.String()
}

// Modules of the test app.
var (
	userModule = module(`{"request":{"params":{"type":"object","properties":{"id":{"type":"integer","minimum":1}},"required":["id"]}},"responses":{"200":{"schema":{"type":"object"}}}}`,
		"", `{"id":2,"name":"Grace Hopper"}`)
	trapModule  = module(`{}`, "(unreachable)", "")
	orderModule = module(`{"request":{"body":{"schema":{"type":"object"}}},"responses":{"201":{"schema":{"type":"object"}}},"idempotency":{"required":true}}`,
		"(drop (call $set_status (i32.const 201)))", `{"ok":true}`)
)

// newApp writes the test app: a validated GET, a route that traps and an
// idempotent POST.
func newApp(t testing.TB) string {
	t.Helper()
	app := t.TempDir()
	wattest.Write(t, app, "server/api/users/[id].get.wasm", userModule)
	wattest.Write(t, app, "server/api/trap.get.wasm", trapModule)
	wattest.Write(t, app, "server/api/orders.post.wasm", orderModule)
	return app
}

// newHost serves app with the observer, in production, as `endpoints
// serve` does.
func newHost(t testing.TB, app string, observer *host.Observer) *host.Host {
	t.Helper()
	cache := filepath.Join(os.TempDir(), "endpoints-test-cache")
	h, err := host.New(context.Background(), app, host.Options{Observer: observer, CacheDir: cache, Logger: slog.New(slog.DiscardHandler),
		Limits: config.Limits{Instances: 4}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// send makes a request and checks its status.
func send(t *testing.T, srv *httptest.Server, method, path, body string, wantStatus int, headers ...string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != wantStatus {
		t.Fatalf("%s %s = %d, want %d", method, path, res.StatusCode, wantStatus)
	}
}

// histogramCount is how many observations the histogram name holds for
// the labels.
func histogramCount(t *testing.T, reg *prom.Registry, name string, labels map[string]string) uint64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if labels[l.GetName()] != l.GetValue() {
					continue metrics
				}
			}
			return m.GetHistogram().GetSampleCount()
		}
	}
	return 0
}

// TestMetricsAfterRealRequests serves requests of every kind over HTTP,
// reloads the app, then scrapes the registry.
func TestMetricsAfterRealRequests(t *testing.T) {
	t.Parallel()
	m := prometheus.New()
	app := newApp(t)
	h := newHost(t, app, m.Observer())
	reg := prom.NewPedanticRegistry()
	reg.MustRegister(m, prometheus.Pools(h))
	srv := httptest.NewServer(h)
	defer srv.Close()

	send(t, srv, "GET", "/api/users/2", "", 200)
	send(t, srv, "GET", "/api/users/3", "", 200)
	send(t, srv, "GET", "/api/users/0", "", 400)
	send(t, srv, "GET", "/api/trap", "", 500)
	send(t, srv, "GET", "/no/such/route", "", 404)
	send(t, srv, "BREW", "/api/users/2", "", 405)
	send(t, srv, "POST", "/api/orders", `{"n":1}`, 201, "Idempotency-Key", "k1")
	send(t, srv, "POST", "/api/orders", `{"n":1}`, 201, "Idempotency-Key", "k1")
	send(t, srv, "POST", "/api/orders", `{"n":2}`, 422, "Idempotency-Key", "k1")
	send(t, srv, "POST", "/api/orders", `{"n":1}`, 400)

	// A reload that adds a module, one that finds nothing, one that fails.
	wattest.Write(t, app, "server/api/more.get.wasm", trapModule)
	h.Reload(context.Background())
	h.Reload(context.Background())
	if err := os.WriteFile(filepath.Join(app, "server", "api", "broken.get.wasm"), []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.Reload(context.Background())
	// Store errors come from a store that fails; the event is enough here.
	m.Observer().StoreError(host.StoreErrorEvent{Op: "claim", Err: errors.New("down")})

	const want = `
# HELP endpoints_requests_total Requests answered, by method, route template and status class.
# TYPE endpoints_requests_total counter
endpoints_requests_total{class="1xx",method="GET",route=""} 0
endpoints_requests_total{class="2xx",method="GET",route=""} 0
endpoints_requests_total{class="3xx",method="GET",route=""} 0
endpoints_requests_total{class="4xx",method="GET",route=""} 1
endpoints_requests_total{class="5xx",method="GET",route=""} 0
endpoints_requests_total{class="other",method="GET",route=""} 0
endpoints_requests_total{class="1xx",method="GET",route="/api/trap"} 0
endpoints_requests_total{class="2xx",method="GET",route="/api/trap"} 0
endpoints_requests_total{class="3xx",method="GET",route="/api/trap"} 0
endpoints_requests_total{class="4xx",method="GET",route="/api/trap"} 0
endpoints_requests_total{class="5xx",method="GET",route="/api/trap"} 1
endpoints_requests_total{class="other",method="GET",route="/api/trap"} 0
endpoints_requests_total{class="1xx",method="GET",route="/api/users/:id"} 0
endpoints_requests_total{class="2xx",method="GET",route="/api/users/:id"} 2
endpoints_requests_total{class="3xx",method="GET",route="/api/users/:id"} 0
endpoints_requests_total{class="4xx",method="GET",route="/api/users/:id"} 1
endpoints_requests_total{class="5xx",method="GET",route="/api/users/:id"} 0
endpoints_requests_total{class="other",method="GET",route="/api/users/:id"} 0
endpoints_requests_total{class="1xx",method="OTHER",route="/api/users/:id"} 0
endpoints_requests_total{class="2xx",method="OTHER",route="/api/users/:id"} 0
endpoints_requests_total{class="3xx",method="OTHER",route="/api/users/:id"} 0
endpoints_requests_total{class="4xx",method="OTHER",route="/api/users/:id"} 1
endpoints_requests_total{class="5xx",method="OTHER",route="/api/users/:id"} 0
endpoints_requests_total{class="other",method="OTHER",route="/api/users/:id"} 0
endpoints_requests_total{class="1xx",method="POST",route="/api/orders"} 0
endpoints_requests_total{class="2xx",method="POST",route="/api/orders"} 2
endpoints_requests_total{class="3xx",method="POST",route="/api/orders"} 0
endpoints_requests_total{class="4xx",method="POST",route="/api/orders"} 2
endpoints_requests_total{class="5xx",method="POST",route="/api/orders"} 0
endpoints_requests_total{class="other",method="POST",route="/api/orders"} 0
# HELP endpoints_validation_failures_total Request parts the host refused before the guest ran (params, query, headers, body) and answers that broke their contract (response).
# TYPE endpoints_validation_failures_total counter
endpoints_validation_failures_total{method="GET",part="params",route="/api/users/:id"} 1
# HELP endpoints_guest_failures_total Handler calls that trapped, ran past their deadline, returned an error code or passed a limit, except those a database outage failed (answered 503).
# TYPE endpoints_guest_failures_total counter
endpoints_guest_failures_total{method="GET",route="/api/trap"} 1
endpoints_guest_failures_total{method="GET",route="/api/users/:id"} 0
endpoints_guest_failures_total{method="POST",route="/api/orders"} 0
# HELP endpoints_idempotency_total Outcomes of the Idempotency-Key step.
# TYPE endpoints_idempotency_total counter
endpoints_idempotency_total{method="POST",outcome="claimed",route="/api/orders"} 1
endpoints_idempotency_total{method="POST",outcome="key_missing",route="/api/orders"} 1
endpoints_idempotency_total{method="POST",outcome="mismatch",route="/api/orders"} 1
endpoints_idempotency_total{method="POST",outcome="replayed",route="/api/orders"} 1
endpoints_idempotency_total{method="POST",outcome="stored",route="/api/orders"} 1
# HELP endpoints_pool_discards_total Instances closed because their call failed.
# TYPE endpoints_pool_discards_total counter
endpoints_pool_discards_total{module="server/api/trap.get.wasm",route="/api/trap"} 1
# HELP endpoints_reloads_total Reloads of the app that changed something or found a problem.
# TYPE endpoints_reloads_total counter
endpoints_reloads_total 2
# HELP endpoints_reload_failures_total Reloads of the app that found a problem (the previous version kept serving).
# TYPE endpoints_reload_failures_total counter
endpoints_reload_failures_total 1
# HELP endpoints_store_errors_total Store operations that failed, by operation.
# TYPE endpoints_store_errors_total counter
endpoints_store_errors_total{op="claim"} 1
# HELP endpoints_pool_instances_max The most instances the route module's pool makes (limits.instances).
# TYPE endpoints_pool_instances_max gauge
endpoints_pool_instances_max{module="server/api/more.get.wasm",route="/api/more"} 4
endpoints_pool_instances_max{module="server/api/orders.post.wasm",route="/api/orders"} 4
endpoints_pool_instances_max{module="server/api/trap.get.wasm",route="/api/trap"} 4
endpoints_pool_instances_max{module="server/api/users/[id].get.wasm",route="/api/users/:id"} 4
# HELP endpoints_pool_instances_idle Instances of the route module waiting for a call.
# TYPE endpoints_pool_instances_idle gauge
endpoints_pool_instances_idle{module="server/api/more.get.wasm",route="/api/more"} 1
endpoints_pool_instances_idle{module="server/api/orders.post.wasm",route="/api/orders"} 1
endpoints_pool_instances_idle{module="server/api/trap.get.wasm",route="/api/trap"} 0
endpoints_pool_instances_idle{module="server/api/users/[id].get.wasm",route="/api/users/:id"} 1
# HELP endpoints_pool_memory_bytes Linear memory of the route module's instances: the idle ones now, those in use as when their call took them.
# TYPE endpoints_pool_memory_bytes gauge
endpoints_pool_memory_bytes{module="server/api/more.get.wasm",route="/api/more"} 65536
endpoints_pool_memory_bytes{module="server/api/orders.post.wasm",route="/api/orders"} 65536
endpoints_pool_memory_bytes{module="server/api/trap.get.wasm",route="/api/trap"} 0
endpoints_pool_memory_bytes{module="server/api/users/[id].get.wasm",route="/api/users/:id"} 65536
# HELP endpoints_pool_instances_in_use Instances of the route module serving a call.
# TYPE endpoints_pool_instances_in_use gauge
endpoints_pool_instances_in_use{module="server/api/more.get.wasm",route="/api/more"} 0
endpoints_pool_instances_in_use{module="server/api/orders.post.wasm",route="/api/orders"} 0
endpoints_pool_instances_in_use{module="server/api/trap.get.wasm",route="/api/trap"} 0
endpoints_pool_instances_in_use{module="server/api/users/[id].get.wasm",route="/api/users/:id"} 0
`
	names := []string{"endpoints_requests_total", "endpoints_validation_failures_total", "endpoints_guest_failures_total",
		"endpoints_idempotency_total", "endpoints_pool_discards_total", "endpoints_reloads_total", "endpoints_reload_failures_total",
		"endpoints_store_errors_total", "endpoints_pool_instances_max", "endpoints_pool_instances_idle", "endpoints_pool_memory_bytes",
		"endpoints_pool_instances_in_use"}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}

	for _, c := range []struct {
		name   string
		labels map[string]string
		want   uint64
	}{
		{"endpoints_request_duration_seconds", map[string]string{"method": "GET", "route": "/api/users/:id"}, 3},
		{"endpoints_request_duration_seconds", map[string]string{"method": "POST", "route": "/api/orders"}, 4},
		// The 400 never reached the guest; the trap did.
		{"endpoints_guest_duration_seconds", map[string]string{"method": "GET", "route": "/api/users/:id"}, 2},
		{"endpoints_guest_duration_seconds", map[string]string{"method": "GET", "route": "/api/trap"}, 1},
		{"endpoints_guest_duration_seconds", map[string]string{"method": "POST", "route": "/api/orders"}, 1},
	} {
		t.Run(fmt.Sprintf("%s%v", c.name, c.labels), func(t *testing.T) {
			if got := histogramCount(t, reg, c.name, c.labels); got != c.want {
				t.Errorf("%s%v counts %d observations, want %d", c.name, c.labels, got, c.want)
			}
		})
	}
}

// TestMetricsFollowTheConventions lints the metrics with promlint, the
// checks of Prometheus's own tooling (units, _total on counters, help).
func TestMetricsFollowTheConventions(t *testing.T) {
	t.Parallel()
	m := prometheus.New()
	h := newHost(t, newApp(t), m.Observer())
	srv := httptest.NewServer(h)
	defer srv.Close()
	send(t, srv, "GET", "/api/users/0", "", 400)
	send(t, srv, "GET", "/api/trap", "", 500)
	send(t, srv, "POST", "/api/orders", `{}`, 201, "Idempotency-Key", "k")
	o := m.Observer()
	o.PoolWait(host.PoolEvent{Module: "server/api/trap.get.wasm", Route: "/api/trap"})
	o.StoreError(host.StoreErrorEvent{Op: "get"})
	o.Reload(host.ReloadReport{Added: []string{"x"}})
	for _, c := range []prom.Collector{m, prometheus.Pools(h)} {
		problems, err := testutil.CollectAndLint(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("%s: %s", p.Metric, p.Text)
		}
	}
	if n := testutil.CollectAndCount(m); n < 20 {
		t.Errorf("the metrics hold %d series after requests of each kind, want more", n)
	}
}

// TestGuestFailuresLeaveOutDatabaseOutages: a handler call that failed
// because its database was down (GuestCallEvent.DatabaseOutage, answered
// 503) is not counted a guest failure; one that failed on its own is, and
// both are timed.
func TestGuestFailuresLeaveOutDatabaseOutages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		failed, outage bool
		want           float64
	}{
		{"answered", false, false, 0},
		{"a trap of its own", true, false, 1},
		{"failed by a database outage", true, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := prometheus.New()
			m.Observer().GuestCall(host.GuestCallEvent{Method: "GET", Route: "/notes", Module: "server/routes/notes.get.wasm", Failed: tt.failed, DatabaseOutage: tt.outage})
			reg := prom.NewPedanticRegistry()
			reg.MustRegister(m)
			want := fmt.Sprintf(`
# HELP endpoints_guest_failures_total Handler calls that trapped, ran past their deadline, returned an error code or passed a limit, except those a database outage failed (answered 503).
# TYPE endpoints_guest_failures_total counter
endpoints_guest_failures_total{method="GET",route="/notes"} %v
`, tt.want)
			if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "endpoints_guest_failures_total"); err != nil {
				t.Error(err)
			}
			if got := histogramCount(t, reg, "endpoints_guest_duration_seconds", map[string]string{"method": "GET", "route": "/notes"}); got != 1 {
				t.Errorf("the call is timed %d times, want 1", got)
			}
		})
	}
}

// TestBundleFailureMetrics: the instances calls made are counted, and the
// clients a route of a bundle refuses because their last calls all
// trapped show in endpoints_route_breaker_refused_clients, each opening
// counted.
func TestBundleFailureMetrics(t *testing.T) {
	t.Parallel()
	const module, route = "server/bundles/go.wasm", "/api/exit"
	tests := []struct {
		name        string
		events      []host.BreakerEvent
		opens, open float64
		made        bool
	}{
		{"opened", []host.BreakerEvent{{Open: true, Pause: time.Second, Trapped: 5, Refused: 1}}, 1, 1, true},
		{"opened twice, then served", []host.BreakerEvent{{Open: true, Pause: time.Second, Trapped: 5, Refused: 1}, {Open: true, Pause: 2 * time.Second, Trapped: 6, Refused: 1}, {}}, 2, 0, false},
		{"two clients opened, one served", []host.BreakerEvent{{Open: true, Pause: time.Second, Trapped: 5, Refused: 1}, {Open: true, Pause: time.Second, Trapped: 5, Refused: 2}, {Refused: 1}}, 2, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := prometheus.New()
			o := m.Observer()
			if tt.made {
				o.InstanceMade(host.PoolEvent{Module: module, Route: route})
				o.InstanceMade(host.PoolEvent{Module: module, Route: route})
			}
			for _, e := range tt.events {
				e.Module, e.Route = module, route
				o.RouteBreaker(e)
			}
			reg := prom.NewPedanticRegistry()
			reg.MustRegister(m)
			want := fmt.Sprintf(`
# HELP endpoints_route_breaker_opens_total Times a route of a bundle refused a client for a while (503) because the client's last calls to it all trapped.
# TYPE endpoints_route_breaker_opens_total counter
endpoints_route_breaker_opens_total{module="%[1]s",route="%[2]s"} %[3]v
# HELP endpoints_route_breaker_refused_clients Clients a route of a bundle refuses (503) because their last calls to it all trapped, as of the route's last open or close.
# TYPE endpoints_route_breaker_refused_clients gauge
endpoints_route_breaker_refused_clients{module="%[1]s",route="%[2]s"} %[4]v
`, module, route, tt.opens, tt.open)
			names := []string{"endpoints_route_breaker_opens_total", "endpoints_route_breaker_refused_clients", "endpoints_pool_instances_made_total"}
			if tt.made {
				want += fmt.Sprintf(`# HELP endpoints_pool_instances_made_total Instances calls made: none was idle, or (a route of a bundle) their route's last call failed.
# TYPE endpoints_pool_instances_made_total counter
endpoints_pool_instances_made_total{module="%s",route="%s"} 2
`, module, route)
			}
			if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestInstancesRecycledMetric: each instance a call left past
// limits.recycleMemoryBytes is counted under its route and module.
func TestInstancesRecycledMetric(t *testing.T) {
	t.Parallel()
	m := prometheus.New()
	o := m.Observer()
	for _, route := range []string{"/api/hoard", "/api/hoard", "/api/small"} {
		o.InstanceRecycled(host.PoolEvent{Module: "server/bundles/go.wasm", Route: route, MemoryBytes: 13 << 20})
	}
	reg := prom.NewPedanticRegistry()
	reg.MustRegister(m)
	const want = `
# HELP endpoints_pool_instances_recycled_total Instances closed after a call that left their linear memory past limits.recycleMemoryBytes.
# TYPE endpoints_pool_instances_recycled_total counter
endpoints_pool_instances_recycled_total{module="server/bundles/go.wasm",route="/api/hoard"} 2
endpoints_pool_instances_recycled_total{module="server/bundles/go.wasm",route="/api/small"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "endpoints_pool_instances_recycled_total"); err != nil {
		t.Error(err)
	}
}
