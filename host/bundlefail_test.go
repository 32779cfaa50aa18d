package host_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/poll"
)

// failingRoutes are Go routes of one bundle: GET /api/ok answers, and
// each other fails every request its own way: GET /api/panic writes to a
// nil map (a panic the SDK recovers: the handler's result 1), GET
// /api/overflow recurses without end (the Go runtime's fatal "stack
// overflow", or out of memory: a trap), GET /api/exit calls os.Exit (a
// trap: the module exits) and GET /api/spin loops past its 100 ms
// timeout (stopped at its deadline). GET /api/maybe answers, unless its
// query asks it to crash: then it calls os.Exit, a route that traps on
// some input only.
var failingRoutes = map[string]string{
	"handlers/maybe/main.go": `//endpoints:route GET /api/maybe
package main

import (
	"os"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type maybeIn struct {
	Crash bool ` + "`query:\"crash\"`" + `
}

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Maybe", Responses: endpoints.Responses{200: endpoints.JSON[string]("Fine")}},
		func(in *maybeIn) endpoints.Reply {
			if in.Crash {
				os.Exit(3)
			}
			return endpoints.Respond(200, "fine")
		})
}

func main() {}
`,
	"handlers/ok/main.go": `//endpoints:route GET /api/ok
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

type okIn struct{}

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Ok", Responses: endpoints.Responses{200: endpoints.JSON[string]("Fine")}},
		func(*okIn) endpoints.Reply { return endpoints.Respond(200, "ok") })
}

func main() {}
`,
	"handlers/panic/main.go": `//endpoints:route GET /api/panic
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

type panicIn struct{}

var counts map[string]int

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Panic", Responses: endpoints.Responses{200: endpoints.JSON[string]("Never")}},
		func(*panicIn) endpoints.Reply {
			counts["calls"]++
			return endpoints.Respond(200, "never")
		})
}

func main() {}
`,
	"handlers/overflow/main.go": `//endpoints:route GET /api/overflow
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

type overflowIn struct{}

func depth(n int) int { return depth(n+1) + 1 }

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Overflow", Responses: endpoints.Responses{200: endpoints.JSON[int]("Never")}},
		func(*overflowIn) endpoints.Reply { return endpoints.Respond(200, depth(0)) })
}

func main() {}
`,
	"handlers/exit/main.go": `//endpoints:route GET /api/exit
package main

import (
	"os"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type exitIn struct{}

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Exit", Responses: endpoints.Responses{200: endpoints.JSON[string]("Never")}},
		func(*exitIn) endpoints.Reply {
			os.Exit(3)
			return endpoints.Respond(200, "never")
		})
}

func main() {}
`,
	"handlers/spin/main.go": `//endpoints:route GET /api/spin
package main

import (
	"time"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type spinIn struct{}

var spins int

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Spin", Timeout: 100 * time.Millisecond, Responses: endpoints.Responses{200: endpoints.JSON[int]("Never")}},
		func(*spinIn) endpoints.Reply {
			for {
				spins++
			}
		})
}

func main() {}
`,
}

// failingBundleApp writes an app of failingRoutes and links them into
// one bundle, as endpoints build does.
func failingBundleApp(t testing.TB) string {
	return goBundleApp(t, failingRoutes)
}

// goBundleApp writes an app of routes (file name to source) and links
// them into one bundle, as endpoints build does.
func goBundleApp(t testing.TB, routes map[string]string) string {
	t.Helper()
	requireTool(t, "go")
	files := make(map[string]string, len(routes))
	for k, v := range routes {
		files[k] = v
	}
	dir := goApp(t, files)
	sources, err := guestbuild.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := guestbuild.Build(context.Background(), dir, dir, guestbuild.BundleGo(sources), nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestGoBundleFailingRouteLeavesItsNeighbourWarm: a route of a Go bundle
// that fails every request (a busy loop stopped at its deadline, a stack
// overflow, os.Exit, a recovered panic) makes its own fresh instances
// once it failed, and the healthy route of the bundle keeps the warm
// instance it gives back: of the calls that alternate the two, the
// healthy route's made one instance (in place of the one the first
// failure took), the failing route's the others. Every failing call took
// the idle instance the healthy route had just given back and discarded
// it, and each healthy call then made a fresh one (milliseconds for a Go
// bundle). Then, while clients call the failing route at once, the
// healthy route keeps answering 200.
func TestGoBundleFailingRouteLeavesItsNeighbourWarm(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles Go routes")
	}
	t.Parallel()
	dir := failingBundleApp(t)
	var mu sync.Mutex
	made, discarded := map[string]int{}, map[string]int{}
	observer := &host.Observer{
		InstanceMade: func(e host.PoolEvent) {
			mu.Lock()
			defer mu.Unlock()
			made[e.Route]++
		},
		InstanceDiscarded: func(e host.PoolEvent) {
			mu.Lock()
			defer mu.Unlock()
			discarded[e.Route]++
		},
	}
	// 16 MiB: a stack overflow fails sooner than at the default 64 MiB.
	srv, _ := (&app{t: t, dir: dir}).serve(host.Options{Mode: host.Production, Observer: observer,
		Limits: config.Limits{MemoryBytes: 16 << 20}})
	const ok = "/api/ok"
	for _, fail := range []string{"/api/spin", "/api/overflow", "/api/exit", "/api/panic"} {
		t.Run(fail, func(t *testing.T) {
			mu.Lock()
			clear(made)
			clear(discarded)
			mu.Unlock()
			for i := range 3 {
				if got := do(t, srv, "GET", ok, ""); got.status != 200 {
					t.Fatalf("GET %s (%d) = %d %s, want 200", ok, i, got.status, got.body)
				}
				if got := do(t, srv, "GET", fail, ""); got.status != 500 {
					t.Fatalf("GET %s (%d) = %d %s, want 500", fail, i, got.status, got.body)
				}
			}
			if got := do(t, srv, "GET", ok, ""); got.status != 200 {
				t.Fatalf("GET %s (last) = %d %s, want 200", ok, got.status, got.body)
			}
			mu.Lock()
			defer mu.Unlock()
			if made[ok] != 1 || made[fail] != 2 {
				t.Errorf("instances made: %d by GET %s, %d by GET %s; want 1 (after the first failure took its idle one) and 2", made[ok], ok, made[fail], fail)
			}
			if discarded[ok] != 0 || discarded[fail] != 3 {
				t.Errorf("instances discarded: %d by GET %s, %d by GET %s; want 0 and 3", discarded[ok], ok, discarded[fail], fail)
			}
		})
	}

	// Clients calling the failing routes at once (until their breakers
	// open, then once a pause): the healthy route answers each of its
	// calls meanwhile.
	var storm sync.WaitGroup
	stop := make(chan struct{})
	for _, fail := range []string{"/api/spin", "/api/exit"} {
		storm.Add(1)
		go func() {
			defer storm.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := http.Get(srv.URL + fail)
				if err != nil {
					t.Errorf("GET %s: %v", fail, err)
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				// 503 once its breaker opened (TestGoBundleTrappingRouteIsRefusedForAWhile).
				if res.StatusCode != 500 && res.StatusCode != 503 {
					t.Errorf("GET %s = %d, want 500 or 503", fail, res.StatusCode)
				}
			}
		}()
	}
	for i := range 20 {
		if got := do(t, srv, "GET", ok, ""); got.status != 200 || got.body != `"ok"` {
			t.Errorf("GET %s during the storm (%d) = %d %s, want 200 \"ok\"", ok, i, got.status, got.body)
		}
	}
	close(stop)
	storm.Wait()
}

// TestGoBundleTrappingRouteIsRefusedForAWhile: a route of a Go bundle
// whose last calls from a client all trapped (config.DefaultBreakerTrappedCalls of them)
// refuses that client, 503 with Retry-After, for config.DefaultBreakerPause: a
// warning names the route and Observer.RouteBreaker reports it, and the
// bundle's other routes serve meanwhile. After the pause one call probes
// it; it traps again, and the pause doubles. A route whose handler panics (the SDK recovers it: a
// result code, no trap) is never refused. Each trapped call cost a fresh
// instance, and a stack overflow more than a second of CPU time, for as
// long as clients called it.
func TestGoBundleTrappingRouteIsRefusedForAWhile(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles Go routes")
	}
	t.Parallel()
	dir := failingBundleApp(t)
	events := make(chan host.BreakerEvent, 4)
	srv, logs := (&app{t: t, dir: dir}).serve(host.Options{Mode: host.Production,
		// The document is served, to check the refusal against.
		ConfigOverrides: []config.Override{{Pointer: "/openApi/enabled", Value: "true", Source: "test"}},
		Observer:        &host.Observer{RouteBreaker: func(e host.BreakerEvent) { events <- e }}})
	const exit, file = "/api/exit", "server/bundles/go.wasm"
	for i := range config.DefaultBreakerTrappedCalls {
		if got := do(t, srv, "GET", exit, ""); got.status != 500 {
			t.Fatalf("GET %s (%d) = %d %s, want 500", exit, i, got.status, got.body)
		}
	}
	want := host.BreakerEvent{Module: file, Route: exit, Open: true, Pause: config.DefaultBreakerPause, Trapped: config.DefaultBreakerTrappedCalls, Refused: 1}
	select {
	case e := <-events:
		if e != want {
			t.Errorf("RouteBreaker(%+v), want %+v", e, want)
		}
	default:
		t.Fatalf("no RouteBreaker event after %d trapped calls", config.DefaultBreakerTrappedCalls)
	}
	got := do(t, srv, "GET", exit, "")
	if got.status != 503 || got.header.Get("Retry-After") != "1" {
		t.Errorf("GET %s once refused = %d Retry-After %q, want 503 Retry-After 1", exit, got.status, got.header.Get("Retry-After"))
	}
	// The document lists the refusal: its example in production.
	if doc := do(t, srv, "GET", "/_endpoints/schema", ""); doc.status != 200 {
		t.Errorf("GET /_endpoints/schema = %d %s", doc.status, doc.body)
	} else {
		readAnsweredDocument(t, []byte(doc.body)).check(t, "GET", exit, got, true)
	}
	if !strings.Contains(logs.String(), "route refused for a while to a client whose last calls all trapped") || !strings.Contains(logs.String(), `route="server/bundles/go.wasm (GET /api/exit)"`) {
		t.Errorf("the log names no refused route:\n%s", logs)
	}
	for _, path := range []string{"/api/ok", "/api/ok"} {
		if got := do(t, srv, "GET", path, ""); got.status != 200 {
			t.Errorf("GET %s while %s is refused = %d %s, want 200", path, exit, got.status, got.body)
		}
	}
	for i := range config.DefaultBreakerTrappedCalls + 1 {
		if got := do(t, srv, "GET", "/api/panic", ""); got.status != 500 {
			t.Fatalf("GET /api/panic (%d) = %d %s, want 500: a recovered panic is no trap", i, got.status, got.body)
		}
	}

	// After the pause, one call probes the route; it traps, and the
	// route is refused for twice the pause.
	probed := poll.Until(10*config.DefaultBreakerPause, func() bool { return do(t, srv, "GET", exit, "").status != 503 })
	if !probed {
		t.Fatalf("GET %s still refused %v after the pause", exit, 10*config.DefaultBreakerPause)
	}
	want.Pause, want.Trapped = 2*config.DefaultBreakerPause, config.DefaultBreakerTrappedCalls+1
	select {
	case e := <-events:
		if e != want {
			t.Errorf("after the probe, RouteBreaker(%+v), want %+v", e, want)
		}
	default:
		t.Errorf("no RouteBreaker event after the probe trapped")
	}
	if got := do(t, srv, "GET", exit, ""); got.status != 503 || got.header.Get("Retry-After") != "2" {
		t.Errorf("GET %s after the probe trapped = %d Retry-After %q, want 503 Retry-After 2", exit, got.status, got.header.Get("Retry-After"))
	}
	select {
	case e := <-events:
		t.Errorf("an unexpected RouteBreaker(%+v)", e)
	default:
	}
}
