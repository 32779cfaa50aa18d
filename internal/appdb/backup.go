package appdb

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database"
)

// Default is the database a command means when it names none: "main", or
// the one database the app declares.
func (s *Set) Default() string {
	if names := s.Names(); len(names) == 1 {
		return names[0]
	}
	return config.DefaultDatabase
}

// Path is the file of SQLite database name, absolute or relative to the
// working directory as the app directory is.
func (s *Set) Path(name string) string {
	p := config.DatabaseFile(name, s.specs[name])
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.app, p)
	}
	return p
}

// Backup copies SQLite database name into the new file to while hosts
// use it (database.BackupSQLite). A PostgreSQL database is an error
// saying to use pg_dump; a name the app does not declare, or a file that
// does not exist yet, an error naming it.
func (s *Set) Backup(ctx context.Context, name, to string) error {
	spec, ok := s.specs[name]
	if !ok {
		return fmt.Errorf("%w %q (declared: %v)", ErrNotDeclared, name, s.Names())
	}
	if d := spec.DriverName(); d != config.DatabaseSQLite {
		return fmt.Errorf("database %q is a %s database (/databases/%s/driver): back it up with its own tools (pg_dump for PostgreSQL), which copy a live database consistently", name, d, name)
	}
	return database.BackupSQLite(ctx, s.Path(name), to)
}
