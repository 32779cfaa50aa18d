// Package abihost implements the functions of the "endpoints" module a
// guest imports (abi/README.md §3): one Go function per import, registered
// by name, with parameter names, on a wazero runtime ([Instantiate]).
//
// The functions read guest memory, check the ABI's rules (which phase may
// call what, the limits on names and values) and ask the [Call] they serve
// for the rest. The host supplies that call through the context wazero
// hands each function: the context's Value for [CallKey] is the call.
//
// # Notes
//
//   - The functions never allocate in guest memory: they write into the
//     buffer the guest passed, or report the size it needs (the buffer
//     convention, [deliver]).
//   - A guest that passes memory it does not own is trapped: the function
//     panics with an error naming it and the memory, which wazero turns
//     into the call's error.
//   - The time a function takes counts against the call's deadline: a call
//     whose context is an interrupt.Expirer that has expired is stopped when
//     the function returns.
//   - This package never imports package host: the host depends on it, not
//     the reverse.
package abihost

import (
	"context"
	"fmt"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/outbound"
	"github.com/wasmendpoints/endpoints/internal/interrupt"
	"github.com/wasmendpoints/endpoints/storage"
)

// Call is what the host functions see of the guest call they serve: the
// request as the host validated it, the answer being built, and the
// state that decides which functions a guest may call now.
//
// The host's call implements it and is the context.Context wazero hands
// the functions; store operations run under it. A call is owned by the
// goroutine serving the request, and the functions run on that goroutine,
// so no method needs a lock. Slices passed to its methods point into the
// instance's memory: the call copies what it keeps.
type Call interface {
	context.Context

	// Loading reports whether the call reads a module's contract or
	// version: there is no request, and request and response functions
	// answer abi.ErrState.
	Loading() bool
	// Phase is the middleware phase the call runs (abi.PhaseBefore,
	// abi.PhaseAfter, abi.PhaseVerify), "" for a handler.
	Phase() string
	// Middleware reports whether a middleware module runs the call: the
	// request's body and files are not its to read.
	Middleware() bool
	// HeadersSent reports whether the answer's status and headers already
	// went out (a streamed answer).
	HeadersSent() bool

	// Envelope is the request envelope of request_read, as JSON.
	Envelope() []byte
	// RequestValue is one validated value of a request part, as JSON, for
	// request_value; name "" asks for the whole part.
	RequestValue(part abi.Part, name []byte) ([]byte, abi.Errno)
	// RequestHeader is the values the client sent for the header name.
	RequestHeader(name []byte) []string
	// ReadBody reads the next bytes of the request body into dst.
	ReadBody(dst []byte) (int, abi.Errno)
	// ReadFile reads the next bytes of the uploaded file index into dst.
	ReadFile(index int32, dst []byte) (int, abi.Errno)

	// Store is the app's key-value store and its namespace; ok is false
	// outside a request, when kv_* functions answer abi.ErrState.
	Store() (store storage.Store, namespace string, ok bool)
	// StoreError maps a failed store operation op ("get", "set"...) to
	// the errno the guest sees, reporting it as the host does.
	StoreError(op string, err error) abi.Errno
	// StoreSpan begins the trace span of store operation op, as the host
	// does for its own; the function it returns ends it with the
	// operation's error. It returns nil when nothing traces the request.
	StoreSpan(op string) func(error)
	// Variable is the value of the app's variable name (endpoints.json
	// "variables"), which the caller must not change, and whether the
	// app declares it.
	Variable(name []byte) ([]byte, bool)

	// Databases is the call's session with its app's databases, for the
	// db_* functions; nil when the host has none.
	Databases() Databases
	// Scratch is the call's reusable buffer, for answers the functions
	// build (kv_list's JSON array).
	Scratch() *[]byte

	// SetStatus sets the answer's status (abi.ResponseStatusMin to
	// abi.ResponseStatusMax, checked).
	SetStatus(status int)
	// SetResponseHeader sets (or with add, adds) a response header whose
	// name and value were checked with [ValidHeader], within the ABI's
	// limits on the answer's headers.
	SetResponseHeader(name, value string, add bool) abi.Errno
	// Write appends data to the answer, or sends it for a streamed one.
	Write(data []byte) abi.Errno

	// SetRequestHeader replaces (or with an empty value removes) a request
	// header, for a before middleware.
	SetRequestHeader(name, value []byte) abi.Errno
	// SetContext records a context value a middleware passes on.
	SetContext(name, value []byte) abi.Errno
	// SetPrincipal records who a verify middleware says the client is.
	SetPrincipal(json []byte) abi.Errno

	// Log writes one of the guest's log lines at level.
	Log(level abi.LogLevel, line []byte)

	// Outbound is the session of the request's outbound HTTP calls
	// (http_*), started with the app's client and limits; nil when the
	// call serves no request.
	Outbound() *outbound.Session
}

// CallKey is the context key under which the host supplies the [Call]: a
// context whose Value(CallKey{}) is a Call serves a guest call.
type CallKey struct{}

// From returns the call ctx serves, or nil when it serves none (a module's
// start function outside a request).
func From(ctx context.Context) Call {
	c, _ := ctx.Value(CallKey{}).(Call)
	return c
}

// errGuestMemory is the trap raised when a guest passes memory it does not
// own to a host function.
type errGuestMemory struct {
	fn         string
	off, count uint32
}

func (e errGuestMemory) Error() string {
	return fmt.Sprintf("%s: guest passed memory [%d, %d) outside its linear memory", e.fn, e.off, uint64(e.off)+uint64(e.count))
}

// errNegativeLength is the trap raised when a guest passes a negative
// length: lengths are i32, and one below zero is a guest bug (abi/README.md
// §2), not a buffer of 2 GiB or more.
type errNegativeLength struct {
	fn string
	n  int32
}

func (e errNegativeLength) Error() string {
	return fmt.Sprintf("%s: guest passed a negative length (%d)", e.fn, e.n)
}

// read returns the n bytes of guest memory at off; it traps on a negative
// n and on memory the guest does not own.
func read(mod api.Module, fn string, off, n uint32) []byte {
	if int32(n) < 0 {
		panic(errNegativeLength{fn, int32(n)})
	}
	b, ok := mod.Memory().Read(off, n)
	if !ok {
		panic(errGuestMemory{fn, off, n})
	}
	return b
}

// deliver implements the buffer convention: write data when it fits and
// return its size either way.
func deliver(mod api.Module, fn string, data []byte, buf, bufLen uint32) uint64 {
	if int32(bufLen) < 0 {
		panic(errNegativeLength{fn, int32(bufLen)})
	}
	if uint32(len(data)) <= bufLen {
		if !mod.Memory().Write(buf, data) {
			panic(errGuestMemory{fn, buf, uint32(len(data))})
		}
	} else if _, ok := mod.Memory().Read(buf, bufLen); !ok {
		panic(errGuestMemory{fn, buf, bufLen})
	}
	return uint64(uint32(int32(len(data))))
}

func errno(e abi.Errno) uint64 { return uint64(uint32(int32(e))) }

var i32 = api.ValueTypeI32

// hostFunction is one function of the "endpoints" module (abi/README.md
// §3): its name, signature, parameter names (for wazero's stack traces and
// debuggers) and implementation.
type hostFunction struct {
	name            string
	params, results []api.ValueType
	paramNames      []string
	fn              api.GoModuleFunc
}

// hostFunctions are the functions a guest may import from "endpoints".
var hostFunctions = []hostFunction{
	{abi.ImportRequestRead, []api.ValueType{i32, i32}, []api.ValueType{i32}, []string{"buf", "buf_len"}, hostRequestRead},
	{abi.ImportRequestValue, []api.ValueType{i32, i32, i32, i32, i32}, []api.ValueType{i32}, []string{"part", "name", "name_len", "buf", "buf_len"}, hostRequestValue},
	{abi.ImportRequestHeader, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, []string{"name", "name_len", "buf", "buf_len"}, hostRequestHeader},
	{abi.ImportBodyRead, []api.ValueType{i32, i32}, []api.ValueType{i32}, []string{"buf", "buf_len"}, hostBodyRead},
	{abi.ImportFileRead, []api.ValueType{i32, i32, i32}, []api.ValueType{i32}, []string{"index", "buf", "buf_len"}, hostFileRead},
	{abi.ImportKVGet, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, []string{"key", "key_len", "buf", "buf_len"}, hostKVGet},
	{abi.ImportKVSet, []api.ValueType{i32, i32, i32, i32, i32}, []api.ValueType{i32}, []string{"key", "key_len", "value", "value_len", "ttl_seconds"}, hostKVSet},
	{abi.ImportKVDelete, []api.ValueType{i32, i32}, []api.ValueType{i32}, []string{"key", "key_len"}, hostKVDelete},
	{abi.ImportKVIncr, []api.ValueType{i32, i32, api.ValueTypeI64, i32}, []api.ValueType{i32}, []string{"key", "key_len", "delta", "out"}, hostKVIncr},
	{abi.ImportKVList, []api.ValueType{i32, i32, i32, i32, i32, i32}, []api.ValueType{i32}, []string{"prefix", "prefix_len", "after", "after_len", "buf", "buf_len"}, hostKVList},
	{abi.ImportVariableGet, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, []string{"name", "name_len", "buf", "buf_len"}, hostVariableGet},
	{abi.ImportResponseSetStatus, []api.ValueType{i32}, []api.ValueType{i32}, []string{"status"}, hostResponseSetStatus},
	{abi.ImportResponseSetHeader, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, []string{"name", "name_len", "value", "value_len"}, responseHeader(abi.ImportResponseSetHeader, false)},
	{abi.ImportResponseAddHeader, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, []string{"name", "name_len", "value", "value_len"}, responseHeader(abi.ImportResponseAddHeader, true)},
	{abi.ImportResponseWrite, []api.ValueType{i32, i32}, []api.ValueType{i32}, []string{"buf", "buf_len"}, hostResponseWrite},
	{abi.ImportRequestSetHeader, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, []string{"name", "name_len", "value", "value_len"}, hostRequestSetHeader},
	{abi.ImportContextSet, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, []string{"name", "name_len", "value", "value_len"}, hostContextSet},
	{abi.ImportPrincipalSet, []api.ValueType{i32, i32}, []api.ValueType{i32}, []string{"json", "json_len"}, hostPrincipalSet},
	{abi.ImportLog, []api.ValueType{i32, i32, i32}, nil, []string{"level", "msg", "msg_len"}, hostLog},
	{abi.ImportHTTPSend, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, []string{"req", "req_len", "body", "body_len"}, hostHTTPSend},
	{abi.ImportHTTPResponse, []api.ValueType{i32, i32, i32}, []api.ValueType{i32}, []string{"handle", "buf", "buf_len"}, hostHTTPResponse},
	{abi.ImportHTTPBodyRead, []api.ValueType{i32, i32, i32}, []api.ValueType{i32}, []string{"handle", "buf", "buf_len"}, hostHTTPBodyRead},
	{abi.ImportHTTPClose, []api.ValueType{i32}, []api.ValueType{i32}, []string{"handle"}, hostHTTPClose},
	{abi.ImportHTTPError, []api.ValueType{i32, i32}, []api.ValueType{i32}, []string{"buf", "buf_len"}, hostHTTPError},
	{abi.ImportDBQuery, []api.ValueType{i32, i32, i32, i32, i32, i32}, []api.ValueType{i32}, []string{"db", "db_len", "sql", "sql_len", "params", "params_len"}, hostDBQuery},
	{abi.ImportDBExec, []api.ValueType{i32, i32, i32, i32, i32, i32}, []api.ValueType{i32}, []string{"db", "db_len", "sql", "sql_len", "params", "params_len"}, hostDBExec},
	{abi.ImportDBResult, []api.ValueType{i32, i32}, []api.ValueType{i32}, []string{"buf", "buf_len"}, hostDBResult},
	{abi.ImportDBBegin, []api.ValueType{i32, i32}, []api.ValueType{i32}, []string{"db", "db_len"}, hostDBBegin},
	{abi.ImportDBBeginWith, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, []string{"db", "db_len", "opts", "opts_len"}, hostDBBeginWith},
	{abi.ImportDBCommit, []api.ValueType{i32, i32}, []api.ValueType{i32}, []string{"db", "db_len"}, hostDBCommit},
	{abi.ImportDBRollback, []api.ValueType{i32, i32}, []api.ValueType{i32}, []string{"db", "db_len"}, hostDBRollback},
	{abi.ImportDBTimeout, []api.ValueType{i32}, []api.ValueType{i32}, []string{"timeout_ms"}, hostDBTimeout},
}

// Instantiate registers the functions of the "endpoints" module
// (abi.ImportModule) in r, each by its ABI name and with its parameter
// names; each counts against the call's deadline (withinDeadline). Call
// it once per runtime, before instantiating a module that imports them.
func Instantiate(ctx context.Context, r wazero.Runtime) error {
	b := r.NewHostModuleBuilder(abi.ImportModule)
	for _, f := range hostFunctions {
		b.NewFunctionBuilder().WithGoModuleFunction(withinDeadline(f.fn), f.params, f.results).WithParameterNames(f.paramNames...).Export(f.name)
	}
	_, err := b.Instantiate(ctx)
	return err
}

// withinDeadline makes the time a host function takes count against the
// call's deadline: a guest whose host calls (a slow write, a large log
// line, a million header calls) carry it past the deadline, or whose
// client left, is stopped when the function returns, as the interrupt
// check stops guest code.
func withinDeadline(fn api.GoModuleFunc) api.GoModuleFunc {
	return func(ctx context.Context, mod api.Module, stack []uint64) {
		fn(ctx, mod, stack)
		if c, ok := ctx.(interrupt.Expirer); ok && c.Expired() {
			panic(interrupt.ErrInterrupted)
		}
	}
}

// hostLog implements log (abi/README.md §3).
func hostLog(ctx context.Context, mod api.Module, stack []uint64) {
	msg := read(mod, abi.ImportLog, uint32(stack[1]), uint32(stack[2]))
	if c := From(ctx); c != nil {
		c.Log(abi.LogLevel(int32(stack[0])), msg)
	}
}
