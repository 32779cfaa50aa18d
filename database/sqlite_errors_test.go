package database

import (
	"context"
	"testing"

	"github.com/ncruces/go-sqlite3"
)

// TestSQLiteBareCodes: the driver gives an error whose message is only
// its code's text as the bare code; those map as the *sqlite3.Error of
// the same code does: a full disk, a read-only file or directory, a file
// that cannot be opened are unavailable (503), saying what the operator
// checks, a lock busy, a constraint of its kind.
func TestSQLiteBareCodes(t *testing.T) {
	for _, tt := range []struct {
		err  sqlite3.ExtendedErrorCode
		code Code
		msg  string
		kind Kind
	}{
		{sqlite3.ExtendedErrorCode(sqlite3.BUSY), CodeBusy, "database is locked: another connection or process held", ""},
		{sqlite3.BUSY_SNAPSHOT, CodeBusy, "database is locked", ""},
		{sqlite3.ExtendedErrorCode(sqlite3.LOCKED), CodeBusy, "database table is locked", ""},
		{sqlite3.ExtendedErrorCode(sqlite3.FULL), CodeUnavailable, "database or disk is full: check the free space", ""},
		{sqlite3.READONLY_DIRECTORY, CodeUnavailable, "attempt to write a readonly database: the host must be able to write", ""},
		{sqlite3.ExtendedErrorCode(sqlite3.READONLY), CodeUnavailable, "attempt to write a readonly database", ""},
		{sqlite3.IOERR_WRITE, CodeUnavailable, "disk I/O error: check the free space and the file system of the database file", ""},
		{sqlite3.ExtendedErrorCode(sqlite3.CANTOPEN), CodeUnavailable, "unable to open database file", ""},
		{sqlite3.ExtendedErrorCode(sqlite3.CORRUPT), CodeUnavailable, "database disk image is malformed", ""},
		{sqlite3.CONSTRAINT_UNIQUE, CodeConstraint, "constraint failed", KindUnique},
		{sqlite3.CONSTRAINT_FOREIGNKEY, CodeConstraint, "constraint failed", KindForeignKey},
		{sqlite3.CONSTRAINT_TRIGGER, CodeConstraint, "constraint failed", ""},
	} {
		t.Run(tt.err.Error(), func(t *testing.T) {
			e := sqliteError(context.Background(), tt.err).(*Error)
			if e.Code != tt.code || e.Kind != tt.kind || len(e.Message) < len(tt.msg) || e.Message[:len(tt.msg)] != tt.msg {
				t.Errorf("got %s (kind %q): %q; want %s (kind %q): %q...", e.Code, e.Kind, e.Message, tt.code, tt.kind, tt.msg)
			}
		})
	}
}
