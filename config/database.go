package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Database drivers of [Database.Driver].
const (
	// DatabaseSQLite is an SQLite file under the app (package database),
	// the default.
	DatabaseSQLite = "sqlite"
	// DatabasePostgres is a PostgreSQL server (package database/postgres,
	// which a program embedding the host imports).
	DatabasePostgres = "postgres"
)

// DefaultDatabase is the database an app that declares none gets: the name
// "main", an SQLite file at [DefaultDatabasePath] under the app.
const DefaultDatabase = "main"

// DefaultDatabasePath is where the default database's file lives,
// relative to the app: a directory `endpoints build` and git leave alone
// (.endpoints is the app's own state).
const DefaultDatabasePath = ".endpoints/data/main.db"

// Database is one member of endpoints.json's "databases": a database the
// app's guests reach by its name with the db_* functions (abi/README.md
// §4.5). Each app has its own; a guest reaches no other app's.
//
//	"databases": {
//	  "main": {"driver": "sqlite", "path": "data/app.db"},
//	  "reports": {"driver": "postgres", "url": "postgres://app@db:5432/reports", "maxConns": 20}
//	}
//
// # Notes
//
//   - The ENDPOINTS_DATABASES_<NAME>_<FIELD> variables and --set
//     databases.<name>.<field> override one field, so the same app runs on
//     SQLite on a laptop and on PostgreSQL in production:
//     ENDPOINTS_DATABASES_MAIN_DRIVER=postgres
//     ENDPOINTS_DATABASES_MAIN_URL=postgres://app@db:5432/app.
//   - A name is lower-case letters, digits and underscores, starting with
//     a letter, so that its variables can name it.
type Database struct {
	// Driver is [DatabaseSQLite] or [DatabasePostgres]. If empty,
	// postgres when URL is set, else sqlite.
	Driver string `json:"driver,omitzero"`
	// Path is the SQLite file, relative to the app (or absolute); created
	// on first use with its directory. If empty, .endpoints/data/NAME.db.
	Path string `json:"path,omitzero"`
	// URL locates the PostgreSQL server:
	// postgres://user:password@host:5432/dbname, or libpq's key=value
	// settings. What it leaves out, libpq's environment variables give
	// (PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD, PGSSLMODE,
	// PGPASSFILE, PGSERVICE), as pgx reads them. If empty (with Driver
	// "postgres"), they give every setting, and must name the server
	// (PGHOST or PGSERVICE) and the database (PGDATABASE or the
	// service's dbname): the database fails to open otherwise, saying
	// what to set. One database of an app at most leaves it empty: the
	// environment names one database.
	URL string `json:"url,omitzero"`
	// MaxConns bounds the connections open at once: more statements wait
	// for one until their request's deadline, then fail with the code
	// "unavailable". If zero, [DefaultDatabaseMaxConns].
	MaxConns int `json:"maxConns,omitzero"`
	// StatementTimeout bounds each statement inside the database
	// (PostgreSQL's statement_timeout), besides the request's deadline,
	// which always applies: a statement past it fails with the code
	// "timeout", and the call goes on. If zero,
	// [DefaultDatabaseStatementTimeout].
	StatementTimeout Duration `json:"statementTimeout,omitzero"`
}

// Defaults of [Database], the same as package database's own
// (database.DefaultMaxConns, database.DefaultStatementTimeout), which
// config cannot import (its SQLite driver links the WebAssembly runtime);
// a test keeps them equal.
const (
	// DefaultDatabaseMaxConns is the default of [Database.MaxConns]: 10.
	DefaultDatabaseMaxConns = 10
	// DefaultDatabaseStatementTimeout is the default of
	// [Database.StatementTimeout]: 30 s.
	DefaultDatabaseStatementTimeout = 30 * time.Second
)

// WithDefaults returns d with its defaults filled in: Driver
// ([Database.DriverName]), MaxConns and StatementTimeout. Path stays
// empty: its default depends on the database's name ([DatabaseFile]).
func (d Database) WithDefaults() Database {
	d.Driver = d.DriverName()
	if d.MaxConns <= 0 {
		d.MaxConns = DefaultDatabaseMaxConns
	}
	if d.StatementTimeout <= 0 {
		d.StatementTimeout = Duration(DefaultDatabaseStatementTimeout)
	}
	return d
}

// DriverName is d's driver, with the default of [Database.Driver].
func (d Database) DriverName() string {
	switch {
	case d.Driver != "":
		return d.Driver
	case d.URL != "":
		return DatabasePostgres
	}
	return DatabaseSQLite
}

var databaseName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// CheckDatabases checks databases as the "databases" member of
// endpoints.json is checked (names, drivers and what each needs), for
// declarations that come from elsewhere, such as an embedder's
// (host.Options.Databases); errors name source and the JSON pointer of
// the database.
func CheckDatabases(source string, dbs map[string]Database) error {
	return checkDatabases(source, dbs)
}

// checkDatabases checks the "databases" member.
func checkDatabases(file string, dbs map[string]Database) error {
	names := make([]string, 0, len(dbs))
	for name := range dbs {
		names = append(names, name)
	}
	slices.Sort(names)
	fromEnv := "" // the first postgres database without a url
	for _, name := range names {
		d, ptr := dbs[name], "/databases/"+name
		// Without a url, libpq's environment gives a postgres database's
		// settings (PGHOST, PGDATABASE...): the driver checks that it
		// names a server and a database where it opens the database, in
		// the environment that serves, not here.
		pgURL := d.DriverName() == DatabasePostgres && d.URL != ""
		switch {
		case !databaseName.MatchString(name):
			return badSetting(file, ptr, "a database name is lower-case letters, digits and underscores, starting with a letter (its ENDPOINTS_DATABASES_%s_* variables name it), got %q", strings.ToUpper(name), name)
		case d.Driver != "" && d.Driver != DatabaseSQLite && d.Driver != DatabasePostgres:
			return badSetting(file, ptr+"/driver", "%q is not \"sqlite\" nor \"postgres\"", d.Driver)
		case pgURL && isURL(d.URL) && !strings.HasPrefix(d.URL, "postgres://") && !strings.HasPrefix(d.URL, "postgresql://"):
			// Only the scheme: the rest may hold a password.
			return badSetting(file, ptr+"/url", "a postgres url starts with postgres:// or postgresql:// (or is key=value settings, host=db dbname=app), got one of scheme %q", d.URL[:strings.Index(d.URL, "://")])
		case pgURL && isURL(d.URL) && !validURL(d.URL):
			// Never the url: it may hold a password.
			return badSetting(file, ptr+"/url", "is not a valid url; want postgres://user:password@host:5432/database, with @ : / ? # %% in the user or password percent-encoded (%%40 for @)")
		case pgURL && isURL(d.URL) && !validSSLMode(d.URL):
			return badSetting(file, ptr+"/url", "sslmode %q is not one of disable, allow, prefer, require, verify-ca, verify-full", sslMode(d.URL))
		case pgURL && !isURL(d.URL) && !keyValueSettings(d.URL):
			// Not the value: it may hold a password.
			return badSetting(file, ptr+"/url", "neither a postgres:// url nor key=value settings (host=db dbname=app); want postgres://user:password@host:5432/database (is \"://\" mistyped?)")
		case d.DriverName() == DatabasePostgres && d.Path != "":
			return badSetting(file, ptr+"/path", "a postgres database takes a url, not a path")
		case d.DriverName() == DatabasePostgres && d.URL == "" && fromEnv != "":
			// libpq's environment names one server and database: a
			// second database taking it would be the first, its
			// migrations recorded in the same table.
			return badSetting(file, ptr+"/url", "database %s has no url either, and libpq's environment (PGHOST, PGDATABASE...) names one database: both would be that one, their migrations in one table; give this one its url (ENDPOINTS_DATABASES_%s_URL)", fromEnv, strings.ToUpper(name))
		case d.DriverName() == DatabaseSQLite && d.URL != "":
			return badSetting(file, ptr+"/url", "an sqlite database takes a path, not a url; for PostgreSQL set \"driver\": \"postgres\" too (ENDPOINTS_DATABASES_%s_DRIVER=postgres)", strings.ToUpper(name))
		case d.MaxConns < 0:
			return badSetting(file, ptr+"/maxConns", "must be positive, got %d", d.MaxConns)
		case d.StatementTimeout < 0:
			return badSetting(file, ptr+"/statementTimeout", "must be positive")
		}
		if d.DriverName() == DatabasePostgres && d.URL == "" && fromEnv == "" {
			fromEnv = name
		}
	}
	return nil
}

// validURL reports whether a postgres:// url parses as one, as the driver
// parses it (postgresURL).
func validURL(s string) bool {
	_, valid := postgresURL(s)
	return valid
}

// sslMode is the sslmode a postgres:// url asks for, "" when none.
func sslMode(s string) string {
	mode, _ := postgresURL(s)
	return mode
}

// validSSLMode reports whether a postgres:// url's sslmode, if any, is
// one libpq (and pgx) knows.
func validSSLMode(s string) bool {
	switch sslMode(s) {
	case "", "disable", "allow", "prefer", "require", "verify-ca", "verify-full":
		return true
	}
	return false
}

// keyValueSettings reports whether s reads as libpq's key=value
// connection settings ("host=db dbname=app"): it begins with a keyword
// (letters, digits, underscores) and "=".
func keyValueSettings(s string) bool {
	key, _, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok || key == "" {
		return false
	}
	for _, r := range strings.TrimSpace(key) {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// DatabaseFile is the SQLite file of database name d, relative to the
// app unless absolute.
func DatabaseFile(name string, d Database) string {
	if d.Path != "" {
		return d.Path
	}
	return fmt.Sprintf(".endpoints/data/%s.db", name)
}
