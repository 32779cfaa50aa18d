package appdb_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/appdb"
)

// TestADryRunCreatesNoDatabase: `endpoints migrate --dry-run` of an app
// whose SQLite file does not exist yet (a fresh checkout, a path with a
// typo) lists every migration and leaves the disk as it found it: no
// file, no directory for it.
func TestADryRunCreatesNoDatabase(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "server", "migrations"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, sql := range map[string]string{"001-a.sql": "CREATE TABLE a (id INTEGER);", "002-b.sql": "CREATE TABLE b (id INTEGER);"} {
		if err := os.WriteFile(filepath.Join(dir, "server", "migrations", name), []byte(sql), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name string
		dbs  map[string]config.Database
		file string
	}{
		{"the default file", nil, ".endpoints/data/main.db"},
		{"a path of endpoints.json", map[string]config.Database{"main": {Path: "data/app.db"}}, "data/app.db"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			set := appdb.New(dir, tt.dbs)
			defer set.Close()
			done, err := set.Migrate(t.Context(), appdb.MigrateOptions{DryRun: true})
			if err != nil || len(done) != 2 {
				t.Fatalf("dry run: %v, %v; want both migrations listed", done, err)
			}
			for p := filepath.Join(dir, filepath.FromSlash(tt.file)); p != dir; p = filepath.Dir(p) {
				if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("the dry run made %s (%v), want nothing written", p, err)
				}
			}
		})
	}
}
