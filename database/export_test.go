package database

import (
	"time"

	"github.com/wasmendpoints/endpoints/database/internal/sqlitemem"
)

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

// SetPooledMemory makes n the most memory a SQLite connection goes back
// to the pool with (SQLitePooledMemory) until the test ends: 0 closes
// every connection when its statement ends.
func SetPooledMemory(t interface{ Cleanup(func()) }, n int64) {
	old := pooledMemory
	pooledMemory = n
	t.Cleanup(func() { pooledMemory = old })
}

// IdleMemory returns the memory, in bytes, each idle connection of a
// SQLite database holds (sqlitemem.Size), or an error when one cannot be
// measured. Call it while no statement runs on db.
func IdleMemory(db DB) ([]int64, error) {
	s := db.(*sqliteDB)
	var conns []*sqliteConn
	for len(s.idle) > 0 {
		conns = append(conns, <-s.idle)
	}
	sizes := make([]int64, len(conns))
	var err error
	for i, c := range conns {
		if sizes[i], err = sqlitemem.Size(c.conn); err != nil {
			break
		}
	}
	for _, c := range conns {
		s.idle <- c
	}
	return sizes, err
}
