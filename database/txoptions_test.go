package database_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/database"
)

func TestDecodeTxOptions(t *testing.T) {
	tests := []struct {
		name, in string
		want     database.TxOptions
		err      string
	}{
		{"empty is none", ``, database.TxOptions{}, ""},
		{"empty object", `{}`, database.TxOptions{}, ""},
		{"both", `{"isolation":"serializable","readOnly":true}`, database.TxOptions{Isolation: database.IsolationSerializable, ReadOnly: true}, ""},
		{"read committed", `{"isolation":"read_committed"}`, database.TxOptions{Isolation: database.IsolationReadCommitted}, ""},
		{"repeatable read", ` {"isolation":"repeatable_read","readOnly":false} `, database.TxOptions{Isolation: database.IsolationRepeatableRead}, ""},
		{"empty isolation is the default", `{"isolation":""}`, database.TxOptions{}, ""},
		{"unknown member", `{"isolaton":"serializable"}`, database.TxOptions{}, `unknown member "isolaton"; the members are isolation and readOnly`},
		{"a member in other case", `{"readonly":true}`, database.TxOptions{}, `unknown member "readonly"`},
		{"null", `null`, database.TxOptions{}, `want a JSON object`},
		{"unknown level", `{"isolation":"snapshot"}`, database.TxOptions{}, `isolation "snapshot" is not a level; want one of "read_committed", "repeatable_read" or "serializable"`},
		{"level in capitals", `{"isolation":"SERIALIZABLE"}`, database.TxOptions{}, `isolation "SERIALIZABLE" is not a level`},
		{"readOnly a string", `{"readOnly":"yes"}`, database.TxOptions{}, `readOnly must be true or false`},
		{"isolation a number", `{"isolation":3}`, database.TxOptions{}, `isolation must be a string`},
		{"an array", `[]`, database.TxOptions{}, `want a JSON object`},
		{"two values", `{} {}`, database.TxOptions{}, `more than one JSON value`},
		{"not JSON", `{readOnly}`, database.TxOptions{}, `not valid JSON`},
		// Decoded whole, 16 MB of members cost the host 400 MB of heap.
		{"too long", `{"readOnly":true` + strings.Repeat(" ", abi.DBTxOptionsMaxBytes) + `}`, database.TxOptions{},
			fmt.Sprintf("transaction options: %d bytes, more than the %d an options object takes (abi.DBTxOptionsMaxBytes)", abi.DBTxOptionsMaxBytes+17, abi.DBTxOptionsMaxBytes)},
		{"long enough", `{"readOnly":true` + strings.Repeat(" ", abi.DBTxOptionsMaxBytes-17) + `}`, database.TxOptions{ReadOnly: true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := database.DecodeTxOptions([]byte(tt.in))
			if tt.err == "" {
				if err != nil || got != tt.want {
					t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("got %+v, %v; want an error containing %q", got, err, tt.err)
			}
		})
	}
}

// openSQLite opens a new SQLite database of maxConns connections with
// the table notes (x) holding one row, 1.
func openSQLite(t *testing.T, maxConns int) database.DB {
	t.Helper()
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: filepath.Join(t.TempDir(), "app.db"), MaxConns: maxConns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, sql := range []string{"CREATE TABLE notes (x)", "INSERT INTO notes VALUES (1)"} {
		if _, err := db.Exec(t.Context(), sql, nil); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// count is the number of rows of notes that q sees.
func count(t *testing.T, q database.Querier) int64 {
	t.Helper()
	rows, err := q.Query(t.Context(), "SELECT count(*) FROM notes", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatalf("count: no row: %v", rows.Err())
	}
	v, err := rows.Values()
	if err != nil {
		t.Fatal(err)
	}
	return v[0].(int64)
}

// TestSQLiteReadOnlyTransactions: a read-only transaction takes no write
// lock, so two run at once beside a writer that holds the lock, each on
// its snapshot; a write in one fails denied, saying it is read-only.
// Every transaction used to begin IMMEDIATE, taking the write lock: the
// readers then waited for the writer and failed busy before the
// deadline.
func TestSQLiteReadOnlyTransactions(t *testing.T) {
	db := openSQLite(t, 4)
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	writer, err := db.Begin(ctx, database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Rollback(ctx)
	if _, err := writer.Exec(ctx, "INSERT INTO notes VALUES (2)", nil); err != nil {
		t.Fatal(err)
	}
	var readers []database.Tx
	for _, opts := range []database.TxOptions{{ReadOnly: true}, {ReadOnly: true, Isolation: database.IsolationSerializable}} {
		r, err := db.Begin(ctx, opts)
		if err != nil {
			t.Fatalf("a read-only transaction beside a writer: %v", err)
		}
		defer r.Rollback(ctx)
		readers = append(readers, r)
	}
	for i, r := range readers {
		if n := count(t, r); n != 1 {
			t.Errorf("reader %d sees %d rows, want 1 (the writer has not committed)", i, n)
		}
	}
	if err := writer.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, readers[0]); n != 1 {
		t.Errorf("after the writer's commit, the reader sees %d rows, want 1 (its snapshot)", n)
	}
	writes := []struct {
		name string
		run  func(database.Tx) error
	}{
		{"exec", func(tx database.Tx) error {
			_, err := tx.Exec(ctx, "INSERT INTO notes VALUES (3)", nil)
			return err
		}},
		{"query returning", func(tx database.Tx) error {
			rows, err := tx.Query(ctx, "INSERT INTO notes VALUES (3) RETURNING x", nil)
			if err == nil {
				for rows.Next() {
				}
				err = rows.Close()
			}
			return err
		}},
		{"create table", func(tx database.Tx) error {
			_, err := tx.Exec(ctx, "CREATE TABLE other (y)", nil)
			return err
		}},
	}
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			err := w.run(readers[1])
			if database.CodeOf(err) != database.CodeDenied || !strings.Contains(err.Error(), database.ReadOnlyMessage) {
				t.Errorf("a write in a read-only transaction: %v; want denied, saying the transaction is read-only", err)
			}
		})
	}
	for _, r := range readers {
		if err := r.Commit(ctx); err != nil {
			t.Errorf("commit of a read-only transaction: %v", err)
		}
	}
	if n := count(t, db); n != 2 {
		t.Errorf("%d rows at the end, want 2", n)
	}
}

// TestSQLiteReadOnlyConnectionWritesAgain: the connection a read-only
// transaction held writes again once it is back in the pool (its PRAGMA
// query_only turned off), however the transaction ended.
func TestSQLiteReadOnlyConnectionWritesAgain(t *testing.T) {
	for _, commit := range []bool{true, false} {
		db := openSQLite(t, 1) // one connection: the next statement gets the same
		tx, err := db.Begin(t.Context(), database.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		count(t, tx)
		if commit {
			err = tx.Commit(t.Context())
		} else {
			err = tx.Rollback(t.Context())
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(t.Context(), "INSERT INTO notes VALUES (2)", nil); err != nil {
			t.Errorf("commit %v: a write after a read-only transaction: %v", commit, err)
		}
		tx, err = db.Begin(t.Context(), database.TxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(t.Context(), "INSERT INTO notes VALUES (3)", nil); err != nil {
			t.Errorf("commit %v: a write in a transaction after a read-only one: %v", commit, err)
		}
		tx.Rollback(t.Context())
	}
}

// TestSQLiteReadOnlyConnectionWritesAgainAfterAStop: a read-only
// transaction whose read was stopped at its context's deadline (as
// db_timeout stops it), and whose commit's context is done too, still
// hands its connection back writable: query_only does not outlive it.
func TestSQLiteReadOnlyConnectionWritesAgainAfterAStop(t *testing.T) {
	db := openSQLite(t, 1) // one connection: the next statement gets the same
	tx, err := db.Begin(t.Context(), database.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	endless := "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000000000000) SELECT count(*) FROM c"
	rows, err := tx.Query(short, endless, nil)
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
	}
	if err == nil {
		t.Fatal("the endless read ended without an error")
	}
	<-short.Done()
	if err := tx.Commit(short); err == nil {
		t.Error("a commit with a done context succeeded")
	}
	if _, err := db.Exec(t.Context(), "INSERT INTO notes VALUES (2)", nil); err != nil {
		t.Errorf("a write after the stopped read-only transaction: %v", err)
	}
}
