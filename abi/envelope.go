package abi

import "encoding/json"

// Envelope kinds, the envelope's "kind" member.
const (
	// KindEndpoint is the envelope of an endpoint: a module with a
	// contract, its request validated.
	KindEndpoint = "endpoint"
	// KindPlain is the envelope of a plain route: a module without a
	// contract, its request raw.
	KindPlain = "plain"
	// KindMiddleware is the envelope of a middleware call; its Phase says
	// which export runs.
	KindMiddleware = "middleware"
)

// Phases of a middleware call, the envelope's "phase" member.
const (
	// PhaseBefore is a call of [ExportBefore].
	PhaseBefore = "before"
	// PhaseAfter is a call of [ExportAfter].
	PhaseAfter = "after"
	// PhaseVerify is a call of [ExportVerify].
	PhaseVerify = "verify"
)

// Envelope is the JSON document [ImportRequestRead] returns: the request as
// the guest sees it. For an endpoint, Params, Query, Headers and Body are the
// validated values, coerced to their schema types with defaults applied;
// Headers holds only the headers the contract declares. For a plain route,
// Params holds the raw strings of the route's bracket segments (a catch-all
// keeps its slashes) and Headers every request header as lower-case name to
// list of values.
//
//	{"kind":"endpoint","method":"GET","route":"/api/users/:id",
//	 "path":"/api/users/7","rawQuery":"expand=team",
//	 "params":{"id":7},"query":{"expand":["team"]},"headers":{}}
//
// Members that do not apply are omitted: Body when no body schema is
// declared (the raw bytes are read with [ImportBodyRead]), Query and Params
// when empty for a plain route.
type Envelope struct {
	// Kind is [KindEndpoint], [KindPlain] or [KindMiddleware].
	Kind string `json:"kind"`
	// Method is the request method in upper case. HEAD requests reach a GET
	// handler with Method "HEAD"; the host drops the body it writes.
	Method string `json:"method"`
	// Route is the route template in client form: /api/users/:id.
	Route string `json:"route"`
	// Path is the request path as received, still escaped.
	Path string `json:"path"`
	// RawQuery is the query string as received, without '?'.
	RawQuery string `json:"rawQuery,omitempty"`
	// Params are the path parameters.
	Params json.RawMessage `json:"params,omitempty"`
	// Query is the validated query (endpoints only).
	Query json.RawMessage `json:"query,omitempty"`
	// Headers are the validated declared headers (endpoints) or every
	// header (plain routes).
	Headers json.RawMessage `json:"headers,omitempty"`
	// Body is the validated JSON body (endpoints declaring a body schema).
	Body json.RawMessage `json:"body,omitempty"`
	// MediaType is the media type content negotiation chose for the answer
	// (RFC 9110 §12.5.1), for an endpoint that offers more than one across
	// its 2xx responses; the guest answers in it. Absent otherwise.
	MediaType string `json:"mediaType,omitempty"`
	// ContentType is the media type of the request body, lower case and
	// without parameters ("multipart/form-data", "text/csv"), for an
	// endpoint whose request carried one. Body holds the decoded value for
	// JSON, form and multipart bodies; any other type is read raw with
	// [ImportBodyRead].
	ContentType string `json:"contentType,omitempty"`
	// Files lists the file parts of a multipart/form-data body in the
	// order received; [ImportFileRead] reads one by its index. In Body, a
	// file field holds its file name.
	Files []File `json:"files,omitempty"`
	// RequestID identifies the request: the client's X-Request-Id when it
	// sent a usable one, otherwise one the host made. The host logs it and
	// answers it in X-Request-Id.
	RequestID string `json:"requestId,omitempty"`
	// TraceID is the trace id of the request's W3C Trace Context
	// (https://www.w3.org/TR/trace-context/#traceparent-header): the 32
	// lowercase hexadecimal digits of its traceparent header, when that is
	// a valid version 00 one; absent otherwise. The header comes from the
	// client, a proxy in front, or the host's own server span when
	// tracing is on (docs/spec.md §12). Log it to tie a guest's
	// lines to the trace.
	TraceID string `json:"traceId,omitempty"`
	// Auth is the client the host authenticated for the operation's
	// security requirement; absent when the operation requires none or an
	// optional requirement ({}) was met without credentials.
	Auth *Principal `json:"auth,omitempty"`
	// Context holds the values middleware set with [ImportContextSet].
	Context map[string]string `json:"context,omitempty"`
	// Phase is, for [KindMiddleware], the export being called:
	// [PhaseBefore], [PhaseAfter] or [PhaseVerify].
	Phase string `json:"phase,omitempty"`
	// Verify is, in [PhaseVerify], what to verify.
	Verify *VerifyRequest `json:"verify,omitempty"`
	// Response is, in [PhaseAfter], the answer the handler gave.
	Response *ResponseSummary `json:"response,omitempty"`
	// Error is the validation failure handed to [ExportOnValidationError].
	// Params, Query, Headers and Body are absent then: they did not pass.
	Error *ValidationFailure `json:"error,omitempty"`
}

// File is one file part of a multipart/form-data request body.
//
//	{"name":"photo","filename":"me.png","contentType":"image/png","size":5120}
type File struct {
	// Name is the form field the file was sent as.
	Name string `json:"name"`
	// Filename is the file name the client gave, as sent (untrusted: never
	// use it as a path).
	Filename string `json:"filename"`
	// ContentType is the part's media type; "application/octet-stream"
	// when the client sent none.
	ContentType string `json:"contentType"`
	// Size is the file's length in bytes.
	Size int64 `json:"size"`
}

// Kinds of [ValidationFailure].
const (
	// FailureSchema: a part of the request failed its schema (400).
	FailureSchema = "schema"
	// FailureMediaType: the body's media type is not declared (415).
	FailureMediaType = "media-type"
	// FailureAccept: no declared response type is acceptable (406).
	FailureAccept = "accept"
)

// ValidationFailure is a request the host refused before the handler ran,
// as [ExportOnValidationError] receives it in the envelope's "error"
// member.
//
//	{"kind":"schema","status":400,"part":"query",
//	 "issues":{"query":[{"path":["limit"],"message":"must be <= 100"}]},
//	 "default":{"statusCode":400,"statusMessage":"Validation Error","data":{...}}}
type ValidationFailure struct {
	// Kind is [FailureSchema], [FailureMediaType] or [FailureAccept].
	Kind string `json:"kind"`
	// Status is the status of the default answer: 400, 415 or 406.
	Status int `json:"status"`
	// Part is the part that failed: "body" for a media type, "headers"
	// (the Accept header) for negotiation, and for a schema failure the
	// first failing part in the order params, query, headers, body.
	Part string `json:"part"`
	// Issues are a schema failure's problems by part, as in the default
	// 400 body.
	Issues map[string][]Issue `json:"issues,omitempty"`
	// Received is the Content-Type (415) or Accept (406) the client sent.
	Received string `json:"received,omitempty"`
	// SupportedMediaTypes are the types the endpoint accepts (415) or
	// offers (406).
	SupportedMediaTypes []string `json:"supportedMediaTypes,omitempty"`
	// Default is the body the host answers when every hook declines:
	// {"statusCode", "statusMessage", "data"}.
	Default json.RawMessage `json:"default,omitempty"`
}

// Issue is one validation problem: where (a JSON path of property names
// and array indexes) and what.
type Issue struct {
	// Path locates the value: property names (strings) and array indexes
	// (numbers), from the part's root; empty for the part itself.
	Path []any `json:"path"`
	// Message says what is wrong, in English: "must be at least 1".
	Message string `json:"message"`
}

// Principal is a client the host authenticated: by a built-in verifier
// (a JWT, an API key, a password) or by a middleware's [ExportVerify].
//
//	{"scheme":"bearer","subject":"alice","scopes":["users:write"],
//	 "claims":{"iss":"https://users.example","sub":"alice","exp":1795000000}}
type Principal struct {
	// Scheme is the name of the security scheme that verified the client
	// (a key of components.securitySchemes).
	Scheme string `json:"scheme"`
	// Subject identifies the client: a JWT's "sub", an API key's or a
	// user's configured subject.
	Subject string `json:"subject"`
	// Scopes are what the client may do: a JWT's "scope" (or "scp"), or
	// the scopes configured for the key or user.
	Scopes []string `json:"scopes,omitempty"`
	// Claims are all the claims of a JWT, or what a middleware verifier
	// recorded.
	Claims json.RawMessage `json:"claims,omitempty"`
}

// VerifyRequest is the "verify" member of a [PhaseVerify] envelope.
type VerifyRequest struct {
	// Scheme is the name of the security scheme to verify.
	Scheme string `json:"scheme"`
	// Scopes are the scopes the operation requires of this scheme; the
	// host checks them against the principal's.
	Scopes []string `json:"scopes,omitempty"`
}

// ResponseSummary is the "response" member of a [PhaseAfter] envelope.
type ResponseSummary struct {
	// Status is the status of the answer.
	Status int `json:"status"`
	// Sent reports that the answer already went out (a stream, a plain
	// route's bytes): response headers can no longer change.
	Sent bool `json:"sent,omitempty"`
}

// Middleware is the declaration a middleware module returns from
// [ExportMiddleware]: which requests it wraps.
//
//	{"routes": ["/api/**"], "methods": ["POST", "PATCH"]}
type Middleware struct {
	// Routes are patterns of route templates in client form, as in
	// server/routes.config.json: "/api/users/:id" matches that route,
	// "/api/**" every route under /api. Empty: every route.
	Routes []string `json:"routes,omitempty"`
	// Methods are the upper-case methods it wraps. Empty: every method.
	Methods []string `json:"methods,omitempty"`
	// Phases, when set, are the exports the host calls, of "before",
	// "after" and "verify": for SDKs whose modules export all three
	// whatever the middleware implements (Go's //go:wasmexport cannot be
	// conditional), so a middleware without After costs no call. Empty:
	// every one the module exports.
	Phases []string `json:"phases,omitempty"`
	// Responses are the answers the middleware gives itself instead of
	// calling the handler (its 429, its 401), by status, as in a
	// contract: the document lists them on every operation the middleware
	// wraps, beside the operation's own. The host does not check them.
	Responses map[string]*Response `json:"responses,omitempty"`
}
