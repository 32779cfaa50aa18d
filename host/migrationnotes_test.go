package host_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// TestMigrationNotesAtReload: a load that finds in the database a
// migration the app has no file of (the app rolled back past it) warns,
// naming it, and serves; a file added below the highest number applied
// is applied, with a warning naming it and the one it follows. /readyz
// stays ready.
func TestMigrationNotesAtReload(t *testing.T) {
	t.Parallel()
	a := dbApp(t, "").
		file("server/migrations/001-users.sql", []byte("CREATE TABLE users (id INTEGER PRIMARY KEY);\n")).
		file("server/migrations/003-email.sql", []byte("ALTER TABLE users ADD COLUMN email TEXT;\n"))
	h, logs := a.host(host.Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	if strings.Contains(logs.String(), "level=WARN") {
		t.Fatalf("the first load warns:\n%s", logs)
	}
	// An older release, with a file from another branch.
	a.remove("server/migrations/003-email.sql")
	a.file("server/migrations/002-orders.sql", []byte("CREATE TABLE orders (id INTEGER PRIMARY KEY);\n"))
	if report := h.Reload(context.Background()); len(report.Problems) != 0 {
		t.Fatalf("the reload: %v", report.Problems)
	}
	log := logs.String()
	for _, want := range []string{
		`level=WARN msg="the database has a migration applied of which this app has no file: it is ahead of this version of the app (was the app rolled back?)`,
		`database=main migration=003-email.sql applied_at=20`,
		`level=WARN msg="a migration runs after migrations of higher numbers applied before it`,
		`database=main file=server/migrations/002-orders.sql after=[003-email.sql]`,
		`msg="migration applied" file=server/migrations/002-orders.sql`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if got := readyErrors(h, context.Background()); got != nil {
		t.Errorf("not ready after the reload: %q", got)
	}
	want := `{"columns":["n"],"rows":[[0]]}` + "\n"
	if res := dbDo(t, srv, "main", "q", "SELECT count(*) AS n FROM orders", ""); res.status != 200 || res.body != want {
		t.Errorf("the migration out of order: %d %s, want %s", res.status, res.body, want)
	}
}
