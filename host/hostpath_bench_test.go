package host_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/cputime"
)

// BenchmarkHostPathC measures what one request costs the host through
// ServeHTTP for the C example (examples/users-c) in production mode: GET
// /health, a plain route without a database, isolates the host's own work
// (the guest answers a constant); GET /api/users/2 adds an endpoint's
// validation and a SQLite read. The "observed" ones serve them with a
// Request hook attached that does nothing, as `endpoints serve --quiet`'s
// access log does for an answer below 500. Each sub-benchmark reports the process's
// CPU time per request (cpu-ns/op, which a busy machine skews less than
// ns/op), allocations per request, and how many times a request sets
// the connection's write deadline (write-deadlines/op: about 80 ns each
// on a real connection, free here), the numbers to compare before and
// after a change to the request path. The response goes to a wireWriter,
// which costs what net/http's own writer costs the host and no more, so
// that the numbers are the host's. The "-http" ones serve them over
// loopback HTTP through Host.HTTPServer, one keep-alive connection.
//
//	go test ./host -run '^$' -bench HostPathC -benchtime 20000x -benchmem
func BenchmarkHostPathC(b *testing.B) {
	app := builtExample(b, "users-c")
	serve := func(observer *host.Observer) *host.Host {
		h, err := host.New(b.Context(), app, host.Options{Mode: host.Production, CacheDir: testCacheDir(b), Logger: discardLogger(), Observer: observer})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { h.Close(b.Context()) })
		return h
	}
	plain, observed := serve(nil), serve(&host.Observer{Request: func(host.RequestEvent) {}})
	for _, tc := range []struct {
		name, path string
		h          *host.Host
	}{
		{"health", "/health", plain},
		{"users-get", "/api/users/2", plain},
		{"health-observed", "/health", observed},
		{"users-get-observed", "/api/users/2", observed},
	} {
		h := tc.h
		b.Run(tc.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", tc.path, nil)
			check := httptest.NewRecorder()
			h.ServeHTTP(check, req.WithContext(req.Context()))
			if check.Code != 200 {
				b.Fatalf("GET %s = %d %s, want 200", tc.path, check.Code, check.Body)
			}
			w := &wireWriter{header: make(http.Header)}
			b.ReportAllocs()
			b.ResetTimer()
			report := cputime.Report(b)
			for range b.N {
				w.reset()
				h.ServeHTTP(w, req)
				if w.code != 200 {
					b.Fatalf("GET %s = %d, want 200", tc.path, w.code)
				}
			}
			report()
			b.ReportMetric(float64(w.deadlines)/float64(b.N), "write-deadlines/op")
		})
	}
	// Over loopback, through Host.HTTPServer on one keep-alive
	// connection: what the wire adds (the connection's deadlines, the
	// server's reading and writing). The CPU time counts the client's
	// share too.
	for _, tc := range []struct{ name, path string }{
		{"health-http", "/health"},
		{"users-get-http", "/api/users/2"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			srv := plain.HTTPServer()
			go srv.Serve(ln)
			b.Cleanup(func() { srv.Close() })
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			b.Cleanup(client.CloseIdleConnections)
			url := "http://" + ln.Addr().String() + tc.path
			get := func() {
				res, err := client.Get(url)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					b.Fatalf("GET %s = %d, want 200", tc.path, res.StatusCode)
				}
			}
			get()
			b.ReportAllocs()
			b.ResetTimer()
			report := cputime.Report(b)
			for range b.N {
				get()
			}
			report()
		})
	}
}

// wireWriter is an http.ResponseWriter that keeps what the host writes as
// net/http's writer does on a keep-alive connection: one header map reused
// across requests, deadlines accepted, the body counted and dropped.
// Unlike httptest.ResponseRecorder, it does not copy the header at
// WriteHeader, and its deadline methods do not fail (a recorder's make
// http.ResponseController build an error each call), so neither shows in
// the host's numbers.
type wireWriter struct {
	header    http.Header
	code      int
	n         int
	deadlines int // write deadlines set, across requests
}

func (w *wireWriter) reset() {
	clear(w.header)
	w.code, w.n = 0, 0
}

func (w *wireWriter) Header() http.Header { return w.header }

func (w *wireWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *wireWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.n += len(p)
	return len(p), nil
}

func (w *wireWriter) Flush() {}

func (w *wireWriter) SetReadDeadline(time.Time) error  { return nil }
func (w *wireWriter) SetWriteDeadline(time.Time) error { w.deadlines++; return nil }
