package compress_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/wasmendpoints/endpoints/host/internal/compress"
)

// discard is a ResponseWriter that counts the body bytes and keeps
// nothing, so the benchmark measures the writer, not a recorder.
type discard struct {
	h     http.Header
	bytes int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) WriteHeader(int)             {}
func (d *discard) Write(p []byte) (int, error) { d.bytes += len(p); return len(p), nil }

// BenchmarkAnswer10KB is the cost of compressing a 10 KB JSON answer,
// per request, beside sending it as it is: compare the ns/op of the
// identity case with the others of the same run. B/answer is what goes
// on the wire.
//
//	go test ./host/internal/compress -run '^$' -bench Answer10KB -benchtime 2000x
func BenchmarkAnswer10KB(b *testing.B) {
	body := jsonAnswer(10 << 10)
	for _, c := range []struct {
		name, accept string
		level        compress.Level
	}{
		{"identity", "", compress.Default},
		{"gzip/fastest", "gzip", compress.Fastest},
		{"gzip/default", "gzip", compress.Default},
		{"gzip/best", "gzip", compress.Best},
		{"zstd/fastest", "zstd", compress.Fastest},
		{"zstd/default", "zstd", compress.Default},
		{"zstd/best", "zstd", compress.Best},
	} {
		b.Run(c.name, func(b *testing.B) {
			p, err := compress.New(compress.Options{MinBytes: 1024, Level: c.level})
			if err != nil {
				b.Fatal(err)
			}
			req := httptest.NewRequest("GET", "/", nil)
			if c.accept != "" {
				req.Header.Set("Accept-Encoding", c.accept)
			}
			d := &discard{h: http.Header{}}
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				clear(d.h)
				d.bytes = 0
				w := p.Wrap(d, req)
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Length", strconv.Itoa(len(body)))
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write(body)
				w.Close()
			}
			b.ReportMetric(float64(d.bytes), "B/answer")
		})
	}
}
