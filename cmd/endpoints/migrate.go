package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/appdb"
)

// cmdMigrate applies the app's migrations (server/migrations) to its
// databases, as a host does at each load, without serving: for a deploy
// step that migrates before the new hosts start.
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
	done, err := set.Migrate(ctx, appdb.MigrateOptions{DryRun: *dryRun, Database: *only})
	verb := "applied"
	if *dryRun {
		verb = "would apply"
	}
	for _, m := range done {
		fmt.Fprintf(stdout, "%s %s to database %s\n", verb, m.File, m.Database)
	}
	if err != nil {
		fmt.Fprintf(stderr, "endpoints migrate: %v\n", err)
		return exitError
	}
	if len(done) == 0 {
		fmt.Fprintln(stdout, "every migration is applied")
	}
	return exitOK
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
