package database

import (
	"errors"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// Bounds of a connection's cache of prepared statements ([stmtCache]).
const (
	// sqliteStmtCacheSize is how many prepared statements a connection
	// keeps: more than the distinct statements of most apps, few enough
	// that a guest that builds its SQL text per request cannot grow the
	// connection's memory without bound.
	sqliteStmtCacheSize = 64
	// sqliteStmtCacheMaxSQL is the longest SQL text a connection caches;
	// a longer one is prepared for each call and finalized after it.
	sqliteStmtCacheMaxSQL = 4096
)

// stmtCache holds a connection's prepared statements by SQL text, so that a
// statement a guest runs again is bound and stepped, not parsed and
// planned again: preparing costs more than a point lookup.
//
// A statement is in the cache only while it is idle: [stmtCache.take]
// removes it, [stmtCache.put] resets it and gives it back. Every cached
// statement was prepared for a guest, under the authorizer, and is one
// statement of its SQL text. SQLite prepares a statement again itself when
// the schema changes, and calls the authorizer then too.
type stmtCache struct {
	stmts map[string]cachedStmt
	// hot is the statement put back last, and hotSQL its text, kept out
	// of stmts: a connection's next statement is most often the same
	// one (a pooled call's guest runs the same read request after
	// request), which take then finds, and put gives back, without
	// hashing its text (four map operations a statement otherwise). A
	// text is in hot or in stmts, never both; hot.stmt is nil when none.
	hot    cachedStmt
	hotSQL string
	// cols are the result columns of the statements alive, cached or in
	// use ([stmtCache.columns]), until finalize.
	cols  map[*sqlite3.Stmt]stmtColumns
	clock uint64 // counts puts; a statement's last put is its age
}

// stmtColumns are the names of a statement's result columns and the
// statement's SQLITE_STMTSTATUS_REPREPARE count when they were read.
// SQLite prepares a statement again when the schema changed, and the
// columns may differ then (a column added, renamed): they are read again
// when the count moved.
type stmtColumns struct {
	names    []string // never changed in place: rows may still hold them
	prepares int
}

// columns returns the names of stmt's result columns, those read at an
// earlier run while SQLite has not prepared the statement again since.
// Call it after the statement's first step, which prepares it again if
// the schema changed.
func (c *stmtCache) columns(stmt *sqlite3.Stmt, sql string) []string {
	prepares := stmt.Status(sqlite3.STMTSTATUS_REPREPARE, false)
	if e, ok := c.cols[stmt]; ok && e.prepares == prepares {
		return e.names
	}
	names := make([]string, stmt.ColumnCount())
	for i := range names {
		names[i] = stmt.ColumnName(i)
		if strings.IndexByte(names[i], '?') >= 0 && strings.IndexByte(sql, '$') >= 0 {
			names[i] = sqliteColumnAsWritten(names[i], stmt.SQL(), sql)
		}
	}
	if c.cols == nil {
		c.cols = make(map[*sqlite3.Stmt]stmtColumns)
	}
	c.cols[stmt] = stmtColumns{names: names, prepares: prepares}
	return names
}

// finalize finalizes stmt and forgets its columns.
func (c *stmtCache) finalize(stmt *sqlite3.Stmt) {
	delete(c.cols, stmt)
	sqliteCall(stmt.Close)
}

// cachedStmt is a cache entry: the statement and when it was last put
// back. Entries are values, so that putting a statement back allocates
// nothing once the map has grown.
type cachedStmt struct {
	stmt *sqlite3.Stmt
	used uint64
}

// take removes the statement of sql from the cache, nil when it holds
// none.
func (c *stmtCache) take(sql string) *sqlite3.Stmt {
	if c.hot.stmt != nil && c.hotSQL == sql {
		stmt := c.hot.stmt
		c.hot, c.hotSQL = cachedStmt{}, ""
		return stmt
	}
	if len(c.stmts) == 0 {
		return nil
	}
	e, ok := c.stmts[sql]
	if !ok {
		return nil
	}
	delete(c.stmts, sql)
	return e.stmt
}

// holds reports whether the cache holds a statement of sql.
func (c *stmtCache) holds(sql string) bool {
	if c.hot.stmt != nil && c.hotSQL == sql {
		return true
	}
	return len(c.stmts) > 0 && c.stmts[sql].stmt != nil
}

// len is the number of statements the cache holds.
func (c *stmtCache) len() int {
	if c.hot.stmt != nil {
		return len(c.stmts) + 1
	}
	return len(c.stmts)
}

// cacheable reports whether a statement of sql would be kept by put.
func cacheable(sql string) bool { return len(sql) <= sqliteStmtCacheMaxSQL }

// put resets stmt, clears its parameters and keeps it for the next call of
// sql; when the cache is full it finalizes the statement used longest
// ago. A statement that cannot be reset, or whose text is too long, is
// finalized instead, as is one of a text the cache already holds (run
// while the statement of its first run had not ended).
func (c *stmtCache) put(sql string, stmt *sqlite3.Stmt) {
	// Reset returns the error of the last step, which the caller has
	// had: only ClearBindings says whether the statement is still sound.
	// A statement whose reset panicked (SQLITE_NOMEM) is finalized.
	if resetPanicked(stmt) || stmt.ClearBindings() != nil || !cacheable(sql) || c.holds(sql) {
		c.finalize(stmt)
		return
	}
	if c.len() >= sqliteStmtCacheSize && len(c.stmts) == 0 {
		c.finalize(c.hot.stmt)
		c.hot, c.hotSQL = cachedStmt{}, ""
	} else if c.len() >= sqliteStmtCacheSize {
		// hot was put last: the oldest is in stmts.
		oldest := ""
		var age uint64
		for k, e := range c.stmts {
			if oldest == "" || e.used < age {
				oldest, age = k, e.used
			}
		}
		c.finalize(c.stmts[oldest].stmt)
		delete(c.stmts, oldest)
	}
	if c.hot.stmt != nil {
		if c.stmts == nil {
			c.stmts = make(map[string]cachedStmt, sqliteStmtCacheSize)
		}
		c.stmts[c.hotSQL] = c.hot
	}
	c.clock++
	c.hot, c.hotSQL = cachedStmt{stmt: stmt, used: c.clock}, sql
}

// close finalizes every cached statement: SQLite closes no connection
// that still has statements.
func (c *stmtCache) close() {
	if c.hot.stmt != nil {
		c.finalize(c.hot.stmt)
		c.hot, c.hotSQL = cachedStmt{}, ""
	}
	for k, e := range c.stmts {
		c.finalize(e.stmt)
		delete(c.stmts, k)
	}
}

// resetPanicked resets stmt and reports whether go-sqlite3 panicked doing
// it: Reset returns the error of the statement's last step, and
// go-sqlite3 panics when that is SQLITE_NOMEM (see recoverSQLite). A
// memory fault (errFault: the reset of an unfinished write commits it) is
// panicked again, for the caller's recoverSQLite to close the connection.
func resetPanicked(stmt *sqlite3.Stmt) (panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			if errors.Is(driverPanic(v), errFault) {
				panic(v)
			}
			panicked = true
		}
	}()
	stmt.Reset()
	return false
}
