package unserved

import "testing"

// TestNote: a path names the failed routes that would have served it, of
// whatever method (every one at the path, in method order), the first
// added of a route kept; any other path, and nil Routes, name none.
func TestNote(t *testing.T) {
	var u Routes
	u.Add("GET /api/users/:id", "server/bundles/go.wasm", "did not build")
	u.Add("GET /api/users/:id", "server/bundles/other.wasm", "did not load")
	u.Add("POST /api/orders", "server/bundles/go.wasm", "did not build")
	u.Add("not a route", "server/bundles/go.wasm", "did not build")
	u.AddFile("server/routes/files/[...path].wasm", "did not load: bad magic")
	u.AddFile("server/bundles/go.wasm", "did not load: bad magic")
	u.Add("PUT /api/carts/:id", "server/bundles/go.wasm", "did not build")
	u.AddFile("server/api/carts/[id].get.wasm", "did not load: bad magic")
	if u.Len() != 5 {
		t.Errorf("Len = %d, want 5", u.Len())
	}
	for _, tc := range []struct{ name, path, want string }{
		{"a parameter", "/api/users/7", "the route GET /api/users/:id of server/bundles/go.wasm did not build"},
		{"another method", "/api/orders", "the route POST /api/orders of server/bundles/go.wasm did not build"},
		{"a catch-all", "/files/a/b.txt", "the route * /files/**:path of server/routes/files/[...path].wasm did not load: bad magic"},
		{"no such route", "/api/nothing", ""},
		{"a prefix of a route", "/api/users", ""},
		{"two methods at one path", "/api/carts/3", "the route GET /api/carts/:id of server/api/carts/[id].get.wasm did not load: bad magic; " +
			"the route PUT /api/carts/:id of server/bundles/go.wasm did not build"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := u.Note(tc.path); got != tc.want {
				t.Errorf("Note(%q) = %q, want %q", tc.path, got, tc.want)
			}
		})
	}
	var none *Routes
	if got := none.Note("/api/users/7"); got != "" || none.Len() != 0 {
		t.Errorf("nil Routes: Note = %q, Len = %d; want none", got, none.Len())
	}
}
