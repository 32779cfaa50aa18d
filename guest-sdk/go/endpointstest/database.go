package endpointstest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/hooks"
	"github.com/wasmendpoints/endpoints/internal/appdb"
)

// Database gives endpoints.DB real databases for the rest of t: an SQLite
// file in a temporary directory for each database the app in appDir
// declares in endpoints.json ("main" when it declares none; a PostgreSQL
// one is an SQLite file too), with the app's migrations
// (server/migrations) applied. appDir "" is no app: an empty "main".
//
//	func TestCreateUser(t *testing.T) {
//		endpointstest.Database(t, "../..") // the app's root
//		...
//	}
//
// # Notes
//
//   - The host's own code runs the statements, with its rules: one
//     statement per call, bound parameters, the same errors.
//   - Tests using it must not run in parallel with each other: the
//     native host functions are one per process, like the instance a
//     module has.
func Database(t testing.TB, appDir string) {
	t.Helper()
	dir := t.TempDir()
	names := []string{config.DefaultDatabase}
	if appDir != "" {
		cfg, err := config.Load(appDir)
		if err != nil {
			t.Fatalf("endpointstest.Database: %v", err)
		}
		if len(cfg.Databases) > 0 {
			names = names[:0]
			for name := range cfg.Databases {
				names = append(names, name)
			}
		}
	} else {
		appDir = dir
	}
	specs := map[string]config.Database{}
	for _, name := range names {
		specs[name] = config.Database{Driver: config.DatabaseSQLite, Path: filepath.Join(dir, name+".db")}
	}
	set := appdb.New(appDir, specs)
	if _, err := set.Migrate(context.Background(), appdb.MigrateOptions{}); err != nil {
		set.Close()
		t.Fatalf("endpointstest.Database: %v", err)
	}
	s := appdb.NewSession(set, context.Background(), time.Now().Add(24*time.Hour), config.DefaultSQLResultBytes, appdb.Hooks{})
	hooks.DB = session{s}
	t.Cleanup(func() {
		hooks.DB = nil
		s.Close()
		set.Close()
	})
}

// session adapts an appdb.Session to hooks.Database.
type session struct{ s *appdb.Session }

func (s session) Run(db, sql, params []byte, exec bool) (int, int32) {
	n, e := s.s.Run(db, sql, params, exec)
	return n, int32(e)
}

func (s session) Result() ([]byte, bool)           { return s.s.Result() }
func (s session) Begin(db []byte) int32            { return int32(s.s.Begin(db)) }
func (s session) BeginWith(db, opts []byte) int32  { return int32(s.s.BeginWith(db, opts)) }
func (s session) End(db []byte, commit bool) int32 { return int32(s.s.End(db, commit)) }
func (s session) SetTimeout(d time.Duration)       { s.s.SetTimeout(d) }
