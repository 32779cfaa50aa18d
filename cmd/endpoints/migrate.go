package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/appdb"
)

// cmdMigrate applies the app's migrations (server/migrations) to its
// databases, as a host does at each load, without serving: for a deploy
// step that migrates before the new hosts start. It warns, on stderr, of
// what the run finds that is no error (appdb.Note): a migration the
// database recorded of which the app has no file, one applied out of
// order. A migration that fails is said whole, its statement's literals
// included (appdb.MigrationError): the operator at the terminal fixes
// the file, where the host's log leaves them out.
func cmdMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	dryRun := fs.Bool("dry-run", false, "list the migrations that would be applied, applying none")
	only := fs.String("database", "", "migrate only the database of this name (default: every one)")
	overrides := addConfigFlags(fs, stderr)
	app, code := parseApp(fs, args, stderr)
	if code != exitOK {
		return code
	}
	set, ok := openDatabases("migrate", app, overrides(), stderr)
	if !ok {
		return exitError
	}
	defer set.Close()
	// A warning (a migration the database has and the app has not, one
	// applied out of order) is said as the run finds it; it fails nothing.
	warn := func(n appdb.Note) { fmt.Fprintf(stderr, "endpoints migrate: warning: %s\n", n) }
	done, err := set.Migrate(ctx, appdb.MigrateOptions{DryRun: *dryRun, Database: *only, Note: warn})
	verb := "applied"
	if *dryRun {
		verb = "would apply"
	}
	for _, m := range done {
		fmt.Fprintf(stdout, "%s %s to database %s (%s)\n", verb, m.File, m.Database, location(ctx, set, m.Database))
	}
	if err != nil {
		if name, cause, ok := unreachable(err); ok {
			fmt.Fprintf(stderr, "endpoints migrate: database %q (%s) could not be reached: %v\n  %s\n", name, location(ctx, set, name), cause, set.ReachHint(name))
			return exitError
		}
		fmt.Fprintf(stderr, "endpoints migrate: %v\n", err)
		return exitError
	}
	if len(done) == 0 {
		var where []string
		for _, name := range set.Names() {
			if *only == "" || name == *only {
				where = append(where, fmt.Sprintf("database %s (%s)", name, location(ctx, set, name)))
			}
		}
		fmt.Fprintf(stdout, "every migration of the app is applied: %s\n", strings.Join(where, ", "))
	}
	return exitOK
}

// location says where database name of set is (appdb.Set.Location), so
// that the operator of a deploy step sees which one it migrated (a
// variable left unset migrates the SQLite file under the app, not the
// server meant): "sqlite FILE", or "postgres host=... port=... dbname=...
// user=..." as the url and libpq's environment (PGHOST...) resolve, never
// the password; why it cannot say, when it cannot.
func location(ctx context.Context, set *appdb.Set, name string) string {
	where, err := set.Location(ctx, name)
	if err != nil {
		return err.Error()
	}
	return where
}

// unreachable reports whether err is a database that could not be
// reached (appdb.Unreachable), with its name and the cause, the error
// without the name.
func unreachable(err error) (name string, cause error, ok bool) {
	if !appdb.Unreachable(err) {
		return "", nil, false
	}
	var d *appdb.DatabaseError
	var m *appdb.MigrationError
	switch {
	case errors.As(err, &d):
		return d.Database, d.Err, true
	case errors.As(err, &m):
		return m.Database, fmt.Errorf("%s: %w", m.File, m.Err), true
	}
	return "", nil, false
}

// openDatabases opens the databases app's settings declare, for a command
// (migrate, db backup) that works on them without serving; false, said on
// stderr, when the settings do not load.
func openDatabases(cmd, app string, overrides []config.Override, stderr io.Writer) (*appdb.Set, bool) {
	cfg, err := config.Load(app, overrides...)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints %s: %v\n", cmd, err)
		return nil, false
	}
	return appdb.New(app, cfg.Databases), true
}
