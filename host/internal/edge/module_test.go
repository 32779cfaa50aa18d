package edge

import (
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

// TestMiddlewareApplies: a declaration's methods and route patterns select
// the requests a module wraps; HEAD goes with GET, and no routes means
// every route.
func TestMiddlewareApplies(t *testing.T) {
	for _, tc := range []struct {
		name          string
		decl          abi.Middleware
		route, method string
		want          bool
	}{
		{"no declaration wraps all", abi.Middleware{}, "/orders/:id", "DELETE", true},
		{"method listed", abi.Middleware{Methods: []string{"POST"}}, "/orders", "POST", true},
		{"method not listed", abi.Middleware{Methods: []string{"POST"}}, "/orders", "GET", false},
		{"HEAD with GET", abi.Middleware{Methods: []string{"GET"}}, "/orders", "HEAD", true},
		{"HEAD without GET", abi.Middleware{Methods: []string{"POST"}}, "/orders", "HEAD", false},
		{"route matches", abi.Middleware{Routes: []string{"/orders/**"}}, "/orders/:id", "GET", true},
		{"route does not match", abi.Middleware{Routes: []string{"/admin/**"}}, "/orders/:id", "GET", false},
		{"both must match", abi.Middleware{Routes: []string{"/orders/**"}, Methods: []string{"PUT"}}, "/orders/:id", "GET", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &Middleware{Decl: tc.decl}
			if got := m.Applies(tc.route, tc.method); got != tc.want {
				t.Errorf("Applies(%q, %q) = %v, want %v", tc.route, tc.method, got, tc.want)
			}
		})
	}
}

// TestChain: a chain keeps the order of the loaded modules and leaves out
// those that only verify or do not wrap the request.
func TestChain(t *testing.T) {
	audit := &Middleware{Name: "10-audit", before: true}
	verifier := &Middleware{Name: "20-auth", verifies: true}
	admin := &Middleware{Name: "30-admin", after: true, Decl: abi.Middleware{Routes: []string{"/admin/**"}}}
	timing := &Middleware{Name: "40-timing", before: true, after: true}
	mws := []*Middleware{audit, verifier, admin, timing}
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"/orders", []string{"10-audit", "40-timing"}},
		{"/admin/users", []string{"10-audit", "30-admin", "40-timing"}},
	} {
		var got []string
		for _, m := range Chain(mws, tc.pattern, "GET") {
			got = append(got, m.Name)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("Chain(%q) = %v, want %v", tc.pattern, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("Chain(%q) = %v, want %v", tc.pattern, got, tc.want)
			}
		}
	}
	if Chain(nil, "/orders", "GET") != nil {
		t.Error("Chain of no modules is not nil")
	}
	if MiddlewareNamed(mws, "20-auth") != verifier || MiddlewareNamed(mws, "auth") != nil {
		t.Error("MiddlewareNamed does not find modules by their exact name")
	}
}
