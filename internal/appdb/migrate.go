package appdb

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/internal/sqlredact"
)

// MigrationsDir is where an app keeps its migrations, relative to the
// app: NNN-name.sql files for the "main" database (or the one database
// the app declares), and a subdirectory per other database, named after
// it: server/migrations/reports/001-init.sql.
//
// A migration whose SQL differs between drivers is one file per driver,
// NNN-name.DRIVER.sql (001-notes.sqlite.sql and 001-notes.postgres.sql):
// a database applies the file of its driver, so the same app migrates
// SQLite on a laptop and PostgreSQL in production.
const MigrationsDir = "server/migrations"

// Table is the table in each database that records the migrations
// applied to it.
const Table = "endpoints_migrations"

// Migration is one migration file.
type Migration struct {
	// Database is the database it applies to.
	Database string
	// Version is its number, Name the rest of its file name.
	Version int64
	Name    string
	// File is its path relative to the app (slashes).
	File string
	// Driver is the driver the file is for (NNN-name.DRIVER.sql), or
	// empty for a file of every driver.
	Driver string
	// SQL is its content; Checksum the hex SHA-256 of it.
	SQL, Checksum string
}

var migrationFile = regexp.MustCompile(`^([0-9]+)[-_]([A-Za-z0-9._-]+)\.sql$`)

// Migrations reads the app's migration files, each database's in version
// order. A file whose name is not NNN-name.sql, two files of one version,
// or a directory naming no database the app declares is an error naming
// it.
func (s *Set) Migrations() ([]Migration, error) {
	root := filepath.Join(s.app, MigrationsDir)
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	top := s.Default()
	var out []Migration
	var read func(dir, db string, entries []os.DirEntry) error
	read = func(dir, db string, entries []os.DirEntry) error {
		var files []Migration
		for _, e := range entries {
			rel := filepath.ToSlash(filepath.Join(MigrationsDir, dir, e.Name()))
			if e.IsDir() {
				if dir != "" {
					return fmt.Errorf("%s: a migration directory holds .sql files only", rel)
				}
				if _, ok := s.specs[e.Name()]; !ok {
					return fmt.Errorf("%s: names no database of %s (declared: %v); a directory under %s holds the migrations of the database it names", rel, config.File, s.Names(), MigrationsDir)
				}
				sub, err := os.ReadDir(filepath.Join(root, e.Name()))
				if err != nil {
					return err
				}
				if err := read(e.Name(), e.Name(), sub); err != nil {
					return err
				}
				continue
			}
			m := migrationFile.FindStringSubmatch(e.Name())
			if m == nil {
				if filepath.Ext(e.Name()) == ".sql" {
					return fmt.Errorf("%s: a migration is named NNN-name.sql (001-users.sql), applied in the order of NNN", rel)
				}
				continue
			}
			if _, ok := s.specs[db]; !ok {
				return fmt.Errorf("%s: the app declares no database %q, which the files at the top of %s migrate; move them to %s/<database>/", rel, db, MigrationsDir, MigrationsDir)
			}
			v, err := strconv.ParseInt(m[1], 10, 64)
			if err != nil {
				return fmt.Errorf("%s: version %s: %v", rel, m[1], err)
			}
			name, driver := splitDriver(m[2])
			files = append(files, Migration{Database: db, Version: v, Name: name, File: rel, Driver: driver})
		}
		chosen, err := forDriver(files, s.specs[db].DriverName())
		if err != nil {
			return err
		}
		for _, m := range chosen {
			b, err := os.ReadFile(filepath.Join(s.app, filepath.FromSlash(m.File)))
			if err != nil {
				return err
			}
			if i := bytes.IndexByte(b, 0); i >= 0 {
				// SQLite stops reading at a NUL, and PostgreSQL refuses
				// it: the statements after it would be dropped unseen.
				line := bytes.Count(b[:i], []byte("\n")) + 1
				return fmt.Errorf("%s:%d: a NUL byte, which no database reads SQL past: is it a text file? (save it as UTF-8 text)", m.File, line)
			}
			sum := sha256.Sum256(b)
			m.SQL, m.Checksum = string(b), hex.EncodeToString(sum[:])
			out = append(out, m)
		}
		return nil
	}
	if err := read("", top, entries); err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b Migration) int {
		if a.Database != b.Database {
			return compare(a.Database, b.Database)
		}
		return compare(a.Version, b.Version)
	})
	return out, nil
}

// migrationDrivers are the drivers a migration file may be for, by the
// last dot-separated part of its name: 001-notes.postgres.sql.
var migrationDrivers = []string{config.DatabaseSQLite, config.DatabasePostgres}

// splitDriver splits a migration's name (what follows NNN-) into its name
// and the driver it is for: "notes.postgres" is ("notes", "postgres");
// "notes" and "v1.2" are for every driver.
func splitDriver(name string) (string, string) {
	i := strings.LastIndexByte(name, '.')
	if i > 0 && slices.Contains(migrationDrivers, name[i+1:]) {
		return name[:i], name[i+1:]
	}
	return name, ""
}

// forDriver picks, from one directory's files, those a database of driver
// applies: per version, the file of every driver or the one of its
// driver. Two files of every driver for one version, two of one driver,
// a file of every driver beside one of a driver, or files for other
// drivers only are errors naming the files and what to do.
func forDriver(files []Migration, driver string) ([]Migration, error) {
	byVersion := map[int64][]Migration{}
	var versions []int64
	for _, f := range files {
		if _, ok := byVersion[f.Version]; !ok {
			versions = append(versions, f.Version)
		}
		byVersion[f.Version] = append(byVersion[f.Version], f)
	}
	slices.Sort(versions)
	var out []Migration
	for _, v := range versions {
		fs := byVersion[v]
		var all, mine *Migration
		var others []string
		for i := range fs {
			f := &fs[i]
			switch {
			case f.Driver == "" && all != nil:
				return nil, fmt.Errorf("%s: version %d is also %s; each migration has its own number", f.File, v, all.File)
			case f.Driver == "":
				all = f
			case f.Driver == driver && mine != nil:
				return nil, fmt.Errorf("%s: version %d is also %s; each migration has its own number", f.File, v, mine.File)
			case f.Driver == driver:
				mine = f
			default:
				others = append(others, f.File)
			}
		}
		if all != nil && (mine != nil || len(others) > 0) {
			other := mine
			if other == nil {
				other = &Migration{File: others[0]}
			}
			return nil, fmt.Errorf("%s: version %d is also %s, for one driver; a migration is one file for every driver (NNN-name.sql) or one per driver (NNN-name.sqlite.sql, NNN-name.postgres.sql)", all.File, v, other.File)
		}
		switch {
		case all != nil:
			out = append(out, *all)
		case mine != nil:
			out = append(out, *mine)
		default:
			dir, base := path.Split(others[0])
			name := strings.TrimSuffix(base, ".sql")
			name = name[:strings.LastIndexByte(name, '.')]
			return nil, fmt.Errorf("%s: version %d has no file for the driver %s of database %q, which applies it: add %s%s.%s.sql", others[0], v, driver, fs[0].Database, dir, name, driver)
		}
	}
	return out, nil
}

func compare[T int64 | string](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// MigrateOptions selects what [Set.Migrate] does.
type MigrateOptions struct {
	// DryRun lists the migrations that would be applied, applying none
	// and creating no SQLite file (one that does not exist yet would get
	// every migration).
	DryRun bool
	// Database limits the run to one database; "" is every one.
	Database string
	// Defer makes a database that cannot be reached (an error of code
	// database.CodeUnavailable) no error of the run: its migrations wait,
	// [Set.Pending] says so until a later run applies them, and the
	// other databases are migrated. What a host does at load; `endpoints
	// migrate` fails instead.
	Defer bool
	// Note, when not nil, is called with what the run finds that is no
	// error but that the operator should know, a database at a time,
	// before its migrations are applied (out of order: as each is): the
	// migrations recorded in a database of which the app has no file,
	// and each applied after migrations of higher numbers (see
	// [NoteUnknown], [NoteOutOfOrder]). Neither stops the run. It is
	// called while the run holds the Set's migration lock: it must not
	// call Migrate.
	Note func(Note)
}

// Migrate applies the migrations not yet applied, in order, each file in
// one transaction with its record in [Table], and returns those it applied
// (or, with DryRun, would apply): not those another host or run applied
// while this one waited for the migration lock. It stops at the first failure, whose
// error names the file, the database, the statement when known and the
// database's message; what the failing file did is rolled back, what
// the files before it did stays. A file changed after it was applied is
// an error: add a new migration instead. A migration the database
// recorded of which the app has no file, and one applied after
// migrations of higher numbers, are no error: opts.Note hears of them.
//
// With opts.Defer, a database that cannot be reached waits instead (see
// MigrateOptions.Defer); a database all of whose migrations are applied
// no longer waits.
func (s *Set) Migrate(ctx context.Context, opts MigrateOptions) ([]Migration, error) {
	all, err := s.Migrations()
	if err != nil {
		return nil, err
	}
	if opts.Database != "" {
		if _, ok := s.specs[opts.Database]; !ok {
			return nil, fmt.Errorf("the app declares no database %q (declared: %v)", opts.Database, s.Names())
		}
	}
	s.migrating.Lock()
	defer s.migrating.Unlock()
	var done []Migration
	for _, name := range s.Names() {
		if opts.Database != "" && name != opts.Database {
			continue
		}
		var ms []Migration
		for _, m := range all {
			if m.Database == name {
				ms = append(ms, m)
			}
		}
		if len(ms) == 0 {
			s.setPending(name, nil)
			continue
		}
		applied, err := s.migrate(ctx, name, ms, opts)
		done = append(done, applied...)
		switch {
		case opts.DryRun:
		case err == nil:
			s.setPending(name, nil)
		case opts.Defer && Unreachable(err):
			s.setPending(name, err)
			continue
		case s.Pending(name) != nil:
			// It waited, and now its migration failed: it waits on, for
			// a fix, with that failure as the reason.
			s.setPending(name, err)
		}
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// migrate applies the migrations ms of database name not yet applied.
func (s *Set) migrate(ctx context.Context, name string, ms []Migration, opts MigrateOptions) ([]Migration, error) {
	if opts.DryRun && s.specs[name].DriverName() == config.DatabaseSQLite {
		// Opening an SQLite file creates it: a dry run writes nothing,
		// and a database with no file yet has every migration to apply.
		if _, err := os.Stat(s.Path(name)); errors.Is(err, fs.ErrNotExist) {
			return ms, nil
		}
	}
	db, err := s.DB(ctx, name)
	if err != nil {
		return nil, err
	}
	applied, err := readApplied(ctx, db)
	if err != nil {
		return nil, &DatabaseError{Database: name, Err: fmt.Errorf("reading %s: %w", Table, err)}
	}
	note := opts.Note
	if note == nil {
		note = func(Note) {}
	}
	for _, n := range unknown(name, ms, applied) {
		note(n)
	}
	var done []Migration
	for _, m := range ms {
		if r, ok := applied[m.Version]; ok {
			if r.Checksum != m.Checksum {
				return done, s.changed(m)
			}
			continue
		}
		late, isLate := outOfOrder(m, applied)
		if opts.DryRun {
			if isLate {
				note(late)
			}
			done = append(done, m)
			continue
		}
		ran, sum, err := apply(ctx, db, m)
		switch {
		case err != nil:
			return done, &MigrationError{File: m.File, Database: m.Database, Driver: s.specs[name].DriverName(), Err: err}
		case ran:
			if isLate {
				note(late)
			}
			done = append(done, m)
		case sum != m.Checksum:
			// Another host applied it while this one waited for the
			// lock, from other bytes (another release of the app).
			return done, s.changed(m)
		}
	}
	return done, nil
}

// MigrationError is a migration file that failed, and what was applied
// of it rolled back. Its Error names the file, the database, the
// statement and the database's message, literals and values as they are,
// for the operator who runs `endpoints migrate` or starts a host; the
// host's log has it as LogValue says, without them.
//
//	server/migrations/002-seed.sql: database "main": constraint: UNIQUE constraint failed: keys.name in the statement "INSERT INTO keys VALUES ('api', 'sk_live_...')"
type MigrationError struct {
	// File is the migration's file, server/migrations/NNN-name.sql.
	File string
	// Database is the database's name in endpoints.json.
	Database string
	// Driver is the database's driver (config.DatabaseSQLite...), whose
	// SQL LogValue redacts.
	Driver string
	// Err is why: a *database.Error when the database refused a
	// statement, whose Statement is the statement when the driver can
	// tell.
	Err error
}

func (e *MigrationError) Error() string {
	return fmt.Sprintf("%s: database %q: %v", e.File, e.Database, e.Err)
}

// Unwrap returns why the migration failed.
func (e *MigrationError) Unwrap() error { return e.Err }

// DatabaseError is an error of [Set.Migrate] before any migration of a
// database ran: reading what it applied already, the first statement on
// it, fails so when the database cannot be reached ([Unreachable]).
type DatabaseError struct {
	// Database is the database's name in endpoints.json.
	Database string
	// Err is why.
	Err error
}

func (e *DatabaseError) Error() string { return fmt.Sprintf("database %q: %v", e.Database, e.Err) }

// Unwrap returns why.
func (e *DatabaseError) Unwrap() error { return e.Err }

// LogValue is e as the host logs it (log/slog resolves it): its file,
// database and code, the statement with its literals replaced by "?"
// (sqlredact.Statement) and the database's message without the values
// it quotes (database.Error.Redact). A migration's literals are the
// app's seed data, which may be secret (an API key, a password's hash);
// a log is kept, shipped and read by more people than the operator who
// runs the migration, whose `endpoints migrate` prints Error whole.
//
//	server/migrations/002-seed.sql: database "main": constraint: UNIQUE constraint failed: keys.name in the statement "INSERT INTO keys VALUES (?, ?)"
func (e *MigrationError) LogValue() slog.Value {
	var de *database.Error
	if !errors.As(e.Err, &de) {
		return slog.StringValue(e.Error())
	}
	r := *de.Redact()
	r.Statement = sqlredact.Statement(sqlredact.DialectOf(e.Driver), de.Statement)
	return slog.StringValue(fmt.Sprintf("%s: database %q: %v", e.File, e.Database, &r))
}

// changed is the error for migration m, applied already from other bytes.
func (s *Set) changed(m Migration) error {
	hint := ""
	if spec := s.specs[m.Database]; spec.DriverName() == config.DatabaseSQLite {
		hint = fmt.Sprintf(" (in development, deleting %s starts the database again from its migrations)", filepath.ToSlash(config.DatabaseFile(m.Database, spec)))
	}
	return fmt.Errorf("%s: changed since it was applied to database %q; an applied migration stays as it is: undo or redo its change in a new migration%s", m.File, m.Database, hint)
}

// readApplied reads the migrations [Table] records, by version; none
// when the table does not exist yet.
func readApplied(ctx context.Context, db database.DB) (map[int64]Record, error) {
	out := map[int64]Record{}
	rows, err := db.Query(ctx, "SELECT version, name, checksum, applied_at FROM "+Table, nil)
	if database.CodeOf(err) == database.CodeSyntax {
		return out, nil // no table: nothing applied
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		v, ok1 := vals[0].(int64)
		name, ok2 := vals[1].(string)
		sum, ok3 := vals[2].(string)
		at, ok4 := vals[3].(string)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, fmt.Errorf("%s holds a row that is not (version, name, checksum, applied_at): %v", Table, vals)
		}
		out[v] = Record{Version: v, Name: name, Checksum: sum, AppliedAt: at}
	}
	return out, rows.Close()
}

// apply runs one migration and records it, in one transaction that holds
// the migration lock, and reports whether it ran it: a host (or an
// `endpoints migrate`) that applied it meanwhile is seen there, and then
// apply does nothing but return the checksum recorded, so that of hosts
// starting together only the one that applied a migration says so, and
// one whose migration differs from the one applied can say that.
func apply(ctx context.Context, db database.DB, m Migration) (ran bool, sum string, err error) {
	err = db.Migrate(ctx, func(tx database.Migration) error {
		if err := tx.Script(ctx, "CREATE TABLE IF NOT EXISTS "+Table+" (version BIGINT PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)"); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, "SELECT checksum FROM "+Table+" WHERE version = $1", []any{m.Version})
		if err != nil {
			return err
		}
		if rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				rows.Close()
				return err
			}
			var ok bool
			if sum, ok = vals[0].(string); !ok {
				rows.Close()
				return fmt.Errorf("%s holds a checksum that is not text: %v", Table, vals[0])
			}
		}
		if err := rows.Close(); err != nil || sum != "" {
			return err
		}
		if err := tx.Script(ctx, m.SQL); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "INSERT INTO "+Table+" (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)",
			[]any{m.Version, m.Name, m.Checksum, time.Now().UTC().Format(time.RFC3339)})
		ran, sum = err == nil, m.Checksum
		return err
	})
	return ran && err == nil, sum, err
}
