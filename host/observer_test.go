package host_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/storage"
	"github.com/wasmendpoints/endpoints/storage/storagetest"
)

// recorder is an Observer that keeps every event as a line without
// durations, and the requests whole.
type recorder struct {
	mu       sync.Mutex
	lines    []string
	requests []host.RequestEvent
	guests   []host.GuestCallEvent
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
}

func (r *recorder) observer() *host.Observer {
	return &host.Observer{
		Request: func(e host.RequestEvent) {
			r.mu.Lock()
			e.Request = nil // not to be kept
			r.requests = append(r.requests, e)
			r.mu.Unlock()
			r.add("request %s %s %d", e.Method, e.Route, e.Status)
		},
		GuestCall: func(e host.GuestCallEvent) {
			r.mu.Lock()
			r.guests = append(r.guests, e)
			r.mu.Unlock()
			r.add("guest %s %s %s failed=%t", e.Method, e.Route, e.Module, e.Failed)
		},
		ValidationFailure: func(e host.ValidationEvent) {
			r.add("validation %s %s %s %d", e.Method, e.Route, e.Part, e.Status)
		},
		PoolWait: func(e host.PoolEvent) {
			r.add("wait %s %s acquired=%t", e.Module, e.Route, e.Acquired)
		},
		InstanceDiscarded: func(e host.PoolEvent) { r.add("discard %s %s", e.Module, e.Route) },
		Reload: func(rep host.ReloadReport) {
			r.add("reload added=%v changed=%v removed=%v problems=%d", rep.Added, rep.Changed, rep.Removed, len(rep.Problems))
		},
		Idempotency: func(e host.IdempotencyEvent) { r.add("idempotency %s %s %s", e.Method, e.Route, e.Outcome) },
		StoreError: func(e host.StoreErrorEvent) {
			r.add("store-error %s unavailable=%t", e.Op, errors.Is(e.Err, storage.ErrUnavailable))
		},
	}
}

// take returns the lines recorded since the last take, and forgets them.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	lines := r.lines
	r.lines, r.requests, r.guests = nil, nil, nil
	return lines
}

// lastRequest is the last request recorded.
func (r *recorder) lastRequest(t *testing.T) host.RequestEvent {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.requests) == 0 {
		t.Fatal("no request recorded")
	}
	return r.requests[len(r.requests)-1]
}

// outageStore is a memory store that fails every operation with
// storage.ErrUnavailable while down is set.
type outageStore struct{ kvDownStore }

func (s *outageStore) Claim(ctx context.Context, key, fp string, lease time.Duration, client storage.Client) (storage.Claim, error) {
	if err := s.err(); err != nil {
		return storage.Claim{}, err
	}
	return s.Memory.Claim(ctx, key, fp, lease, client)
}

func (s *outageStore) Ping(ctx context.Context) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.Memory.Ping(ctx)
}

// observedApp is an app with an endpoint of each kind the observer tests
// need: a validated GET, one that traps, one that breaks its contract, an
// idempotent POST, one that reads the store, a plain route and one that
// holds its instance until its body ends.
func observedApp(t *testing.T) *app {
	user, writeUser := watWrite(2048, `{"id":2}`)
	order, writeOrder := watWrite(2048, `{"ok":true}`)
	lie, writeLie := watWrite(2048, `{}`)
	return newApp(t).
		wat("server/api/users/[id].get.wasm", watModule{
			contract: `{"request":{"params":{"type":"object","properties":{"id":{"type":"integer","minimum":1}},"required":["id"]},
				"query":{"type":"object","properties":{"limit":{"type":"integer","maximum":10}}}},
				"responses":{"200":{"schema":{"type":"object"}}}}`,
			handle: writeUser + " (i32.const 0)", extra: user}).
		wat("server/api/trap.get.wasm", watModule{contract: `{}`, handle: `(unreachable)`}).
		wat("server/api/liar.get.wasm", watModule{
			contract: `{"responses":{"200":{"schema":{"type":"object","required":["name"]}}}}`,
			handle:   writeLie + " (i32.const 0)", extra: lie}).
		wat("server/api/orders.post.wasm", watModule{
			contract: `{"request":{"body":{"schema":{"type":"object"}}},"responses":{"201":{"schema":{"type":"object"}}},"idempotency":{"required":true}}`,
			handle:   `(drop (call $set_status (i32.const 201))) ` + writeOrder + ` (i32.const 0)`, extra: order}).
		wat("server/api/count.get.wasm", watModule{
			contract: `{"responses":{"200":{},"503":{}}}`,
			handle: `(if (i32.lt_s (call $kv_incr (i32.const 3000) (i32.const 4) (i64.const 1) (i32.const 3100)) (i32.const 0))
      (then (drop (call $set_status (i32.const 503)))))
    (i32.const 0)`,
			extra: `  (data (i32.const 3000) "runs")` + "\n"}).
		wat("server/routes/plain.get.wasm", watModule{handle: plainOK, extra: okData}).
		wat("server/routes/hold.post.wasm", watModule{handle: readOneByte})
}

// TestObserverEvents makes requests of every kind and checks the events
// each one gives, in order.
func TestObserverEvents(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	store := &outageStore{kvDownStore{Memory: storage.NewMemory(storage.MemoryOptions{})}}
	defer store.Close()
	h, _ := observedApp(t).host(host.Options{Observer: rec.observer(), ResponseValidation: config.ValidateAlways, Store: store})
	const (
		users  = "server/api/users/[id].get.wasm"
		trap   = "server/api/trap.get.wasm"
		orders = "idempotency POST /api/orders"
	)
	tests := []struct {
		name         string
		method, path string
		body         string
		headers      []string
		storeDown    bool
		wantStatus   int
		want         []string
	}{
		{name: "a validated GET", method: "GET", path: "/api/users/2", wantStatus: 200, want: []string{
			"guest GET /api/users/:id " + users + " failed=false",
			"request GET /api/users/:id 200"}},
		{name: "a 400 names each failing part", method: "GET", path: "/api/users/0?limit=99", wantStatus: 400, want: []string{
			"validation GET /api/users/:id params 400",
			"validation GET /api/users/:id query 400",
			"request GET /api/users/:id 400"}},
		{name: "a guest trap discards its instance", method: "GET", path: "/api/trap", wantStatus: 500, want: []string{
			"discard " + trap + " /api/trap",
			"guest GET /api/trap " + trap + " failed=true",
			"request GET /api/trap 500"}},
		{name: "an answer that breaks the contract", method: "GET", path: "/api/liar", wantStatus: 500, want: []string{
			"guest GET /api/liar server/api/liar.get.wasm failed=false",
			"validation GET /api/liar response 500",
			"request GET /api/liar 500"}},
		{name: "HEAD is reported as HEAD on the GET operation", method: "HEAD", path: "/api/users/2", wantStatus: 200, want: []string{
			"guest HEAD /api/users/:id " + users + " failed=false",
			"request HEAD /api/users/:id 200"}},
		{name: "a plain route", method: "GET", path: "/plain", wantStatus: 200, want: []string{
			"guest GET /plain server/routes/plain.get.wasm failed=false",
			"request GET /plain 200"}},
		{name: "no route: no template", method: "GET", path: "/api/nothing/here", wantStatus: 404, want: []string{
			"request GET  404"}},
		{name: "a wrong method: the route's template", method: "DELETE", path: "/api/users/2", wantStatus: 405, want: []string{
			"request DELETE /api/users/:id 405"}},
		{name: "an idempotent POST is claimed, then stored", method: "POST", path: "/api/orders", body: `{"n":1}`,
			headers: []string{"Idempotency-Key", "k1"}, wantStatus: 201, want: []string{
				orders + " claimed",
				"guest POST /api/orders server/api/orders.post.wasm failed=false",
				orders + " stored",
				"request POST /api/orders 201"}},
		{name: "its retry is replayed", method: "POST", path: "/api/orders", body: `{"n":1}`,
			headers: []string{"Idempotency-Key", "k1"}, wantStatus: 201, want: []string{
				orders + " replayed",
				"request POST /api/orders 201"}},
		{name: "the key with another body is a mismatch", method: "POST", path: "/api/orders", body: `{"n":2}`,
			headers: []string{"Idempotency-Key", "k1"}, wantStatus: 422, want: []string{
				orders + " mismatch",
				"request POST /api/orders 422"}},
		{name: "no key where one is required", method: "POST", path: "/api/orders", body: `{"n":1}`, wantStatus: 400, want: []string{
			orders + " key_missing",
			"request POST /api/orders 400"}},
		{name: "a store down refuses the claim", method: "POST", path: "/api/orders", body: `{"n":3}`,
			headers: []string{"Idempotency-Key", "k3"}, storeDown: true, wantStatus: 503, want: []string{
				"store-error claim unavailable=true",
				orders + " unavailable",
				"request POST /api/orders 503"}},
		{name: "a store down fails a guest's kv call", method: "GET", path: "/api/count", storeDown: true, wantStatus: 503, want: []string{
			"store-error incr unavailable=true",
			"guest GET /api/count server/api/count.get.wasm failed=false",
			"request GET /api/count 503"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store.down.Store(tt.storeDown)
			defer store.down.Store(false)
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			req := httptest.NewRequest(tt.method, tt.path, body)
			if tt.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			for i := 0; i+1 < len(tt.headers); i += 2 {
				req.Header.Set(tt.headers[i], tt.headers[i+1])
			}
			res := httptest.NewRecorder()
			h.ServeHTTP(res, req)
			if res.Code != tt.wantStatus {
				t.Fatalf("%s %s = %d %s, want %d", tt.method, tt.path, res.Code, res.Body, tt.wantStatus)
			}
			if got := rec.take(); !slices.Equal(got, tt.want) {
				t.Errorf("events:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}

	t.Run("a request's id, size and duration", func(t *testing.T) {
		res := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/api/users/2", nil)
		req.Header.Set("X-Request-Id", "req-42")
		h.ServeHTTP(res, req)
		e := rec.lastRequest(t)
		if e.RequestID != "req-42" || e.Bytes != int64(res.Body.Len()) || e.Duration <= 0 {
			t.Errorf("request event %+v, want id req-42, %d bytes and a duration", e, res.Body.Len())
		}
		rec.mu.Lock()
		g := rec.guests[len(rec.guests)-1]
		rec.mu.Unlock()
		if g.Duration <= 0 || g.Duration > e.Duration {
			t.Errorf("guest call took %s of a request of %s, want a positive share", g.Duration, e.Duration)
		}
		rec.take()
	})
}

// TestObserverPools holds the one instance of a route, then checks what
// Pools reports, and that a request finding the pool busy is reported as
// a wait.
func TestObserverPools(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	h, _ := observedApp(t).host(host.Options{Observer: rec.observer(), Limits: config.Limits{Instances: 1}})
	pr, pw := io.Pipe()
	done := make(chan int)
	go func() {
		res := httptest.NewRecorder()
		h.ServeHTTP(res, httptest.NewRequest("POST", "/hold", pr))
		done <- res.Code
	}()
	if _, err := pw.Write([]byte("x")); err != nil { // the guest is in body_read
		t.Fatal(err)
	}
	const hold = "server/routes/hold.post.wasm"
	var held host.PoolStats
	for _, s := range h.Pools() {
		if s.Module == hold {
			held = s
		}
	}
	if held.Route != "/hold" || held.Max != 1 || held.InUse != 1 || held.Idle != 0 || held.MemoryBytes != 4*65536 {
		t.Errorf("Pools()[%s] = %+v, want route /hold, max 1, 1 in use, 0 idle, 4 pages of memory", hold, held)
	}

	// A request whose client has gone finds the instance busy: it waits,
	// and its wait ends at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := httptest.NewRecorder()
	h.ServeHTTP(res, httptest.NewRequest("POST", "/hold", strings.NewReader("y")).WithContext(ctx))
	if res.Code != 503 || res.Header().Get("Retry-After") != "1" {
		t.Errorf("a request finding the pool busy = %d, Retry-After %q; want 503, Retry-After 1", res.Code, res.Header().Get("Retry-After"))
	}
	pw.Close()
	if code := <-done; code != 200 {
		t.Errorf("the held request = %d, want 200", code)
	}
	want := []string{
		"wait " + hold + " /hold acquired=false",
		"request POST /hold 503",
		"guest POST /hold " + hold + " failed=false",
		"request POST /hold 200",
	}
	if got := rec.take(); !slices.Equal(got, want) {
		t.Errorf("events:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	for _, s := range h.Pools() {
		if s.Module == hold && (s.InUse != 0 || s.Idle != 1 || s.MemoryBytes != 4*65536) {
			t.Errorf("Pools()[%s] after the call = %+v, want 0 in use, 1 idle, 4 pages", hold, s)
		}
	}
	if n := len(h.Pools()); n != 7 {
		t.Errorf("Pools() lists %d modules, want the app's 7", n)
	}
}

// TestObserverReload checks that each reload is reported with its report.
func TestObserverReload(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	a := newApp(t).wat("server/api/v.get.wasm", versionModule(1, false))
	h, _ := a.host(host.Options{Mode: host.Development, Observer: rec.observer()})
	ctx := context.Background()
	steps := []struct {
		name   string
		change func()
		want   string
	}{
		{"nothing changed", func() {}, "reload added=[] changed=[] removed=[] problems=0"},
		{"a module changed", func() { a.file("server/api/v.get.wasm", assemble(t, versionModule(2, false))) },
			"reload added=[] changed=[server/api/v.get.wasm] removed=[] problems=0"},
		{"a module added", func() { a.wat("server/api/w.get.wasm", versionModule(3, false)) },
			"reload added=[server/api/w.get.wasm] changed=[] removed=[] problems=0"},
		{"a broken module", func() { a.file("server/api/w.get.wasm", []byte("junk")) },
			"reload added=[] changed=[] removed=[] problems=1"},
		{"a module removed", func() {
			if err := os.Remove(filepath.Join(a.dir, "server", "api", "w.get.wasm")); err != nil {
				t.Fatal(err)
			}
		}, "reload added=[] changed=[] removed=[server/api/w.get.wasm] problems=0"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.change()
			h.Reload(ctx)
			if got := rec.take(); !slices.Equal(got, []string{s.want}) {
				t.Errorf("events %q, want [%q]", got, s.want)
			}
		})
	}
}

// TestJoinObservers checks that joined observers each get every event, in
// order, and that a hook no observer sets stays nil.
func TestJoinObservers(t *testing.T) {
	t.Parallel()
	var calls []string
	first := &host.Observer{Request: func(host.RequestEvent) { calls = append(calls, "first") }}
	second := &host.Observer{
		Request:   func(host.RequestEvent) { calls = append(calls, "second") },
		GuestCall: func(host.GuestCallEvent) { calls = append(calls, "second guest") },
	}
	o := host.JoinObservers(first, nil, second)
	o.Request(host.RequestEvent{})
	o.GuestCall(host.GuestCallEvent{})
	if want := []string{"first", "second", "second guest"}; !slices.Equal(calls, want) {
		t.Errorf("calls %q, want %q", calls, want)
	}
	if o.Reload != nil || o.StoreError != nil {
		t.Error("hooks no observer sets are not nil")
	}
	if j := host.JoinObservers(); j == nil || j.Request != nil {
		t.Errorf("JoinObservers() = %+v, want an observer without hooks", j)
	}
}

// TestJoinObserversEveryHook sets every hook of two observers, joined
// around a nil one, and calls each hook of the result: each must call the
// first observer's hook, then the second's, without reflection at call
// time. A hook added to Observer is checked without a word here.
func TestJoinObserversEveryHook(t *testing.T) {
	t.Parallel()
	var calls []string
	record := func(name string) *host.Observer {
		var o host.Observer
		v := reflect.ValueOf(&o).Elem()
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.Type.Kind() != reflect.Func {
				t.Fatalf("Observer.%s is a %s, want a func hook", f.Name, f.Type)
			}
			v.Field(i).Set(reflect.MakeFunc(f.Type, func(args []reflect.Value) []reflect.Value {
				calls = append(calls, name+" "+f.Name)
				out := make([]reflect.Value, f.Type.NumOut())
				for j := range out {
					if j == 0 && f.Type.Out(0) == f.Type.In(0) {
						out[j] = args[0] // Span returns the step's context
						continue
					}
					out[j] = reflect.Zero(f.Type.Out(j))
				}
				return out
			}))
		}
		return &o
	}
	joined := reflect.ValueOf(host.JoinObservers(record("first"), nil, record("second"))).Elem()
	for i := range joined.NumField() {
		f := joined.Type().Field(i)
		t.Run(f.Name, func(t *testing.T) {
			calls = nil
			hook := joined.Field(i)
			if hook.IsNil() {
				t.Fatal("the joined hook is nil")
			}
			if !host.JoinsTyped(f.Type) {
				t.Errorf("JoinObservers joins a %s by reflection, at about 2µs a call: add its type to observerJoiner", f.Type)
			}
			args := make([]reflect.Value, f.Type.NumIn())
			for j := range args {
				args[j] = reflect.Zero(f.Type.In(j))
			}
			if f.Type.NumIn() > 0 && f.Type.In(0) == reflect.TypeFor[context.Context]() {
				args[0] = reflect.ValueOf(context.Background())
			}
			hook.Call(args)
			if want := []string{"first " + f.Name, "second " + f.Name}; !slices.Equal(calls, want) {
				t.Errorf("calls %q, want %q", calls, want)
			}
		})
	}
}

// readyErrors returns the failed checks of h.Ready as "name: error".
func readyErrors(h *host.Host, ctx context.Context) []string {
	var failed []string
	for _, c := range h.Ready(ctx) {
		if c.Err != nil {
			failed = append(failed, c.Name+": "+c.Err.Error())
		}
	}
	return failed
}

// TestReady checks the readiness checks on the memory store, a store that
// fails, an app without routes and a host shutting down.
func TestReady(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec := &recorder{}
	store := &outageStore{kvDownStore{Memory: storage.NewMemory(storage.MemoryOptions{})}}
	defer store.Close()
	h, _ := newApp(t).wat("server/routes/plain.get.wasm", watModule{handle: plainOK, extra: okData}).
		host(host.Options{Store: store, Observer: rec.observer()})
	checks := h.Ready(ctx)
	if len(checks) != 3 || checks[0].Name != host.CheckRoutes || checks[1].Name != host.CheckStore || checks[2].Name != host.CheckDatabases || checks[0].Err != nil || checks[1].Err != nil || checks[2].Err != nil {
		t.Errorf("Ready = %+v, want routes, store and databases, all passing", checks)
	}
	store.down.Store(true)
	if got := readyErrors(h, ctx); len(got) != 1 || !strings.HasPrefix(got[0], "store: ") || !strings.Contains(got[0], "connection refused") {
		t.Errorf("Ready with the store down fails %q, want the store check with the store's error", got)
	}
	if got := rec.take(); !slices.Equal(got, []string{"store-error ping unavailable=true"}) {
		t.Errorf("events %q, want the failed ping", got)
	}
	store.down.Store(false)
	if got := readyErrors(h, ctx); got != nil {
		t.Errorf("Ready with the store back fails %q", got)
	}

	empty, _ := newApp(t).host(host.Options{})
	if got := readyErrors(empty, ctx); !slices.Equal(got, []string{"routes: no route is loaded"}) {
		t.Errorf("Ready of an app without routes fails %q, want the routes check", got)
	}
	h.Close(ctx)
	if got := readyErrors(h, ctx); !slices.Equal(got, []string{"routes: the host is shutting down"}) {
		t.Errorf("Ready after Close fails %q, want the routes check", got)
	}
}

// TestReadyRedisOutage stops a real Redis under a host: its store check
// fails, naming the server, and passes again once Redis is back.
func TestReadyRedisOutage(t *testing.T) {
	t.Parallel()
	url, stop, restart := storagetest.StartRedis(t)
	h, _ := newApp(t).wat("server/routes/plain.get.wasm", watModule{handle: plainOK, extra: okData}).
		file("endpoints.json", []byte(`{"storage":{"driver":"redis","url":"`+url+`"}}`)).
		host(host.Options{})
	ctx := context.Background()
	if got := readyErrors(h, ctx); got != nil {
		t.Fatalf("Ready with Redis up fails %q", got)
	}
	stop()
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "redis://"), "/0")
	if got := readyErrors(h, ctx); len(got) != 1 || !strings.HasPrefix(got[0], "store: ") || !strings.Contains(got[0], addr) {
		t.Errorf("Ready with Redis stopped fails %q, want the store check naming %s", got, addr)
	}
	restart()
	if !waitFor(t, 10*time.Second, func() bool { return readyErrors(h, ctx) == nil }) {
		t.Errorf("Ready still fails %q after Redis came back", readyErrors(h, ctx))
	}
}
