package host_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/host"
)

// Giving the app's databases in code: here "main" on an SQLite file the
// embedder chooses (a PostgreSQL one takes Driver and URL instead), merged
// with what endpoints.json declares. The app's migrations are applied to
// it at New.
func ExampleOptions_databases() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "endpoints-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	app := filepath.Join(dir, "app")
	if err := os.CopyFS(app, os.DirFS("testdata/hello")); err != nil {
		fmt.Println(err)
		return
	}
	migration := filepath.Join(app, "server", "migrations", "001-greetings.sql")
	if err := os.MkdirAll(filepath.Dir(migration), 0o755); err != nil {
		fmt.Println(err)
		return
	}
	if err := os.WriteFile(migration, []byte("CREATE TABLE greetings (name TEXT NOT NULL);\n"), 0o644); err != nil {
		fmt.Println(err)
		return
	}

	file := filepath.Join(dir, "greetings.db")
	h, err := host.New(ctx, app, host.Options{
		Logger: slog.New(slog.DiscardHandler),
		Databases: map[string]config.Database{
			"main": {Driver: config.DatabaseSQLite, Path: file, MaxConns: 4},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close(ctx)

	// What New applied, read from the embedder's file.
	db, err := database.Open(ctx, config.DatabaseSQLite, database.Options{Path: file})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	rows, err := db.Query(ctx, "SELECT version, name FROM endpoints_migrations", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		v, _ := rows.Values()
		fmt.Println("applied:", v[0], v[1])
	}
	// Output:
	// applied: 1 greetings
}
