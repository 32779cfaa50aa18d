package host_test

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// failingRoutes are Go routes of one bundle: GET /api/ok answers, and
// each other fails every request its own way: GET /api/panic writes to a
// nil map (a panic the SDK recovers: the handler's result 1), GET
// /api/overflow recurses without end (the Go runtime's fatal "stack
// overflow", or out of memory: a trap), GET /api/exit calls os.Exit (a
// trap: the module exits) and GET /api/spin loops past its 100 ms
// timeout (stopped at its deadline).
var failingRoutes = map[string]string{
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
	t.Helper()
	requireTool(t, "go")
	files := make(map[string]string, len(failingRoutes))
	for k, v := range failingRoutes {
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

	// Clients calling the failing routes at once: the healthy route
	// answers each of its calls meanwhile.
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
				if res.StatusCode != 500 {
					t.Errorf("GET %s = %d, want 500", fail, res.StatusCode)
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
