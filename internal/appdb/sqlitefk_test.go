package appdb_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmendpoints/endpoints/internal/appdb"
)

// fkSchema is a first migration: books refer to their authors, deleted
// with them (ON DELETE CASCADE).
const fkSchema = `CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE books (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES authors (id) ON DELETE CASCADE, title TEXT);
INSERT INTO authors VALUES (1, 'Ada'), (2, 'Grace');
INSERT INTO books VALUES (1, 1, 'Notes'), (2, 2, 'Compilers');
`

// TestSQLiteMigrationRebuildsTable: a migration that changes a table the
// way SQLite's documentation says for what ALTER TABLE cannot do (make
// the new table, copy the rows, drop the old one, rename; its PRAGMA
// foreign_keys=OFF a no-op in the migration's transaction) keeps the rows
// that refer to the table: the DROP TABLE does not delete them through
// their ON DELETE CASCADE. A migration that leaves rows whose foreign key
// names no row fails, naming the table, and applies nothing; the guests'
// statements still have their foreign keys enforced after migrations.
func TestSQLiteMigrationRebuildsTable(t *testing.T) {
	const rebuild = `PRAGMA foreign_keys=OFF;
CREATE TABLE authors_new (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO authors_new SELECT id, name FROM authors;
DROP TABLE authors;
ALTER TABLE authors_new RENAME TO authors;
PRAGMA foreign_keys=ON;
`
	tests := []struct {
		name      string
		migration string
		err       string // the migration's error, "" when it applies
		books     string
	}{
		{"a table rebuilt", rebuild, "", `[[2]]`},
		{"a table rebuilt, without the PRAGMAs", strings.ReplaceAll(strings.ReplaceAll(rebuild, "PRAGMA foreign_keys=OFF;\n", ""), "PRAGMA foreign_keys=ON;\n", ""), "", `[[2]]`},
		{"orphans left", "DELETE FROM authors WHERE id = 1;\n", `server/migrations/002-change.sql: database "main": constraint: the migration leaves 1 row of books whose foreign key names no row of authors (rowid 1)`, `[[2]]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := appdb.New(writeApp(t, map[string]string{
				"server/migrations/001-schema.sql": fkSchema,
				"server/migrations/002-change.sql": tt.migration,
			}), nil)
			defer set.Close()
			_, err := set.Migrate(t.Context(), appdb.MigrateOptions{})
			if tt.err == "" && err != nil {
				t.Fatalf("the migration failed: %v", err)
			}
			if tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("the migration's error: %v; want %q", err, tt.err)
			}
			s := appdb.NewSession(set, t.Context(), time.Now().Add(time.Minute), 1<<20, appdb.Hooks{})
			defer s.Close()
			main := []byte("main")
			for _, c := range []struct{ sql, want string }{
				{"SELECT count(*) FROM books", `{"columns":["count(*)"],"rows":` + tt.books + `}`},
				{"SELECT count(*) FROM authors", `{"columns":["count(*)"],"rows":[[2]]}`},
				{"INSERT INTO books VALUES (3, 99, 'orphan')", `"kind":"foreign_key"`},
			} {
				s.Run(main, []byte(c.sql), nil, strings.HasPrefix(c.sql, "INSERT"))
				if r, _ := s.Result(); !strings.Contains(string(r), c.want) {
					t.Errorf("%s after the migrations: %s, want %s", c.sql, r, c.want)
				}
			}
		})
	}
}

// TestSQLiteMigrationTransactionStatements: each migration file runs in a
// transaction of its own. One that holds BEGIN, COMMIT or ROLLBACK of its
// own (hand-written SQL often does) fails naming the statement and saying
// why, and leaves nothing: a COMMIT in the middle used to commit the
// statements before it, unrecorded, so that the next start failed on
// them ("table x already exists") with the database half migrated. A
// SAVEPOINT within the migration is its own business.
func TestSQLiteMigrationTransactionStatements(t *testing.T) {
	tests := []struct {
		name, migration, statement string
	}{
		{"a commit in the middle", "CREATE TABLE x (a);\nCOMMIT;\nINSERT INTO nowhere VALUES (1);\n", "COMMIT"},
		{"begin and commit", "BEGIN;\nCREATE TABLE x (a);\nCOMMIT;\n", "BEGIN"},
		{"a rollback", "CREATE TABLE x (a);\nROLLBACK;\n", "ROLLBACK"},
		{"a savepoint", "SAVEPOINT s;\nCREATE TABLE x (a);\nRELEASE s;\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := appdb.New(writeApp(t, map[string]string{"server/migrations/001-x.sql": tt.migration}), nil)
			defer set.Close()
			for range 2 { // the second start finds what the first left
				_, err := set.Migrate(t.Context(), appdb.MigrateOptions{})
				if tt.statement == "" {
					if err != nil {
						t.Fatalf("the migration failed: %v", err)
					}
					continue
				}
				want := `server/migrations/001-x.sql: database "main": denied: a migration runs in a transaction of its own, one per file: remove its BEGIN, COMMIT and ROLLBACK (SAVEPOINT is allowed) in the statement "` + tt.statement + `"`
				if err == nil || err.Error() != want {
					t.Errorf("the migration's error: %v\nwant %s", err, want)
				}
			}
			s := appdb.NewSession(set, t.Context(), time.Now().Add(time.Minute), 1<<20, appdb.Hooks{})
			defer s.Close()
			s.Run([]byte("main"), []byte("SELECT count(*) FROM sqlite_schema WHERE name = 'x'"), nil, false)
			want := `[[0]]`
			if tt.statement == "" {
				want = `[[1]]`
			}
			if r, _ := s.Result(); !strings.Contains(string(r), want) {
				t.Errorf("the table x after the migrations: %s, want rows %s", r, want)
			}
		})
	}
}

// TestSQLiteMigrationOrphansFromBefore: rows whose foreign key names no
// row that were there before a migration (written with foreign keys off,
// as the sqlite3 shell does by default, or by a tool that never turned
// them on) do not fail a migration that adds none: it would fail every
// migration after them, blaming each. One that adds orphans to such a
// table still fails, saying how many were there before.
func TestSQLiteMigrationOrphansFromBefore(t *testing.T) {
	tests := []struct {
		name, migration, err string
	}{
		{"a migration that adds none", "CREATE TABLE notes (id INTEGER PRIMARY KEY);\n", ""},
		{"a table rebuilt", "CREATE TABLE books_new (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES authors (id) ON DELETE CASCADE, title TEXT NOT NULL DEFAULT '');\nINSERT INTO books_new SELECT id, author_id, coalesce(title, '') FROM books;\nDROP TABLE books;\nALTER TABLE books_new RENAME TO books;\n", ""},
		{"a migration that adds one", "DELETE FROM authors WHERE id = 2;\n", `the migration leaves 2 rows of books (1 before it) whose foreign key names no row of authors`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := writeApp(t, map[string]string{"server/migrations/001-schema.sql": fkSchema})
			set := appdb.New(app, nil)
			if _, err := set.Migrate(t.Context(), appdb.MigrateOptions{}); err != nil {
				t.Fatal(err)
			}
			set.Close()
			conn, err := sqlite3.Open(filepath.Join(app, ".endpoints/data/main.db"))
			if err != nil {
				t.Fatal(err)
			}
			if err := conn.Exec("PRAGMA foreign_keys=OFF; INSERT INTO books VALUES (3, 99, 'orphan')"); err != nil {
				t.Fatal(err)
			}
			conn.Close()
			if err := os.WriteFile(filepath.Join(app, "server/migrations/002-change.sql"), []byte(tt.migration), 0o644); err != nil {
				t.Fatal(err)
			}
			set = appdb.New(app, nil)
			defer set.Close()
			_, err = set.Migrate(t.Context(), appdb.MigrateOptions{})
			if tt.err == "" && err != nil {
				t.Errorf("the migration failed: %v", err)
			}
			if tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("the migration's error: %v; want %q", err, tt.err)
			}
		})
	}
}
