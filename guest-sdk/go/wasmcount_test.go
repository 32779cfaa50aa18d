//go:build !wasip1

package endpoints_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// guestCounts counts what a guest does inside wasm, by a function
// listener on every one of its functions: exact counts, the same on every
// machine, where timings of a Go module in wasm vary with the load of a
// shared machine. A listener slows every call, so a benchmark that counts
// reports no time of its own.
type guestCounts struct {
	calls   int
	byName  map[string]*int // calls of each function, for -v
	mallocs *int            // runtime.mallocgc: heap allocations
	maps    *int            // runtime.makemap_small and runtime.makemap
	gcs     *int            // runtime.gcStart: collections started
	h       *testHost
}

// countGuest makes h count the calls of the guest it instantiates next.
func countGuest(h *testHost) *guestCounts {
	c := &guestCounts{byName: map[string]*int{}, mallocs: new(int), maps: new(int), gcs: new(int), h: h}
	h.listener = experimental.FunctionListenerFactoryFunc(func(def api.FunctionDefinition) experimental.FunctionListener {
		name := def.Name()
		n := c.byName[name]
		if n == nil {
			n = new(int)
			c.byName[name] = n
		}
		var also *int
		switch name {
		case "runtime.mallocgc":
			also = c.mallocs
		case "runtime.makemap_small", "runtime.makemap":
			also = c.maps
		case "runtime.gcStart":
			also = c.gcs
		}
		return experimental.FunctionListenerFunc(func(context.Context, api.Module, api.FunctionDefinition, []uint64, experimental.StackIterator) {
			c.calls++
			*n++
			if also != nil {
				*also++
			}
		})
	})
	return c
}

// reset forgets what was counted so far (the first requests, which make
// plans and fill caches).
func (c *guestCounts) reset() {
	c.calls, *c.mallocs, *c.maps, *c.gcs, c.h.hostCalls = 0, 0, 0, 0, 0
	for _, n := range c.byName {
		*n = 0
	}
}

// report reports the counts per operation of b: wasm-calls/op (calls of
// the guest's functions), host-calls/op (of the "endpoints" functions),
// mallocs/op, maps/op (maps made) and gc/op (collections started: the
// guest's heap grows by a few hundred bytes a request, so one is rare).
// With -v it logs the functions called most per request.
func (c *guestCounts) report(b *testing.B) {
	n := float64(b.N)
	b.ReportMetric(float64(c.calls)/n, "wasm-calls/op")
	b.ReportMetric(float64(c.h.hostCalls)/n, "host-calls/op")
	b.ReportMetric(float64(*c.mallocs)/n, "mallocs/op")
	b.ReportMetric(float64(*c.maps)/n, "maps/op")
	b.ReportMetric(float64(*c.gcs)/n, "gc/op")
	if !testing.Verbose() {
		return
	}
	type fn struct {
		name  string
		calls int
	}
	var fns []fn
	for name, calls := range c.byName {
		if *calls > 0 {
			fns = append(fns, fn{name, *calls})
		}
	}
	slices.SortFunc(fns, func(a, b fn) int { return cmp.Or(b.calls-a.calls, strings.Compare(a.name, b.name)) })
	var sb strings.Builder
	for _, f := range fns[:min(len(fns), 100)] {
		fmt.Fprintf(&sb, "\n%10.2f  %s", float64(f.calls)/n, f.name)
	}
	b.Logf("calls per request, most called first:%s", sb.String())
}
