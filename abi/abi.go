// Package abi is the wire contract between the Endpoints host and a route
// module: the names of the functions a module exports and imports, the
// buffer convention, the error codes and the JSON shapes exchanged.
//
// The host (package host) and the guest SDKs import these constants; nothing
// repeats a name or a number. README.md beside this file is the prose version
// of the same specification, with worked examples.
//
// # Version
//
// This is ABI v1. A module declares the version it was built for with the
// [ExportABIVersion] export; the host refuses a module whose version it does
// not support, naming both.
//
// # Buffers
//
// The host never allocates in guest memory. A guest that wants data passes a
// buffer (offset and length in its linear memory); the host writes into it
// and returns the size of the data. Functions that produce a value whole
// ([ImportRequestRead], [ImportRequestValue], [ImportRequestHeader]) write
// nothing when the buffer is too small and still return the size needed, so
// the guest can grow its buffer and call again:
//
//	n := request_read(buf, 256)   // returns 812: nothing written
//	n = request_read(buf2, 1024)  // returns 812: 812 bytes written
//
// Streams ([ImportBodyRead]) write at most the buffer's length and return the
// count written, 0 at the end.
//
// # Errors
//
// Host functions return a negative [Errno] for an error the guest can handle
// (no such header, a status out of range). A guest that passes memory outside
// its linear memory, or calls a function that does not exist in ABI v1, is
// trapped: the call fails, the host answers 500 and discards the instance.
package abi

// Version is the ABI version this package describes; [ExportABIVersion] must
// return it.
const Version = 1

// ImportModule is the module name of every host function in ABI v1.
//
//	(import "endpoints" "request_read" (func (param i32 i32) (result i32)))
const ImportModule = "endpoints"

// Exports a route module provides.
const (
	// ExportABIVersion is required: () -> i32, returning [Version].
	// A module without it is not a route module and fails the load.
	ExportABIVersion = "endpoints_abi_version"

	// ExportContract is optional: () -> i64. It returns the contract, UTF-8
	// JSON in the guest's own memory, packed as offset<<32 | length. A module
	// that exports it is an endpoint; any other module is a plain route.
	// The host calls it once per load, on the first instance; the bytes must
	// stay valid until the call returns.
	//
	//	(global $contract i32 (i32.const 1024)) ;; 97 bytes of JSON at 1024
	//	(func (export "endpoints_contract") (result i64)
	//	  (i64.const 0x0000040000000061))      ;; 1024<<32 | 97
	ExportContract = "endpoints_contract"

	// ExportHandle is required: () -> i32. The host calls it once per
	// request, after validation. It returns 0 when the guest answered; any
	// other value is a guest failure: the host logs it and answers 500 when
	// nothing was sent yet.
	ExportHandle = "endpoints_handle"

	// ExportOnValidationError is optional: () -> i32. Declared by
	// "onValidationError": true in a contract, or in the runtime
	// declaration for the whole app. The host calls it instead of
	// [ExportHandle] when a request failed validation (400), content
	// negotiation (406) or its media type (415), with the failure in the
	// envelope's "error" member ([ValidationFailure]). The guest either
	// writes a replacement answer with the response functions and returns
	// [HookAnswered], or returns [HookDeclined] to leave the failure to the
	// next in order: the endpoint's hook, the app's hook, the default body.
	// The status of the answer starts as the failure's status.
	ExportOnValidationError = "endpoints_on_validation_error"

	// ExportRuntime is required in the runtime declaration module
	// ([RuntimeModule]) and only there: () -> i64, like [ExportContract],
	// returning the declaration JSON ([Runtime]) packed as
	// offset<<32 | length.
	ExportRuntime = "endpoints_runtime"

	// ExportOpenAPIExtend is optional in the runtime declaration module:
	// () -> i32. Declared by "openApi": {"extend": true}, it is called once
	// per build of the OpenAPI document, after the merge of
	// openApi.document. During the call [ImportRequestRead] returns the
	// document and the guest writes the edited document, whole, with
	// [ImportResponseWrite]; it returns 0 on success.
	ExportOpenAPIExtend = "endpoints_openapi_extend"

	// ExportMemory is the name of the linear memory the host reads and
	// writes. Required.
	ExportMemory = "memory"

	// StartFunction is called once per instance when present: the WASI
	// reactor initialiser that Go (-buildmode=c-shared) and wasi-libc
	// (-mexec-model=reactor) emit. Modules written by hand need none.
	StartFunction = "_initialize"
)

// Exports of a middleware module ([MiddlewareDir]): code that wraps the
// handlers of every route, or of the routes its declaration selects, in
// any language (optional exports added within ABI v1, README §8: a host
// before them ignores server/middleware). A middleware
// module exports [ExportABIVersion], [ExportMemory] and at least one of
// [ExportBefore], [ExportAfter] and [ExportVerify].
const (
	// ExportMiddleware is optional: () -> i64, like [ExportContract],
	// returning the declaration JSON ([Middleware]) packed as
	// offset<<32 | length. Without it the middleware applies to every
	// route and method.
	ExportMiddleware = "endpoints_middleware"

	// ExportBefore is optional: () -> i32. The host calls it for each
	// request the declaration selects, after routing and authentication
	// and before validation, in the order of the modules' file names.
	// The envelope ([Envelope], kind [KindMiddleware], phase
	// [PhaseBefore]) holds the raw request: method, route, path, raw
	// params and every header. The guest may add request headers
	// ([ImportRequestSetHeader]) and context values ([ImportContextSet])
	// for what follows, and response headers for the answer; it returns
	// [MiddlewareContinue]. Or it answers in place of the handler (a 429,
	// a 401, a redirect) with the response functions and returns
	// [MiddlewareAnswered]: no later middleware, validation or handler
	// runs. The request body is not readable ([ErrState]). Any other
	// result, or a trap, is a guest failure: 500, and the handler does not
	// run.
	//
	//	(func (export "endpoints_before") (result i32)
	//	  ;; add "x-trace: on" for the handler, then continue
	//	  (drop (call $request_set_header (i32.const 0) (i32.const 7) (i32.const 8) (i32.const 2)))
	//	  (i32.const 0))
	ExportBefore = "endpoints_before"

	// ExportAfter is optional: () -> i32. The host calls it once the
	// handler answered, in the reverse order of [ExportBefore], with the
	// envelope's "response" member holding the status. It may add or
	// replace response headers while the answer is still buffered (an
	// endpoint's JSON answer); once the answer went out (a stream, a
	// plain route's bytes), header functions return [ErrHeadersSent] and
	// the call is for auditing only. It returns 0; anything else is logged
	// and, when nothing was sent yet, answered with 500.
	ExportAfter = "endpoints_after"

	// ExportVerify is optional: () -> i32. A middleware that exports it
	// can verify the credentials of a security scheme whose
	// components.securitySchemes entry names the module in
	// "x-endpoints-verifier" (the file name without .wasm). The envelope
	// (phase [PhaseVerify]) holds the raw request and the "verify"
	// member: the scheme and the scopes the operation requires. The guest
	// returns [VerifyOK] after recording who the client is with
	// [ImportPrincipalSet], [VerifyMissing] when the request carries no
	// credential for the scheme, or [VerifyRejected] when it carries a bad
	// one; the host answers 401 or 403 itself, as for its built-in
	// verifiers.
	ExportVerify = "endpoints_verify"

	// MiddlewareDir is the directory of an app's middleware modules:
	// every *.wasm directly in it, applied in byte order of their file
	// names (name them 10-request-id.wasm, 20-audit.wasm to order them).
	MiddlewareDir = "server/middleware"
)

// Results of [ExportBefore].
const (
	// MiddlewareContinue: go on to the next middleware, then the handler.
	MiddlewareContinue = 0
	// MiddlewareAnswered: the guest wrote the answer; nothing else runs.
	MiddlewareAnswered = 1
)

// Results of [ExportVerify].
const (
	// VerifyOK: the credential is good; the principal was set.
	VerifyOK = 0
	// VerifyMissing: the request carries no credential for the scheme.
	VerifyMissing = 1
	// VerifyRejected: the credential is bad (expired, revoked, unknown).
	VerifyRejected = 2
)

// Custom sections a module may carry, so that tools read what it declares
// without running it (endpoints inspect). endpoints build writes both,
// from the exports, into every module it builds.
const (
	// SectionContract holds the contract JSON, the very bytes
	// [ExportContract] returns. The host prefers it to the export, and
	// refuses a module whose section and export disagree. A module with
	// the section and no export is an endpoint too.
	SectionContract = "endpoints.contract"
	// SectionABIVersion holds the ABI version the module was built for,
	// in decimal ("1"), as [ExportABIVersion] returns it.
	SectionABIVersion = "endpoints.abi_version"
)

// Results of [ExportOnValidationError].
const (
	// HookAnswered: the guest wrote the replacement answer.
	HookAnswered = 0
	// HookDeclined: the guest leaves the failure to the next hook, or to
	// the default body. Anything it wrote is discarded.
	HookDeclined = 1
)

// RuntimeModule is the path of the runtime declaration module in an app:
// app-wide settings and OpenAPI additions, in any language (docs/spec.md §7).
const RuntimeModule = "server/endpoints/runtime.wasm"

// Host functions, all in [ImportModule]. Arguments named buf/buf_len are a
// buffer in guest memory; name/name_len and value/value_len are UTF-8 bytes.
const (
	// ImportRequestRead writes the request envelope (JSON, see [Envelope])
	// into buf when it fits and returns its size.
	//
	//	request_read(buf i32, buf_len i32) -> size i32
	ImportRequestRead = "request_read"

	// ImportRequestValue writes the JSON encoding of one validated value:
	// the property name of part ([PartParams], [PartQuery], [PartHeaders],
	// [PartBody]); an empty name selects the whole part. It returns the
	// size, or [ErrNotFound] when the value is absent.
	//
	//	request_value(part i32, name i32, name_len i32, buf i32, buf_len i32) -> size i32
	//	request_value(0, "id", 2, buf, 16) -> 1, buf = "7"
	ImportRequestValue = "request_value"

	// ImportRequestHeader writes the raw request header values for name
	// (case-insensitive), joined with ", ", and returns their size, or
	// [ErrNotFound].
	//
	//	request_header(name i32, name_len i32, buf i32, buf_len i32) -> size i32
	ImportRequestHeader = "request_header"

	// ImportBodyRead reads the next bytes of the raw request body into buf
	// and returns how many it wrote; 0 means the end of the body. It returns
	// [ErrBodyTooLarge] past the host's body limit and [ErrIO] when the
	// client went away.
	//
	//	body_read(buf i32, buf_len i32) -> n i32
	ImportBodyRead = "body_read"

	// ImportFileRead reads the next bytes of one file of a
	// multipart/form-data request into buf and returns how many it wrote;
	// 0 means the end of that file. index is the file's position in the
	// envelope's "files" list ([File]); each file has its own position, so
	// files can be read in any order, and each only once. [ErrNotFound]
	// when there is no such file.
	//
	//	file_read(index i32, buf i32, buf_len i32) -> n i32
	ImportFileRead = "file_read"

	// ImportResponseSetStatus sets the status code of the answer
	// ([ResponseStatusMin]-[ResponseStatusMax]); the default is 200.
	// [ErrInvalid] out of range (a 1xx too); [ErrHeadersSent] once body
	// bytes were sent.
	//
	//	response_set_status(status i32) -> errno i32
	ImportResponseSetStatus = "response_set_status"

	// ImportResponseSetHeader replaces a response header.
	// [ErrInvalid] for a name that is not an HTTP token, a value holding
	// CR, LF or NUL, or a header the host owns ([ForbiddenResponseHeaders]);
	// also once the answer would hold more than [ResponseHeaderMaxCount]
	// values or [ResponseHeaderMaxBytes] bytes, and then the call fails
	// (500) whatever the handler does next.
	//
	//	response_set_header(name i32, name_len i32, value i32, value_len i32) -> errno i32
	ImportResponseSetHeader = "response_set_header"

	// ImportResponseAddHeader adds a value to a response header; the rules
	// of [ImportResponseSetHeader] apply.
	//
	//	response_add_header(name i32, name_len i32, value i32, value_len i32) -> errno i32
	ImportResponseAddHeader = "response_add_header"

	// ImportResponseWrite appends buf to the response body and returns 0.
	// An endpoint's JSON answer is buffered so the host can check it against
	// the contract; a buffered answer larger than the host's
	// limits.responseBytes (8 MiB by default) ends the call with a trap and
	// the client gets a 500. A plain route's bytes, and an endpoint's answer
	// whose status is declared as a media response (files, CSV, event
	// streams), go to the client as written, each call flushed, and are not
	// bounded in size, only by the call's deadline: set the status and
	// headers first. [ErrIO] when the client went away or stopped reading.
	//
	//	response_write(buf i32, buf_len i32) -> errno i32
	ImportResponseWrite = "response_write"

	// ImportKVGet writes the value stored under key in the app's key-value
	// store when it fits and returns its size, or [ErrNotFound].
	//
	//	kv_get(key i32, key_len i32, buf i32, buf_len i32) -> size i32
	ImportKVGet = "kv_get"

	// ImportKVSet stores value under key, replacing any value; it expires
	// after ttl_seconds when that is positive. [ErrInvalid] for a key
	// longer than [KVMaxKey] or a value longer than [KVMaxValue].
	//
	//	kv_set(key i32, key_len i32, value i32, value_len i32, ttl_seconds i32) -> errno i32
	ImportKVSet = "kv_set"

	// ImportKVDelete removes key: 0, or [ErrNotFound] when it did not
	// exist.
	//
	//	kv_delete(key i32, key_len i32) -> errno i32
	ImportKVDelete = "kv_delete"

	// ImportKVIncr adds delta to the decimal integer stored under key (0
	// when absent), atomically across every host sharing the store, and
	// writes the result at out as a little-endian i64. [ErrInvalid] when
	// the value is not an integer.
	//
	//	kv_incr(key i32, key_len i32, delta i64, out i32) -> errno i32
	ImportKVIncr = "kv_incr"

	// ImportKVList writes a JSON array of the keys that start with prefix
	// and sort after after (bytewise; empty for the first page), at most
	// [KVListLimit] of them, when it fits, and returns its size. A page
	// shorter than the limit is the last.
	//
	//	kv_list(prefix i32, prefix_len i32, after i32, after_len i32, buf i32, buf_len i32) -> size i32
	ImportKVList = "kv_list"

	// ImportVariableGet writes the value of the app's variable name
	// (endpoints.json "variables"), UTF-8 text of at most
	// [VariableMaxValue] bytes, when it fits, and returns its size;
	// [ErrNotFound] for a name the app does not declare, [ErrState]
	// outside a request (at load). An optional variable without a value
	// is empty (size 0). Secret variables read the same: keeping them
	// secret is the host's part, not the guest's.
	//
	//	variable_get(name i32, name_len i32, buf i32, buf_len i32) -> size i32
	ImportVariableGet = "variable_get"

	// ImportRequestSetHeader replaces a request header, for the
	// middleware that follows, the validation of the contract's headers and
	// the handler. Only in [ExportBefore]; [ErrState] elsewhere.
	// [ErrInvalid] for a name that is not an HTTP token, a value holding
	// CR, LF or NUL, or a header that frames the request
	// ([ForbiddenRequestHeaders]). An empty value removes the header.
	// The request's headers may grow by at most [ResponseHeaderMaxCount]
	// values and [ResponseHeaderMaxBytes] bytes over what the client sent,
	// whatever the middleware: past that, [ErrInvalid], and the call fails
	// (500) whatever the middleware does next.
	//
	//	request_set_header(name i32, name_len i32, value i32, value_len i32) -> errno i32
	ImportRequestSetHeader = "request_set_header"

	// ImportContextSet sets a context value: a name and UTF-8 text the
	// handler reads in the envelope's "context" member (and the Go SDK
	// with endpoints.Value). Only in [ExportBefore] and [ExportVerify];
	// [ErrState] elsewhere. [ErrInvalid] past [ContextMaxValues] values or
	// [ContextMaxBytes] bytes in all, or for text that is not UTF-8.
	//
	//	context_set(name i32, name_len i32, value i32, value_len i32) -> errno i32
	ImportContextSet = "context_set"

	// ImportPrincipalSet records who the client is: a JSON object
	// ([Principal] without "scheme", which the host fills in). Only in
	// [ExportVerify]; [ErrState] elsewhere; [ErrInvalid] for JSON that is
	// not such an object or is larger than [ContextMaxBytes].
	//
	//	principal_set(json i32, json_len i32) -> errno i32
	//	principal_set(`{"subject":"alice","scopes":["users:write"]}`)
	ImportPrincipalSet = "principal_set"

	// ImportLog writes a line to the host's log at a [LogLevel], tagged
	// with the route. Lines longer than [LogMaxLine] are truncated, and a
	// call's lines past [LogMaxPerCall] bytes are dropped. A line in
	// slog's text form without time and level, msg first
	// (`msg="user created" id=4`, what the Go SDK's logger writes), is
	// logged as one record of that message and those attributes; any
	// other line is the record's message.
	//
	//	log(level i32, msg i32, msg_len i32)
	ImportLog = "log"
)

// Part selects one validated part of the request in [ImportRequestValue].
type Part int32

// Request parts, as numbered on the wire.
const (
	// PartParams: the path parameters ("params").
	PartParams Part = 0
	// PartQuery: the query string's parameters ("query").
	PartQuery Part = 1
	// PartHeaders: the declared request headers ("headers").
	PartHeaders Part = 2
	// PartBody: the decoded request body ("body").
	PartBody Part = 3
)

// String returns the part's name as used in the envelope and in 400 bodies.
func (p Part) String() string {
	switch p {
	case PartParams:
		return "params"
	case PartQuery:
		return "query"
	case PartHeaders:
		return "headers"
	case PartBody:
		return "body"
	}
	return "unknown"
}

// Errno is the negative result a host function returns on an error the guest
// can handle. Zero and positive results are sizes or success.
type Errno int32

// Error codes of ABI v1.
const (
	// ErrNotFound: the value, parameter or header is absent.
	ErrNotFound Errno = -1
	// ErrInvalid: an argument is out of range or malformed (a status outside
	// 200-599, a header name that is not a token, a value with CR or LF, a
	// header the host owns, an unknown part).
	ErrInvalid Errno = -2
	// ErrHeadersSent: status or headers changed after body bytes reached the
	// client.
	ErrHeadersSent Errno = -3
	// ErrBodyTooLarge: the request body is larger than the host's limit.
	ErrBodyTooLarge Errno = -4
	// ErrIO: reading the request or writing the response failed, usually
	// because the client went away.
	ErrIO Errno = -5
	// ErrState: the function is not available now, e.g. request functions
	// called while the host reads the contract, outside any request.
	ErrState Errno = -6
	// ErrUnavailable: the key-value store cannot be reached, or has no
	// room; nothing was changed.
	ErrUnavailable Errno = -7
)

// VariableMaxValue is the longest value of a variable
// ([ImportVariableGet]), in bytes: 64 KiB.
const VariableMaxValue = 64 << 10

// Limits of the key-value functions.
const (
	// KVMaxKey is the longest key, in bytes.
	KVMaxKey = 1024
	// KVMaxValue is the longest value, in bytes.
	KVMaxValue = 1 << 20
	// KVListLimit is the most keys one kv_list call returns.
	KVListLimit = 1000
)

// Bounds of a contract: a module exporting a larger one fails its load, so
// that loading one module costs the host at most about a second.
const (
	// ContractMaxBytes is the largest contract (and runtime declaration)
	// the host reads: 1 MiB.
	ContractMaxBytes = 1 << 20
	// ContractMaxObjects is the most JSON objects (schemas, mostly) a
	// contract may hold: compiling schemas costs more than linear time in
	// their number.
	ContractMaxObjects = 5000
)

// Limits of the response and log functions: a guest that passes them gets
// [ErrInvalid] (headers) or a truncated line (log), never unbounded host
// memory or time.
const (
	// ResponseHeaderMaxCount is the most header values one answer may
	// carry.
	ResponseHeaderMaxCount = 100
	// ResponseHeaderMaxBytes is the most bytes the names and values of one
	// answer's headers may add up to.
	ResponseHeaderMaxBytes = 64 << 10
	// LogMaxLine is the longest log line, in bytes, whether written with
	// [ImportLog] or to stdout or stderr; a longer one is cut there and
	// marked as truncated, with its full length.
	LogMaxLine = 8 << 10
	// LogMaxPerCall is the most log bytes one call may write; the host
	// drops the rest and says so once.
	LogMaxPerCall = 1 << 20
)

// Error describes the code in a sentence.
func (e Errno) Error() string {
	switch e {
	case ErrNotFound:
		return "not found"
	case ErrInvalid:
		return "invalid argument"
	case ErrHeadersSent:
		return "headers already sent"
	case ErrBodyTooLarge:
		return "request body too large"
	case ErrIO:
		return "i/o error"
	case ErrState:
		return "not available outside a request"
	case ErrUnavailable:
		return "storage unavailable"
	case ErrNotAllowed:
		return "not allowed by outbound.allowedHosts"
	case ErrLimit:
		return "outbound limit reached"
	}
	return "unknown error"
}

// LogLevel is the level argument of [ImportLog]; it maps to log/slog levels.
type LogLevel int32

// Log levels of ABI v1, and the [log/slog] levels the host logs them at.
const (
	// LogDebug is [log/slog.LevelDebug].
	LogDebug LogLevel = 0
	// LogInfo is [log/slog.LevelInfo].
	LogInfo LogLevel = 1
	// LogWarn is [log/slog.LevelWarn].
	LogWarn LogLevel = 2
	// LogError is [log/slog.LevelError].
	LogError LogLevel = 3
)

// ForbiddenRequestHeaders are the request headers a middleware may not
// set: the ones that frame the request body or the connection. Names are
// in canonical form.
var ForbiddenRequestHeaders = []string{
	"Connection", "Content-Length", "Expect", "Host", "Keep-Alive",
	"Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

// Bounds of the context values middleware pass to handlers.
const (
	// ContextMaxValues is the most context values one request may carry.
	ContextMaxValues = 64
	// ContextMaxBytes is the most bytes the names and values of one
	// request's context may add up to, and the largest principal.
	ContextMaxBytes = 16 << 10
)

// Bounds of the status a guest gives its answer (response_set_status): a
// final status. An informational 1xx is no answer: net/http sent it as an
// interim response, then an empty 200 in place of what the guest wrote,
// and a 101 told the client, and any proxy between, that the connection
// had switched protocols while it went on in HTTP/1.1, which a proxy
// that tunnels after a 101 lets a client use to reach the host past it.
const (
	ResponseStatusMin = 200
	ResponseStatusMax = 599
)

// ForbiddenResponseHeaders are the response headers a guest may not set:
// hop-by-hop headers and framing headers that would lie about the body the
// host sends (RFC 9110 §7.6.1). Names are in canonical form.
var ForbiddenResponseHeaders = []string{
	"Connection", "Content-Length", "Keep-Alive", "Proxy-Connection",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade",
}
