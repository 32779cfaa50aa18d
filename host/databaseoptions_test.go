package host_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// TestDatabaseOptions: Options.Databases declares databases in code,
// merged with endpoints.json's: a name only one declares is taken, a
// location given in code replaces the file's whole, a MaxConns alone keeps
// the file's location, and a merged declaration that does not hold
// fails New naming it.
func TestDatabaseOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file string // endpoints.json
		opts map[string]config.Database
		// db is the database the guest uses; want the file (under the
		// test's directory) it must be in; err the error of New instead.
		db, want, err string
	}{
		{name: "declared in code only", opts: map[string]config.Database{"main": {Path: "{dir}/code.db"}}, db: "main", want: "code.db"},
		{name: "code and file, another name each",
			file: `{"databases": {"main": {"path": "{dir}/file.db"}}}`,
			opts: map[string]config.Database{"reports": {Path: "{dir}/reports.db"}}, db: "reports", want: "reports.db"},
		{name: "a location in code replaces the file's",
			file: `{"databases": {"main": {"driver": "postgres", "url": "postgres://app@db.invalid/app"}}}`,
			opts: map[string]config.Database{"main": {Path: "{dir}/code.db"}}, db: "main", want: "code.db"},
		{name: "maxConns alone keeps the file's location",
			file: `{"databases": {"main": {"path": "{dir}/file.db", "maxConns": 2}}}`,
			opts: map[string]config.Database{"main": {MaxConns: 4}}, db: "main", want: "file.db"},
		{name: "a merged declaration that does not hold",
			opts: map[string]config.Database{"main": {Driver: config.DatabasePostgres, Path: "main.db"}},
			err:  `host.Options.Databases merged with endpoints.json: /databases/main/path: a postgres database takes a url, not a path`},
		{name: "a bad name", opts: map[string]config.Database{"Main": {}},
			err: `host.Options.Databases merged with endpoints.json: /databases/Main: a database name is lower-case`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			a := dbApp(t, strings.ReplaceAll(tt.file, "{dir}", filepath.ToSlash(dir)))
			opts := map[string]config.Database{}
			for name, d := range tt.opts {
				d.Path = strings.ReplaceAll(d.Path, "{dir}", dir)
				opts[name] = d
			}
			if tt.err != "" {
				_, err := host.New(context.Background(), a.dir, host.Options{CacheDir: testCacheDir(t), Logger: discardLogger(), Databases: opts})
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("New = %v, want %q", err, tt.err)
				}
				return
			}
			h, logs := a.host(host.Options{Databases: opts})
			srv := httptest.NewServer(h)
			defer srv.Close()
			if res := dbDo(t, srv, tt.db, "e", "CREATE TABLE t (x)", ""); res.status != 200 || !strings.HasPrefix(res.body, `{"rowsAffected":0`) {
				t.Fatalf("a statement on %s: %d %s\n%s", tt.db, res.status, res.body, logs)
			}
			if _, err := os.Stat(filepath.Join(dir, tt.want)); err != nil {
				t.Errorf("database %s is not in %s: %v", tt.db, tt.want, err)
			}
		})
	}
}
