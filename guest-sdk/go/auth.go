package endpoints

import (
	"encoding/json"
	"slices"

	"github.com/wasmendpoints/endpoints/abi"
)

// Principal is the client the host authenticated for the operation's
// security requirement: who (Subject), through which scheme, with which
// scopes, and, for a JWT, its claims.
type Principal struct {
	// Scheme is the security scheme that verified the client.
	Scheme string `json:"scheme"`
	// Subject identifies the client: a JWT's "sub", an API key's or a
	// user's configured subject.
	Subject string `json:"subject"`
	// Scopes are what the client may do.
	Scopes []string `json:"scopes,omitempty"`
	// Claims are a JWT's claims as signed (decode them with
	// [Principal.DecodeClaims]); nil for other schemes.
	Claims json.RawMessage `json:"claims,omitempty"`
}

// HasScope reports whether the principal has scope.
func (p *Principal) HasScope(scope string) bool {
	return p != nil && slices.Contains(p.Scopes, scope)
}

// DecodeClaims decodes the JWT claims into v, a pointer to a struct or a
// map.
//
//	var c struct{ Tenant string `json:"tenant"` }
//	if err := endpoints.Auth().DecodeClaims(&c); err != nil { ... }
func (p *Principal) DecodeClaims(v any) error {
	if p == nil || len(p.Claims) == 0 {
		return json.Unmarshal([]byte("{}"), v)
	}
	return json.Unmarshal(p.Claims, v)
}

// Auth returns the client the host authenticated for the current request,
// or nil when the operation requires no credential (or an optional one was
// not sent) and outside a request. The host has verified the credential and
// the scopes the operation requires before the handler runs; use Auth to
// decide per resource:
//
//	if p := endpoints.Auth(); p.Subject != owner && !p.HasScope("admin") {
//		return endpoints.Respond(403, problem("not your order"))
//	}
func Auth() *Principal {
	scanEnvelope()
	if request.auth == nil || isNull(request.auth) {
		return nil
	}
	var p Principal
	if err := json.Unmarshal(request.auth, &p); err != nil {
		hostLog(abi.LogWarn, "endpoints: Auth: the envelope's auth member: "+err.Error())
		return nil
	}
	return &p
}

// RequestID returns the id of the current request: the client's
// X-Request-Id when it sent a usable one, otherwise one the host made. The
// host's log lines carry it; log it too to tie a guest's lines to them.
// "" outside a request.
func RequestID() string {
	scanEnvelope()
	if request.requestID == nil {
		return ""
	}
	s, err := decodeString(request.requestID)
	if err != nil {
		return ""
	}
	return s
}

// TraceID returns the trace id of the current request's W3C Trace
// Context: 32 lowercase hexadecimal digits, from a valid traceparent header
// the client, a proxy or the host's tracing set. "" when the request
// carried none, and outside a request. Log it to tie a guest's lines to
// the request's trace.
//
//	endpoints.Logger().Info("charging the card", "traceId", endpoints.TraceID())
func TraceID() string {
	scanEnvelope()
	if request.traceID == nil {
		return ""
	}
	s, err := decodeString(request.traceID)
	if err != nil {
		return ""
	}
	return s
}

// Value returns a context value a middleware set for the current request
// (abi context_set), and whether it was set.
//
//	tenant, ok := endpoints.Value("tenant")
func Value(name string) (string, bool) {
	scanEnvelope()
	if request.context == nil {
		return "", false
	}
	var m map[string]string
	if err := json.Unmarshal(request.context, &m); err != nil {
		return "", false
	}
	v, ok := m[name]
	return v, ok
}

// note keeps the envelope members the accessors read; it reports whether
// key was one of them.
func (r *requestState) note(key string, value []byte) bool {
	switch key {
	case keyMediaType:
		r.mediaType = value
	case keyContentType:
		r.contentType = value
	case keyAuth:
		r.auth = value
	case keyRequestID:
		r.requestID = value
	case keyTraceID:
		r.traceID = value
	case keyContext:
		r.context = value
	default:
		return false
	}
	return true
}

// scanEnvelope records the members of the current envelope the accessors
// read, once per request.
func scanEnvelope() {
	if request.scanned {
		return
	}
	// A broken envelope failed the request before its handler ran.
	_ = eachMember(request.envelope, func(k string, value []byte) error {
		request.note(k, value)
		return nil
	})
	request.scanned = true
}
