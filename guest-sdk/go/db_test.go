package endpoints_test

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/endpointstest"
)

type dbUser struct {
	ID      int64     `db:"id"`
	Name    string    `db:"name"`
	Email   *string   `db:"email"`
	Photo   []byte    `db:"photo"`
	Score   float64   `db:"score"`
	Created time.Time `db:"created_at"`
}

func setupDB(t *testing.T) *endpoints.Database {
	endpointstest.Database(t, "")
	db := endpoints.DB("main")
	for _, s := range []string{
		"CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT UNIQUE, photo BLOB, score REAL NOT NULL DEFAULT 0, created_at TEXT NOT NULL DEFAULT '2026-01-02T03:04:05Z')",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func TestDatabase(t *testing.T) {
	db := setupDB(t)
	res, err := db.Exec("INSERT INTO users (name, email, photo, score) VALUES ($1, $2, $3, $4)", "Ada", "ada@example.com", []byte{0, 1, 2}, 1.5)
	if err != nil || res.RowsAffected != 1 || res.LastInsertID != 1 || !res.HasLastInsertID {
		t.Fatalf("Exec = %+v, %v", res, err)
	}
	if _, err := db.Exec("INSERT INTO users (name) VALUES ($1)", "Grace"); err != nil {
		t.Fatal(err)
	}

	t.Run("QueryRow and Scan", func(t *testing.T) {
		var name string
		var email *string
		var photo []byte
		var score float64
		var created time.Time
		err := db.QueryRow("SELECT name, email, photo, score, created_at FROM users WHERE id = $1", 1).Scan(&name, &email, &photo, &score, &created)
		if err != nil || name != "Ada" || email == nil || *email != "ada@example.com" || string(photo) != "\x00\x01\x02" || score != 1.5 || !created.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
			t.Errorf("got %q %v %q %v %v, %v", name, email, photo, score, created, err)
		}
	})
	t.Run("NULL into a pointer and into a value", func(t *testing.T) {
		var email *string
		if err := db.QueryRow("SELECT email FROM users WHERE id = 2").Scan(&email); err != nil || email != nil {
			t.Errorf("got %v, %v; want nil", email, err)
		}
		var s string
		err := db.QueryRow("SELECT email FROM users WHERE id = 2").Scan(&s)
		if err == nil || !strings.Contains(err.Error(), `column "email": NULL cannot go into *string`) {
			t.Errorf("NULL into a string: %v", err)
		}
	})
	t.Run("column names with escapes, every row", func(t *testing.T) {
		rows, err := db.Query(`SELECT id AS "a""b", name AS "naïve
name" FROM users ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		if got := rows.Columns(); !reflect.DeepEqual(got, []string{`a"b`, "naïve\nname"}) || rows.Len() != 2 {
			t.Fatalf("Columns() = %q, Len() = %d; want [a\"b naïve\\nname], 2", got, rows.Len())
		}
		var got []string
		for rows.Next() {
			var id int
			var name string
			if err := rows.Scan(&id, &name); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%d %s", id, name))
		}
		if !reflect.DeepEqual(got, []string{"1 Ada", "2 Grace"}) {
			t.Errorf("rows %q, want [1 Ada, 2 Grace]", got)
		}
	})
	t.Run("no rows", func(t *testing.T) {
		var id int
		if err := db.QueryRow("SELECT id FROM users WHERE name = $1", "nobody").Scan(&id); !errors.Is(err, endpoints.ErrNoRows) {
			t.Errorf("got %v, want ErrNoRows", err)
		}
	})
	t.Run("QueryAs", func(t *testing.T) {
		users, err := endpoints.QueryAs[dbUser](db, "SELECT id, name, email, photo, score, created_at FROM users ORDER BY id")
		if err != nil || len(users) != 2 || users[0].Name != "Ada" || *users[0].Email != "ada@example.com" || users[1].Email != nil || users[1].ID != 2 {
			t.Fatalf("got %+v, %v", users, err)
		}
		if _, err := endpoints.QueryAs[dbUser](db, "SELECT id, name AS nom FROM users"); err == nil || !strings.Contains(err.Error(), `the column "nom" goes into no field`) {
			t.Errorf("an unknown column: %v", err)
		}
		u, err := endpoints.QueryRowAs[dbUser](db, "SELECT id, name FROM users WHERE id = $1", 2)
		if err != nil || u.Name != "Grace" {
			t.Errorf("QueryRowAs = %+v, %v", u, err)
		}
	})
	t.Run("Rows", func(t *testing.T) {
		rows, err := db.Query("SELECT id, name FROM users ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for rows.Next() {
			var id int
			var name string
			if err := rows.Scan(&id, &name); err != nil {
				t.Fatal(err)
			}
			names = append(names, name)
		}
		if strings.Join(names, ",") != "Ada,Grace" || strings.Join(rows.Columns(), ",") != "id,name" {
			t.Errorf("got %v of %v", names, rows.Columns())
		}
	})
	t.Run("errors", func(t *testing.T) {
		_, err := db.Exec("INSERT INTO users (name, email) VALUES ($1, $2)", "Again", "ada@example.com")
		var de *endpoints.DBError
		if !errors.Is(err, endpoints.ErrConstraint) || !errors.As(err, &de) || de.Constraint != "users.email" {
			t.Errorf("a unique violation: %v", err)
		}
		if _, err := db.Query("SELEC 1"); !errors.Is(err, endpoints.ErrSyntax) {
			t.Errorf("a syntax error: %v", err)
		}
		if _, err := db.Exec("DELETE FROM users; DROP TABLE users"); !errors.Is(err, endpoints.ErrDenied) {
			t.Errorf("two statements: %v", err)
		}
		if _, err := endpoints.DB("other").Query("SELECT 1"); err == nil || !strings.Contains(err.Error(), "declares no such database") {
			t.Errorf("an unknown database: %v", err)
		}
		if _, err := db.Exec("SELECT $1", struct{}{}); err == nil || !strings.Contains(err.Error(), "cannot be a statement argument") {
			t.Errorf("a struct argument: %v", err)
		}
		if !errors.Is(&endpoints.DBError{Code: "unavailable"}, endpoints.ErrStorageUnavailable) {
			t.Error("an unavailable database is not ErrStorageUnavailable: HandleFunc would not answer 503")
		}
	})
	t.Run("Tx", func(t *testing.T) {
		boom := errors.New("boom")
		err := db.Tx(func(tx *endpoints.Tx) error {
			if _, err := tx.Exec("DELETE FROM users"); err != nil {
				return err
			}
			return boom
		})
		var n int
		if db.QueryRow("SELECT count(*) FROM users").Scan(&n); !errors.Is(err, boom) || n != 2 {
			t.Fatalf("a failed transaction: %v, %d users left, want 2", err, n)
		}
		err = db.Tx(func(tx *endpoints.Tx) error {
			_, err := tx.Exec("UPDATE users SET score = score + 1")
			return err
		})
		var total float64
		if db.QueryRow("SELECT sum(score) FROM users").Scan(&total); err != nil || total != 3.5 {
			t.Errorf("a committed transaction: %v, total %v, want 3.5", err, total)
		}
	})
}

// TestDBErrorConstraintKinds: a constraint error is ErrConstraint and the
// sentinel of its kind, and no other kind's, both as the database gives
// it (SQLite, through endpointstest) and as a DBError built by hand (a
// kind the SDK does not know is still ErrConstraint).
func TestDBErrorConstraintKinds(t *testing.T) {
	db := setupDB(t)
	for _, s := range []string{
		"INSERT INTO users (name, email) VALUES ('Ada', 'ada@example.com')",
		"CREATE TABLE tags (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users (id), name TEXT CHECK (name <> ''))",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	kinds := map[string]error{
		"unique":      endpoints.ErrUniqueViolation,
		"foreign_key": endpoints.ErrForeignKeyViolation,
		"check":       endpoints.ErrCheckViolation,
		"not_null":    endpoints.ErrNotNullViolation,
	}
	for _, tt := range []struct {
		name string
		err  func() error
		kind string
	}{
		{"unique", func() error {
			_, err := db.Exec("INSERT INTO users (name, email) VALUES ($1, $2)", "Again", "ada@example.com")
			return err
		}, "unique"},
		{"foreign key", func() error {
			_, err := db.Exec("INSERT INTO tags (user_id, name) VALUES ($1, $2)", 99, "x")
			return err
		}, "foreign_key"},
		{"check", func() error {
			_, err := db.Exec("INSERT INTO tags (user_id, name) VALUES ($1, $2)", 1, "")
			return err
		}, "check"},
		{"not null", func() error {
			_, err := db.Exec("INSERT INTO users (email) VALUES ($1)", "x@example.com")
			return err
		}, "not_null"},
		{"exclusion, by hand", func() error { return &endpoints.DBError{Code: "constraint", Kind: "exclusion"} }, "exclusion"},
		{"a kind the SDK does not know", func() error { return &endpoints.DBError{Code: "constraint", Kind: "deferred"} }, "deferred"},
		{"no kind", func() error { return &endpoints.DBError{Code: "constraint"} }, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.err()
			var de *endpoints.DBError
			if !errors.As(err, &de) || de.Kind != tt.kind {
				t.Fatalf("got %v (%#v), want a DBError of kind %q", err, de, tt.kind)
			}
			if wrapped := fmt.Errorf("creating: %w", err); !errors.Is(wrapped, endpoints.ErrConstraint) {
				t.Errorf("%v is not ErrConstraint", wrapped)
			}
			for kind, sentinel := range kinds {
				if got := errors.Is(fmt.Errorf("creating: %w", err), sentinel); got != (kind == tt.kind) {
					t.Errorf("errors.Is(%v, the %s sentinel) = %v, want %v", err, kind, got, !got)
				}
			}
			if errors.Is(err, endpoints.ErrSyntax) {
				t.Errorf("%v is ErrSyntax", err)
			}
		})
	}
}

type dbBase struct {
	ID int64 `db:"id"`
}

type dbEmbedded struct {
	dbBase
	Name  string  `db:"name"`
	Score float32 `db:"score"`
	Tags  []string
}

// TestQueryAsEmbeddedAndOtherTypes: fields promoted from an embedded
// struct, and types without a fast path (float32, a JSON column into a
// slice), scan as the others.
func TestQueryAsEmbeddedAndOtherTypes(t *testing.T) {
	db := setupDB(t)
	if _, err := db.Exec("INSERT INTO users (name, score) VALUES ($1, $2)", "Ada", 2.5); err != nil {
		t.Fatal(err)
	}
	got, err := endpoints.QueryAs[dbEmbedded](db, `SELECT id, name, score, '["a","b"]' AS tags FROM users`)
	if err != nil || len(got) != 1 || got[0].ID != 1 || got[0].Name != "Ada" || got[0].Score != 2.5 || strings.Join(got[0].Tags, ",") != "a,b" {
		t.Errorf("got %+v, %v", got, err)
	}
}

type dbRaw struct {
	ID   int64           `db:"id"`
	Name string          `db:"name"`
	Doc  json.RawMessage `db:"doc"`
	Blob []byte          `db:"photo"`
}

// rowsQuerier is a Querier of the application's own: QueryAs reads it
// through Query and Rows, not the SDK's direct path.
type rowsQuerier struct{ db *endpoints.Database }

func (q rowsQuerier) Query(sql string, args ...any) (*endpoints.Rows, error) {
	return q.db.Query(sql, args...)
}

func (q rowsQuerier) Exec(sql string, args ...any) (endpoints.Result, error) {
	return q.db.Exec(sql, args...)
}

// TestQueryAsKeepsValues: what QueryAs scanned stays intact after the
// next statements, which reuse the buffer the result was read into, and
// the SDK's queriers and an application's own give the same rows and the
// same errors.
func TestQueryAsKeepsValues(t *testing.T) {
	db := setupDB(t)
	for _, s := range []string{
		`INSERT INTO users (name, photo) VALUES ('Ada', x'000102')`,
		`INSERT INTO users (name, photo) VALUES ('Grace Hopper, a longer name', x'0a0b0c0d0e0f')`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	const sql = `SELECT id, name, '{"k":' || id || '}' AS doc, photo FROM users WHERE id = $1`
	queriers := []struct {
		name string
		q    endpoints.Querier
	}{{"Database", db}, {"own Querier", rowsQuerier{db}}}
	for _, q := range queriers {
		t.Run(q.name, func(t *testing.T) {
			first, err := endpoints.QueryRowAs[dbRaw](q.q, sql, 1)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := endpoints.QueryRowAs[dbRaw](q.q, sql, 2); err != nil {
				t.Fatal(err)
			}
			if first.ID != 1 || first.Name != "Ada" || string(first.Doc) != `{"k":1}` || string(first.Blob) != "\x00\x01\x02" {
				t.Errorf("the first row changed after the next query: %+v", first)
			}
			var inTx []dbRaw
			err = db.Tx(func(tx *endpoints.Tx) error {
				var err error
				inTx, err = endpoints.QueryAs[dbRaw](tx, `SELECT id, name, '{}' AS doc, photo FROM users ORDER BY id`)
				return err
			})
			if err != nil || len(inTx) != 2 || inTx[1].Name != "Grace Hopper, a longer name" {
				t.Errorf("QueryAs in a transaction = %+v, %v", inTx, err)
			}
			none, err := endpoints.QueryAs[dbRaw](q.q, sql, 99)
			if err != nil || none == nil || len(none) != 0 {
				t.Errorf("no rows = %#v, %v; want an empty slice", none, err)
			}
			_, err = endpoints.QueryAs[dbUser](q.q, "SELECT id, photo AS score FROM users WHERE id = 1")
			if err == nil || !strings.Contains(err.Error(), `endpoints: ScanAll: row 1, column "score" into endpoints_test.dbUser: `) {
				t.Errorf("a value that does not scan: %v", err)
			}
			if _, err := endpoints.QueryAs[int](q.q, "SELECT 1"); err == nil || !strings.Contains(err.Error(), "int is not a struct") {
				t.Errorf("a non-struct: %v", err)
			}
		})
	}
}

type dbNullable struct {
	ID      sql.NullInt64   `db:"id"`
	Email   sql.NullString  `db:"email"`
	Score   sql.NullFloat64 `db:"score"`
	Created sql.NullTime    `db:"created_at"`
	Active  sql.Null[bool]  `db:"active"`
}

// TestDatabaseSQLTypes: database/sql's Null types, and any sql.Scanner
// and driver.Valuer, work as they do with database/sql: as arguments, as
// Scan destinations and as QueryAs fields.
func TestDatabaseSQLTypes(t *testing.T) {
	db := setupDB(t)
	if _, err := db.Exec("INSERT INTO users (name, email, score) VALUES ($1, $2, $3)", "Ada", sql.NullString{String: "ada@example.com", Valid: true}, sql.NullFloat64{Float64: 1.5, Valid: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO users (name, email) VALUES ($1, $2)", sql.Null[string]{V: "Grace", Valid: true}, sql.NullString{}); err != nil {
		t.Fatal(err)
	}
	var nilArg *sql.NullString
	if _, err := db.Exec("INSERT INTO users (name, email) VALUES ($1, $2)", "Alan", nilArg); err != nil {
		t.Fatalf("a nil *sql.NullString: %v", err)
	}
	t.Run("Scan", func(t *testing.T) {
		var (
			id      sql.NullInt64
			email   sql.NullString
			score   sql.NullFloat64
			created sql.NullTime
			active  sql.NullBool
		)
		for _, tt := range []struct {
			id   int
			want string
		}{
			{1, "{1 true} {ada@example.com true} {1.5 true} 2026-01-02 03:04:05 +0000 UTC true {true true}"},
			{2, "{2 true} { false} {0 true} 2026-01-02 03:04:05 +0000 UTC true {true true}"},
		} {
			err := db.QueryRow("SELECT id, email, score, created_at, 1 FROM users WHERE id = $1", tt.id).Scan(&id, &email, &score, &created, &active)
			got := fmt.Sprint(id, " ", email, " ", score, " ", created.Time.UTC(), " ", created.Valid, " ", active)
			if err != nil || got != tt.want {
				t.Errorf("user %d: got %s, %v\nwant %s", tt.id, got, err, tt.want)
			}
		}
		var n sql.NullInt64
		err := db.QueryRow("SELECT 'many'").Scan(&n)
		if err == nil || !strings.Contains(err.Error(), `column "'many'": converting driver.Value type string ("many") to a int64: invalid syntax`) {
			t.Errorf("text into sql.NullInt64: %v", err)
		}
	})
	t.Run("QueryAs", func(t *testing.T) {
		got, err := endpoints.QueryAs[dbNullable](db, "SELECT id, email, score, created_at, NULL AS active FROM users ORDER BY id")
		if err != nil || len(got) != 3 {
			t.Fatalf("got %+v, %v", got, err)
		}
		if !got[0].Email.Valid || got[0].Email.String != "ada@example.com" || got[1].Email.Valid || got[2].ID.Int64 != 3 || got[2].Active.Valid || !got[0].Created.Valid {
			t.Errorf("got %+v", got)
		}
	})
}

// TestDatabaseTimesCompareInOrder: SQLite compares times as the text they
// are stored as, so a time argument's text sorts as the time does: a
// whole second before a later fraction of it, the next day after both.
func TestDatabaseTimesCompareInOrder(t *testing.T) {
	db := setupDB(t)
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	times := []time.Time{base.Add(24 * time.Hour), base.Add(500 * time.Millisecond), base, base.Add(123456789), base.Add(time.Second)}
	for i, at := range times {
		if _, err := db.Exec("INSERT INTO users (name, created_at) VALUES ($1, $2)", fmt.Sprint(i), at); err != nil {
			t.Fatal(err)
		}
	}
	var order []string
	rows, err := db.Query("SELECT name, created_at FROM users WHERE created_at > $1 ORDER BY created_at", base)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		var at time.Time
		if err := rows.Scan(&name, &at); err != nil {
			t.Fatal(err)
		}
		if i := name[0] - '0'; !at.Equal(times[i]) {
			t.Errorf("row %s: read %v, wrote %v", name, at, times[i])
		}
		order = append(order, name)
	}
	if got := strings.Join(order, ","); got != "3,1,4,0" {
		t.Errorf("times after %v in order: %s, want 3,1,4,0", base, got)
	}
}

type dbUntagged struct {
	ID        int64
	Name      string
	CreatedAt time.Time
	Tagged    string `db:"other"`
}

// TestQueryAsSnakeCaseColumns: an untagged field takes the column of its
// name in snake case; a tagged one only the column it names.
func TestQueryAsSnakeCaseColumns(t *testing.T) {
	db := setupDB(t)
	if _, err := db.Exec("INSERT INTO users (name) VALUES ($1)", "Ada"); err != nil {
		t.Fatal(err)
	}
	got, err := endpoints.QueryRowAs[dbUntagged](db, "SELECT id, name, created_at, 'x' AS other FROM users")
	if err != nil || got.ID != 1 || got.Name != "Ada" || !got.CreatedAt.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) || got.Tagged != "x" {
		t.Errorf("got %+v, %v", got, err)
	}
	if _, err := endpoints.QueryRowAs[dbUntagged](db, "SELECT 'x' AS ta_gged FROM users"); err == nil || !strings.Contains(err.Error(), `the column "ta_gged" goes into no field`) {
		t.Errorf("a column naming a tagged field's Go name: %v", err)
	}
}

// TestRealArguments: a real argument stays a real in the database, whole
// or not, of a named type or a float32 (as the C, Rust and AssemblyScript
// SDKs send it): 3.0 written as 3 would bind an integer, and SQLite's
// integer division would answer 1 for 3.0 / 2.
func TestRealArguments(t *testing.T) {
	db := setupDB(t)
	type price float64
	for _, tc := range []struct {
		name string
		arg  any
		want float64
	}{
		{"a whole float64", 3.0, 1.5},
		{"a float64", 2.5, 1.25},
		{"a whole float32", float32(3), 1.5},
		{"a float32, as written", float32(0.1), 0.05},
		{"a named float type", price(5), 2.5},
		{"a pointer to a float64", new(float64), 0},
		{"past 2^53", 1e300, 5e299},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var half float64
			var kind string
			if err := db.QueryRow("SELECT $1 / 2, typeof($1)", tc.arg).Scan(&half, &kind); err != nil {
				t.Fatal(err)
			}
			if half != tc.want || kind != "real" {
				t.Errorf("$1 / 2 = %v of a %s, want %v of a real", half, kind, tc.want)
			}
		})
	}
}

// srcType is a sql.Scanner that records the type of what it was given.
type srcType struct{ typ string }

func (s *srcType) Scan(src any) error {
	s.typ = fmt.Sprintf("%T", src)
	return nil
}

type photo []byte

// dbBlobs has []byte fields for a TEXT and a BLOB column, and a blob
// into a string and a named []byte.
type dbBlobs struct {
	Text     []byte           `db:"text"`
	Blob     []byte           `db:"blob"`
	BlobText string           `db:"blob_text"`
	PtrBlob  *[]byte          `db:"ptr_blob"`
	Named    photo            `db:"named"`
	Null     sql.Null[[]byte] `db:"null_blob"`
}

// TestDatabaseBlobsAndText: the host says which values are blobs, so text
// into a []byte is its bytes, whether or not it reads as base64 ('test'
// does, 'hello' does not), a blob into a []byte or a string its bytes,
// and a sql.Scanner gets a blob as a []byte, as with database/sql; a
// json.RawMessage and an any keep the base64 the host wrote.
func TestDatabaseBlobsAndText(t *testing.T) {
	db := setupDB(t)
	if _, err := db.Exec("CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT, data BLOB)"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]any{{"test", []byte("hello")}, {"hello", []byte{0, 0xff}}} {
		if _, err := db.Exec("INSERT INTO docs (body, data) VALUES ($1, $2)", args...); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("Scan", func(t *testing.T) {
		rows, err := db.Query("SELECT body, data, data, body, data, data, data, data FROM docs ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var (
				text, blob []byte
				blobText   string
				nullBlob   sql.Null[[]byte]
				textSrc    srcType
				blobSrc    srcType
				raw        json.RawMessage
				anyBlob    any
			)
			if err := rows.Scan(&text, &blob, &blobText, &textSrc, &blobSrc, &nullBlob, &anyBlob, &raw); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%q %q %q %s %s %q %v %s", text, blob, blobText, textSrc.typ, blobSrc.typ, nullBlob.V, anyBlob, raw))
		}
		want := []string{
			`"test" "hello" "hello" string []uint8 "hello" aGVsbG8= "aGVsbG8="`,
			`"hello" "\x00\xff" "\x00\xff" string []uint8 "\x00\xff" AP8= "AP8="`,
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
	ptr := func(b []byte) *[]byte { return &b }
	const query = "SELECT body AS text, data AS blob, data AS blob_text, data AS ptr_blob, data AS named, data AS null_blob FROM docs ORDER BY id"
	want := []dbBlobs{
		{Text: []byte("test"), Blob: []byte("hello"), BlobText: "hello", PtrBlob: ptr([]byte("hello")), Named: photo("hello"), Null: sql.Null[[]byte]{V: []byte("hello"), Valid: true}},
		{Text: []byte("hello"), Blob: []byte{0, 0xff}, BlobText: "\x00\xff", PtrBlob: ptr([]byte{0, 0xff}), Named: photo{0, 0xff}, Null: sql.Null[[]byte]{V: []byte{0, 0xff}, Valid: true}},
	}
	for _, q := range []struct {
		name string
		q    endpoints.Querier
	}{{"Database", db}, {"own Querier", rowsQuerier{db}}} {
		t.Run("QueryAs "+q.name, func(t *testing.T) {
			got, err := endpoints.QueryAs[dbBlobs](q.q, query)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v, %v\nwant %+v", got, err, want)
			}
			first, err := endpoints.QueryRowAs[dbBlobs](q.q, query)
			if err != nil || !reflect.DeepEqual(first, want[0]) {
				t.Errorf("QueryRowAs: got %+v, %v\nwant %+v", first, err, want[0])
			}
			var inTx []dbBlobs
			err = db.Tx(func(tx *endpoints.Tx) error {
				var err error
				inTx, err = endpoints.QueryAs[dbBlobs](tx, query)
				return err
			})
			if err != nil || !reflect.DeepEqual(inTx, want) {
				t.Errorf("in a transaction: got %+v, %v", inTx, err)
			}
		})
	}
}

// TestJSONTextIntoRawMessage: text that holds JSON (a json or jsonb
// column on PostgreSQL, JSON kept in a TEXT column on SQLite) scans into a
// json.RawMessage as that JSON, as database/sql gives a text's bytes, so a
// handler answers it as an object rather than a string of JSON; other
// values keep the JSON the host wrote.
func TestJSONTextIntoRawMessage(t *testing.T) {
	db := setupDB(t)
	for _, tc := range []struct{ name, expr, want string }{
		{"an object", `'{"a": [1, 2]}'`, `{"a": [1, 2]}`},
		{"an array", `'[1,"x"]'`, `[1,"x"]`},
		{"a JSON string", `'"quoted"'`, `"quoted"`},
		{"text that is not JSON", `'plain text'`, `"plain text"`},
		{"a number", `42`, `42`},
		{"NULL", `NULL`, `null`},
		{"a blob", `x'7b7d'`, `"e30="`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var raw json.RawMessage
			if err := db.QueryRow("SELECT " + tc.expr).Scan(&raw); err != nil {
				t.Fatal(err)
			}
			if string(raw) != tc.want {
				t.Errorf("%s into a json.RawMessage = %s, want %s", tc.expr, raw, tc.want)
			}
		})
	}
	type doc struct {
		Meta json.RawMessage `db:"meta" json:"meta"`
	}
	got, err := endpoints.QueryRowAs[doc](db, `SELECT '{"tags":["a"]}' AS meta`)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(got); string(b) != `{"meta":{"tags":["a"]}}` {
		t.Errorf("answered as %s, want the object itself", b)
	}
}

// TestRawMessageScanKeepsEarlierRows: scanning row after row into one
// json.RawMessage variable gives each row bytes of its own, as
// database/sql does (it copies a value into a []byte type), so that a
// handler that keeps each row's value keeps them all, not the last one
// written over the others.
func TestRawMessageScanKeepsEarlierRows(t *testing.T) {
	db := setupDB(t)
	for _, expr := range []string{
		`'{"n":1}' UNION ALL SELECT '{"n":2}'`, // JSON text, decoded from a string
		`1 UNION ALL SELECT 2`,                 // other values, as the host wrote them
	} {
		rows, err := db.Query("SELECT " + expr)
		if err != nil {
			t.Fatal(err)
		}
		var raw json.RawMessage
		var kept []json.RawMessage
		for rows.Next() {
			if err := rows.Scan(&raw); err != nil {
				t.Fatal(err)
			}
			kept = append(kept, raw)
		}
		if len(kept) != 2 || string(kept[0]) == string(kept[1]) {
			t.Errorf("SELECT %s: kept %q, want two different values", expr, kept)
		}
	}
}

// TestDatabaseSaysWhyItsParametersAreRefused: parameters the host refuses
// (more than abi.DBParamsMax) fail with an error holding the host's
// reason, not a bare "invalid argument".
func TestDatabaseSaysWhyItsParametersAreRefused(t *testing.T) {
	db := setupDB(t)
	args := make([]any, abi.DBParamsMax+1)
	_, err := db.Query("SELECT $1", args...)
	if !errors.Is(err, abi.ErrInvalid) || !strings.Contains(err.Error(), "db_query: parameters must be a JSON array") || !strings.Contains(err.Error(), "more than 65535 parameters") {
		t.Errorf("Query: %v, want ErrInvalid saying there are too many parameters", err)
	}
	_, err = db.Exec("INSERT INTO users (name) VALUES ($1)", args...)
	if !strings.Contains(err.Error(), "db_exec: parameters must be a JSON array") {
		t.Errorf("Exec: %v, want the host's reason", err)
	}
}
