package host_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/cputime"
)

// BenchmarkBundleFailingNeighbour measures what a route of a Go bundle
// that fails every request costs its healthy neighbour: the bundle of
// failingRoutes (production mode, through ServeHTTP), one client calling
// GET /api/ok alone, then alternating it with each failing route in turn
// (GET /api/panic, /api/overflow, /api/exit). Phases alternate in rounds
// so that machine noise hits them alike.
//
// It reports, per phase NAME ("alone", "panic", "overflow", "exit"):
//
//   - NAME-ok-us/req: the wall time of a GET /api/ok, the healthy route's
//     cost per request;
//
//   - NAME-fail-us/req: the wall time of the failing request;
//
//   - NAME-cpu-us/pair: the process's CPU time per GET /api/ok and its
//     failing neighbour (the request alone, in the phase "alone");
//
//   - NAME-refused/fail: the share of the failing requests refused (503)
//     because the route's last calls all trapped (package breaker)
//     rather than run (500).
//
//     go test ./host -run '^$' -bench BundleFailingNeighbour -benchtime 400x
func BenchmarkBundleFailingNeighbour(b *testing.B) {
	if testing.Short() {
		b.Skip("-short: compiles Go routes")
	}
	dir := failingBundleApp(b)
	h, _ := (&app{t: b, dir: dir}).host(host.Options{Mode: host.Production, Logger: discardLogger()})
	if err := h.WaitCompiled(context.Background()); err != nil {
		b.Fatal(err)
	}
	type phase struct {
		name, fail      string
		ok, failed, cpu time.Duration
		refused         int
	}
	phases := []*phase{{name: "alone"}, {name: "panic", fail: "/api/panic"}, {name: "overflow", fail: "/api/overflow"}, {name: "exit", fail: "/api/exit"}}
	get := func(path string, want ...int) (time.Duration, int) {
		start := time.Now()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		took := time.Since(start)
		if !slices.Contains(want, rec.Code) {
			b.Fatalf("GET %s = %d %s, want %v", path, rec.Code, rec.Body, want)
		}
		return took, rec.Code
	}
	get("/api/ok", 200) // the warm instance is the one the phases start with
	const rounds = 10
	perRound := max(b.N/rounds, 1)
	b.ResetTimer()
	for range rounds {
		for _, p := range phases {
			// Untimed: the previous phase's last failure may have taken
			// the idle instance; the phase starts with one, as "alone"
			// does.
			get("/api/ok", 200)
			start := cputime.Process()
			for range perRound {
				took, _ := get("/api/ok", 200)
				p.ok += took
				if p.fail != "" {
					took, status := get(p.fail, 500, 503)
					p.failed += took
					if status == 503 {
						p.refused++
					}
				}
			}
			p.cpu += cputime.Process() - start
		}
	}
	b.StopTimer()
	n := float64(rounds * perRound)
	for _, p := range phases {
		b.ReportMetric(float64(p.ok.Microseconds())/n, p.name+"-ok-us/req")
		if p.fail != "" {
			b.ReportMetric(float64(p.failed.Microseconds())/n, p.name+"-fail-us/req")
			b.ReportMetric(float64(p.refused)/n, p.name+"-refused/fail")
		}
		if p.cpu > 0 {
			b.ReportMetric(float64(p.cpu.Microseconds())/n, p.name+"-cpu-us/pair")
		}
	}
	b.ReportMetric(0, "ns/op") // the figures above are the result
}
