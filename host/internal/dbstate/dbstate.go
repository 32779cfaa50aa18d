// Package dbstate logs when an app's database stops answering the
// statements guests run, and when it answers again: one line each way,
// instead of nothing but each failed request's own lines. The host notes
// every statement's outcome (host/database.go); which answer a failed
// statement makes stays with the app's code.
//
//	var s dbstate.State
//	s.Note(logger, "main", err, database.CodeOf(err) == database.CodeUnavailable)
package dbstate

import (
	"log/slog"
	"sync"
	"time"
)

// PoolFullEvery is how often, at most, PoolFull logs for one database.
const PoolFullEvery = time.Minute

// State is what the statements found of each database of an app: the
// names of those whose last statement could not reach it, and when a full
// pool was last logged. The zero State knows of none; it is safe for
// concurrent use.
type State struct {
	down sync.Map // database name → struct{}
	full sync.Map // database name → time.Time of the last PoolFull line
}

// PoolFull logs a statement of database db that found every connection
// of its pool in use until its wait ended (database.ErrPoolFull), at most
// once every PoolFullEvery per database: the database answers, so it is
// not noted as unavailable (a burst of requests would log it down and
// back up in turn), but the operator should know the pool is too small
// for the load or held too long.
func (s *State) PoolFull(logger *slog.Logger, db string, err error) {
	now := time.Now()
	if last, ok := s.full.Load(db); ok && now.Sub(last.(time.Time)) < PoolFullEvery {
		return
	}
	if prev, loaded := s.full.Swap(db, now); loaded && now.Sub(prev.(time.Time)) < PoolFullEvery {
		return // another statement logged it meanwhile
	}
	logger.Warn("database pool full: a statement waited for a connection until its call had to answer (logged at most once a minute)", "database", db, "error", err)
}

// Note records the outcome of a statement on database db: err, and
// whether its code is unavailable (the server down or unreachable; a
// pool with no connection free in time goes to PoolFull instead). It logs the first unavailable statement after
// one that succeeded, at warning level with its error, and the first
// statement that succeeds after unavailable ones, at info level. Other
// failures change nothing: a statement stopped with its call never
// reached the server.
func (s *State) Note(logger *slog.Logger, db string, err error, unavailable bool) {
	if unavailable {
		if _, was := s.down.LoadOrStore(db, struct{}{}); !was {
			logger.Warn("database unavailable: statements on it fail with the code unavailable (the app's code answers them, usually 503; the host answers 503 for a call that fails on one) until it answers again; /readyz names it", "database", db, "error", err)
		}
		return
	}
	if err != nil {
		return
	}
	if _, was := s.down.Load(db); !was {
		return // the common case: a read, no write
	}
	if _, was := s.down.LoadAndDelete(db); was {
		logger.Info("database answers again: its statements run", "database", db)
	}
}
