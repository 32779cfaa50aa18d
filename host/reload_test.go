package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/storage"
)

// versionModule is GET /api/v answering {"version":N} with a contract
// whose summary names the version; with plain it exports no contract.
func versionModule(n int, plain bool) watModule {
	body := fmt.Sprintf(`{"version":%d}`, n)
	data, write := watWrite(3000, body)
	m := watModule{handle: write + ` (i32.const 0)`, extra: data}
	if !plain {
		m.contract = fmt.Sprintf(`{"summary":"version %d","responses":{"200":{"schema":{"type":"object","properties":{"version":{"const":%d}},"required":["version"]}}}}`, n, n)
	}
	return m
}

// assemble builds a WAT module into a file of its own and returns its
// bytes.
func assemble(t testing.TB, m watModule) []byte {
	t.Helper()
	requireTool(t, "wat2wasm")
	dir := t.TempDir()
	src := filepath.Join(dir, "m.wat")
	if err := os.WriteFile(src, []byte(m.source()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "m.wasm")
	if err := guestbuild.WAT(context.Background(), src, out); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// summary returns the summary the served document gives GET /api/v, or "".
func summary(t *testing.T, h *host.Host) string {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct{ Summary string }
	}
	if err := json.Unmarshal(h.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Paths["/api/v"]["get"].Summary
}

// TestReloadUnderLoad replaces a module 50 times while clients keep
// calling it and a second one, which meanwhile loses its contract, gets it
// back, is deleted and re-added: no request fails, every answer is one
// version's whole answer, the document follows each change, and a broken
// version never serves.
func TestReloadUnderLoad(t *testing.T) {
	t.Parallel()
	versions := [][]byte{assemble(t, versionModule(1, false)), assemble(t, versionModule(2, false))}
	wEndpoint, wPlain := assemble(t, versionModule(3, false)), assemble(t, versionModule(3, true))
	const rel, relW = "server/api/v.get.wasm", "server/api/w.get.wasm"
	a := newApp(t).file(rel, versions[0]).file(relW, wEndpoint)
	path, pathW := filepath.Join(a.dir, filepath.FromSlash(rel)), filepath.Join(a.dir, filepath.FromSlash(relW))
	h, _ := a.host(host.Options{Mode: host.Development})
	srv := httptest.NewServer(h)
	defer srv.Close()

	const clients = 4
	var stop atomic.Bool
	var wg sync.WaitGroup
	var mu sync.Mutex
	answers := map[string]int{}
	var servedV, servedW atomic.Int64 // answers the clients read, by route
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				route := "/api/v"
				if i%2 == 1 {
					route = "/api/w"
				}
				res, err := srv.Client().Get(srv.URL + route)
				if err != nil {
					t.Error(err)
					return
				}
				body, err := io.ReadAll(res.Body)
				res.Body.Close()
				if err != nil {
					t.Error(err)
					return
				}
				key := fmt.Sprintf("%s %d %s", route, res.StatusCode, body)
				mu.Lock()
				answers[key]++
				mu.Unlock()
				if route == "/api/v" {
					servedV.Add(1)
				} else {
					servedW.Add(1)
				}
			}
		}()
	}
	// servedAfter returns once each route has answered a request sent
	// after it was called: at most one request per client is in flight
	// when it is called, so the clients+1th answer of a route is one
	// sent later. Each reload is then served before the next, on both
	// routes, so every version is.
	servedAfter := func(what string) {
		t.Helper()
		v, w := servedV.Load()+clients+1, servedW.Load()+clients+1
		if !waitFor(t, 10*time.Second, func() bool { return servedV.Load() >= v && servedW.Load() >= w }) {
			t.Fatalf("%s: the clients got no answer within 10 s", what)
		}
	}
	wSummary := func() string {
		var doc struct {
			Paths map[string]map[string]struct{ Summary string }
		}
		if err := json.Unmarshal(h.Document(), &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Paths["/api/w"]["get"].Summary
	}
	for i := 1; i <= 50; i++ {
		v := i % 2 // 1, 0, 1, ...: version 2, then 1, then 2...
		if err := os.WriteFile(path, versions[v], 0o644); err != nil {
			t.Fatal(err)
		}
		// The second module: plain, endpoint again, deleted, re-added.
		var wDoc string
		var err error
		switch i % 4 {
		case 1:
			err, wDoc = os.WriteFile(pathW, wPlain, 0o644), "Plain route "+relW
		case 2:
			err, wDoc = os.WriteFile(pathW, wEndpoint, 0o644), "version 3"
		case 3:
			err = os.Remove(pathW)
		case 0:
			err, wDoc = os.WriteFile(pathW, wEndpoint, 0o644), "version 3"
		}
		if err != nil {
			t.Fatal(err)
		}
		report := h.Reload(context.Background())
		if len(report.Changed)+len(report.Added)+len(report.Removed) != 2 || !slices.Contains(report.Changed, rel) || len(report.Problems) != 0 {
			t.Fatalf("reload %d: %s, want %s and %s changed", i, report, rel, relW)
		}
		if got, want := summary(t, h), fmt.Sprintf("version %d", v+1); got != want {
			t.Fatalf("reload %d: the document says %q, want %q", i, got, want)
		}
		if got := wSummary(); got != wDoc {
			t.Fatalf("reload %d: the document says %q for /api/w, want %q", i, got, wDoc)
		}
		servedAfter(fmt.Sprintf("reload %d", i))
	}
	// A broken module: refused, the last good version keeps serving.
	if err := os.WriteFile(path, []byte("\x00asm broken"), 0o644); err != nil {
		t.Fatal(err)
	}
	report := h.Reload(context.Background())
	if len(report.Problems) != 1 || !strings.Contains(report.Problems[0].Error(), rel) {
		t.Errorf("broken module: %s %v, want one problem naming %s", report, report.Problems, rel)
	}
	servedAfter("after the broken write") // which must not serve
	stop.Store(true)
	wg.Wait()
	if got := summary(t, h); got != "version 1" {
		t.Errorf("after the broken write the document says %q, want version 1", got)
	}
	notFound := `/api/w 404 {"statusCode":404,"statusMessage":"Not Found","data":{"path":"/api/w"}}`
	for a := range answers {
		switch a {
		case `/api/v 200 {"version":1}`, `/api/v 200 {"version":2}`, `/api/w 200 {"version":3}`, notFound:
		default:
			t.Errorf("answer %q (all answers: %v)", a, answers)
		}
	}
	if answers[`/api/v 200 {"version":1}`] == 0 || answers[`/api/v 200 {"version":2}`] == 0 || answers[`/api/w 200 {"version":3}`] == 0 {
		t.Errorf("answers %v: want every version served", answers)
	}
	t.Logf("answers: %v", answers)

	// Fixed: served again without a restart.
	if err := os.WriteFile(path, versions[1], 0o644); err != nil {
		t.Fatal(err)
	}
	if report := h.Reload(context.Background()); len(report.Problems) != 0 || len(h.Problems()) != 0 {
		t.Errorf("after the fix: %s, problems %v", report, h.Problems())
	}
	if res := do(t, srv, "GET", "/api/v", ""); res.body != `{"version":2}` {
		t.Errorf("after the fix: %d %s", res.status, res.body)
	}
}

// TestReloadAddsRemovesAndTurnsRoutes deletes and re-adds a module, and
// adds then removes a contract export.
func TestReloadAddsRemovesAndTurnsRoutes(t *testing.T) {
	const rel = "server/api/v.get.wasm"
	endpoint, plain := assemble(t, versionModule(1, false)), assemble(t, versionModule(1, true))
	a := newApp(t).file(rel, plain)
	path := filepath.Join(a.dir, filepath.FromSlash(rel))
	h, _ := a.host(host.Options{Mode: host.Development})
	srv := httptest.NewServer(h)
	defer srv.Close()
	kind := func() string {
		for _, r := range h.Routes() {
			if r.Path == "/api/v" {
				return r.Kind
			}
		}
		return "absent"
	}
	steps := []struct {
		name       string
		write      []byte // nil removes the file
		wantReport string
		wantKind   string
		wantStatus int
		wantDoc    string
	}{
		{"a contract export turns the plain route into an endpoint", endpoint, "changed " + rel, "endpoint", 200, "version 1"},
		{"removing it rolls the route back", plain, "changed " + rel, "plain", 200, "Plain route " + rel},
		{"a deleted module stops serving", nil, "removed " + rel, "absent", 404, ""},
		{"re-added, it serves again", endpoint, "added " + rel, "endpoint", 200, "version 1"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.write == nil {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(path, st.write, 0o644); err != nil {
				t.Fatal(err)
			}
			report := h.Reload(context.Background())
			if !strings.Contains(report.String(), st.wantReport) {
				t.Errorf("report %q, want it to say %q", report, st.wantReport)
			}
			if got := kind(); got != st.wantKind {
				t.Errorf("route kind %s, want %s", got, st.wantKind)
			}
			if res := do(t, srv, "GET", "/api/v", ""); res.status != st.wantStatus {
				t.Errorf("GET /api/v = %d %s, want %d", res.status, res.body, st.wantStatus)
			}
			if got := summary(t, h); got != st.wantDoc {
				t.Errorf("document summary %q, want %q", got, st.wantDoc)
			}
		})
	}
	if report := h.Reload(context.Background()); !report.Unchanged() {
		t.Errorf("a reload with nothing new: %s", report)
	}
}

// TestReloadLetsRequestsInFlightFinish: a request that started on a
// version finishes on it after the swap. The old version holds its
// request in a key-value read that a gate store lets through only once
// the new version serves.
func TestReloadLetsRequestsInFlightFinish(t *testing.T) {
	const rel = "server/api/v.get.wasm"
	held := versionModule(1, false)
	held.handle = `(drop (call $kv_get (i32.const 8192) (i32.const 4) (i32.const 65536) (i32.const 1024))) ` + held.handle
	held.extra += `  (data (i32.const 8192) "gate")` + "\n"
	a := newApp(t).file(rel, assemble(t, held))
	path := filepath.Join(a.dir, filepath.FromSlash(rel))
	gate := newGateStore(t)
	h, _ := a.host(host.Options{Mode: host.Development, Store: gate, Limits: config.Limits{Timeout: config.Duration(time.Minute)}})
	srv := httptest.NewServer(h)
	defer srv.Close()
	done := make(chan response, 1)
	go func() { done <- do(t, srv, "GET", "/api/v", "") }()
	select {
	case <-gate.entered: // version 1 runs, held at the gate
	case <-time.After(10 * time.Second):
		t.Fatal("the request did not reach the guest's kv_get within 10 s")
	}
	if err := os.WriteFile(path, assemble(t, versionModule(2, false)), 0o644); err != nil {
		t.Fatal(err)
	}
	h.Reload(context.Background())
	if res := do(t, srv, "GET", "/api/v", ""); res.body != `{"version":2}` {
		t.Errorf("a new request got %s, want version 2", res.body)
	}
	close(gate.open)
	if res := <-done; res.status != 200 || res.body != `{"version":1}` {
		t.Errorf("the request in flight got %d %s, want version 1 whole", res.status, res.body)
	}
}

// gateStore is a memory store whose Get waits until open is closed: a
// guest calling kv_get is held in the middle of its call, and entered
// receives a value as each Get starts to wait.
type gateStore struct {
	storage.Store
	entered chan struct{}
	open    chan struct{}
}

func newGateStore(t *testing.T) gateStore {
	g := gateStore{Store: storage.NewMemory(storage.MemoryOptions{}), entered: make(chan struct{}, 16), open: make(chan struct{})}
	t.Cleanup(func() { g.Store.Close() })
	return g
}

func (g gateStore) Get(ctx context.Context, ns, key string) ([]byte, bool, error) {
	g.entered <- struct{}{}
	select {
	case <-g.open:
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	return g.Store.Get(ctx, ns, key)
}

// TestReloadAppliesEndpointsJSON: a changed endpoints.json applies at the
// next reload (the document's title, the body limit); a broken one keeps
// the previous settings and says why.
func TestReloadAppliesEndpointsJSON(t *testing.T) {
	a := newApp(t).wat("server/api/echo.post.wasm", watModule{contract: `{"request":{"body":{"schema":{}}}}`, handle: echoEnvelope}).
		file("endpoints.json", []byte(`{"openApi": {"title": "Before"}, "limits": {"bodyBytes": 64}}`))
	h, logs := a.host(host.Options{Mode: host.Development})
	title := func() string {
		var doc struct{ Info struct{ Title string } }
		if err := json.Unmarshal(h.Document(), &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Info.Title
	}
	post := func(n int) int {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/api/echo", strings.NewReader(`"`+strings.Repeat("x", n)+`"`))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	if title() != "Before" || post(100) != 413 {
		t.Fatalf("at start: title %q, 100-byte body %d", title(), post(100))
	}
	a.file("endpoints.json", []byte(`{"openApi": {"title": "After"}, "limits": {"bodyBytes": 4096, "instances": 3}, "server": {"idleTimeout": "5s", "readTimeout": "7s"}}`))
	report := h.Reload(context.Background())
	if !strings.Contains(report.String(), "changed endpoints.json") || title() != "After" || post(100) != 200 {
		t.Errorf("after the change: %s; title %q, 100-byte body %d", report, title(), post(100))
	}
	// The settings only a restart applies are named, and keep their
	// previous values in the configuration in effect, rather than being
	// shown as applied (server.idleTimeout is the http.Server's, set at
	// start); server.readTimeout applies per request, now.
	for _, key := range []string{"restart to apply those", "limits.instances", "server.idleTimeout"} {
		if !strings.Contains(logs.String(), key) {
			t.Errorf("a restart-only setting was not reported (%q):\n%s", key, logs)
		}
	}
	if strings.Contains(logs.String(), "server.readTimeout") {
		t.Errorf("server.readTimeout applies at once but was reported as restart-only:\n%s", logs)
	}
	if cfg := h.AppConfig(); cfg.Limits.Instances != 0 || cfg.Server.IdleTimeout != 0 || time.Duration(cfg.Server.ReadTimeout) != 7*time.Second || cfg.Limits.BodyBytes != 4096 {
		t.Errorf("the configuration in effect after the reload: limits %+v, server %+v; want instances and idleTimeout as at start, readTimeout and bodyBytes changed", cfg.Limits, cfg.Server)
	}
	a.file("endpoints.json", []byte(`{"openApi": {"titel": "Typo"}}`))
	report = h.Reload(context.Background())
	if len(report.Problems) != 1 || !strings.Contains(report.Problems[0].Error(), `unknown key "titel"`) || title() != "After" {
		t.Errorf("a broken endpoints.json: %s %v; title %q, want the previous settings kept", report, report.Problems, title())
	}
}

// TestReloadRoutesConfigNeverDropsRoutes: a routes configuration without
// "$defs" applies like any other, a broken one keeps the previous one, and
// neither takes a route away, before or after it is fixed.
func TestReloadRoutesConfigNeverDropsRoutes(t *testing.T) {
	a := newApp(t).wat("server/api/hello.get.wasm", watModule{contract: `{"summary":"hello","responses":{"200":{"description":"hi"}}}`, handle: plainOK, extra: okData})
	h, _ := a.host(host.Options{Mode: host.Development})
	get := func() int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/hello", nil))
		return rec.Code
	}
	documents := func(status string) bool {
		var doc struct {
			Paths map[string]map[string]struct{ Responses map[string]any }
		}
		if err := json.Unmarshal(h.Document(), &doc); err != nil {
			t.Fatal(err)
		}
		_, ok := doc.Paths["/api/hello"]["get"].Responses[status]
		return ok
	}
	steps := []struct {
		name, config  string
		wantProblem   string
		wantDocuments string // a status the document lists for GET /api/hello
	}{
		{"a configuration without $defs", `{"responses":{"503":{"description":"Busy","schema":{"type":"object"}}}}`, "", "503"},
		{"a broken one keeps the previous", `{"responses":{"504":{"description":"Late","schema":{"type":"objekt"}}}}`, "routes.config.json", "503"},
		{"fixed, it applies", `{"responses":{"504":{"description":"Late","schema":{"type":"object"}}}}`, "", "504"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			a.file(host.RoutesConfigFile, []byte(st.config))
			report := h.Reload(t.Context())
			var problems []string
			for _, p := range report.Problems {
				problems = append(problems, p.Error())
			}
			if got := strings.Join(problems, "\n"); st.wantProblem == "" && got != "" || !strings.Contains(got, st.wantProblem) {
				t.Errorf("problems %q, want %q", got, st.wantProblem)
			}
			if code := get(); code != 200 {
				t.Errorf("GET /api/hello = %d, want 200: the route must keep serving", code)
			}
			if !documents(st.wantDocuments) {
				t.Errorf("the document does not list %s for GET /api/hello:\n%s", st.wantDocuments, h.Document())
			}
		})
	}
}
