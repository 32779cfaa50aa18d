//go:build !wasip1

package endpoints

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/hooks"
	"github.com/wasmendpoints/endpoints/internal/appdb"
)

// UseExampleDatabase gives DB("main") an empty SQLite file for an
// example, as endpointstest.Database gives a test one; the function it
// returns closes it.
func UseExampleDatabase() (closeDB func()) {
	dir, err := os.MkdirTemp("", "endpoints-example-")
	if err != nil {
		panic(err)
	}
	set := appdb.New(dir, map[string]config.Database{config.DefaultDatabase: {Driver: config.DatabaseSQLite, Path: filepath.Join(dir, "main.db")}})
	s := appdb.NewSession(set, context.Background(), time.Now().Add(time.Hour), config.DefaultSQLResultBytes, appdb.Hooks{})
	hooks.DB = exampleSession{s}
	return func() {
		hooks.DB = nil
		s.Close()
		set.Close()
		os.RemoveAll(dir)
	}
}

// exampleSession adapts an appdb.Session to hooks.Database.
type exampleSession struct{ s *appdb.Session }

func (s exampleSession) Run(db, sql, params []byte, exec bool) (int, int32) {
	n, e := s.s.Run(db, sql, params, exec)
	return n, int32(e)
}

func (s exampleSession) Result() ([]byte, bool)           { return s.s.Result() }
func (s exampleSession) Begin(db []byte) int32            { return int32(s.s.Begin(db)) }
func (s exampleSession) BeginWith(db, opts []byte) int32  { return int32(s.s.BeginWith(db, opts)) }
func (s exampleSession) End(db []byte, commit bool) int32 { return int32(s.s.End(db, commit)) }
func (s exampleSession) SetTimeout(d time.Duration)       { s.s.SetTimeout(d) }
