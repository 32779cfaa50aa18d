package host_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// BenchmarkBesideGoGuest measures what a Go guest's request does to the
// requests around it: GET /api/users/2 of the C example alone ("c"), of
// the Go example alone ("go"), and the two in turn ("c-then-go", one of
// each a call), through ServeHTTP in production mode, in turn for ten
// rounds (interleaveCPU). With nothing shared, c-then-go would cost c +
// go; what it costs beyond (beside-cpu-ns/op) is each request slowed by
// the other's footprint in the caches, the effect RATIONALE.md ("Reading
// the wire benchmark") finds on the wire, where the host's work beside
// the Go guest costs 1.6-2 times what it costs beside the C guest. The
// numbers are the process's CPU time a call, which a shared machine
// skews less than wall time.
//
//	go test ./host -run '^$' -bench BesideGoGuest -benchtime 20000x
func BenchmarkBesideGoGuest(b *testing.B) {
	serve := func(example string) *host.Host {
		h, err := host.New(b.Context(), builtExample(b, example), host.Options{Mode: host.Production, CacheDir: testCacheDir(b), Logger: discardLogger()})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { h.Close(b.Context()) })
		return h
	}
	c, g := serve("users-c"), serve("users+bundle")
	req := httptest.NewRequest("GET", "/api/users/2", nil)
	variants := [][]*host.Host{{c}, {g}, {c, g}}
	names := []string{"c", "go", "c-then-go"}
	_, cpu := interleaveCPU(b, len(variants), 1, func(v int) error {
		for _, h := range variants[v] {
			w := &wireWriter{header: make(http.Header)}
			h.ServeHTTP(w, req)
			if w.code != 200 {
				return fmt.Errorf("%s: GET /api/users/2 = %d, want 200", names[v], w.code)
			}
		}
		return nil
	})
	for i, name := range names {
		b.ReportMetric(float64(cpu[i].Nanoseconds()), name+"-cpu-ns/op")
	}
	b.ReportMetric(float64((cpu[2] - cpu[0] - cpu[1]).Nanoseconds()), "beside-cpu-ns/op")
	b.ReportMetric(0, "ns/op") // the per-variant CPU times above are the result
}
