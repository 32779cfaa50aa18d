package appdb

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
)

// TestSessionReusesArgs: statements with more, then fewer, parameters run
// one after the other in a session, each with its own (the slice of the
// last is reused, not appended to); the slice kept between statements
// holds none of the guest's values; and a statement decodes its
// parameters without allocating a slice for them.
func TestSessionReusesArgs(t *testing.T) {
	set := New(t.TempDir(), map[string]config.Database{"main": {Path: filepath.Join(t.TempDir(), "main.db")}})
	t.Cleanup(func() { set.Close() })
	s := NewSession(set, context.Background(), time.Now().Add(time.Hour), 1<<20, Hooks{})
	db := []byte("main")
	steps := []struct{ sql, params, want string }{
		{"CREATE TABLE users (id BIGINT PRIMARY KEY, name TEXT, email TEXT)", "", `{"rowsAffected":0,"lastInsertId":0}`},
		{"INSERT INTO users VALUES ($1, $2, $3)", `[1, "Ada", "ada@example.com"]`, `{"rowsAffected":1,"lastInsertId":1}`},
		{"SELECT name FROM users WHERE id = $1", `[1]`, `{"columns":["name"],"rows":[["Ada"]]}`},
		{"SELECT count(*) AS n FROM users", `[]`, `{"columns":["n"],"rows":[[1]]}`},
		{"SELECT $1 AS a, $2 AS b", `[2.5, {"$blob": "AAE="}]`, `{"columns":["a","b"],"blobs":[[0,1]],"rows":[[2.5,"AAE="]]}`},
	}
	for _, st := range steps {
		if _, e := s.Run(db, []byte(st.sql), []byte(st.params), st.params == "" || st.sql[0] == 'I'); e != 0 {
			r, _ := s.Result()
			t.Fatalf("%s %s: errno %d: %s", st.sql, st.params, e, r)
		}
		if r, _ := s.Result(); string(r) != st.want {
			t.Errorf("%s %s: %s, want %s", st.sql, st.params, r, st.want)
		}
		if len(s.args) != 0 {
			t.Errorf("%s: %d parameters kept after the statement", st.sql, len(s.args))
		}
		for i, v := range s.args[:cap(s.args)] {
			if v != nil {
				t.Errorf("%s: parameter %d (%v) held after the statement", st.sql, i, v)
			}
		}
	}
	sql, params := []byte("SELECT name FROM users WHERE id = $1"), []byte("[1]")
	before := testing.AllocsPerRun(50, func() { s.Run(db, sql, params, false) })
	after := testing.AllocsPerRun(50, func() { s.args = nil; s.Run(db, sql, params, false) })
	if before != after-1 {
		t.Errorf("%v allocations a query, %v when the parameters' slice is new: want one fewer", before, after)
	}
}
