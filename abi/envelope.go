package abi

import "encoding/json"

// Envelope kinds.
const (
	KindEndpoint = "endpoint"
	KindPlain    = "plain"
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
	// Kind is [KindEndpoint] or [KindPlain].
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
	// Error is the validation failure handed to [ExportOnValidationError].
	Error json.RawMessage `json:"error,omitempty"`
}
