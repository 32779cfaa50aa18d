package host

import "testing"

// TestWatched: the files and directories whose change makes Watch reload.
func TestWatched(t *testing.T) {
	for _, tc := range []struct {
		rel  string
		want bool
	}{
		{"endpoints.json", true},
		{"server/routes.config.json", true},
		{"server/api/users/[id].get.wasm", true},
		{"server/endpoints/runtime.wasm", true},
		{"server/migrations/001-users.sql", true},
		{"server/migrations/002-orders.sqlite.sql", true},
		// A directory just created: what it held before it was watched
		// may have come and gone unseen.
		{"server/", true},
		{"server/endpoints/", true},
		{"server/api/users/main.go", false},
		{"server/notes.txt", false},
		{"handlers/get-user/main.go", false},
		{"README.md", false},
		{"handlers/", false},
	} {
		if got := watched(tc.rel); got != tc.want {
			t.Errorf("watched(%q) = %v, want %v", tc.rel, got, tc.want)
		}
	}
}
