package appdb_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/appdb"
	"github.com/wasmendpoints/endpoints/internal/cputime"
)

// BenchmarkSessionQuery is one db_query of a user by id on SQLite, through
// the session the host function calls: the host's side of a guest's
// statement.
func BenchmarkSessionQuery(b *testing.B) {
	set := appdb.New(b.TempDir(), map[string]config.Database{"main": {Path: filepath.Join(b.TempDir(), "main.db")}})
	defer set.Close()
	s := appdb.NewSession(set, context.Background(), time.Now().Add(time.Hour), 1<<20, appdb.Hooks{})
	for _, sql := range []string{"CREATE TABLE users (id BIGINT PRIMARY KEY, name TEXT, email TEXT)", "INSERT INTO users VALUES (2, 'Grace Hopper', 'grace@example.com')"} {
		if _, e := s.Run([]byte("main"), []byte(sql), nil, true); e != 0 {
			r, _ := s.Result()
			b.Fatalf("%s: %d %s", sql, e, r)
		}
	}
	db, sql, params := []byte("main"), []byte("SELECT id, name, email FROM users WHERE id = $1"), []byte("[2]")
	defer cputime.Report(b)()
	for b.Loop() {
		if _, e := s.Run(db, sql, params, false); e != 0 {
			b.Fatal(e)
		}
	}
}

// BenchmarkSessionQueryParallel is BenchmarkSessionQuery from as many
// goroutines as GOMAXPROCS, each with a session of its own, as concurrent
// requests run: the pool's connections read the file side by side.
func BenchmarkSessionQueryParallel(b *testing.B) {
	set := appdb.New(b.TempDir(), map[string]config.Database{"main": {Path: filepath.Join(b.TempDir(), "main.db")}})
	defer set.Close()
	s := appdb.NewSession(set, context.Background(), time.Now().Add(time.Hour), 1<<20, appdb.Hooks{})
	for _, sql := range []string{"CREATE TABLE users (id BIGINT PRIMARY KEY, name TEXT, email TEXT)", "INSERT INTO users VALUES (2, 'Grace Hopper', 'grace@example.com')"} {
		if _, e := s.Run([]byte("main"), []byte(sql), nil, true); e != 0 {
			r, _ := s.Result()
			b.Fatalf("%s: %d %s", sql, e, r)
		}
	}
	db, sql, params := []byte("main"), []byte("SELECT id, name, email FROM users WHERE id = $1"), []byte("[2]")
	defer cputime.Report(b)()
	b.RunParallel(func(pb *testing.PB) {
		s := appdb.NewSession(set, context.Background(), time.Now().Add(time.Hour), 1<<20, appdb.Hooks{})
		for pb.Next() {
			if _, e := s.Run(db, sql, params, false); e != 0 {
				r, _ := s.Result()
				b.Fatalf("%d %s", e, r)
			}
		}
	})
}
