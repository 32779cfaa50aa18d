package appdb_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/internal/appdb"
)

// TestMigrationErrorLogged: a migration that fails on a statement holding
// a secret literal (a seed's API key) fails with an error naming the
// file, the database and the statement whole, for the operator who runs
// it (`endpoints migrate` prints it); logged, as the host logs a failed
// migration, it names the file, the database and the statement with its
// literals replaced by "?", on SQLite and PostgreSQL.
func TestMigrationErrorLogged(t *testing.T) {
	const secret = "sk_live_0123456789"
	const file = "server/migrations/002-seed.sql"
	url, _, _ := databasetest.StartPostgres(t)
	for _, tt := range []struct {
		driver string
		spec   func(dir string) config.Database
		create string
	}{
		{"sqlite", func(dir string) config.Database {
			return config.Database{Driver: config.DatabaseSQLite, Path: filepath.Join(dir, "main.db")}
		}, "CREATE TABLE keys (name TEXT PRIMARY KEY, secret TEXT NOT NULL);"},
		{"postgres", func(string) config.Database { return config.Database{Driver: config.DatabasePostgres, URL: url} },
			"CREATE TABLE keys (name text PRIMARY KEY, secret text NOT NULL);"},
	} {
		t.Run(tt.driver, func(t *testing.T) {
			dir := writeApp(t, map[string]string{
				"server/migrations/001-keys.sql": tt.create,
				file:                             "INSERT INTO keys VALUES ('api', 'first');\nINSERT INTO keys VALUES ('api', '" + secret + "');\n",
			})
			set := appdb.New(dir, map[string]config.Database{"main": tt.spec(t.TempDir())})
			defer set.Close()
			_, err := set.Migrate(context.Background(), appdb.MigrateOptions{})
			var me *appdb.MigrationError
			if !errors.As(err, &me) {
				t.Fatalf("got %v, want a *appdb.MigrationError", err)
			}
			whole := `in the statement "INSERT INTO keys VALUES ('api', '` + secret + `')`
			if !strings.HasPrefix(err.Error(), file+`: database "main": constraint: `) || !strings.Contains(err.Error(), whole) {
				t.Errorf("the error %q; want it to name the file, the database and %s", err, whole)
			}
			var log bytes.Buffer
			slog.New(slog.NewTextHandler(&log, nil)).Error("migration failed", "error", err)
			if strings.Contains(log.String(), secret) || strings.Contains(log.String(), "first") {
				t.Errorf("the log holds the migration's literals:\n%s", log.String())
			}
			if want := `INSERT INTO keys VALUES (?, ?)`; !strings.Contains(log.String(), file) || !strings.Contains(log.String(), want) {
				t.Errorf("the log:\n%s\nwant it to name %s and the statement %s", log.String(), file, want)
			}
		})
	}
}
