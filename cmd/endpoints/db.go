package main

import (
	"context"
	"flag"
	"fmt"
	"io"
)

// cmdDB runs the operator's commands on an app's databases: backup.
func cmdDB(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "backup" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			return cmdDBBackup(ctx, args, stdout, stdout)
		}
		fmt.Fprintf(stderr, "endpoints db: want a subcommand: endpoints db backup APP --to FILE\n")
		return exitUsage
	}
	return cmdDBBackup(ctx, args[1:], stdout, stderr)
}

// cmdDBBackup copies an SQLite database of the app into a new file while
// hosts serve it (appdb's Set.Backup).
func cmdDBBackup(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("db backup", flag.ContinueOnError)
	to := fs.String("to", "", "write the backup to `FILE`, which must not exist (required)")
	name := fs.String("database", "", "back up the database of this `NAME` (default: main, or the app's one database)")
	overrides := addConfigFlags(fs, stderr)
	app, code := parseApp(fs, args, stderr)
	if code != exitOK {
		return code
	}
	if *to == "" {
		fmt.Fprintln(stderr, "endpoints db backup: --to FILE is required: the new file the backup is written to")
		return exitUsage
	}
	set, ok := openDatabases("db backup", app, overrides(), stderr)
	if !ok {
		return exitError
	}
	defer set.Close()
	db := *name
	if db == "" {
		db = set.Default()
	}
	if err := set.Backup(ctx, db, *to); err != nil {
		fmt.Fprintf(stderr, "endpoints db backup: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "backed up database %s (%s) to %s\n", db, set.Path(db), *to)
	return exitOK
}
