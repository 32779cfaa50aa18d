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
	"sync"
	"sync/atomic"
	"testing"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/wasmendpoints/endpoints/host"
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
// file, so each line costs its write), with the Prometheus metrics, and
// with both.
func observedVariants(b *testing.B) []variant {
	app := newApp(b)
	logFile, err := os.Create(filepath.Join(b.TempDir(), "access.log"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { logFile.Close() })
	access := accesslog.New(slog.New(slog.NewTextHandler(logFile, nil)))
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

// interleave runs the variants in turn for ten rounds, each round b.N/10
// calls of each with workers goroutines, so that machine noise hits them
// alike, and returns each one's calls per second (as host's benchmarks do).
func interleave(b *testing.B, n, workers int, call func(variant int) error) []float64 {
	const rounds = 10
	perRound := max(b.N/rounds, workers)
	took := make([]time.Duration, n)
	b.ResetTimer()
	for range rounds {
		for v := range n {
			var next atomic.Int64
			var wg sync.WaitGroup
			start := time.Now()
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
			took[v] += time.Since(start)
		}
	}
	b.StopTimer()
	rates := make([]float64, n)
	for v := range rates {
		rates[v] = float64(rounds*perRound) / took[v].Seconds()
	}
	return rates
}

func report(b *testing.B, vs []variant, rates []float64) {
	for i, v := range vs {
		b.ReportMetric(rates[i], v.name+"-req/s")
		if i > 0 {
			b.ReportMetric(rates[i]/rates[0], v.name+"/none")
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
	rates := interleave(b, len(vs), runtime.GOMAXPROCS(0), func(i int) error {
		rec := httptest.NewRecorder()
		vs[i].h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/users/2", nil))
		if rec.Code != 200 {
			return fmt.Errorf("%s: status %d", vs[i].name, rec.Code)
		}
		return nil
	})
	report(b, vs, rates)
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
	rates := interleave(b, len(vs), workers, func(i int) error {
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
	report(b, vs, rates)
}
