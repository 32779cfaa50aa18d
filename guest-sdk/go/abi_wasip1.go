//go:build wasip1

package endpoints

// The WebAssembly glue: the exports the host calls and the host functions
// the SDK imports, named as package abi specifies (the directives need
// literal names; TestWasmGuest checks them against the abi constants).
// Each export that serves a request ends with settle (settle.go).

import (
	"runtime"
	"unsafe"

	"github.com/wasmendpoints/endpoints/abi"
)

//go:wasmexport endpoints_abi_version
func exportABIVersion() int32 { return abi.Version }

// exportContract returns the contract as offset<<32 | length. It returns 0
// for a plain route (no typed handler registered): the host reads a zero
// result as "no contract". The bytes live in reg.contract, so they stay
// valid while the host reads them.
//
//go:wasmexport endpoints_contract
func exportContract() uint64 {
	b := declaration()
	if len(b) == 0 {
		return 0
	}
	return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b))))<<32 | uint64(len(b))
}

//go:wasmexport endpoints_handle
func exportHandle() int32 {
	defer settle(runtime.NumGoroutine())
	return handle()
}

// exportHandleRoute and exportOnValidationErrorRoute serve a bundle's
// routes (bundle.go); every Go module has them, and the host calls them
// only in a bundle.
//
//go:wasmexport endpoints_handle_route
func exportHandleRoute(route int32) int32 {
	defer settle(runtime.NumGoroutine())
	return handleRoute(route)
}

//go:wasmexport endpoints_on_validation_error_route
func exportOnValidationErrorRoute(route int32) int32 {
	defer settle(runtime.NumGoroutine())
	return onValidationErrorRoute(route)
}

// exportRuntime returns the runtime declaration like exportContract, 0 in
// any module that declares none.
//
//go:wasmexport endpoints_runtime
func exportRuntime() uint64 {
	b := runtimeJSON()
	if len(b) == 0 {
		return 0
	}
	return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b))))<<32 | uint64(len(b))
}

//go:wasmexport endpoints_openapi_extend
func exportOpenAPIExtend() int32 { return extendOpenAPI() }

//go:wasmexport endpoints_on_validation_error
func exportOnValidationError() int32 {
	defer settle(runtime.NumGoroutine())
	return onValidationError()
}

// The middleware exports: every Go module has them, and a middleware's
// declaration lists the phases it implements, so the host calls only
// those (abi.Middleware.Phases).
//
//go:wasmexport endpoints_middleware
func exportMiddleware() uint64 {
	b := middlewareJSON()
	if len(b) == 0 {
		return 0
	}
	return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b))))<<32 | uint64(len(b))
}

//go:wasmexport endpoints_before
func exportBefore() int32 {
	defer settle(runtime.NumGoroutine())
	return middlewareBefore()
}

//go:wasmexport endpoints_after
func exportAfter() int32 {
	defer settle(runtime.NumGoroutine())
	return middlewareAfter()
}

//go:wasmexport endpoints_verify
func exportVerify() int32 {
	defer settle(runtime.NumGoroutine())
	return middlewareVerify()
}

// The middleware exports of a bundle, which serve the middleware of its
// declaration by index (bundle.go); every Go module has them.
//
//go:wasmexport endpoints_before_route
func exportBeforeRoute(mw int32) int32 {
	defer settle(runtime.NumGoroutine())
	return middlewareRoute(abi.ExportBeforeRoute, mw, middlewareBefore)
}

//go:wasmexport endpoints_after_route
func exportAfterRoute(mw int32) int32 {
	defer settle(runtime.NumGoroutine())
	return middlewareRoute(abi.ExportAfterRoute, mw, middlewareAfter)
}

//go:wasmexport endpoints_verify_route
func exportVerifyRoute(mw int32) int32 {
	defer settle(runtime.NumGoroutine())
	return middlewareRoute(abi.ExportVerifyRoute, mw, middlewareVerify)
}

//go:wasmimport endpoints request_set_header
func wasmRequestSetHeader(name, value string) int32

//go:wasmimport endpoints context_set
func wasmContextSet(name, value string) int32

//go:wasmimport endpoints principal_set
func wasmPrincipalSet(buf *byte, bufLen uint32) int32

func requestSetHeader(name, value string) int32 { return wasmRequestSetHeader(name, value) }

func contextSet(name, value string) int32 { return wasmContextSet(name, value) }

func principalSet(b []byte) int32 { return wasmPrincipalSet(unsafe.SliceData(b), uint32(len(b))) }

//go:wasmimport endpoints request_read
func wasmRequestRead(buf *byte, bufLen uint32) int32

//go:wasmimport endpoints request_header
func wasmRequestHeader(name string, buf *byte, bufLen uint32) int32

//go:wasmimport endpoints body_read
func wasmBodyRead(buf *byte, bufLen uint32) int32

//go:wasmimport endpoints file_read
func wasmFileRead(index int32, buf *byte, bufLen uint32) int32

//go:wasmimport endpoints response_set_status
func wasmResponseSetStatus(status int32) int32

//go:wasmimport endpoints response_set_header
func wasmResponseSetHeader(name, value string) int32

//go:wasmimport endpoints response_add_header
func wasmResponseAddHeader(name, value string) int32

//go:wasmimport endpoints response_write
func wasmResponseWrite(buf *byte, bufLen uint32) int32

//go:wasmimport endpoints log
func wasmLog(level int32, msg string)

//go:wasmimport endpoints kv_get
func wasmKVGet(key string, buf *byte, bufLen uint32) int32

//go:wasmimport endpoints kv_set
func wasmKVSet(key string, value *byte, valueLen uint32, ttlSeconds int32) int32

//go:wasmimport endpoints kv_delete
func wasmKVDelete(key string) int32

// wasmKVIncr's out is an i32 offset where the host writes the result, a
// little-endian i64: the layout of a Go int64 in wasm memory.
//
//go:wasmimport endpoints kv_incr
func wasmKVIncr(key string, delta int64, out *int64) int32

//go:wasmimport endpoints kv_list
func wasmKVList(prefix, after string, buf *byte, bufLen uint32) int32

//go:wasmimport endpoints variable_get
func wasmVariableGet(name string, buf *byte, bufLen uint32) int32

func variableGet(name string, buf []byte) int32 {
	return wasmVariableGet(name, unsafe.SliceData(buf), uint32(len(buf)))
}

func requestRead(buf []byte) int32 {
	return wasmRequestRead(unsafe.SliceData(buf), uint32(len(buf)))
}

func requestHeader(name string, buf []byte) int32 {
	return wasmRequestHeader(name, unsafe.SliceData(buf), uint32(len(buf)))
}

func bodyRead(buf []byte) int32 {
	return wasmBodyRead(unsafe.SliceData(buf), uint32(len(buf)))
}

func fileRead(index int32, buf []byte) int32 {
	return wasmFileRead(index, unsafe.SliceData(buf), uint32(len(buf)))
}

func responseSetStatus(status int32) int32 { return wasmResponseSetStatus(status) }

func responseSetHeader(name, value string) int32 { return wasmResponseSetHeader(name, value) }

func responseAddHeader(name, value string) int32 { return wasmResponseAddHeader(name, value) }

func responseWrite(buf []byte) int32 {
	return wasmResponseWrite(unsafe.SliceData(buf), uint32(len(buf)))
}

func hostLog(level abi.LogLevel, msg string) { wasmLog(int32(level), msg) }

func kvGet(key string, buf []byte) int32 {
	return wasmKVGet(key, unsafe.SliceData(buf), uint32(len(buf)))
}

func kvSet(key string, value []byte, ttlSeconds int32) int32 {
	return wasmKVSet(key, unsafe.SliceData(value), uint32(len(value)), ttlSeconds)
}

func kvDelete(key string) int32 { return wasmKVDelete(key) }

func kvIncr(key string, delta int64, out *int64) int32 { return wasmKVIncr(key, delta, out) }

func kvList(prefix, after string, buf []byte) int32 {
	return wasmKVList(prefix, after, unsafe.SliceData(buf), uint32(len(buf)))
}

// resetKV does nothing in a module: the host owns the store.
func resetKV() {}

// setVariable does nothing in a module: the host owns the variables.
func setVariable(string, string, bool) {}

//go:wasmimport endpoints db_query
func wasmDBQuery(db, sql string, params *byte, paramsLen uint32) int32

//go:wasmimport endpoints db_exec
func wasmDBExec(db, sql string, params *byte, paramsLen uint32) int32

//go:wasmimport endpoints db_result
func wasmDBResult(buf *byte, bufLen uint32) int32

//go:wasmimport endpoints db_begin
func wasmDBBegin(db string) int32

//go:wasmimport endpoints db_begin_with
func wasmDBBeginWith(db string, opts *byte, optsLen uint32) int32

//go:wasmimport endpoints db_commit
func wasmDBCommit(db string) int32

//go:wasmimport endpoints db_rollback
func wasmDBRollback(db string) int32

//go:wasmimport endpoints db_timeout
func wasmDBTimeout(ms int32) int32

func dbTimeout(ms int32) int32 { return wasmDBTimeout(ms) }

func dbRun(db, sql string, params []byte, exec bool) int32 {
	if exec {
		return wasmDBExec(db, sql, unsafe.SliceData(params), uint32(len(params)))
	}
	return wasmDBQuery(db, sql, unsafe.SliceData(params), uint32(len(params)))
}

func dbResult(buf []byte) int32 { return wasmDBResult(unsafe.SliceData(buf), uint32(len(buf))) }

func dbBegin(db string) int32 { return wasmDBBegin(db) }

func dbBeginWith(db string, opts []byte) int32 {
	return wasmDBBeginWith(db, unsafe.SliceData(opts), uint32(len(opts)))
}

func dbEnd(db string, commit bool) int32 {
	if commit {
		return wasmDBCommit(db)
	}
	return wasmDBRollback(db)
}
