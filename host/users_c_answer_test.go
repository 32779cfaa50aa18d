package host_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// TestUsersCAnswerSizes reads users of examples/users-c whose JSON is
// shorter than, exactly as long as and longer than the 1 KiB buffer the
// handler gathers its answer in: each answer arrives whole, in order.
func TestUsersCAnswerSizes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(builtExample(t, "users-c"))); err != nil {
		t.Fatal(err)
	}
	const frame = `{"id":10,"name":"","email":"m@example.com"}`
	exact, long := strings.Repeat("M", 1024-len(frame)), strings.Repeat("L", 3000)
	migration := "INSERT INTO users (id, name, email) VALUES (9, '" + long + "', 'long@example.com'), (10, '" + exact + "', 'm@example.com'), (11, 'Quote \"q\" and é', 'q@example.com');\n"
	if err := os.WriteFile(filepath.Join(dir, "server", "migrations", "900-sizes.sql"), []byte(migration), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &app{t: t, dir: dir}
	srv, _ := a.serve(host.Options{Mode: host.Production, ConfigOverrides: []config.Override{ownDatabase(t)}})
	for _, tt := range []struct{ id, want string }{
		{"2", `{"id":2,"name":"Grace Hopper","email":"grace@example.com"}`},
		{"11", `{"id":11,"name":"Quote \"q\" and é","email":"q@example.com"}`},
		{"10", `{"id":10,"name":"` + exact + `","email":"m@example.com"}`},
		{"9", `{"id":9,"name":"` + long + `","email":"long@example.com"}`},
	} {
		got := do(t, srv, "GET", "/api/users/"+tt.id, "")
		if got.status != 200 || got.body != tt.want {
			t.Errorf("GET /api/users/%s = %d %.80s... (%d bytes), want 200 with %d bytes", tt.id, got.status, got.body, len(got.body), len(tt.want))
		}
	}
}
