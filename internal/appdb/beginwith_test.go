package appdb_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/internal/appdb"
)

// TestSessionBeginWith: db_begin_with opens a transaction with its
// options (a read-only one refuses writes), refuses options it does not
// know with ErrInvalid and a pending result saying what was expected,
// and refuses to begin busy with less than BeginWithMargin left before
// the call's deadline, where db_begin, unchanged, still begins.
func TestSessionBeginWith(t *testing.T) {
	dir := writeApp(t, map[string]string{"server/migrations/001-a.sql": "CREATE TABLE a (x);"})
	set := appdb.New(dir, nil)
	defer set.Close()
	if _, err := set.Migrate(context.Background(), appdb.MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	main := []byte("main")
	insert := []byte("INSERT INTO a VALUES (1)")
	tests := []struct {
		name   string
		db     string
		opts   string
		left   time.Duration
		errno  abi.Errno
		result string // the pending result after the begin, "" for none
		write  abi.Errno
	}{
		{name: "no options", db: "main", left: time.Minute},
		{name: "serializable", db: "main", opts: `{"isolation":"serializable"}`, left: time.Minute},
		{name: "read only", db: "main", opts: `{"readOnly":true}`, left: time.Minute, write: abi.ErrDatabase},
		{name: "unknown member", db: "main", opts: `{"readonly":true}`, left: time.Minute, errno: abi.ErrInvalid,
			result: `{"error":{"code":"other","message":"db_begin_with: transaction options: unknown member \"readonly\"; the members are isolation and readOnly"}}`},
		{name: "undeclared database", db: "nope", opts: `{"readonly":true}`, left: time.Minute, errno: abi.ErrNotFound},
		{name: "too late", db: "main", opts: `{}`, left: appdb.BeginWithMargin / 2, errno: abi.ErrDatabase, result: `"code":"busy"`},
		// No options at all are db_begin's, as the C SDK's NULL or ""
		// sends them: no margin either.
		{name: "no options, late", db: "main", left: appdb.BeginWithMargin / 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := appdb.NewSession(set, context.Background(), time.Now().Add(tt.left), 1<<20, appdb.Hooks{})
			defer s.Close()
			e := s.BeginWith([]byte(tt.db), []byte(tt.opts))
			if e != tt.errno {
				t.Fatalf("errno %d, want %d", e, tt.errno)
			}
			r, ok := s.Result()
			if ok != (tt.result != "") || !strings.Contains(string(r), tt.result) {
				t.Errorf("pending result %s (%v), want %q", r, ok, tt.result)
			}
			if e != 0 {
				return
			}
			if _, e := s.Run(main, insert, nil, true); e != tt.write {
				r, _ := s.Result()
				t.Errorf("a write: errno %d (%s), want %d", e, r, tt.write)
			}
			if tt.write != 0 {
				if r, _ := s.Result(); !strings.Contains(string(r), `"code":"denied"`) || !strings.Contains(string(r), database.ReadOnlyMessage) {
					t.Errorf("the refused write: %s, want denied saying the transaction is read-only", r)
				}
			}
		})
	}
	t.Run("db_begin is not refused late", func(t *testing.T) {
		s := appdb.NewSession(set, context.Background(), time.Now().Add(appdb.BeginWithMargin/2), 1<<20, appdb.Hooks{})
		defer s.Close()
		if e := s.Begin(main); e != 0 {
			r, _ := s.Result()
			t.Errorf("db_begin: errno %d (%s)", e, r)
		}
	})
}

// TestSessionRunSaysWhyItsParametersAreRefused: params the host refuses
// (not an array of values, a parameter that is an array, more than
// abi.DBParamsMax) are ErrInvalid, with a pending error result (code
// other) saying which parameter and what was expected, as db_begin_with
// leaves for its options, rather than a bare -2 the guest cannot explain.
func TestSessionRunSaysWhyItsParametersAreRefused(t *testing.T) {
	set := appdb.New(t.TempDir(), nil)
	defer set.Close()
	s := appdb.NewSession(set, context.Background(), time.Now().Add(time.Minute), 1<<20, appdb.Hooks{})
	defer s.Close()
	many := "[" + strings.Repeat("0,", abi.DBParamsMax) + "0]"
	for _, tt := range []struct{ params, want string }{
		{`{"id":7}`, `"code":"other","message":"db_query: parameters must be a JSON array`},
		{`[1, [2]]`, `parameter 2 is an array`},
		{many, `more than 65535 parameters`},
	} {
		if _, e := s.Run([]byte("main"), []byte("SELECT $1"), []byte(tt.params), false); e != abi.ErrInvalid {
			t.Errorf("%.20s: errno %d, want ErrInvalid", tt.params, e)
		}
		if r, ok := s.Result(); !ok || !strings.Contains(string(r), tt.want) {
			t.Errorf("%.20s: pending result %s (%v), want an error holding %q", tt.params, r, ok, tt.want)
		}
	}
	// The next statement's result replaces it.
	if _, e := s.Run([]byte("main"), []byte("SELECT 1"), nil, false); e != 0 {
		r, _ := s.Result()
		t.Fatalf("the next statement: %s", r)
	}
}
