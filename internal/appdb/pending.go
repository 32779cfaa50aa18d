package appdb

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/database"
)

// ErrPending is what [Set.Pending] wraps: the database's migrations are
// not applied yet, so what the app's code expects of it may not be there.
var ErrPending = errors.New("its migrations are not applied yet")

// pendingError is the error of [Set.Pending] for database name.
type pendingError struct {
	name  string
	cause error
}

// Error says why, without the database's name the cause begins with
// (`database "main": reading endpoints_migrations: ...`): what wraps it,
// a readiness check, a call's 503, names the database already.
func (e *pendingError) Error() string {
	return fmt.Sprintf("%s: %s", ErrPending, strings.TrimPrefix(e.cause.Error(), fmt.Sprintf("database %q: ", e.name)))
}

func (e *pendingError) Unwrap() []error { return []error{ErrPending, e.cause} }

// Pending says why the migrations of database name wait, nil when they
// do not: a Migrate with Defer found it unreachable (the cause has code
// database.CodeUnavailable), or a migration failed once it was reached.
// The error wraps [ErrPending] and the cause.
func (s *Set) Pending(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.pending[name]; err != nil {
		return &pendingError{name: name, cause: err}
	}
	return nil
}

// AnyPending reports whether the migrations of any database wait, without
// a lock: a statement's check (host/internal/dbgate) asks it first, and
// makes the database's name a string for [Set.Pending] only when it is
// true.
func (s *Set) AnyPending() bool { return s.waiting.Load() > 0 }

// Waiting lists, sorted, the databases whose migrations wait because
// they could not be reached: what [Set.Await] tries again.
func (s *Set) Waiting() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for name, err := range s.pending {
		if Unreachable(err) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

func (s *Set) setPending(name string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() { s.waiting.Store(int32(len(s.pending))) }()
	if err == nil {
		delete(s.pending, name)
		return
	}
	if s.pending == nil {
		s.pending = map[string]error{}
	}
	s.pending[name] = err
}

// Unreachable reports whether err, a reason of [Set.Reasons], says the
// database could not be reached, rather than that a migration failed.
func Unreachable(err error) bool {
	var e *database.Error
	return errors.As(err, &e) && e.Code == database.CodeUnavailable
}

// Backoff is the wait between two attempts of [Set.Await]: Min after the
// first, doubling up to Max.
type Backoff struct {
	Min, Max time.Duration
}

// Default waits of a host's attempts.
const (
	DefaultBackoffMin = 250 * time.Millisecond
	DefaultBackoffMax = 15 * time.Second
)

// Attempt is what one attempt of [Set.Await] found.
type Attempt struct {
	// Applied are the migrations it applied.
	Applied []Migration
	// Notes are what it found that is no error (MigrateOptions.Note).
	Notes []Note
	// Failed are the migrations that failed once their database was
	// reached, one per database: those are not tried again.
	Failed []error
	// Pending is why each database still waits, by name.
	Pending map[string]error
	// Next is the wait before the next attempt; zero when none follows.
	Next time.Duration
}

// Await tries again to apply the migrations of the databases that could
// not be reached (see MigrateOptions.Defer), waiting b between attempts,
// until none waits for that reason or ctx ends. A database whose
// migration fails once reached waits on with that failure ([Set.Pending])
// and is not tried again. It calls report after each attempt, and
// before each wait, when it knows it, next with the time of the attempt
// to come.
func (s *Set) Await(ctx context.Context, b Backoff, next func(time.Time), report func(Attempt)) {
	wait := b.Min
	for {
		names := s.Waiting()
		if len(names) == 0 {
			return
		}
		if next != nil {
			next(time.Now().Add(wait))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		var a Attempt
		for _, name := range names {
			applied, err := s.Migrate(ctx, MigrateOptions{Defer: true, Database: name, Note: func(n Note) { a.Notes = append(a.Notes, n) }})
			a.Applied = append(a.Applied, applied...)
			if err != nil {
				a.Failed = append(a.Failed, err)
			}
		}
		if ctx.Err() != nil {
			return
		}
		wait = min(2*wait, b.Max)
		a.Pending = s.Reasons()
		if len(s.Waiting()) > 0 {
			a.Next = wait
		}
		report(a)
	}
}

// Reasons is why each database waits for its migrations, by name: the
// causes [Set.Pending] wraps.
func (s *Set) Reasons() map[string]error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.pending)
}
