//go:build !wasip1

package endpoints

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/hooks"
)

// scriptedDB is a hooks.Database whose transaction calls fail as its
// script says, recording each call.
type scriptedDB struct {
	calls  []string
	begins []int32 // the errno of each begin in turn; 0 past the end
	commit []int32 // the errno of each commit in turn; 0 past the end
	result []byte  // the pending result after a failure
}

func (s *scriptedDB) Run([]byte, []byte, []byte, bool) (int, int32) { return 0, int32(abi.ErrState) }
func (s *scriptedDB) Result() ([]byte, bool)                        { return s.result, s.result != nil }
func (s *scriptedDB) SetTimeout(time.Duration)                      { s.calls = append(s.calls, "timeout") }

func (s *scriptedDB) next(list *[]int32) int32 {
	if len(*list) == 0 {
		return 0
	}
	e := (*list)[0]
	*list = (*list)[1:]
	return e
}

func (s *scriptedDB) Begin(db []byte) int32 {
	s.calls = append(s.calls, "begin")
	return s.next(&s.begins)
}

func (s *scriptedDB) BeginWith(db, opts []byte) int32 {
	s.calls = append(s.calls, "begin_with "+string(opts))
	return s.next(&s.begins)
}

func (s *scriptedDB) End(db []byte, commit bool) int32 {
	if !commit {
		s.calls = append(s.calls, "rollback")
		return 0
	}
	s.calls = append(s.calls, "commit")
	return s.next(&s.commit)
}

// TestTxWithRetries: TxWith runs fn again, in a new transaction, while
// the transaction's statements (fn's error) or its commit fail busy, up
// to Retries times, and never by default, for another error, or when
// the begin itself failed; options (retries among them) go to
// db_begin_with, so that the host's margin before the deadline stops the
// retries, and none to db_begin.
func TestTxWithRetries(t *testing.T) {
	busy := &DBError{Database: "main", Code: abi.DBCodeBusy, Message: "could not serialize access"}
	tests := []struct {
		name      string
		opts      TxOptions
		fnErrs    []error // fn's error at each attempt; nil past the end
		begins    []int32
		commits   []int32
		wantCalls []string
		wantErr   error
	}{
		{"no retries by default", TxOptions{}, []error{busy}, nil, nil, []string{"begin", "rollback"}, ErrBusy},
		{"busy then success", TxOptions{Retries: 3}, []error{busy, busy}, nil, nil, []string{"begin_with {}", "rollback", "begin_with {}", "rollback", "begin_with {}", "commit"}, nil},
		{"retries run out", TxOptions{Retries: 1}, []error{busy, busy, busy}, nil, nil, []string{"begin_with {}", "rollback", "begin_with {}", "rollback"}, ErrBusy},
		{"a wrapped busy", TxOptions{Retries: 1}, []error{fmt.Errorf("reading the counter: %w", busy)}, nil, nil, []string{"begin_with {}", "rollback", "begin_with {}", "commit"}, nil},
		{"another error", TxOptions{Retries: 3}, []error{&DBError{Code: abi.DBCodeConstraint}}, nil, nil, []string{"begin_with {}", "rollback"}, ErrConstraint},
		{"a commit that failed busy", TxOptions{Retries: 1}, nil, nil, []int32{int32(abi.ErrDatabase)}, []string{"begin_with {}", "commit", "begin_with {}", "commit"}, nil},
		{"a begin that failed busy", TxOptions{Retries: 3}, nil, []int32{int32(abi.ErrDatabase)}, nil, []string{"begin_with {}"}, ErrBusy},
		{"options", TxOptions{Isolation: Serializable, ReadOnly: true}, nil, nil, nil, []string{`begin_with {"isolation":"serializable","readOnly":true}`, "commit"}, nil},
		{"read only", TxOptions{ReadOnly: true}, nil, nil, nil, []string{`begin_with {"readOnly":true}`, "commit"}, nil},
		{"isolation", TxOptions{Isolation: ReadCommitted, Retries: 1}, nil, nil, nil, []string{`begin_with {"isolation":"read_committed"}`, "commit"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := &scriptedDB{begins: tt.begins, commit: tt.commits, result: []byte(`{"error":{"code":"busy","message":"database is locked"}}`)}
			hooks.DB = db
			defer func() { hooks.DB = nil }()
			attempt := 0
			err := DB("main").TxWith(tt.opts, func(tx *Tx) error {
				attempt++
				if attempt <= len(tt.fnErrs) {
					return tt.fnErrs[attempt-1]
				}
				return nil
			})
			if (tt.wantErr == nil) != (err == nil) || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
				t.Errorf("err %v, want %v", err, tt.wantErr)
			}
			if !slices.Equal(db.calls, tt.wantCalls) {
				t.Errorf("calls %q, want %q", db.calls, tt.wantCalls)
			}
		})
	}
}

// TestTxRetryPause: the pauses double from 5 ms to 100 ms, each between
// half its bound and the bound.
func TestTxRetryPause(t *testing.T) {
	for attempt, ms := range []int{5, 10, 20, 40, 80, 100, 100, 100} {
		bound := time.Duration(ms) * time.Millisecond
		for range 50 {
			if d := txRetryPause(attempt); d < bound/2 || d > bound {
				t.Fatalf("attempt %d: pause %s, want between %s and %s", attempt, d, bound/2, bound)
			}
		}
	}
}

// TestTxWithOptionsError: options the host refuses give an error holding
// its message.
func TestTxWithOptionsError(t *testing.T) {
	db := &scriptedDB{begins: []int32{int32(abi.ErrInvalid)}, result: []byte(`{"error":{"code":"other","message":"db_begin_with: transaction options: isolation \"snapshot\" is not a level"}}`)}
	hooks.DB = db
	defer func() { hooks.DB = nil }()
	err := DB("main").TxWith(TxOptions{Isolation: "snapshot"}, func(*Tx) error { return nil })
	if err == nil || !strings.Contains(err.Error(), `endpoints: database "main": TxWith: db_begin_with: transaction options: isolation "snapshot" is not a level`) {
		t.Errorf("got %v", err)
	}
}

// TestTxWithContextEndsBetweenRetries: when ctx ends while TxWithContext
// waits to run a busy transaction again, no retry begins, and the error
// is still the busy one (a HandleFunc handler answers it 503), with
// ctx's error beside it, rather than ctx's alone (a 500).
func TestTxWithContextEndsBetweenRetries(t *testing.T) {
	busy := &DBError{Database: "main", Code: abi.DBCodeBusy, Message: "could not serialize access"}
	db := &scriptedDB{}
	hooks.DB = db
	defer func() { hooks.DB = nil }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := DB("main").TxWithContext(ctx, TxOptions{Retries: 3}, func(tx *Tx) error {
		cancel() // ends ctx before the retry's pause
		return busy
	})
	if !errors.Is(err, ErrBusy) || !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want the busy error and context.Canceled", err)
	}
	if want := []string{"begin_with {}", "rollback"}; !slices.Equal(db.calls, want) {
		t.Errorf("calls %q, want %q", db.calls, want)
	}
}

// failingDB is a scriptedDB whose statements fail with ErrDatabase, its
// result the pending error.
type failingDB struct{ scriptedDB }

func (f *failingDB) Run([]byte, []byte, []byte, bool) (int, int32) {
	return len(f.result), int32(abi.ErrDatabase)
}

// TestDBErrorDetail: the database's detail (PostgreSQL's DETAIL, as the
// host passes it in the error's "detail") is the DBError's Detail, which
// its message leaves out; an error without one has none.
func TestDBErrorDetail(t *testing.T) {
	for _, tt := range []struct{ name, result, detail string }{
		{"PostgreSQL's detail", `{"error":{"code":"constraint","constraint":"users_email_key","kind":"unique","message":"duplicate key value violates unique constraint \"users_email_key\"","detail":"Key (email)=(ada@example.com) already exists."}}`, "Key (email)=(ada@example.com) already exists."},
		{"none", `{"error":{"code":"constraint","constraint":"users.email","kind":"unique","message":"UNIQUE constraint failed: users.email"}}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hooks.DB = &failingDB{scriptedDB{result: []byte(tt.result)}}
			defer func() { hooks.DB = nil }()
			_, err := DB("main").Exec("INSERT INTO users (email) VALUES ($1)", "ada@example.com")
			var de *DBError
			if !errors.As(err, &de) || !errors.Is(err, ErrUniqueViolation) || de.Detail != tt.detail {
				t.Fatalf("got %v (%#v), want a unique violation with the detail %q", err, de, tt.detail)
			}
			if tt.detail != "" && strings.Contains(err.Error(), tt.detail) {
				t.Errorf("the error's message %q holds the detail", err)
			}
		})
	}
}

// TestDBErrorTimeout: a statement stopped at its timeout (code "timeout")
// is ErrStatementTimeout and context.DeadlineExceeded, and its Timeout
// says so, as an outbound request's error's does; another code is none
// of them.
func TestDBErrorTimeout(t *testing.T) {
	for _, tt := range []struct {
		code    string
		timeout bool
	}{{"timeout", true}, {"busy", false}, {"other", false}} {
		hooks.DB = &failingDB{scriptedDB{result: []byte(`{"error":{"code":"` + tt.code + `","message":"stopped"}}`)}}
		_, err := DB("main").Exec("SELECT 1")
		hooks.DB = nil
		var de *DBError
		if !errors.As(err, &de) {
			t.Fatalf("%s: got %v, want a DBError", tt.code, err)
		}
		if de.Timeout() != tt.timeout || errors.Is(err, ErrStatementTimeout) != tt.timeout || errors.Is(err, context.DeadlineExceeded) != tt.timeout {
			t.Errorf("%s: Timeout() %v, ErrStatementTimeout %v, DeadlineExceeded %v; want all %v", tt.code,
				de.Timeout(), errors.Is(err, ErrStatementTimeout), errors.Is(err, context.DeadlineExceeded), tt.timeout)
		}
	}
}
