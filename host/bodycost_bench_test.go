package host_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// BenchmarkHostileBodies measures what the host spends on a request body
// before the guest runs (decoding, depth and number checks, validation),
// for bodies built to cost the most at the default limits, through
// ServeHTTP against a guest that does nothing: at most limits.jsonValues
// values (4096), nested at most limits.jsonDepth (32) deep, and what
// refusing more costs. Reported per request and per KiB of body.
func BenchmarkHostileBodies(b *testing.B) {
	// A recursive schema: a tree of arrays of integers, each item tried as
	// an integer and then as a tree.
	recursive := `{"type":"object","properties":{"t":{"$ref":"#/$defs/T"}}}`
	const n = 4095 // values, within limits.jsonValues (4096) with their array
	bodies := []struct {
		name, schema, body string
		want               int
	}{
		{"nested 5000 deep (refused)", recursive, `{"t":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`, 400},
		{"nested 32 deep, 130 times", recursive, `{"t":[` + strings.Repeat(strings.Repeat("[", 30)+"1"+strings.Repeat("]", 30)+",", 129) + strings.Repeat("[", 30) + "1" + strings.Repeat("]", 30) + `]}`, 200},
		{"4096 integers", `{"type":"array","items":{"type":"integer","minimum":0}}`, "[" + strings.Repeat("12345678,", n-1) + "1]", 200},
		{"4096 integers written as 1.000e0", `{"type":"array","items":{"type":"integer","minimum":0}}`, "[" + strings.Repeat("1.000e0,", n-1) + "1]", 200},
		{"an object of 4096 members", `{"type":"object","additionalProperties":{"type":"string","maxLength":3}}`, "{" + members(n) + "}", 200},
		{"4096 unique items", `{"type":"array","uniqueItems":true}`, "[" + uniqueNumbers(n) + "]", 200},
		{"1 MiB of integers (refused)", `{"type":"array","items":{"type":"integer","minimum":0}}`, "[" + strings.Repeat("12345678,", 116000) + "1]", 400},
	}
	for _, tt := range bodies {
		b.Run(tt.name, func(b *testing.B) {
			contract := `{"request":{"body":{"schema":` + tt.schema + `}},"$defs":{"T":{"type":"array","items":{"anyOf":[{"type":"integer"},{"$ref":"#/$defs/T"}]}}}}`
			h, _ := newApp(b).wat("server/api/sink.post.wasm", watModule{contract: contract, handle: `(i32.const 0)`, pages: 8}).
				host(host.Options{Mode: host.Production})
			run := func() int {
				req := httptest.NewRequest("POST", "/api/sink", strings.NewReader(tt.body))
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				return rec.Code
			}
			if got := run(); got != tt.want {
				b.Fatalf("got %d, want %d", got, tt.want)
			}
			b.SetBytes(int64(len(tt.body)))
			b.ResetTimer()
			for b.Loop() {
				run()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/(float64(len(tt.body))/1024), "µs/KiB")
		})
	}
}

func members(n int) string {
	var s strings.Builder
	for i := range n {
		if i > 0 {
			s.WriteByte(',')
		}
		fmt.Fprintf(&s, `"k%d":"v"`, i)
	}
	return s.String()
}

func uniqueNumbers(n int) string {
	var s strings.Builder
	for i := range n {
		if i > 0 {
			s.WriteByte(',')
		}
		fmt.Fprintf(&s, "%d", i)
	}
	return s.String()
}
