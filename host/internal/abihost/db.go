package abihost

import (
	"context"
	"time"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
)

// Databases is what the db_* functions (abi/README.md §4.5) ask
// of a call: its session with the app's databases (package appdb's
// Session). Names, statements and parameters point into guest memory: the
// session copies what it keeps.
type Databases interface {
	// Run runs one statement on database db (db_query, or db_exec when
	// exec) and keeps its result; it returns the result's size or an
	// errno (abi.ErrDatabase with the error as the result).
	Run(db, sql, params []byte, exec bool) (int, abi.Errno)
	// Result is the pending result; ok is false when none is.
	Result() (data []byte, ok bool)
	// Begin opens a transaction on db for the rest of the call.
	Begin(db []byte) abi.Errno
	// BeginWith opens one with options, abi.DBTxOptions as JSON
	// (db_begin_with).
	BeginWith(db, opts []byte) abi.Errno
	// End commits (commit true) or rolls back db's transaction.
	End(db []byte, commit bool) abi.Errno
	// SetTimeout bounds each later statement of the call to d from its
	// start (db_timeout); zero lifts it.
	SetTimeout(d time.Duration)
}

// dbSession is the session of the call a db_* function serves, nil
// outside a request.
func dbSession(ctx context.Context) Databases {
	c := From(ctx)
	if c == nil || c.Loading() {
		return nil
	}
	return c.Databases()
}

// hostDBQuery implements db_query (abi/README.md §3).
func hostDBQuery(ctx context.Context, mod api.Module, stack []uint64) {
	dbRun(ctx, mod, stack, abi.ImportDBQuery, false)
}

// hostDBExec implements db_exec (abi/README.md §3).
func hostDBExec(ctx context.Context, mod api.Module, stack []uint64) {
	dbRun(ctx, mod, stack, abi.ImportDBExec, true)
}

func dbRun(ctx context.Context, mod api.Module, stack []uint64, fn string, exec bool) {
	db := read(mod, fn, uint32(stack[0]), uint32(stack[1]))
	sql := read(mod, fn, uint32(stack[2]), uint32(stack[3]))
	params := read(mod, fn, uint32(stack[4]), uint32(stack[5]))
	s := dbSession(ctx)
	if s == nil {
		stack[0] = errno(abi.ErrState)
		return
	}
	n, e := s.Run(db, sql, params, exec)
	if e != 0 {
		stack[0] = errno(e)
		return
	}
	stack[0] = uint64(uint32(int32(n)))
}

// hostDBResult implements db_result (abi/README.md §3).
func hostDBResult(ctx context.Context, mod api.Module, stack []uint64) {
	buf, bufLen := uint32(stack[0]), uint32(stack[1])
	s := dbSession(ctx)
	if s == nil {
		read(mod, abi.ImportDBResult, buf, bufLen)
		stack[0] = errno(abi.ErrState)
		return
	}
	data, ok := s.Result()
	if !ok {
		read(mod, abi.ImportDBResult, buf, bufLen)
		stack[0] = errno(abi.ErrNotFound)
		return
	}
	stack[0] = deliver(mod, abi.ImportDBResult, data, buf, bufLen)
}

// hostDBBegin implements db_begin (abi/README.md §3).
func hostDBBegin(ctx context.Context, mod api.Module, stack []uint64) {
	db := read(mod, abi.ImportDBBegin, uint32(stack[0]), uint32(stack[1]))
	s := dbSession(ctx)
	if s == nil {
		stack[0] = errno(abi.ErrState)
		return
	}
	stack[0] = errno(s.Begin(db))
}

// hostDBBeginWith implements db_begin_with (abi/README.md §3).
func hostDBBeginWith(ctx context.Context, mod api.Module, stack []uint64) {
	db := read(mod, abi.ImportDBBeginWith, uint32(stack[0]), uint32(stack[1]))
	opts := read(mod, abi.ImportDBBeginWith, uint32(stack[2]), uint32(stack[3]))
	s := dbSession(ctx)
	if s == nil {
		stack[0] = errno(abi.ErrState)
		return
	}
	stack[0] = errno(s.BeginWith(db, opts))
}

// hostDBCommit implements db_commit (abi/README.md §3).
func hostDBCommit(ctx context.Context, mod api.Module, stack []uint64) {
	dbEnd(ctx, mod, stack, abi.ImportDBCommit, true)
}

// hostDBRollback implements db_rollback (abi/README.md §3).
func hostDBRollback(ctx context.Context, mod api.Module, stack []uint64) {
	dbEnd(ctx, mod, stack, abi.ImportDBRollback, false)
}

func dbEnd(ctx context.Context, mod api.Module, stack []uint64, fn string, commit bool) {
	db := read(mod, fn, uint32(stack[0]), uint32(stack[1]))
	s := dbSession(ctx)
	if s == nil {
		stack[0] = errno(abi.ErrState)
		return
	}
	stack[0] = errno(s.End(db, commit))
}

// hostDBTimeout implements db_timeout (abi/README.md §4.5): the bound of
// each later statement of the call, in milliseconds; 0 lifts it.
func hostDBTimeout(ctx context.Context, _ api.Module, stack []uint64) {
	ms := int32(stack[0])
	s := dbSession(ctx)
	switch {
	case s == nil:
		stack[0] = errno(abi.ErrState)
	case ms < 0 || ms > abi.DBTimeoutMax:
		stack[0] = errno(abi.ErrInvalid)
	default:
		s.SetTimeout(time.Duration(ms) * time.Millisecond)
		stack[0] = 0
	}
}
