package host_test

import (
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// goroutineRoutes are Go routes of one bundle: GET /api/spawn leaves
// behind a goroutine that never yields, GET /api/leak one that waits
// forever, GET /api/queue one that waits for the route's next call to
// queue a job, then never yields, and GET /api/sleep, an innocent route,
// yields to the scheduler (runtime.Gosched) as any call that waits for a
// timer or takes a lock does.
var goroutineRoutes = map[string]string{
	"handlers/spawn/main.go": `//endpoints:route GET /api/spawn
package main

import (
	"time"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type spawnIn struct{}

var spins int

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Spawn", Timeout: 300 * time.Millisecond, Responses: endpoints.Responses{200: endpoints.JSON[string]("Spawned")}},
		func(*spawnIn) endpoints.Reply {
			go func() {
				for {
					spins++
				}
			}()
			return endpoints.Respond(200, "spawned")
		})
}

func main() {}
`,
	"handlers/leak/main.go": `//endpoints:route GET /api/leak
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

type leakIn struct{}

var never chan struct{}

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Leak", Responses: endpoints.Responses{200: endpoints.JSON[string]("Leaked")}},
		func(*leakIn) endpoints.Reply {
			go func() { <-never }()
			return endpoints.Respond(200, "leaked")
		})
}

func main() {}
`,
	"handlers/queue/main.go": `//endpoints:route GET /api/queue
package main

import (
	"time"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type queueIn struct{}

var (
	jobs    = make(chan struct{}, 1)
	started bool
	spins   int
)

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Queue", Timeout: 300 * time.Millisecond, Responses: endpoints.Responses{200: endpoints.JSON[string]("Queued")}},
		func(*queueIn) endpoints.Reply {
			if !started {
				started = true
				go func() {
					<-jobs
					for {
						spins++
					}
				}()
				return endpoints.Respond(200, "worker started")
			}
			jobs <- struct{}{}
			return endpoints.Respond(200, "job queued")
		})
}

func main() {}
`,
	"handlers/sleep/main.go": `//endpoints:route GET /api/sleep
package main

import (
	"runtime"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type sleepIn struct{}

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Sleep", Responses: endpoints.Responses{200: endpoints.JSON[string]("Slept")}},
		func(*sleepIn) endpoints.Reply {
			runtime.Gosched()
			return endpoints.Respond(200, "slept")
		})
}

func main() {}
`,
}

// TestGoBundleGoroutinesStayWithTheirRoute: a goroutine a Go handler
// leaves behind runs, and costs, within the call that started it (the
// SDK runs it before the call returns), not during a later call of
// another route of the bundle that the instance serves next: a goroutine
// that never yields stops its own route's call at its deadline, and the
// innocent route keeps answering. It stopped the innocent route's calls
// at their deadline (500, blamed on that route) until the instance was
// discarded. A goroutine left waiting is named in a warning.
func TestGoBundleGoroutinesStayWithTheirRoute(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles Go routes")
	}
	requireTool(t, "go")
	t.Parallel()
	files := make(map[string]string, len(goroutineRoutes))
	for k, v := range goroutineRoutes {
		files[k] = v
	}
	dir := goApp(t, files)
	sources, err := guestbuild.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := guestbuild.Build(t.Context(), dir, dir, guestbuild.BundleGo(sources), nil); err != nil {
		t.Fatal(err)
	}
	// One instance a route, so that the routes' calls take turns on the
	// idle instance the last call gave back.
	srv, logs := (&app{t: t, dir: dir}).serve(host.Options{Mode: host.Development,
		Limits: config.Limits{Instances: 1, Timeout: config.Duration(5 * time.Second)}})
	if got := do(t, srv, "GET", "/api/sleep", ""); got.status != 200 {
		t.Fatalf("GET /api/sleep before any goroutine = %d %s", got.status, got.body)
	}
	for range 2 {
		if got := do(t, srv, "GET", "/api/spawn", ""); got.status != 500 || !strings.Contains(got.body, "server/bundles/go.wasm (GET /api/spawn)") {
			t.Errorf("GET /api/spawn = %d %s, want 500 at its own deadline, naming it", got.status, got.body)
		}
		if got := do(t, srv, "GET", "/api/sleep", ""); got.status != 200 || got.body != `"slept"` {
			t.Errorf("GET /api/sleep after GET /api/spawn = %d %s, want 200 \"slept\"", got.status, got.body)
		}
	}
	if got := do(t, srv, "GET", "/api/leak", ""); got.status != 200 {
		t.Errorf("GET /api/leak = %d %s, want 200", got.status, got.body)
	}
	if want := "left 1 goroutine(s) it started running"; !strings.Contains(logs.String(), want) {
		t.Errorf("the log lacks %q:\n%s", want, logs)
	}
	// A goroutine an earlier call started, which this call makes runnable
	// (a job queued on a buffered channel, no wait), runs within this
	// call too: it ran during the innocent route's next call, which it
	// stopped at its deadline.
	if got := do(t, srv, "GET", "/api/queue", ""); got.status != 200 || got.body != `"worker started"` {
		t.Fatalf("GET /api/queue (start) = %d %s, want 200 \"worker started\"", got.status, got.body)
	}
	if got := do(t, srv, "GET", "/api/queue", ""); got.status != 500 || !strings.Contains(got.body, "server/bundles/go.wasm (GET /api/queue)") {
		t.Errorf("GET /api/queue (feed) = %d %s, want 500 at its own deadline, naming it", got.status, got.body)
	}
	if got := do(t, srv, "GET", "/api/sleep", ""); got.status != 200 || got.body != `"slept"` {
		t.Errorf("GET /api/sleep after GET /api/queue fed its worker = %d %s, want 200 \"slept\"", got.status, got.body)
	}
}
