package host_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// workRoutes are the Go routes of one bundle: GET /api/work keeps its
// core busy for ms milliseconds, then answers "done"; with exit=true it
// calls os.Exit (a trap). GET /api/ok answers.
var workRoutes = map[string]string{
	"handlers/work/main.go": `//endpoints:route GET /api/work
package main

import (
	"os"
	"time"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type workIn struct {
	MS   int  ` + "`query:\"ms\"`" + `
	Exit bool ` + "`query:\"exit\"`" + `
}

var spins int

func init() {
	endpoints.Handle(endpoints.Operation{Summary: "Work", Responses: endpoints.Responses{200: endpoints.JSON[string]("Done")}},
		func(in *workIn) endpoints.Reply {
			if in.Exit {
				os.Exit(3)
			}
			end := time.Now().Add(time.Duration(in.MS) * time.Millisecond)
			for time.Now().Before(end) {
				spins++
			}
			return endpoints.Respond(200, "done")
		})
}

func main() {}
`,
	"handlers/ok/main.go": failingRoutes["handlers/ok/main.go"],
}

// getAs sends GET path with X-Forwarded-For: client, for a goroutine other
// than the test's: it returns the status, or an error.
func getAs(srv *httptest.Server, path, client string) (int, error) {
	req, err := http.NewRequest("GET", srv.URL+path, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("X-Forwarded-For", client)
	res, err := srv.Client().Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	_, err = io.Copy(io.Discard, res.Body)
	return res.StatusCode, err
}

// TestGoBundleBreakerIsFairToWaitingClients: the breaker of a bundle's
// route counts against a client only what that client's calls did.
//
// waited: a client whose calls waited for the route's only instance
// (limits.instances 1) while another client's slow calls held it, and
// so ran into their 1.5 s deadline soon after they started, is not
// refused however many such calls it made: its next call is served.
// It was refused for 1 s after 5 of them: another client could get it
// refused by keeping the instances busy. A client whose own calls run
// into their deadline without waiting is still refused.
//
// settings: limits.breakerTrappedCalls and limits.breakerPause, set by
// overrides, are the threshold and the pause applied; and the clients
// behind the trusted proxy are told apart by a Forwarded header and by
// an X-Forwarded-For hop with a port (both were the proxy's address).
func TestGoBundleBreakerIsFairToWaitingClients(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles Go routes")
	}
	t.Parallel()
	dir := goBundleApp(t, workRoutes)
	proxy := config.Override{Pointer: "/trustedProxies", Value: `["127.0.0.1"]`, Source: "test"}
	const holder, waiter = "203.0.113.66", "198.51.100.7"

	t.Run("waited", func(t *testing.T) {
		t.Parallel()
		started := make(chan struct{}, 1)
		events := make(chan host.BreakerEvent, 16)
		srv, logs := (&app{t: t, dir: dir}).serve(host.Options{Mode: host.Production,
			ConfigOverrides: []config.Override{proxy,
				{Pointer: "/limits/instances", Value: "1", Source: "test"},
				{Pointer: "/limits/timeout", Value: "1500ms", Source: "test"}},
			Observer: &host.Observer{
				RouteBreaker: func(e host.BreakerEvent) { events <- e },
				Span: func(ctx context.Context, e host.SpanEvent) (context.Context, func(error)) {
					if e.Step == host.StepGuest {
						select {
						case started <- struct{}{}:
						default:
						}
					}
					return ctx, nil
				}}})
		for i := range config.DefaultBreakerTrappedCalls + 1 {
			// The holder's call takes the instance for 1 s of its
			// 1.5 s (the rest leaves room for making an instance on a
			// loaded machine); the waiter's, sent once it runs, waits
			// for it, then has about 500 ms left for its 1 s of work.
			select {
			case <-started:
			default:
			}
			held := make(chan error, 1)
			go func() {
				status, err := getAs(srv, "/api/work?ms=1000", holder)
				if err == nil && status != 200 {
					err = fmt.Errorf("status %d, want 200", status)
				}
				held <- err
			}()
			select {
			case <-started:
			case <-time.After(30 * time.Second):
				t.Fatalf("round %d: the holder's call did not start within 30 s", i)
			}
			if got := do(t, srv, "GET", "/api/work?ms=1000", "", "X-Forwarded-For", waiter); got.status != 500 {
				t.Fatalf("round %d: the waiter's GET /api/work?ms=1000 behind the holder's = %d %s, want 500 (its deadline)", i, got.status, got.body)
			}
			if err := <-held; err != nil {
				t.Fatalf("round %d: the holder's GET /api/work?ms=1000: %v", i, err)
			}
		}
		if got := do(t, srv, "GET", "/api/work?ms=0", "", "X-Forwarded-For", waiter); got.status != 200 {
			t.Errorf("the waiter's GET /api/work?ms=0 after %d calls that ran into their deadline waiting for the holder's = %d Retry-After %q, want 200",
				config.DefaultBreakerTrappedCalls+1, got.status, got.header.Get("Retry-After"))
		}
		select {
		case e := <-events:
			t.Errorf("RouteBreaker(%+v) while no client trapped on its own", e)
		default:
		}
		if !strings.Contains(logs.String(), "of it went to waiting for a free instance") {
			t.Errorf("no call failed after waiting for an instance:\n%s", logs)
		}

		// The holder's own calls that run into their deadline, with
		// nobody to wait for, count against it.
		for i := range config.DefaultBreakerTrappedCalls {
			if got := do(t, srv, "GET", "/api/work?ms=5000", "", "X-Forwarded-For", holder); got.status != 500 {
				t.Fatalf("the holder's GET /api/work?ms=5000 (%d) = %d %s, want 500", i, got.status, got.body)
			}
		}
		if got := do(t, srv, "GET", "/api/work?ms=0", "", "X-Forwarded-For", holder); got.status != 503 {
			t.Errorf("the holder's GET /api/work?ms=0 after its own %d calls ran into their deadline = %d, want 503", config.DefaultBreakerTrappedCalls, got.status)
		}
		if got := do(t, srv, "GET", "/api/work?ms=0", "", "X-Forwarded-For", waiter); got.status != 200 {
			t.Errorf("the waiter's GET /api/work?ms=0 while the holder is refused = %d, want 200", got.status)
		}
	})

	t.Run("settings", func(t *testing.T) {
		t.Parallel()
		events := make(chan host.BreakerEvent, 16)
		srv, _ := (&app{t: t, dir: dir}).serve(host.Options{Mode: host.Production,
			ConfigOverrides: []config.Override{proxy,
				{Pointer: "/limits/breakerTrappedCalls", Value: "2", Source: "test"},
				{Pointer: "/limits/breakerPause", Value: "3s", Source: "test"}},
			Observer: &host.Observer{RouteBreaker: func(e host.BreakerEvent) { events <- e }}})
		// The client is told by the proxy's RFC 7239 Forwarded, the
		// other by an X-Forwarded-For hop with a port: two clients.
		trapper := []string{"Forwarded", `for="203.0.113.66:4711";proto=http`}
		other := []string{"X-Forwarded-For", "[2001:db8::7]:443"}
		for i := range 2 {
			if got := do(t, srv, "GET", "/api/work?exit=true", "", trapper...); got.status != 500 {
				t.Fatalf("GET /api/work?exit=true (%d) = %d %s, want 500", i, got.status, got.body)
			}
		}
		if got := do(t, srv, "GET", "/api/work?ms=0", "", trapper...); got.status != 503 || got.header.Get("Retry-After") != "3" {
			t.Errorf("GET /api/work?ms=0 after 2 trapped calls with breakerTrappedCalls 2, breakerPause 3s = %d Retry-After %q, want 503 Retry-After 3", got.status, got.header.Get("Retry-After"))
		}
		if got := do(t, srv, "GET", "/api/work?ms=0", "", other...); got.status != 200 {
			t.Errorf("another client's GET /api/work?ms=0 (X-Forwarded-For %s) while the first (Forwarded %s) is refused = %d, want 200", other[1], trapper[1], got.status)
		}
		want := host.BreakerEvent{Module: "server/bundles/go.wasm", Route: "/api/work", Open: true, Pause: 3 * time.Second, Trapped: 2, Refused: 1}
		select {
		case e := <-events:
			if e != want {
				t.Errorf("RouteBreaker(%+v), want %+v", e, want)
			}
		default:
			t.Error("no RouteBreaker event")
		}
	})
}
