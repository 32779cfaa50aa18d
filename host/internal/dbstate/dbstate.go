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
)

// State is what the statements found of each database of an app: the
// names of those whose last statement could not reach it. The zero State
// knows of none; it is safe for concurrent use.
type State struct {
	down sync.Map // database name → struct{}
}

// Note records the outcome of a statement on database db: err, and
// whether its code is unavailable (the server down or unreachable, or no
// connection free in time). It logs the first unavailable statement after
// one that succeeded, at warning level with its error, and the first
// statement that succeeds after unavailable ones, at info level. Other
// failures change nothing: a statement stopped with its call never
// reached the server.
func (s *State) Note(logger *slog.Logger, db string, err error, unavailable bool) {
	if unavailable {
		if _, was := s.down.LoadOrStore(db, struct{}{}); !was {
			logger.Warn("database unavailable: statements on it fail with the code unavailable (the app's code answers them, usually 503) until it answers again; /readyz names it", "database", db, "error", err)
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
