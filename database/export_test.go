package database

import "time"

// SetBusyTimeout makes the SQLite busy timeout d until the test ends, so
// that a test of a lock held elsewhere does not wait 5 s.
func SetBusyTimeout(t interface{ Cleanup(func()) }, d time.Duration) {
	old := busyTimeout
	busyTimeout = d
	t.Cleanup(func() { busyTimeout = old })
}

// CheckFileAlways makes each statement look whether the SQLite database
// file was deleted or replaced, until the test ends.
func CheckFileAlways(t interface{ Cleanup(func()) }) {
	old := sqliteFileCheck
	sqliteFileCheck = 0
	t.Cleanup(func() { sqliteFileCheck = old })
}

// SQLiteWALSizeLimit is the size the -wal file is brought back to once
// checkpointed (sqliteWALSizeLimit).
const SQLiteWALSizeLimit = sqliteWALSizeLimit
