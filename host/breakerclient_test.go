package host_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// TestGoBundleBreakerRefusesOnlyTheClientThatTraps: a client that makes a
// route of a Go bundle trap (a crafted query makes GET /api/maybe call
// os.Exit) config.DefaultBreakerTrappedCalls times is refused, 503 with Retry-After,
// for its crafted requests and its ordinary ones alike; and while it
// keeps sending crafted requests as fast as it can, so that it is there
// the moment each pause ends, another client's ordinary requests to the
// same route are all answered 200. The clients are told apart by
// X-Forwarded-For from a trusted proxy (the loopback), as the rate
// limits tell them apart. The warning that the route refuses a client
// is logged once, not once per pause.
func TestGoBundleBreakerRefusesOnlyTheClientThatTraps(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles Go routes")
	}
	t.Parallel()
	dir := failingBundleApp(t)
	events := make(chan host.BreakerEvent, 64)
	srv, logs := (&app{t: t, dir: dir}).serve(host.Options{Mode: host.Production,
		ConfigOverrides: []config.Override{{Pointer: "/trustedProxies", Value: `["127.0.0.1"]`, Source: "test"}},
		Observer:        &host.Observer{RouteBreaker: func(e host.BreakerEvent) { events <- e }}})
	const crash, ordinary = "/api/maybe?crash=true", "/api/maybe"
	attacker := []string{"X-Forwarded-For", "203.0.113.66"}
	victim := []string{"X-Forwarded-For", "198.51.100.7"}

	for i := range config.DefaultBreakerTrappedCalls {
		if got := do(t, srv, "GET", crash, "", attacker...); got.status != 500 {
			t.Fatalf("the attacker's GET %s (%d) = %d %s, want 500", crash, i, got.status, got.body)
		}
	}
	for _, path := range []string{crash, ordinary} {
		if got := do(t, srv, "GET", path, "", attacker...); got.status != 503 || got.header.Get("Retry-After") != "1" {
			t.Errorf("the attacker's GET %s once it trapped %d times = %d Retry-After %q, want 503 Retry-After 1", path, config.DefaultBreakerTrappedCalls, got.status, got.header.Get("Retry-After"))
		}
	}
	if got := do(t, srv, "GET", ordinary, "", victim...); got.status != 200 || got.body != `"fine"` {
		t.Fatalf("another client's GET %s while the attacker is refused = %d %s, want 200 \"fine\"", ordinary, got.status, got.body)
	}

	// The attacker sends crafted requests without pause: it probes the
	// moment its pause ends, and traps again. The other client's calls
	// meanwhile, through at least one such probe, are all served.
	stop := make(chan struct{})
	var attack sync.WaitGroup
	attack.Add(1)
	go func() {
		defer attack.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			req, _ := http.NewRequest("GET", srv.URL+crash, nil)
			req.Header.Set(attacker[0], attacker[1])
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Errorf("the attacker's GET %s: %v", crash, err)
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 500 && res.StatusCode != 503 {
				t.Errorf("the attacker's GET %s = %d, want 500 or 503", crash, res.StatusCode)
			}
		}
	}()
	defer func() {
		close(stop)
		attack.Wait()
	}()
	want := host.BreakerEvent{Module: "server/bundles/go.wasm", Route: "/api/maybe", Open: true, Pause: config.DefaultBreakerPause, Trapped: config.DefaultBreakerTrappedCalls, Refused: 1}
	if e := <-events; e != want {
		t.Errorf("RouteBreaker(%+v), want %+v", e, want)
	}
	reopened := time.After(20 * config.DefaultBreakerPause)
	served := 0
	for probed := false; !probed; {
		select {
		case e := <-events:
			if !e.Open || e.Pause != 2*config.DefaultBreakerPause || e.Refused != 1 {
				t.Fatalf("RouteBreaker(%+v) after the attacker's probe, want it open again for %v, 1 client refused", e, 2*config.DefaultBreakerPause)
			}
			probed = true
			continue
		case <-reopened:
			t.Fatalf("the attacker's breaker did not open again after its probe within %v", 20*config.DefaultBreakerPause)
		default:
		}
		if got := do(t, srv, "GET", ordinary, "", victim...); got.status != 200 || got.body != `"fine"` {
			t.Fatalf("another client's GET %s while the attacker probes (%d served before) = %d %s, want 200 \"fine\"", ordinary, served, got.status, got.body)
		}
		served++
	}
	if n := strings.Count(logs.String(), "route refused for a while to a client whose last calls all trapped"); n != 1 {
		t.Errorf("the warning that the route refuses a client is logged %d times over 2 opens, want once:\n%s", n, logs)
	}
}
