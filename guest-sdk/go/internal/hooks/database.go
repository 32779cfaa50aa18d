package hooks

import "time"

// Database is what the native stand-in of the db_* host functions asks of
// the database endpointstest.Database provides: the same calls as the
// host's, errnos as int32.
type Database interface {
	Run(db, sql, params []byte, exec bool) (size int, errno int32)
	Result() (data []byte, ok bool)
	Begin(db []byte) int32
	BeginWith(db, opts []byte) int32
	End(db []byte, commit bool) int32
	// SetTimeout bounds the statements that follow (db_timeout); zero
	// lifts the bound.
	SetTimeout(d time.Duration)
}

// DB serves the native db_* functions; nil when no test provided one.
var DB Database
