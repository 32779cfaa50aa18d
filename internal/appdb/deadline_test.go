package appdb

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestStmtContext checks that a statement's context answers as
// context.WithDeadline's would, whichever of Err, Done and context.Cause is
// asked first, and that asking Err alone before the deadline makes no timer.
func TestStmtContext(t *testing.T) {
	errGone := errors.New("the client went away")
	past, future := time.Now().Add(-time.Second), time.Now().Add(time.Hour)
	canceled, cancel := context.WithCancelCause(context.Background())
	cancel(errGone)
	earlier, cancelEarlier := context.WithDeadline(context.Background(), time.Now().Add(time.Minute))
	defer cancelEarlier()
	tests := []struct {
		name       string
		parent     context.Context
		deadline   time.Time
		doneFirst  bool // ask Done before Err
		err, cause error
		timer      bool // whether a standard context is made before Done is checked
		want       time.Time
	}{
		{name: "before the deadline", parent: context.Background(), deadline: future, want: future},
		{name: "before the deadline, Done asked", parent: context.Background(), deadline: future, doneFirst: true, timer: true, want: future},
		{name: "past the deadline", parent: context.Background(), deadline: past, err: context.DeadlineExceeded, cause: context.DeadlineExceeded, timer: true, want: past},
		{name: "past the deadline, Done asked", parent: context.Background(), deadline: past, doneFirst: true, err: context.DeadlineExceeded, cause: context.DeadlineExceeded, timer: true, want: past},
		{name: "parent canceled", parent: canceled, deadline: future, err: context.Canceled, cause: errGone, want: future},
		{name: "parent canceled, Done asked", parent: canceled, deadline: future, doneFirst: true, err: context.Canceled, cause: errGone, timer: true, want: future},
		{name: "the parent's earlier deadline", parent: earlier, deadline: future, want: func() time.Time { d, _ := earlier.Deadline(); return d }()},
	}
	// stale is a context whose statement ended past its deadline: its
	// standard context made, ended and released. Restarted for another
	// statement, as a session reuses it, it must answer as a new one.
	stale := func() *stmtContext {
		c := newStmtContext(context.Background(), nil, past)
		_ = c.Err()
		c.release()
		return c
	}
	for _, tt := range tests {
		for _, restarted := range []bool{false, true} {
			name := tt.name
			if restarted {
				name += ", restarted"
			}
			t.Run(name, func(t *testing.T) {
				ctx := newStmtContext(tt.parent, nil, tt.deadline)
				if restarted {
					ctx = stale().restart(tt.parent, nil, tt.deadline)
				}
				defer ctx.release()
				if tt.doneFirst {
					select {
					case <-ctx.Done():
						if tt.err == nil {
							t.Fatal("Done is closed before the deadline")
						}
					default:
						if tt.err != nil {
							t.Fatal("Done is open past the end")
						}
					}
				}
				if err := ctx.Err(); !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
					t.Errorf("Err = %v, want %v", err, tt.err)
				}
				if cause := context.Cause(ctx); !errors.Is(cause, tt.cause) || (cause == nil) != (tt.cause == nil) {
					t.Errorf("Cause = %v, want %v", cause, tt.cause)
				}
				if made := ctx.timed.Load() != nil; made != tt.timer {
					t.Errorf("a standard context made: %v, want %v", made, tt.timer)
				}
				if tt.err != nil {
					select {
					case <-ctx.Done():
					default:
						t.Error("Err is set but Done is open")
					}
				}
				if d, ok := ctx.Deadline(); !ok || !d.Equal(tt.want) {
					t.Errorf("Deadline = %v, %v; want %v", d, ok, tt.want)
				}
			})
		}
	}
}

// TestStmtContextDoneAtDeadline waits for Done to close at the deadline.
func TestStmtContextDoneAtDeadline(t *testing.T) {
	ctx := newStmtContext(context.Background(), nil, time.Now().Add(20*time.Millisecond))
	defer ctx.release()
	if ctx.Err() != nil {
		t.Fatal("ended before its deadline")
	}
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) || !errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		t.Errorf("Err %v, Cause %v; want the deadline exceeded", ctx.Err(), context.Cause(ctx))
	}
}

// TestStmtContextStop: a statement's context ends when its stop context
// does (the host stopping its calls at shutdown), whether the driver
// watches Done (PostgreSQL) or polls Err (SQLite), and whether stop ended
// before the statement began or while it ran.
func TestStmtContextStop(t *testing.T) {
	for _, tt := range []struct {
		name              string
		doneFirst, before bool
	}{
		{name: "Err polled, stopped while running"},
		{name: "Done watched, stopped while running", doneFirst: true},
		{name: "Err polled, stopped before", before: true},
		{name: "Done watched, stopped before", doneFirst: true, before: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stop, halt := context.WithCancel(context.Background())
			defer halt()
			if tt.before {
				halt()
			}
			c := newStmtContext(context.Background(), stop, time.Now().Add(time.Hour))
			defer c.release()
			var done <-chan struct{}
			if tt.doneFirst {
				done = c.Done()
			}
			if !tt.before {
				if err := c.Err(); err != nil {
					t.Fatalf("Err before stop ended = %v", err)
				}
				halt()
			}
			if done != nil {
				<-done
			}
			if err := c.Err(); !errors.Is(err, context.Canceled) {
				t.Errorf("Err once stop ended = %v, want context.Canceled", err)
			}
		})
	}
}
