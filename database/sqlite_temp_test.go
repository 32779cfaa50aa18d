package database_test

import (
	"path/filepath"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
)

// TestSQLiteTempObjectsEndWithTheStatement: a temporary table, view or
// trigger lives on its connection, which the pool hands to the next
// call: the next CREATE TEMP TABLE of the same name failed ("already
// exists") on that connection alone, a temporary table shadowed the
// app's table of its name, and a temporary trigger ran on other calls'
// writes. They end when the statement, or the transaction, that made
// them ends.
func TestSQLiteTempObjectsEndWithTheStatement(t *testing.T) {
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: filepath.Join(t.TempDir(), "temp.db"), MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := t.Context()
	exec := func(sql string) {
		t.Helper()
		if _, err := db.Exec(ctx, sql, nil); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec("CREATE TABLE users (name TEXT)")
	exec("INSERT INTO users VALUES ('Ada')")
	for range 2 {
		exec("CREATE TEMP TABLE staging (v INTEGER)")
	}
	exec("CREATE TEMPORARY TABLE users (x INTEGER)")
	if got, err := query(t, db, "SELECT count(*) AS n FROM users", ""); err != nil || got != `{"columns":["n"],"rows":[[1]]}` {
		t.Errorf("the app's table after a temporary one of its name: %s, %v", got, err)
	}
	exec("CREATE TEMP TRIGGER wipe AFTER INSERT ON main.users BEGIN DELETE FROM main.users; END")
	exec("INSERT INTO users VALUES ('Grace')")
	if got, err := query(t, db, "SELECT count(*) AS n FROM users", ""); err != nil || got != `{"columns":["n"],"rows":[[2]]}` {
		t.Errorf("after a temporary trigger: %s, %v", got, err)
	}

	tx, err := db.Begin(ctx, database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{"CREATE TEMP TABLE staging (v INTEGER)", "INSERT INTO staging VALUES (1)", "INSERT INTO users SELECT 'Staged' FROM staging"} {
		if _, err := tx.Exec(ctx, sql, nil); err != nil {
			t.Fatalf("in a transaction, %s: %v", sql, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	exec("CREATE TEMP TABLE staging (v INTEGER)")
	if got, err := query(t, db, "SELECT count(*) AS n FROM users", ""); err != nil || got != `{"columns":["n"],"rows":[[3]]}` {
		t.Errorf("after the transaction: %s, %v", got, err)
	}
}

// TestSQLiteMigrationTempObjectsEndWithIt: a migration's temporary table
// (a step of a data migration) ends with the migration, not on the
// connection the pool hands to the guests next.
func TestSQLiteMigrationTempObjectsEndWithIt(t *testing.T) {
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: filepath.Join(t.TempDir(), "temp.db"), MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(t.Context(), func(m database.Migration) error {
		return m.Script(t.Context(), "CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('Ada'); CREATE TEMP TABLE users (x INTEGER);")
	}); err != nil {
		t.Fatal(err)
	}
	if got, err := query(t, db, "SELECT count(*) AS n FROM users", ""); err != nil || got != `{"columns":["n"],"rows":[[1]]}` {
		t.Errorf("the app's table after a migration's temporary one of its name: %s, %v", got, err)
	}
}
