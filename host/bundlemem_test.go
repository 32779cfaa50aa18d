package host_test

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// memoryRoutes are Go routes of one bundle: GET /api/hoard adds 1 MiB
// (written) to a package variable at each call and answers how many it
// holds, GET /api/small allocates 256 KiB and GET /api/big as many MiB as
// its query asks, each written and dropped when the call ends.
var memoryRoutes = map[string]string{
	"handlers/hoard/main.go": `//endpoints:route GET /api/hoard
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

type hoardIn struct{}

var hoard [][]byte

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Hoard", Responses: endpoints.Responses{200: endpoints.JSON[int]("Held")}},
		func(*hoardIn) endpoints.Reply {
			b := make([]byte, 1<<20)
			for i := range b {
				b[i] = byte(i)
			}
			hoard = append(hoard, b)
			return endpoints.Respond(200, len(hoard))
		})
}

func main() {}
`,
	"handlers/small/main.go": `//endpoints:route GET /api/small
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

type smallIn struct{}

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Small", Responses: endpoints.Responses{200: endpoints.JSON[int]("Sum")}},
		func(*smallIn) endpoints.Reply {
			b := make([]byte, 256<<10)
			s := 0
			for i := range b {
				b[i] = byte(i)
				s += int(b[i])
			}
			return endpoints.Respond(200, s)
		})
}

func main() {}
`,
	"handlers/big/main.go": `//endpoints:route GET /api/big
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

type bigIn struct {
	MiB int ` + "`query:\"mib\"`" + `
}

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Big", Responses: endpoints.Responses{200: endpoints.JSON[int]("Sum")}},
		func(in *bigIn) endpoints.Reply {
			b := make([]byte, in.MiB<<20)
			s := 0
			for i := range b {
				b[i] = byte(i)
				s += int(b[i])
			}
			return endpoints.Respond(200, s)
		})
}

func main() {}
`,
}

// memoryBundleApp writes an app of memoryRoutes and links them into one
// bundle, as endpoints build does.
func memoryBundleApp(t *testing.T) string {
	return goBundleApp(t, memoryRoutes)
}

// httptestServer serves h over loopback HTTP until the test ends.
func httptestServer(t *testing.T, h *host.Host) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// poolEvents counts the instances a host's pools made and recycled, by
// route.
type poolEvents struct {
	mu             sync.Mutex
	made, recycled map[string]int
}

func (p *poolEvents) observer() *host.Observer {
	p.made, p.recycled = map[string]int{}, map[string]int{}
	return &host.Observer{
		InstanceMade: func(e host.PoolEvent) {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.made[e.Route]++
		},
		InstanceRecycled: func(e host.PoolEvent) {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.recycled[e.Route]++
		},
	}
}

func (p *poolEvents) counts(route string) (made, recycled int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.made[route], p.recycled[route]
}

// TestGoBundleHoardingRouteLeavesItsNeighbourServed: a route of a Go
// bundle that keeps adding to a package variable fills its instance's
// memory, which its neighbour's calls share: without recycling, GET
// /api/small ran out of memory (500) after about 9 calls of GET
// /api/hoard at a 16 MiB limit. Each instance one of its calls leaves
// past three quarters of the limit is closed instead, so both routes
// answer every call, the hoard starting over in each new instance.
func TestGoBundleHoardingRouteLeavesItsNeighbourServed(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles Go routes")
	}
	t.Parallel()
	events := &poolEvents{}
	h, _ := (&app{t: t, dir: memoryBundleApp(t)}).host(host.Options{Mode: host.Production, Observer: events.observer(),
		Limits: config.Limits{MemoryBytes: 16 << 20, Instances: 1}})
	srv := httptestServer(t, h)
	most, restarts := 0, 0
	for i := range 40 {
		got := do(t, srv, "GET", "/api/hoard", "")
		if got.status != 200 {
			t.Fatalf("GET /api/hoard (call %d) = %d %s, want 200", i, got.status, got.body)
		}
		held, err := strconv.Atoi(got.body)
		if err != nil {
			t.Fatalf("GET /api/hoard (call %d) answered %q, want a count", i, got.body)
		}
		if held < most {
			restarts++
		}
		most = held
		if got := do(t, srv, "GET", "/api/small", ""); got.status != 200 {
			t.Fatalf("GET /api/small after %d calls of GET /api/hoard = %d %s, want 200", i+1, got.status, got.body)
		}
	}
	_, recycled := events.counts("/api/hoard")
	t.Logf("GET /api/hoard: %d instances recycled, its hoard started over %d times, %d MiB held at the end", recycled, restarts, most)
	if recycled < 3 || restarts < 3 {
		t.Errorf("GET /api/hoard's instances recycled %d times, its hoard started over %d times; want 3 or more (a dozen 1 MiB calls fill 12 MiB)", recycled, restarts)
	}
	if _, recycled := events.counts("/api/small"); recycled != 0 {
		t.Errorf("GET /api/small's calls recycled %d instances, want none: it never grows them past the mark", recycled)
	}
}

// TestGoBundleLargeCallsRecycling: a route each of whose calls takes 7
// MiB keeps its instance past the 10 MiB mark from its first call (its
// steady state): it is not recycled, neither at that call nor at the 9
// that follow, which would make an instance for every call. The same
// request once, on an instance that served small calls before, leaves
// that instance past the mark: it is recycled, and the route's next
// instance holds what a small call needs, not the large call's peak.
func TestGoBundleLargeCallsRecycling(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles Go routes")
	}
	t.Parallel()
	const mark = 10 << 20
	dir := memoryBundleApp(t)
	limits := config.Limits{MemoryBytes: 16 << 20, RecycleMemoryBytes: mark, Instances: 1}

	t.Run("steady", func(t *testing.T) {
		events := &poolEvents{}
		h, logs := (&app{t: t, dir: dir}).host(host.Options{Mode: host.Production, Observer: events.observer(), Limits: limits})
		srv := httptestServer(t, h)
		for i := range 10 {
			if got := do(t, srv, "GET", "/api/big?mib=7", ""); got.status != 200 {
				t.Fatalf("GET /api/big?mib=7 (call %d) = %d %s, want 200", i, got.status, got.body)
			}
		}
		if made, recycled := events.counts("/api/big"); made != 0 || recycled != 0 {
			t.Errorf("GET /api/big made %d instances and recycled %d, want none: its first call took the instance past the mark", made, recycled)
		}
		if got := h.Pools()[0].MemoryBytes; got <= mark {
			t.Errorf("the instance holds %d bytes, want more than the mark (%d): the test's route does not reach it", got, mark)
		}
		if !strings.Contains(logs.String(), "the instance is kept, since any new one would be as large") {
			t.Errorf("no warning that the route's first call took the instance past the mark:\n%s", logs)
		}
	})

	t.Run("once", func(t *testing.T) {
		events := &poolEvents{}
		h, _ := (&app{t: t, dir: dir}).host(host.Options{Mode: host.Production, Observer: events.observer(), Limits: limits})
		srv := httptestServer(t, h)
		for _, path := range []string{"/api/small", "/api/small", "/api/big?mib=7", "/api/small"} {
			if got := do(t, srv, "GET", path, ""); got.status != 200 {
				t.Fatalf("GET %s = %d %s, want 200", path, got.status, got.body)
			}
		}
		if _, recycled := events.counts("/api/big"); recycled != 1 {
			t.Errorf("GET /api/big recycled %d instances, want 1", recycled)
		}
		got := h.Pools()[0].MemoryBytes
		t.Logf("the pool holds %d bytes at rest after the large call and a small one", got)
		if got >= mark {
			t.Errorf("the pool holds %d bytes at rest after the large call, want what a new instance holds after a small call (under the mark, %d)", got, mark)
		}
	})
}
