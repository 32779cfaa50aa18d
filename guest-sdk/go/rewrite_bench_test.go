package endpoints_test

import (
	"context"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/cputime"
	"github.com/wasmendpoints/endpoints/internal/interrupt"
)

// BenchmarkWasmGuestDBRewrite is BenchmarkWasmGuestDB's request through
// the db guest as it is (plain), and rewritten by internal/interrupt as the
// host runs it: with a check at every loop header (every-loop, the
// rewrite before dispatch loops were known) and with the dispatch rewrite
// (dispatch, what the host does), a Budget reset per request as the host
// does. Compare the cpu-ns/op of the three, from one run. checks/op is
// the fuel checks a request runs, counted on a copy instrumented with
// period 1 (exact; the same on every machine).
//
//	go test ./guest-sdk/go -run XXX -bench WasmGuestDBRewrite -benchtime 2000x -count 3
func BenchmarkWasmGuestDBRewrite(b *testing.B) {
	plain := buildGuest(b, "db")
	result := []byte(`{"columns":["id","name","email"],"rows":[[2,"Grace Hopper","grace@example.com"]]}`)
	for _, v := range []struct {
		name string
		opts *interrupt.Options // nil: not rewritten
	}{
		{"plain", nil},
		{"every-loop", &interrupt.Options{EveryLoop: true}},
		{"dispatch", &interrupt.Options{}},
	} {
		b.Run(v.name, func(b *testing.B) {
			wasm := plain
			var budget interrupt.Budget
			h := &testHost{query: func(string, string, string, bool) ([]byte, abi.Errno) { return result, 0 }}
			if v.opts != nil {
				var err error
				if wasm, err = interrupt.InstrumentWith(plain, interrupt.DefaultPeriod, *v.opts); err != nil {
					b.Fatal(err)
				}
				h.ctx = interrupt.WithBudget(context.Background(), &budget)
			}
			envelope := userEnvelope("2")
			checks := -1
			if v.opts != nil {
				checks = fuelChecks(b, plain, *v.opts, envelope)
			}
			mod := h.instantiate(b, wasm)
			deadline := time.Now().Add(time.Hour)
			b.ReportAllocs()
			defer cputime.Report(b)()
			for b.Loop() {
				budget.Reset(deadline)
				if rc := h.serve(b, mod, envelope); rc != 0 || h.status != 200 {
					b.Fatalf("%s() = %d, status %d; logs %q", abi.ExportHandle, rc, h.status, h.logs)
				}
			}
			if checks >= 0 { // after the loop, whose start drops metrics
				b.ReportMetric(float64(checks), "checks/op")
			}
		})
	}
}

// fuelChecks returns the fuel checks that one request of envelope runs in
// wasm rewritten with opts, after a first request that fills the guest's
// caches.
func fuelChecks(b *testing.B, wasm []byte, opts interrupt.Options, envelope string) int {
	result := []byte(`{"columns":["id","name","email"],"rows":[[2,"Grace Hopper","grace@example.com"]]}`)
	var checks int
	h := &testHost{query: func(string, string, string, bool) ([]byte, abi.Errno) { return result, 0 }, fuelChecks: &checks}
	wasm, err := interrupt.InstrumentWith(wasm, 1, opts)
	if err != nil {
		b.Fatal(err)
	}
	mod := h.instantiate(b, wasm)
	for range 2 {
		checks = 0
		if rc := h.serve(b, mod, envelope); rc != 0 || h.status != 200 {
			b.Fatalf("%s() = %d, status %d; logs %q", abi.ExportHandle, rc, h.status, h.logs)
		}
	}
	return checks
}
