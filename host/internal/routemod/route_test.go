package routemod

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi/contract"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/router"
)

// newRoute makes the route of file as the host does, from its contract
// ("" for a plain route), without loading a module.
func newRoute(t *testing.T, file, contractJSON string) *Route {
	t.Helper()
	rf, err := routefile.Parse(file)
	if err != nil {
		t.Fatal(err)
	}
	mod := &Module{File: file, Index: -1}
	if contractJSON != "" {
		if mod.Contract, err = contract.Parse(file, []byte(contractJSON), contract.Options{Method: rf.Method}); err != nil {
			t.Fatalf("contract.Parse: %v", err)
		}
		mod.ContractJSON = []byte(contractJSON)
	}
	r, err := NewRoute(rf, mod)
	if err != nil {
		t.Fatalf("NewRoute(%s): %v", file, err)
	}
	return r
}

const usersMethods = `{"methods": {"get": {"summary": "list"}, "post": {"summary": "create"}}}`

func TestNewRoute(t *testing.T) {
	for _, tc := range []struct {
		name, file, contract string
		plain                bool
		allow                string
		pattern              string
	}{
		{"a plain route", "server/routes/health.wasm", "", true, "", "/health"},
		{"an endpoint of one method", "server/api/users/[id].get.wasm", `{"summary": "one user"}`, false, "GET, HEAD, OPTIONS", "/api/users/:id"},
		{"an endpoint declaring its methods", "server/api/users.wasm", usersMethods, false, "GET, HEAD, OPTIONS, POST", "/api/users"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRoute(t, tc.file, tc.contract)
			if r.Plain != tc.plain {
				t.Errorf("Plain = %v, want %v", r.Plain, tc.plain)
			}
			if got := strings.Join(r.Allow, ", "); got != tc.allow {
				t.Errorf("Allow = %q, want %q", got, tc.allow)
			}
			if r.Pattern != tc.pattern || r.File != tc.file {
				t.Errorf("Pattern, File = %q, %q, want %q, %q", r.Pattern, r.File, tc.pattern, tc.file)
			}
		})
	}
}

func TestNewRouteRefusesAContractItCannotCompile(t *testing.T) {
	rf, err := routefile.Parse("server/api/users.wasm")
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.Parse(rf.File, []byte(`{"summary": "users"}`), contract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewRoute(rf, &Module{File: rf.File, Contract: c, ContractJSON: []byte(`{"summary": "users"}`), Index: -1})
	if err == nil || !strings.Contains(err.Error(), `"methods"`) {
		t.Fatalf("NewRoute of a module without suffix and without methods = %v, want an error naming \"methods\"", err)
	}
}

// TestRegister: an endpoint without a method suffix claims the methods it
// declares, so a module with a suffix claiming one of them at its path
// fails, naming both; a plain route without a suffix serves the methods
// no other module of its path claims.
func TestRegister(t *testing.T) {
	type file struct{ name, contract string }
	for _, tc := range []struct {
		name    string
		files   []file
		wantErr []string // substrings of the last Register's error; none: it succeeds
		match   map[string]string
	}{
		{"an endpoint's methods, and a plain route for the rest",
			[]file{{"server/api/users.wasm", usersMethods}, {"server/routes/api/users.wasm", ""}}, nil,
			map[string]string{"GET": "server/api/users.wasm", "POST": "server/api/users.wasm", "DELETE": "server/routes/api/users.wasm"}},
		{"a suffix claiming a method an endpoint declares",
			[]file{{"server/api/users.wasm", usersMethods}, {"server/api/users.post.wasm", `{"summary": "create"}`}},
			[]string{"server/api/users.post.wasm", "server/api/users.wasm"}, nil},
		{"two modules of one method at one path",
			[]file{{"server/api/users.get.wasm", `{"summary": "a"}`}, {"server/routes/api/users.get.wasm", ""}},
			[]string{"server/routes/api/users.get.wasm", "server/api/users.get.wasm"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rt router.Router[*Route]
			var err error
			for _, f := range tc.files {
				if err = newRoute(t, f.name, f.contract).Register(&rt); err != nil {
					break
				}
			}
			if len(tc.wantErr) == 0 && err != nil {
				t.Fatalf("Register: %v", err)
			}
			for _, want := range tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("Register = %v, want an error naming %q", err, want)
				}
			}
			for method, want := range tc.match {
				res := rt.Match(method, "/api/users")
				if !res.Found || !res.Allowed || res.Value.File != want {
					t.Errorf("%s /api/users: found %v, allowed %v, want %s", method, res.Found, res.Allowed, want)
					continue
				}
			}
		})
	}
}
