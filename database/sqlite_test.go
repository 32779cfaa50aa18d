package database_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/internal/poll"
)

func openTestSQLite(t *testing.T) database.DB {
	t.Helper()
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: filepath.Join(t.TempDir(), "data", "test.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, s := range []string{
		"CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT UNIQUE, photo BLOB, score REAL)",
		"INSERT INTO users (name, email, score) VALUES ('Ada', 'ada@example.com', 1.5)",
	} {
		if _, err := db.Exec(t.Context(), s, nil); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return db
}

func query(t *testing.T, q database.Querier, sql string, params string) (string, error) {
	t.Helper()
	args, err := database.DecodeParams([]byte(params))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := q.Query(t.Context(), sql, args)
	if err != nil {
		return "", err
	}
	b, err := database.AppendQueryResult(nil, rows, 1<<20)
	return string(b), err
}

func TestSQLiteStatements(t *testing.T) {
	db := openTestSQLite(t)
	tests := []struct {
		name, sql, params string
		want              string
		code              database.Code
	}{
		{name: "select by parameter", sql: "SELECT id, name, email, photo, score FROM users WHERE id = $1", params: "[1]", want: `{"columns":["id","name","email","photo","score"],"rows":[[1,"Ada","ada@example.com",null,1.5]]}`},
		{name: "no rows", sql: "SELECT id FROM users WHERE name = ?", params: `["nobody"]`, want: `{"columns":["id"],"rows":[]}`},
		{name: "types", sql: "SELECT $1, $2, $3, $4, $5", params: `[9007199254740993, 0.25, "x", null, {"$blob": "AAEC"}]`, want: `{"columns":["$1","$2","$3","$4","$5"],"blobs":[[0,4]],"rows":[[9007199254740993,0.25,"x",null,"AAEC"]]}`},
		{name: "injection stays a value", sql: "SELECT count(*) FROM users WHERE name = ?", params: `["x' OR '1'='1"]`, want: `{"columns":["count(*)"],"rows":[[0]]}`},
		{name: "two statements refused", sql: "SELECT 1; DELETE FROM users", code: database.CodeDenied},
		{name: "a NUL hiding a second statement refused", sql: "SELECT 1\x00; DELETE FROM users", code: database.CodeSyntax},
		{name: "trailing semicolon and comment allowed", sql: "SELECT 1; -- done", want: `{"columns":["1"],"rows":[[1]]}`},
		{name: "syntax", sql: "SELEC 1", code: database.CodeSyntax},
		{name: "no such table", sql: "SELECT * FROM nothing", code: database.CodeSyntax},
		{name: "attach refused", sql: "ATTACH DATABASE '/tmp/other.db' AS other", code: database.CodeDenied},
		{name: "VACUUM INTO another file refused", sql: "VACUUM INTO '/tmp/copy.db'", code: database.CodeDenied},
		{name: "VACUUM refused", sql: "VACUUM", code: database.CodeDenied},
		{name: "a file pragma read as a table refused", sql: "SELECT * FROM pragma_journal_mode", code: database.CodeDenied},
		{name: "the database's file name refused", sql: "SELECT file FROM pragma_database_list", code: database.CodeDenied},
		{name: "a setting pragma as a table takes no value", sql: "SELECT * FROM pragma_writable_schema(1)", code: database.CodeSyntax},
		// The SQLite build omits extension loading (no such function);
		// the authorizer denies it should a build include it.
		{name: "load_extension refused", sql: "SELECT load_extension('/tmp/x.so')", code: database.CodeSyntax},
		{name: "file pragma refused", sql: "PRAGMA journal_mode=DELETE", code: database.CodeDenied},
		{name: "setting pragma refused", sql: "PRAGMA foreign_keys=OFF", code: database.CodeDenied},
		{name: "user_version write refused", sql: "PRAGMA user_version=7", code: database.CodeDenied},
		{name: "schema pragma allowed", sql: "SELECT name FROM pragma_table_info('users') WHERE pk = 1", want: `{"columns":["name"],"rows":[["id"]]}`},
		{name: "transaction control refused", sql: "BEGIN", code: database.CodeDenied},
		{name: "parameter count checked", sql: "SELECT ?", params: "[]", code: database.CodeSyntax},
		{name: "an unused parameter refused", sql: "SELECT $1", params: "[1, 2]", code: database.CodeSyntax},
		{name: "named parameters refused", sql: "SELECT :name", params: `["x"]`, code: database.CodeSyntax},
		{name: "numbered parameters bind by number, not by first appearance", sql: "SELECT $2 AS b, $1 AS a, $2 AS b2", params: `["a", "b"]`, want: `{"columns":["b","a","b2"],"rows":[["b","a","b"]]}`},
		{name: "plain ? bind in order", sql: "SELECT ?, ?", params: `["a", "b"]`, want: `{"columns":["?","?"],"rows":[["a","b"]]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := query(t, db, tt.sql, tt.params)
			if tt.code != "" {
				if database.CodeOf(err) != tt.code {
					t.Fatalf("got %q, %v; want code %s", got, err, tt.code)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %s, %v\nwant %s", got, err, tt.want)
			}
		})
	}
}

func TestSQLiteExecAndConstraint(t *testing.T) {
	db := openTestSQLite(t)
	r, err := db.Exec(t.Context(), "INSERT INTO users (name, email) VALUES (?, ?)", []any{"Grace", "grace@example.com"})
	if err != nil || r.RowsAffected != 1 || r.LastInsertID != 2 || !r.HasLastInsertID {
		t.Fatalf("insert: %+v, %v", r, err)
	}
	_, err = db.Exec(t.Context(), "INSERT INTO users (name, email) VALUES (?, ?)", []any{"Again", "grace@example.com"})
	var e *database.Error
	if !errors.As(err, &e) || e.Code != database.CodeConstraint || e.Constraint != "users.email" {
		t.Fatalf("duplicate email: %#v, want constraint users.email", err)
	}
	if _, err := db.Exec(t.Context(), "INSERT INTO users (email) VALUES ('x@example.com')", nil); database.CodeOf(err) != database.CodeConstraint {
		t.Fatalf("not null: %v", err)
	}
}

// TestSQLiteLargeValueNeverCopied: a value larger than the result may be
// fails the result before it is copied out of SQLite: a 64 MiB blob under
// a 1 MiB cap costs the host far less than its 85 MiB of base64.
func TestSQLiteLargeValueNeverCopied(t *testing.T) {
	db := openTestSQLite(t)
	for _, sql := range []string{"SELECT zeroblob(64 << 20)", "SELECT 1, printf('%.*c', 64 << 20, 'x')"} {
		rows, err := db.Query(t.Context(), sql, nil)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b, err := database.AppendQueryResult(nil, rows, 1<<20)
		runtime.ReadMemStats(&after)
		if database.CodeOf(err) != database.CodeTooLarge || !strings.Contains(err.Error(), "limits.sqlResultBytes (1048576 bytes)") {
			t.Errorf("%s: %v; want too_large naming the limit", sql, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 || len(b) > 1<<20 {
			t.Errorf("%s: the host allocated %d MiB (a result of %d bytes) for a result refused at 1 MiB", sql, grew>>20, len(b))
		}
	}
	if _, err := query(t, db, "SELECT 1", ""); err != nil {
		t.Fatal(err)
	}
}

func TestSQLiteResultCap(t *testing.T) {
	db := openTestSQLite(t)
	rows, err := db.Query(t.Context(), "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n) SELECT i, 'padding padding' FROM n", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := database.AppendQueryResult(nil, rows, 4096)
	if database.CodeOf(err) != database.CodeTooLarge {
		t.Fatalf("got %v, want too_large", err)
	}
	if len(b) > 4096+64 {
		t.Errorf("built %d bytes past a 4096-byte cap", len(b))
	}
	// The connection went back to the pool: the next statement runs.
	if _, err := query(t, db, "SELECT 1", ""); err != nil {
		t.Fatal(err)
	}
}

func TestSQLiteDeadlineStopsQuery(t *testing.T) {
	db := openTestSQLite(t)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	rows, err := db.Query(ctx, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n) SELECT count(*) FROM n", nil)
	if err == nil {
		_, err = database.AppendQueryResult(nil, rows, 1<<20)
	}
	if err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Fatalf("got %v, want the statement stopped at the deadline", err)
	}
	if _, err := query(t, db, "SELECT 1", ""); err != nil {
		t.Fatalf("the connection is unusable after an interrupt: %v", err)
	}
}

func TestSQLiteTransactions(t *testing.T) {
	db := openTestSQLite(t)
	ctx := t.Context()
	count := func() string {
		got, err := query(t, db, "SELECT count(*) FROM users", "")
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	tx, err := db.Begin(ctx, database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO users (name) VALUES ('Tmp')", nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != `{"columns":["count(*)"],"rows":[[1]]}` {
		t.Fatalf("after rollback: %s", got)
	}
	tx, _ = db.Begin(ctx, database.TxOptions{})
	tx.Exec(ctx, "INSERT INTO users (name) VALUES ('Kept')", nil)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); database.CodeOf(err) != database.CodeTransaction {
		t.Errorf("second commit: %v, want code transaction", err)
	}
	if got := count(); got != `{"columns":["count(*)"],"rows":[[2]]}` {
		t.Fatalf("after commit: %s", got)
	}
}

func TestSQLiteMigrateIsAtomic(t *testing.T) {
	db := openTestSQLite(t)
	err := db.Migrate(t.Context(), func(m database.Migration) error {
		return m.Script(t.Context(), "CREATE TABLE a (x); INSERT INTO nothing VALUES (1);")
	})
	if err == nil {
		t.Fatal("a failing script was applied")
	}
	if _, err := query(t, db, "SELECT * FROM a", ""); database.CodeOf(err) != database.CodeSyntax {
		t.Fatalf("table a exists after a failed migration: %v", err)
	}
}

// TestSQLiteMigrationSettingsEndWithIt: the PRAGMAs a migration may run
// (it is trusted) change its connection, not the file: CHECK constraints
// ignored, writes refused, triggers made recursive. The connection ends with
// the migration; it was pooled, and the guests' statements it then ran
// broke the app's constraints, or failed, while the other connections'
// did not.
func TestSQLiteMigrationSettingsEndWithIt(t *testing.T) {
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: filepath.Join(t.TempDir(), "test.db"), MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(t.Context(), func(m database.Migration) error {
		return m.Script(t.Context(), `CREATE TABLE prices (amount INTEGER NOT NULL CHECK (amount >= 0));
			PRAGMA ignore_check_constraints = ON; PRAGMA recursive_triggers = ON;`)
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(t.Context(), "INSERT INTO prices (amount) VALUES (-5)", nil); database.CodeOf(err) != database.CodeConstraint {
		t.Errorf("a guest's row that breaks a CHECK constraint, after a migration ignored them: %v, want constraint", err)
	}
	if err := db.Migrate(t.Context(), func(m database.Migration) error {
		return m.Script(t.Context(), "PRAGMA query_only = ON")
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(t.Context(), "INSERT INTO prices (amount) VALUES (5)", nil); err != nil {
		t.Errorf("a guest's write after a migration made its connection read-only: %v", err)
	}
}

// TestSQLiteMigrationReachesNoOtherFile: a migration is trusted, but
// ATTACH (SQLite's limit of attached databases is 0 on every
// connection) and VACUUM INTO (which attaches its target, and cannot run
// in the migration's transaction) reach no file beside the database's.
func TestSQLiteMigrationReachesNoOtherFile(t *testing.T) {
	db := openTestSQLite(t)
	dir := t.TempDir()
	for _, script := range []string{
		"ATTACH '" + filepath.Join(dir, "other.db") + "' AS other; CREATE TABLE other.t (x);",
		"VACUUM INTO '" + filepath.Join(dir, "copy.db") + "'",
	} {
		err := db.Migrate(t.Context(), func(m database.Migration) error { return m.Script(t.Context(), script) })
		if err == nil {
			t.Errorf("%s: applied, want an error", script)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the migrations made %d files in another directory, want none", len(entries))
	}
}

// TestSQLitePoolHammer releases many goroutines at once on a pool of
// three connections: every statement runs, none is lost, and
// transactions serialize their writes.
func TestSQLitePoolHammer(t *testing.T) {
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: filepath.Join(t.TempDir(), "h.db"), MaxConns: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	if _, err := db.Exec(ctx, "CREATE TABLE n (v INTEGER)", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "INSERT INTO n VALUES (0)", nil); err != nil {
		t.Fatal(err)
	}
	const workers = 24
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, workers)
	for i := range workers {
		wg.Go(func() {
			<-start
			if i%2 == 0 {
				// Read, then write, in one transaction: no update lost.
				tx, err := db.Begin(ctx, database.TxOptions{})
				if err != nil {
					errs <- err
					return
				}
				defer tx.Rollback(ctx)
				if _, err := tx.Exec(ctx, "UPDATE n SET v = v + 1", nil); err != nil {
					errs <- err
					return
				}
				errs <- tx.Commit(ctx)
				return
			}
			rows, err := db.Query(ctx, "SELECT v FROM n", nil)
			if err == nil {
				_, err = database.AppendQueryResult(nil, rows, 1<<20)
			}
			errs <- err
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got, err := query(t, db, "SELECT v FROM n", ""); err != nil || got != `{"columns":["v"],"rows":[[12]]}` {
		t.Errorf("after %d increments: %s, %v", workers/2, got, err)
	}
}

// TestSQLiteConstraintNames: the constraint of an error is what SQLite
// names (columns, a CHECK's name), and nothing for a foreign key, which
// SQLite does not name; its kind comes from the extended result code
// (a primary key is unique), and a constraint SQLite gives no kind of (a
// trigger's RAISE) has none.
func TestSQLiteConstraintNames(t *testing.T) {
	db := openTestSQLite(t)
	for _, s := range []string{
		"CREATE TABLE tags (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users (id), name TEXT CONSTRAINT name_not_empty CHECK (name <> ''))",
		"CREATE TABLE codes (code TEXT PRIMARY KEY) WITHOUT ROWID",
		"INSERT INTO codes VALUES ('a')",
		"INSERT INTO tags (user_id, name) VALUES (1, 'x')",
		"CREATE TRIGGER no_z BEFORE INSERT ON codes WHEN NEW.code = 'z' BEGIN SELECT RAISE(ABORT, 'no z'); END",
	} {
		if _, err := db.Exec(t.Context(), s, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name, sql, constraint string
		kind                  database.Kind
	}{
		{"unique", "INSERT INTO users (name, email) VALUES ('Again', 'ada@example.com')", "users.email", database.KindUnique},
		{"integer primary key", "INSERT INTO users (id, name) VALUES (1, 'Again')", "users.id", database.KindUnique},
		{"primary key without rowid", "INSERT INTO codes VALUES ('a')", "codes.code", database.KindUnique},
		{"not null", "INSERT INTO users (email) VALUES ('x@example.com')", "users.name", database.KindNotNull},
		{"check", "INSERT INTO tags (user_id, name) VALUES (1, '')", "name_not_empty", database.KindCheck},
		{"foreign key to a missing row", "INSERT INTO tags (user_id, name) VALUES (99, 'x')", "", database.KindForeignKey},
		{"delete of a row others name", "DELETE FROM users WHERE id = 1", "", database.KindForeignKey},
		{"a trigger's RAISE has no kind", "INSERT INTO codes VALUES ('z')", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := db.Exec(t.Context(), tt.sql, nil)
			var e *database.Error
			if !errors.As(err, &e) || e.Code != database.CodeConstraint || e.Constraint != tt.constraint || e.Kind != tt.kind {
				t.Errorf("%s: %#v, want constraint %q of kind %q", tt.sql, err, tt.constraint, tt.kind)
			}
		})
	}
}

// TestSQLiteLockedElsewhere: while another process (here another pool on
// the same file) holds the write lock, a write waits the busy timeout and
// then fails busy, naming the lock and the timeout (SQLite gives it as a
// bare code, not an *sqlite3.Error), and reads go on (WAL).
func TestSQLiteLockedElsewhere(t *testing.T) {
	database.SetBusyTimeout(t, 50*time.Millisecond)
	path := filepath.Join(t.TempDir(), "app.db")
	open := func() database.DB {
		db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	ctx := t.Context()
	db, other := open(), open()
	if _, err := db.Exec(ctx, "CREATE TABLE notes (x)", nil); err != nil {
		t.Fatal(err)
	}
	tx, err := other.Begin(ctx, database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO notes VALUES (1)", nil); err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(ctx, "INSERT INTO notes VALUES (2)", nil)
	if database.CodeOf(err) != database.CodeBusy || !strings.Contains(err.Error(), "database is locked: another connection or process held the database's write lock longer than the busy timeout (50ms)") {
		t.Errorf("a write while another holds the lock: %v; want busy, naming the lock and the timeout", err)
	}
	if _, err := db.Begin(ctx, database.TxOptions{}); database.CodeOf(err) != database.CodeBusy {
		t.Errorf("a transaction while another holds the lock: %v; want busy", err)
	}
	rows, err := db.Query(ctx, "SELECT count(*) FROM notes", nil)
	if err != nil {
		t.Fatalf("a read while another holds the write lock: %v", err)
	}
	rows.Close()
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestSQLitePoolFull: with every connection held (maxConns 1, a
// transaction open), a statement waits for one until a little before its
// call's deadline, then fails unavailable while the call can still
// answer, naming the database's maxConns.
func TestSQLitePoolFull(t *testing.T) {
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Name: "main", Path: filepath.Join(t.TempDir(), "p.db"), MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin(t.Context(), database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(t.Context())
	call, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	_, err = db.Exec(call, "SELECT 1", nil)
	if database.CodeOf(err) != database.CodeUnavailable || !strings.Contains(err.Error(), "no connection of the pool came free in time: its maxConns (1) were all in use by other statements and transactions; raise databases.main.maxConns") {
		t.Errorf("a statement with the pool full: %v; want unavailable, naming maxConns", err)
	}
	if call.Err() != nil {
		t.Errorf("the statement failed only once its call had ended: %v", call.Err())
	}
}

// TestSQLiteMigrationWaitsForTheLock: a migration on a file another
// process migrates (a second host starting beside the first) waits for
// the write lock longer than the busy timeout, until the first one
// commits, then runs; the connection's busy timeout is the guests' again
// afterwards.
func TestSQLiteMigrationWaitsForTheLock(t *testing.T) {
	const busy = 20 * time.Millisecond
	database.SetBusyTimeout(t, busy)
	path := filepath.Join(t.TempDir(), "app.db")
	open := func() database.DB {
		db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: path, MaxConns: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	ctx := t.Context()
	first, second := open(), open()
	holding, release := make(chan struct{}), make(chan struct{})
	firstDone := make(chan error, 1)
	go func() {
		firstDone <- first.Migrate(ctx, func(m database.Migration) error {
			close(holding)
			<-release
			return m.Script(ctx, "CREATE TABLE a (x);")
		})
	}()
	<-holding
	began := time.Now()
	secondDone := make(chan error, 1)
	go func() {
		secondDone <- second.Migrate(ctx, func(m database.Migration) error { return m.Script(ctx, "CREATE TABLE b (x);") })
	}()
	var early error
	returned := poll.Until(5*time.Second, func() bool {
		select {
		case early = <-secondDone:
			return true
		default:
			return time.Since(began) > 10*busy
		}
	})
	if !returned || early != nil {
		t.Fatalf("the second migration did not wait for the lock past the busy timeout: %v", early)
	}
	close(release)
	if err := <-firstDone; err != nil {
		t.Fatal(err)
	}
	if err := <-secondDone; err != nil {
		t.Fatalf("the second migration, after the first: %v", err)
	}
	tx, err := first.Begin(ctx, database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := second.Exec(ctx, "INSERT INTO b VALUES (1)", nil); database.CodeOf(err) != database.CodeBusy {
		t.Errorf("a guest's write on the migrating connection, the lock held elsewhere: %v; want busy after the busy timeout", err)
	}
}
