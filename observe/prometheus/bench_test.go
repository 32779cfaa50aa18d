package prometheus_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/cputime"
	"github.com/wasmendpoints/endpoints/internal/logwriter"
	"github.com/wasmendpoints/endpoints/observe/accesslog"
	"github.com/wasmendpoints/endpoints/observe/prometheus"
)

type variant struct {
	name string
	h    http.Handler
}

// observedVariants serve the same validated GET endpoint (a WAT guest
// answering a small JSON object) four ways: without an observer, with the
// access log `endpoints serve` writes by default (text lines, here to a
// file, so the lines cost their writes too), with the Prometheus metrics,
// and with both.
func observedVariants(b *testing.B) []variant {
	app := newApp(b)
	logFile, err := os.Create(filepath.Join(b.TempDir(), "access.log"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { logFile.Close() })
	// What `endpoints serve` does: text lines formatted by the access
	// log's goroutine, queued for another that writes them
	// (internal/logwriter).
	logOut := logwriter.New(logFile)
	b.Cleanup(func() { logOut.Close() })
	log := accesslog.New(slog.New(slog.NewTextHandler(logOut, nil)))
	b.Cleanup(func() { log.Close() }) // before logOut's
	access := log.Observer()
	metrics := func() *host.Observer {
		m := prometheus.New()
		prom.NewRegistry().MustRegister(m)
		return m.Observer()
	}
	vs := []variant{
		{"none", newHost(b, app, nil)},
		{"accesslog", newHost(b, app, access)},
		{"prometheus", newHost(b, app, metrics())},
		{"both", newHost(b, app, host.JoinObservers(access, metrics()))},
	}
	for _, v := range vs {
		rec := httptest.NewRecorder()
		v.h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/users/2", nil))
		if rec.Code != 200 {
			b.Fatalf("%s: GET /api/users/2 = %d %s", v.name, rec.Code, rec.Body)
		}
	}
	return vs
}

// rounds is how many times interleave alternates the variants.
const rounds = 20

// interleave runs the variants in turn for rounds rounds (in reverse
// order every other round), each round
// b.N/rounds calls of each with workers goroutines, so that machine noise
// hits them alike (as host's benchmarks do). It returns, per variant and
// round, the wall time and the CPU time the process spent (client
// included, over HTTP), which other processes on the machine disturb
// less.
func interleave(b *testing.B, n, workers int, call func(variant int) error) (perRound int, took, cpu [][rounds]time.Duration) {
	perRound = max(b.N/rounds, workers)
	took = make([][rounds]time.Duration, n)
	cpu = make([][rounds]time.Duration, n)
	b.ResetTimer()
	for r := range rounds {
		for i := range n {
			// Odd rounds run the variants in reverse, so that none is
			// favoured by its place (the garbage of the one before,
			// caches).
			v := i
			if r%2 == 1 {
				v = n - 1 - i
			}
			var next atomic.Int64
			var wg sync.WaitGroup
			start, startCPU := time.Now(), cputime.Process()
			for range workers {
				wg.Go(func() {
					for next.Add(1) <= int64(perRound) {
						if err := call(v); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			took[v][r] = time.Since(start)
			cpu[v][r] = cputime.Process() - startCPU
		}
	}
	b.StopTimer()
	return perRound, took, cpu
}

// report reports, per variant, its requests per second and CPU time per
// request over the whole run, and the medians over the rounds of its
// ratios to the first variant (none) in the same round: of the rates, and
// of the CPU time (none's divided by the variant's: the throughput the
// variant keeps on busy cores). A round's ratio compares runs seconds
// apart, and the median drops the rounds a burst of other work hit.
func report(b *testing.B, vs []variant, perRound int, took, cpu [][rounds]time.Duration) {
	total := func(d [rounds]time.Duration) (t time.Duration) {
		for _, x := range d {
			t += x
		}
		return t
	}
	median := func(f func(r int) float64) float64 {
		xs := make([]float64, rounds)
		for r := range xs {
			xs[r] = f(r)
		}
		slices.Sort(xs)
		return (xs[rounds/2-1] + xs[rounds/2]) / 2
	}
	for i, v := range vs {
		b.ReportMetric(float64(rounds*perRound)/total(took[i]).Seconds(), v.name+"-req/s")
		if c := total(cpu[i]); c > 0 {
			b.ReportMetric(float64(c.Nanoseconds())/1000/float64(rounds*perRound), v.name+"-cpu-µs/req")
		}
		if i == 0 {
			continue
		}
		b.ReportMetric(median(func(r int) float64 { return float64(took[0][r]) / float64(took[i][r]) }), v.name+"/none")
		if total(cpu[i]) > 0 {
			b.ReportMetric(median(func(r int) float64 { return float64(cpu[0][r]) / float64(cpu[i][r]) }), v.name+"/none-cpu")
		}
	}
	b.ReportMetric(0, "ns/op") // the rates above are the result
}

// BenchmarkObserversHandler measures what the observers cost through
// ServeHTTP alone, where the host's own work is undiluted: a request of
// this guest takes a few microseconds, so each hook shows.
//
//	go test ./observe/prometheus -run '^$' -bench ObserversHandler -benchtime 200000x
func BenchmarkObserversHandler(b *testing.B) {
	vs := observedVariants(b)
	perRound, took, cpu := interleave(b, len(vs), runtime.GOMAXPROCS(0), func(i int) error {
		rec := httptest.NewRecorder()
		vs[i].h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/users/2", nil))
		if rec.Code != 200 {
			return fmt.Errorf("%s: status %d", vs[i].name, rec.Code)
		}
		return nil
	})
	report(b, vs, perRound, took, cpu)
}

// BenchmarkObserversHTTP measures the same over loopback HTTP with
// keep-alive connections, as a server answers.
//
//	go test ./observe/prometheus -run '^$' -bench ObserversHTTP -benchtime 40000x
func BenchmarkObserversHTTP(b *testing.B) {
	vs := observedVariants(b)
	workers := 4 * runtime.GOMAXPROCS(0)
	urls := make([]string, len(vs))
	clients := make([]*http.Client, len(vs))
	for i, v := range vs {
		srv := httptest.NewServer(v.h)
		b.Cleanup(srv.Close)
		tr := &http.Transport{MaxIdleConnsPerHost: workers, MaxConnsPerHost: workers}
		b.Cleanup(tr.CloseIdleConnections)
		urls[i], clients[i] = srv.URL+"/api/users/2", &http.Client{Transport: tr}
	}
	perRound, took, cpu := interleave(b, len(vs), workers, func(i int) error {
		res, err := clients[i].Get(urls[i])
		if err != nil {
			return err
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			return fmt.Errorf("%s: status %d", vs[i].name, res.StatusCode)
		}
		return nil
	})
	report(b, vs, perRound, took, cpu)
}
