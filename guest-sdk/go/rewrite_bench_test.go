//go:build !wasip1

package endpoints_test

import (
	"context"
	"testing"
	"time"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/cputime"
	"github.com/wasmendpoints/endpoints/internal/interrupt"
)

// BenchmarkWasmGuestDBRewrite is BenchmarkWasmGuestDB's request through
// the db guest as it is (plain), and rewritten by internal/interrupt as the
// host runs it: with a check at every loop header (every-loop, the rewrite
// before dispatch loops were known) and with the dispatch rewrite
// (dispatch, what the host does), a Budget reset per request as the host
// does. The three take turns, in twenty rounds, so that the load of a
// shared machine falls on all alike; each reports its CPU time per request
// (NAME-cpu-ns/req) and the two rewrites their ratio to plain and
// NAME-checks/req, the fuel checks a request runs, counted on a copy
// instrumented with period 1: exact, the same on every machine.
//
// warm runs the requests back to back; cold writes 8 MiB of other memory
// before each, as the host's own work and SQLite's leave the caches on the
// wire, and leaves the CPU time of those writes out.
//
//	go test ./guest-sdk/go -run XXX -bench WasmGuestDBRewrite -benchtime 4000x
func BenchmarkWasmGuestDBRewrite(b *testing.B) {
	plain := buildGuest(b, "db")
	result := []byte(`{"columns":["id","name","email"],"rows":[[2,"Grace Hopper","grace@example.com"]]}`)
	envelope := userEnvelope("2")
	type variant struct {
		name   string
		opts   *interrupt.Options // nil: not rewritten
		host   *testHost
		mod    api.Module
		budget interrupt.Budget
		cpu    time.Duration
		checks int
	}
	vs := []*variant{
		{name: "plain"},
		{name: "every-loop", opts: &interrupt.Options{EveryLoop: true}},
		{name: "dispatch", opts: &interrupt.Options{}},
	}
	for _, v := range vs {
		wasm := plain
		v.host = &testHost{query: func(string, string, string, bool) ([]byte, abi.Errno) { return result, 0 }}
		if v.opts != nil {
			var err error
			if wasm, err = interrupt.InstrumentWith(plain, interrupt.DefaultPeriod, *v.opts); err != nil {
				b.Fatal(err)
			}
			v.host.ctx = interrupt.WithBudget(context.Background(), &v.budget)
			v.checks = fuelChecks(b, plain, *v.opts, envelope)
		}
		v.mod = v.host.instantiate(b, wasm)
	}
	for _, cold := range []bool{false, true} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			var other []byte
			if cold {
				other = make([]byte, 8<<20)
			}
			const rounds = 20
			perRound := max(b.N/rounds, 1)
			deadline := time.Now().Add(time.Hour)
			for _, v := range vs {
				v.cpu = 0
			}
			b.ResetTimer()
			for range rounds {
				for _, v := range vs {
					// Warm, a round is timed whole; cold, each request
					// apart from the writes before it.
					start := cputime.Process()
					for range perRound {
						if cold {
							for i := 0; i < len(other); i += 64 {
								other[i]++
							}
							start = cputime.Process()
						}
						v.budget.Reset(deadline)
						if rc := v.host.serve(b, v.mod, envelope); rc != 0 || v.host.status != 200 {
							b.Fatalf("%s: %s() = %d, status %d; logs %q", v.name, abi.ExportHandle, rc, v.host.status, v.host.logs)
						}
						if cold {
							v.cpu += cputime.Process() - start
						}
					}
					if !cold {
						v.cpu += cputime.Process() - start
					}
				}
			}
			b.StopTimer()
			if vs[0].cpu == 0 {
				return // no CPU time on this platform
			}
			for _, v := range vs {
				b.ReportMetric(float64(v.cpu.Nanoseconds())/float64(rounds*perRound), v.name+"-cpu-ns/req")
				if v.opts != nil {
					b.ReportMetric(float64(v.cpu)/float64(vs[0].cpu), v.name+"/plain")
					b.ReportMetric(float64(v.checks), v.name+"-checks/req")
				}
			}
			b.ReportMetric(0, "ns/op") // the per-variant times above are the result
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
