package routemod

import (
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi/contract"
	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// TestCheckTimeoutsNamesTheRoute: a timeout over limits.maxTimeout is
// refused naming the route, which for a route of a bundle is the bundle
// and the route: a bundle of a hundred routes names no route by its file.
func TestCheckTimeoutsNamesTheRoute(t *testing.T) {
	const slow = `{"summary": "slow", "timeout": "2s"}`
	bundled := func(t *testing.T) *Route {
		t.Helper()
		rf, err := routefile.FromRoute("GET /api/slow")
		if err != nil {
			t.Fatal(err)
		}
		rf.File = "server/bundles/go.wasm (GET /api/slow)"
		mod := &Module{File: "server/bundles/go.wasm", Index: 3, ContractJSON: []byte(slow)}
		if mod.Contract, err = contract.Parse(rf.File, mod.ContractJSON, contract.Options{Method: rf.Method}); err != nil {
			t.Fatal(err)
		}
		r, err := NewRoute(rf, mod)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tc := range []struct {
		name  string
		route func(*testing.T) *Route
		want  string
	}{
		{"a module of one route", func(t *testing.T) *Route { return newRoute(t, "server/api/slow.get.wasm", slow) },
			"server/api/slow.get.wasm: contract: /timeout: 2s is over limits.maxTimeout (1s)"},
		{"a route of a bundle", bundled,
			"server/bundles/go.wasm (GET /api/slow): contract: /timeout: 2s is over limits.maxTimeout (1s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.route(t).CheckTimeouts(time.Second)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("CheckTimeouts = %v, want %q...", err, tc.want)
			}
		})
	}
}
