// Package appdb holds the databases of one app: the [Set] its
// endpoints.json declares (opened on first use), their migrations
// ([Set.Migrate]) and the [Session] through which one guest call reaches
// them with the db_* host functions (abi/README.md §4.5).
//
// A Set belongs to one app: a guest reaches the databases of its own
// app's Set and no other, whatever name it passes.
package appdb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database"
)

// Set is the databases of one app, by name. It is safe for concurrent
// use.
type Set struct {
	app   string
	specs map[string]config.Database

	mu   sync.Mutex
	open map[string]database.DB
	// pending are the databases whose migrations wait, and why (see
	// [Set.Pending]); guarded by mu. waiting is len(pending), read
	// without mu by AnyPending on every statement.
	pending map[string]error
	waiting atomic.Int32
	// migrating is held by Migrate: one run at a time.
	migrating sync.Mutex
	// maxRowBytes is database.Options.MaxRowBytes of the databases
	// opened (SetMaxRowBytes).
	maxRowBytes int
}

// SetMaxRowBytes bounds the rows of the databases opened after it, as
// they arrive (database.Options.MaxRowBytes): the host gives
// limits.sqlResultBytes. Call it before the first use.
func (s *Set) SetMaxRowBytes(n int) {
	s.mu.Lock()
	s.maxRowBytes = n
	s.mu.Unlock()
}

// New returns the databases an app in appDir declares; none declared is
// "main", an SQLite file at config.DefaultDatabasePath. Nothing is opened
// until used.
func New(appDir string, dbs map[string]config.Database) *Set {
	if len(dbs) == 0 {
		dbs = map[string]config.Database{config.DefaultDatabase: {}}
	}
	return &Set{app: appDir, specs: dbs, open: map[string]database.DB{}}
}

// Names are the database names, sorted.
func (s *Set) Names() []string {
	names := make([]string, 0, len(s.specs))
	for n := range s.specs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ReachHint says what to check of database name when it could not be
// reached: that its file can be opened (SQLite) or its server runs
// (PostgreSQL), and the setting that says where it is, as endpoints.json's
// member and the environment variable that overrides it where the app is
// deployed (ENDPOINTS_DATABASES_MAIN_URL).
func (s *Set) ReachHint(name string) string {
	env := "ENDPOINTS_DATABASES_" + strings.ToUpper(name)
	if spec := s.specs[name]; spec.DriverName() == config.DatabaseSQLite {
		return fmt.Sprintf("check that its file can be opened there (its directory exists and is writable), and its path: %s's /databases/%s/path, or %s_PATH where the app is deployed", config.File, name, env)
	}
	return fmt.Sprintf("is the PostgreSQL server running, and accepting connections there? Check its url: %s's /databases/%s/url, or %s_URL where the app is deployed, which overrides it (libpq's PGHOST, PGPORT, PGDATABASE and PGUSER fill in what the url leaves out)", config.File, name, env)
}

// Spec is the declaration of database name.
func (s *Set) Spec(name string) (config.Database, bool) {
	d, ok := s.specs[name]
	return d, ok
}

// Location says where database name is (database.DB.Location), for the
// start's log and `endpoints migrate`: an SQLite one "sqlite FILE", the
// file as endpoints.json gives it (relative to the app unless absolute),
// without opening it; a PostgreSQL one "postgres host=... port=...
// dbname=... user=...", as its url and libpq's environment resolve,
// opened for that (which connects to nothing). Never a password.
func (s *Set) Location(ctx context.Context, name string) (string, error) {
	spec, ok := s.specs[name]
	if !ok {
		return "", fmt.Errorf("%w %q (declared: %v)", ErrNotDeclared, name, s.Names())
	}
	if spec.DriverName() == config.DatabaseSQLite {
		return "sqlite " + config.DatabaseFile(name, spec), nil
	}
	db, err := s.DB(ctx, name)
	if err != nil {
		return "", err
	}
	return db.Location(), nil
}

// ErrNotDeclared is the error of [Set.DB] for a name the app does not
// declare.
var ErrNotDeclared = errors.New("the app declares no such database")

// DB returns database name, opening it on first use.
func (s *Set) DB(ctx context.Context, name string) (database.DB, error) {
	spec, ok := s.specs[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (declared: %v)", ErrNotDeclared, name, s.Names())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if db := s.open[name]; db != nil {
		return db, nil
	}
	if s.open == nil {
		return nil, database.Errorf(database.CodeUnavailable, "the app's databases are closed")
	}
	spec = spec.WithDefaults() // config's defaults, the ones help settings prints
	opts := database.Options{Name: name, URL: spec.URL, MaxConns: spec.MaxConns, StatementTimeout: time.Duration(spec.StatementTimeout), MaxRowBytes: s.maxRowBytes}
	if spec.Driver == config.DatabaseSQLite {
		opts.Path = s.Path(name)
	}
	db, err := database.Open(ctx, spec.Driver, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: /databases/%s: %w", config.File, name, err)
	}
	s.open[name] = db
	return db, nil
}

// Ping pings each database opened so far, and each PostgreSQL one: the
// first error names the database. A file nobody used yet is not opened
// for a ping. A database whose migrations wait ([Set.Pending]) fails
// the ping, saying why, even when it answers.
func (s *Set) Ping(ctx context.Context) error {
	for _, name := range s.Names() {
		s.mu.Lock()
		db := s.open[name]
		s.mu.Unlock()
		if err := s.Pending(name); err != nil {
			return fmt.Errorf("database %q: %w", name, err)
		}
		if db == nil && s.specs[name].DriverName() == config.DatabaseSQLite {
			continue
		}
		db, err := s.DB(ctx, name)
		if err == nil {
			err = db.Ping(ctx)
		}
		if err != nil {
			return fmt.Errorf("database %q: %w", name, err)
		}
	}
	return nil
}

// Close closes every database opened; later uses fail.
func (s *Set) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, db := range s.open {
		errs = append(errs, db.Close())
	}
	s.open = nil
	return errors.Join(errs...)
}
