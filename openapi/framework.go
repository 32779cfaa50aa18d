package openapi

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"encoding/json"

	"github.com/wasmendpoints/endpoints/internal/answer"
)

// Names of the component schemas of the framework's own responses (docs/spec.md
// §4): the bodies the host writes for 400, 406, 408, 413 and 415. A $defs entry of a
// contract or routes configuration may use one of these names only with
// the very same schema.
const (
	// SchemaValidationError is the 400 body:
	//	{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"path":["limit"],"message":"..."}]}}
	SchemaValidationError = "EndpointsValidationError"
	// SchemaValidationIssue is one item of a part's issue list in
	// SchemaValidationError: {"path": ["items", 0], "message": "..."}.
	SchemaValidationIssue = "EndpointsValidationIssue"
	// SchemaUnsupportedMediaType is the 415 body; its data has "received"
	// and "supportedMediaTypes".
	SchemaUnsupportedMediaType = "EndpointsUnsupportedMediaType"
	// SchemaNotAcceptable is the 406 body, shaped like the 415 one.
	SchemaNotAcceptable = "EndpointsNotAcceptable"
	// SchemaContentTooLarge is the 413 body; its data has the "limit" in
	// bytes the body passed (limits.bodyBytes, or the operation's maxBytes):
	//	{"statusCode":413,"statusMessage":"Request Entity Too Large","data":{"limit":1048576}}
	SchemaContentTooLarge = "EndpointsContentTooLarge"
	// SchemaRequestTimeout is the 408 body of a request body that did not
	// arrive whole within server.readTimeout; its data says so:
	//	{"statusCode":408,"statusMessage":"Request Timeout","data":{"error":"the request body did not arrive within 30s (server.readTimeout)"}}
	SchemaRequestTimeout = "EndpointsRequestTimeout"
	// SchemaIdempotencyProblem is the Problem Details body (RFC 9457,
	// application/problem+json) of an Idempotency-Key failure (docs/spec.md §6):
	//	{"type":"urn:endpoints:problem:idempotency-key-reused","title":"...","status":422,"detail":"...","code":"IDEMPOTENCY_KEY_REUSED"}
	SchemaIdempotencyProblem = "EndpointsIdempotencyProblem"
)

// Codes of the Idempotency-Key failures (docs/spec.md §6), the "code" member of
// their Problem Details.
const (
	// CodeKeyInvalid: 400, the Idempotency-Key header is malformed.
	CodeKeyInvalid = "IDEMPOTENCY_KEY_INVALID"
	// CodeKeyRequired: 400, the operation requires a key and the request
	// has none.
	CodeKeyRequired = "IDEMPOTENCY_KEY_REQUIRED"
	// CodeKeyReused: 422, the key was used for a different request.
	CodeKeyReused = "IDEMPOTENCY_KEY_REUSED"
	// CodeInFlight: 409, a request with the key is still running.
	CodeInFlight = "IDEMPOTENCY_REQUEST_IN_FLIGHT"
	// CodeLeaseLost: 409, the request ran past its lease; its answer was
	// not kept.
	CodeLeaseLost = "IDEMPOTENCY_LEASE_LOST"
	// CodeStoreUnavailable: 503, the store could not be reached; nothing
	// ran.
	CodeStoreUnavailable = "IDEMPOTENCY_STORE_UNAVAILABLE"
	// CodeClientQuota: 429, the client's records kept for replay take its
	// whole share of the store; nothing ran. Retry-After says when its
	// first record expires.
	CodeClientQuota = "IDEMPOTENCY_CLIENT_QUOTA"
)

// IdempotencyHeader is the request header carrying the key.
const IdempotencyHeader = "Idempotency-Key"

// IdempotencyKeyPattern is the pattern of the Idempotency-Key header in the
// document, as the host accepts it (docs/spec.md §6): 1-255 visible ASCII
// characters but ',', bare, or as a quoted structured-field string
// (RFC 8941 §3.3.3) whose unquoted value follows the same rule. A bare key
// does not start with '"'. It reads the same in ECMA-262 and RE2.
const IdempotencyKeyPattern = `^(?:[\x21\x23-\x2B\x2D-\x7E][\x21-\x2B\x2D-\x7E]{0,254}|"(?:[\x21\x23-\x2B\x2D-\x5B\x5D-\x7E]|\\["\\]){1,255}")$`

// mediaProblem is the media type of Problem Details.
const mediaProblem = "application/problem+json"

// frameworkResponse is a response the host makes itself, without the
// guest: documented for every operation that can reach it (docs/spec.md §7).
// Later framework responses (the Problem Details of Idempotency-Key
// handling, docs/spec.md §6) are added to frameworkResponses the same way.
type frameworkResponse struct {
	status      int
	description string
	mediaType   string
	// schema is the component the body is described by; uses are the
	// components it needs, itself included.
	schema string
	uses   []string
	// reaches reports whether op can answer with this response.
	reaches func(op *Route) bool
	// headers are the headers the host sends with it.
	headers map[string]*Header
	// example, when not nil, makes the body the host would send op, the
	// example of the response when the host's body is its only one; nil
	// from it, or no example func, leaves the schema's generic example.
	example func(op *Route) json.RawMessage
}

// retryAfter is the Retry-After header (RFC 9110 §10.2.3) the host sends,
// in seconds, not required.
func retryAfter(description string) map[string]*Header {
	return map[string]*Header{"Retry-After": {Description: description,
		Schema: json.RawMessage(`{"type": "integer", "minimum": 1}`)}}
}

// retryAfterAlways is retryAfter required: the header of a 503 the host
// sends with every one (a database's, the idempotency store's, the host's
// own). Beside a status the app declares, whose answers may lack it, it
// is not required (optionalHeaders).
func retryAfterAlways(description string) map[string]*Header {
	h := retryAfter(description)
	h["Retry-After"].Required = true
	return h
}

// optionalHeaders returns headers with none required: the host's headers
// of a status the app declares too, whose own answers need not carry
// them.
func optionalHeaders(headers map[string]*Header) map[string]*Header {
	out := make(map[string]*Header, len(headers))
	for name, h := range headers {
		if h != nil && h.Required {
			c := *h
			c.Required = false
			h = &c
		}
		out[name] = h
	}
	return out
}

// replayedHeader is sent with an answer replayed for a repeated
// Idempotency-Key (docs/spec.md §6).
var replayedHeader = map[string]*Header{"Idempotent-Replayed": {
	Description: "Present, with the value true, when this is the stored answer of an earlier request with the same Idempotency-Key",
	Schema:      json.RawMessage(`{"type": "string", "enum": ["true"]}`)}}

// varyAccept is sent with every answer of an operation that negotiates
// its media type.
var varyAccept = map[string]*Header{"Vary": {
	Description: "Accept: the answer depends on the request's Accept header",
	Schema:      json.RawMessage(`{"type": "string"}`)}}

// frameworkResponses are the framework responses, in the order they are
// added to an operation (after the contract's and the routes
// configuration's).
var frameworkResponses = []frameworkResponse{
	{
		// "Validation Error" is the statusMessage of the host's 400.
		status: http.StatusBadRequest, description: "Validation Error", mediaType: mediaJSON,
		schema: SchemaValidationError, uses: []string{SchemaValidationError, SchemaValidationIssue},
		reaches: declaresRequestPart,
	},
	{
		status: http.StatusNotAcceptable, description: http.StatusText(http.StatusNotAcceptable), mediaType: mediaJSON,
		schema: SchemaNotAcceptable, uses: []string{SchemaNotAcceptable},
		reaches: func(op *Route) bool { return op.Negotiates },
		example: func(op *Route) json.RawMessage {
			return mediaTypeExample(http.StatusNotAcceptable, op.Offers, notAcceptableSample)
		},
	},
	{
		// JSON is read as UTF-8 only (RFC 8259 §8.1): the host refuses a
		// JSON body whose Content-Type names another charset rather than
		// read it as other text than the client meant.
		status: http.StatusUnsupportedMediaType, description: "Unsupported Media Type: not a declared request media type, or JSON in a charset other than utf-8", mediaType: mediaJSON,
		schema: SchemaUnsupportedMediaType, uses: []string{SchemaUnsupportedMediaType},
		reaches: func(op *Route) bool { return op.Contract.Request != nil && op.Contract.Request.Body != nil },
		example: func(op *Route) json.RawMessage {
			return mediaTypeExample(http.StatusUnsupportedMediaType, op.Accepts, unsupportedSample)
		},
	},
	{
		status: http.StatusRequestEntityTooLarge, description: "The request body is larger than the host accepts", mediaType: mediaJSON,
		schema: SchemaContentTooLarge, uses: []string{SchemaContentTooLarge},
		reaches: func(op *Route) bool { return op.Contract.Request != nil && op.Contract.Request.Body != nil },
		example: func(op *Route) json.RawMessage {
			if op.BodyLimit <= 0 {
				return nil
			}
			return hostErrorExample(http.StatusRequestEntityTooLarge, struct {
				Limit int64 `json:"limit"`
			}{op.BodyLimit})
		},
	},
	{
		// The host reads the body before the guest runs; a client slower
		// than server.readTimeout gets this, and the connection closes.
		status: http.StatusRequestTimeout, description: "The request body did not arrive whole within the server's read timeout (server.readTimeout)", mediaType: mediaJSON,
		schema: SchemaRequestTimeout, uses: []string{SchemaRequestTimeout},
		reaches: func(op *Route) bool { return op.Contract.Request != nil && op.Contract.Request.Body != nil },
	},
	{
		// The host's answer for the route's database (down, or waiting
		// for its migrations); in production without data. A guest's
		// SDK answers a statement that failed unavailable the same way.
		status: http.StatusServiceUnavailable, description: "The database the operation uses is down or waits for its migrations; try again after Retry-After seconds", mediaType: mediaJSON,
		schema: SchemaServiceUnavailable, uses: []string{SchemaServiceUnavailable},
		reaches: func(op *Route) bool { return op.Database },
		headers: retryAfterAlways("Seconds until the host tries the database again"),
		example: func(*Route) json.RawMessage {
			return hostErrorExample(http.StatusServiceUnavailable, nil)
		},
	},
	{
		status: http.StatusBadRequest, description: "The Idempotency-Key is malformed, or required and missing", mediaType: mediaProblem,
		schema: SchemaIdempotencyProblem, uses: []string{SchemaIdempotencyProblem}, reaches: idempotent,
	},
	{
		status: http.StatusConflict, description: "A request with this Idempotency-Key is still running, or ran past its lease", mediaType: mediaProblem,
		schema: SchemaIdempotencyProblem, uses: []string{SchemaIdempotencyProblem}, reaches: idempotent,
		headers: retryAfter("Seconds until the running request's lease ends"),
	},
	{
		status: http.StatusUnprocessableEntity, description: "The Idempotency-Key was used for a different request", mediaType: mediaProblem,
		schema: SchemaIdempotencyProblem, uses: []string{SchemaIdempotencyProblem}, reaches: idempotent,
	},
	{
		status: http.StatusTooManyRequests, description: "The client's Idempotency-Key records take its whole share of the store; nothing ran", mediaType: mediaProblem,
		schema: SchemaIdempotencyProblem, uses: []string{SchemaIdempotencyProblem}, reaches: idempotent,
		headers: retryAfter("Seconds until the client's oldest record expires"),
	},
	{
		status: http.StatusServiceUnavailable, description: "The idempotency store cannot be reached; nothing ran", mediaType: mediaProblem,
		schema: SchemaIdempotencyProblem, uses: []string{SchemaIdempotencyProblem}, reaches: idempotent,
		headers: retryAfterAlways("Seconds to wait before retrying with the same key"),
	},
}

// Media types the examples of a 415 and a 406 show a client sending: the
// first the operation does not take (accept, or answer with) is shown.
var (
	unsupportedSample   = []string{"text/plain", "application/xml", "application/octet-stream"}
	notAcceptableSample = []string{"text/html", "application/xml", "image/png"}
)

// hostErrorExample is the body the host writes for status with data (nil
// for none), as it writes it (answer.ErrorBody): the same members and
// values, which the encoded document sorts.
func hostErrorExample(status int, data any) json.RawMessage {
	b, err := answer.ErrorBody(status, "", data)
	if err != nil {
		panic(err) // numbers, strings and lists of strings
	}
	return b
}

// mediaTypeExample is the 406 or 415 (status) the host would answer a
// client that sends the first of samples no type of supported matches:
// the types as the host lists them. It is nil when supported is not
// known or takes every sample.
func mediaTypeExample(status int, supported, samples []string) json.RawMessage {
	if len(supported) == 0 {
		return nil
	}
	for _, sample := range samples {
		if !slices.ContainsFunc(supported, func(mt string) bool { return mediaRangeMatches(mt, sample) }) {
			return hostErrorExample(status, struct {
				Received            string   `json:"received"`
				SupportedMediaTypes []string `json:"supportedMediaTypes"`
			}{sample, supported})
		}
	}
	return nil
}

// mediaRangeMatches reports whether the media type or range declared
// (text/plain, text/*, */*, with parameters or not) matches mt, a type
// without parameters.
func mediaRangeMatches(declared, mt string) bool {
	base, _, _ := strings.Cut(declared, ";")
	typ, sub, _ := strings.Cut(strings.ToLower(strings.TrimSpace(base)), "/")
	mtyp, msub, _ := strings.Cut(mt, "/")
	return (typ == "*" || typ == mtyp) && (sub == "*" || sub == msub)
}

// idempotent reports whether op takes an Idempotency-Key.
func idempotent(op *Route) bool { return op.Contract.Idempotency != nil }

// declaresRequestPart reports whether op validates any request part, so a
// 400 is reachable.
func declaresRequestPart(op *Route) bool {
	r := op.Contract.Request
	return r != nil && (len(r.Params) > 0 || len(r.Query) > 0 || len(r.Headers) > 0 || r.Body != nil)
}

// frameworkSchemas are the component schemas of the framework responses,
// matching host.FrameworkError with host.ValidationData (whose issues are
// validation.Issue), host.MediaTypeData or, for a 500, host.ContractErrorData
// or why the guest failed.
var frameworkSchemas = map[string]json.RawMessage{
	SchemaValidationError: annotated(json.RawMessage(fmt.Sprintf(`{
		"type": "object",
		"required": ["statusCode", "statusMessage", "data"],
		"additionalProperties": false,
		"properties": {
			"statusCode": {"type": "integer", "enum": [%d]},
			"statusMessage": {"type": "string"},
			"data": {
				"type": "object",
				"additionalProperties": false,
				"properties": {
					"params": {"type": "array", "items": {"$ref": %q}},
					"query": {"type": "array", "items": {"$ref": %[2]q}},
					"headers": {"type": "array", "items": {"$ref": %[2]q}},
					"body": {"type": "array", "items": {"$ref": %[2]q}}
				}
			}
		}
	}`, http.StatusBadRequest, componentPrefix+SchemaValidationIssue)), "The 400 answer of a request its contract refuses: a list of issues for each request part that failed (params, query, headers, body).", `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"path":["name"],"message":"must contain at least 1 character"}]}}`),
	SchemaValidationIssue: annotated(json.RawMessage(`{
		"type": "object",
		"required": ["path", "message"],
		"additionalProperties": false,
		"properties": {
			"path": {"type": "array", "items": {"type": ["string", "integer"]}},
			"message": {"type": "string"}
		}
	}`), "One problem of a request part: where (the JSON path of the value, as property names and item indexes) and what is wrong."),
	SchemaUnsupportedMediaType: annotated(mediaTypeErrorSchema(http.StatusUnsupportedMediaType), "The 415 answer: the request body's media type is not one the operation accepts.", `{"statusCode":415,"statusMessage":"Unsupported Media Type","data":{"received":"text/plain","supportedMediaTypes":["application/json"]}}`),
	SchemaNotAcceptable:        annotated(mediaTypeErrorSchema(http.StatusNotAcceptable), "The 406 answer: none of the media types the request's Accept header names is one the operation answers with.", `{"statusCode":406,"statusMessage":"Not Acceptable","data":{"received":"text/html","supportedMediaTypes":["application/json"]}}`),
	SchemaContentTooLarge: annotated(errorSchema(http.StatusRequestEntityTooLarge, `{
		"type": "object",
		"required": ["limit"],
		"additionalProperties": false,
		"properties": {"limit": {"type": "integer", "minimum": 0}}
	}`), "The 413 answer: the request body is larger than the limit, in bytes.", `{"statusCode":413,"statusMessage":"Request Entity Too Large","data":{"limit":1048576}}`),
	SchemaRequestTimeout: annotated(errorSchema(http.StatusRequestTimeout, `{
		"type": "object",
		"required": ["error"],
		"additionalProperties": false,
		"properties": {"error": {"type": "string", "description": "Which timeout passed."}}
	}`), "The 408 answer: the request body did not arrive whole within the server's read timeout (server.readTimeout); the connection is closed after it.", `{"statusCode":408,"statusMessage":"Request Timeout","data":{"error":"the request body did not arrive within 30s (server.readTimeout)"}}`),
	SchemaIdempotencyProblem: annotated(json.RawMessage(fmt.Sprintf(`{
		"type": "object",
		"required": ["type", "title", "status", "detail", "code"],
		"additionalProperties": false,
		"properties": {
			"type": {"type": "string", "description": "A URI naming the kind of problem."},
			"title": {"type": "string"},
			"status": {"type": "integer", "enum": [400, 409, 422, 429, 503]},
			"detail": {"type": "string"},
			"code": {"type": "string", "enum": [%q, %q, %q, %q, %q, %q, %q]}
		}
	}`, CodeKeyInvalid, CodeKeyRequired, CodeKeyReused, CodeInFlight, CodeLeaseLost, CodeStoreUnavailable, CodeClientQuota)), "The Problem Details (RFC 9457) of an Idempotency-Key failure; code says which.", `{"type":"urn:endpoints:problem:idempotency-key-required","title":"Idempotency-Key required","status":400,"detail":"this operation requires an Idempotency-Key header","code":"IDEMPOTENCY_KEY_REQUIRED"}`, `{"type":"urn:endpoints:problem:idempotency-request-in-flight","title":"Request in flight","status":409,"detail":"a request with this Idempotency-Key is still running; retry after it ends","code":"IDEMPOTENCY_REQUEST_IN_FLIGHT"}`, `{"type":"urn:endpoints:problem:idempotency-key-reused","title":"Idempotency-Key reused","status":422,"detail":"this Idempotency-Key was used for a different request","code":"IDEMPOTENCY_KEY_REUSED"}`, `{"type":"urn:endpoints:problem:idempotency-client-quota","title":"Idempotency-Key records over the client's share","status":429,"detail":"this client's Idempotency-Key records, kept for replay, take its whole share of the store (1572864 bytes); nothing ran. Retry after Retry-After seconds, when its oldest record expires, and send a new key only for a new operation","code":"IDEMPOTENCY_CLIENT_QUOTA"}`, `{"type":"urn:endpoints:problem:idempotency-store-unavailable","title":"Idempotency store unavailable","status":503,"detail":"the store that makes this operation idempotent cannot be reached; nothing ran, retry later with the same key","code":"IDEMPOTENCY_STORE_UNAVAILABLE"}`),
	SchemaUnauthorized: annotated(json.RawMessage(`{
		"type": "object",
		"required": ["statusCode", "statusMessage", "data"],
		"additionalProperties": false,
		"properties": {
			"statusCode": {"type": "integer", "enum": [401]},
			"statusMessage": {"type": "string"},
			"data": {
				"type": "object",
				"required": ["schemes"],
				"additionalProperties": false,
				"properties": {
					"schemes": {"type": "array", "items": {"type": "string"}, "description": "The security schemes any of which would do."},
					"error": {"type": "string", "description": "Why the credential sent was refused; absent when none was sent."}
				}
			}
		}
	}`), "The 401 answer: the request carries no credential any of the operation's security schemes accepts.", `{"statusCode":401,"statusMessage":"Unauthorized","data":{"schemes":["bearer"]}}`),
	SchemaForbidden: annotated(json.RawMessage(`{
		"type": "object",
		"required": ["statusCode", "statusMessage", "data"],
		"additionalProperties": false,
		"properties": {
			"statusCode": {"type": "integer", "enum": [403]},
			"statusMessage": {"type": "string"},
			"data": {
				"type": "object",
				"required": ["scheme", "missingScopes"],
				"additionalProperties": false,
				"properties": {
					"scheme": {"type": "string"},
					"missingScopes": {"type": "array", "items": {"type": "string"}}
				}
			}
		}
	}`), "The 403 answer: the credential is good but lacks scopes the operation requires.", `{"statusCode":403,"statusMessage":"Forbidden","data":{"scheme":"bearer","missingScopes":["users:write"]}}`),
	SchemaTooManyRequests: annotated(json.RawMessage(`{
		"type": "object",
		"required": ["statusCode", "statusMessage", "data"],
		"additionalProperties": false,
		"properties": {
			"statusCode": {"type": "integer", "enum": [429]},
			"statusMessage": {"type": "string"},
			"data": {
				"type": "object",
				"required": ["policy", "retryAfter"],
				"additionalProperties": false,
				"properties": {
					"policy": {"type": "string", "description": "The name of the rate limit."},
					"retryAfter": {"type": "integer", "minimum": 1, "description": "Seconds until a request may pass, as in Retry-After."}
				}
			}
		}
	}`), "The 429 answer of a rate limit: which limit, and the seconds until a request may pass.", `{"statusCode":429,"statusMessage":"Too Many Requests","data":{"policy":"orders","retryAfter":12}}`),
	// data is open: development adds why (the route, the guest's
	// output) and a Response Contract Error its status and issues.
	SchemaInternalServerError: annotated(json.RawMessage(fmt.Sprintf(`{
		"type": "object",
		"required": ["statusCode", "statusMessage"],
		"additionalProperties": false,
		"properties": {
			"statusCode": {"type": "integer", "enum": [500]},
			"statusMessage": {"type": "string", "description": "Internal Server Error, or Response Contract Error for an answer that broke its contract."},
			"data": {
				"type": "object",
				"description": "Why, in development (and for a Response Contract Error wherever answers are checked); absent in production.",
				"properties": {
					"error": {"type": "string", "description": "Why the operation failed."},
					"route": {"type": "string", "description": "The route whose guest failed."},
					"middleware": {"type": "string", "description": "The middleware module that failed."},
					"output": {"type": "array", "items": {"type": "string"}, "description": "The last lines the guest wrote to stdout and stderr."},
					"status": {"type": "integer", "description": "The status the guest answered, for a Response Contract Error."},
					"issues": {"type": "array", "items": {"$ref": %q}, "description": "What is wrong with the guest's answer, for a Response Contract Error."}
				}
			}
		}
	}`, componentPrefix+SchemaValidationIssue)), "The 500 answer: the operation failed on the server (its guest trapped, ran past its deadline, broke a limit or failed; a middleware failed; its answer broke its contract). In production it carries no data; in development, data says why.", `{"statusCode":500,"statusMessage":"Internal Server Error"}`, `{"statusCode":500,"statusMessage":"Internal Server Error","data":{"error":"the handler ran past its deadline of 30s (limits.timeout)","route":"/api/users/:id"}}`, `{"statusCode":500,"statusMessage":"Response Contract Error","data":{"status":201,"issues":[{"path":[],"message":"status 201 is not declared"}]}}`),
	// data is open: the host's other 503s of the operation (every instance
	// busy, a database down) share the status, and in development carry
	// more of why.
	SchemaServiceUnavailable: annotated(json.RawMessage(`{
		"type": "object",
		"required": ["statusCode", "statusMessage"],
		"additionalProperties": false,
		"properties": {
			"statusCode": {"type": "integer", "enum": [503]},
			"statusMessage": {"type": "string"},
			"data": {
				"type": "object",
				"properties": {
					"error": {"type": "string", "description": "Why the request cannot be served now."}
				}
			}
		}
	}`), "The 503 answer the host gives when it cannot serve the request now (no instance of the route's module came free in time, its code is still loading, the server is shutting down, a bundle's route refuses a client whose calls all trapped, its credentials cannot be verified, its rate limits cannot be checked, its database is down or waits for its migrations): try again after Retry-After seconds.", `{"statusCode":503,"statusMessage":"Service Unavailable","data":{"error":"credentials cannot be verified now; try again later"}}`, `{"statusCode":503,"statusMessage":"Service Unavailable"}`),
}

// FrameworkSchema returns the JSON Schema of the body of a framework
// response, named by one of the Schema... constants, as a schema that
// stands alone: the schemas it references are under its "$defs"
// ({"$ref": "#/$defs/EndpointsValidationError", "$defs": {...}}). It
// reports false for any other name.
//
// The host checks with it that an answer a guest sends in the
// framework's own shape (a 400 Validation Error body, from an SDK that
// refuses a value its Go type cannot hold, or from a validation-error
// hook that keeps the default) is one the document lists for the
// operation.
func FrameworkSchema(name string) ([]byte, bool) {
	if _, ok := frameworkSchemas[name]; !ok {
		return nil, false
	}
	out := []byte(`{"$ref":` + strconv.Quote(defsPrefix+name) + `,"$defs":{`)
	for i, n := range slices.Sorted(maps.Keys(frameworkSchemas)) {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, strconv.Quote(n)...)
		out = append(out, ':')
		// The framework schemas reference each other, and nothing else, as
		// components.
		out = append(out, strings.ReplaceAll(string(frameworkSchemas[n]), componentPrefix, defsPrefix)...)
	}
	return append(out, "}}"...), true
}

// annotated returns schema, a JSON object, with a description and
// examples (each JSON, a body the host writes) as its first members: what
// a reader of the document, a mock server and a linter look for.
//
// SchemaValidationIssue has no examples of its own: it is the schema of
// the items of a property named "headers", and Spectral
// (oas3-examples-value-or-externalValue) takes the examples it finds
// under any "headers" member for a header's Example Objects. The examples
// of SchemaValidationError show issues.
func annotated(schema json.RawMessage, description string, examples ...string) json.RawMessage {
	d, _ := json.Marshal(description)
	out := append([]byte(`{"description":`), d...)
	if len(examples) > 0 {
		out = append(out, `,"examples":[`...)
		out = append(out, strings.Join(examples, ",")...)
		out = append(out, "]"...)
	}
	out = append(out, ',')
	return append(out, bytes.TrimPrefix(bytes.TrimSpace(schema), []byte("{"))...)
}

// mediaTypeErrorSchema is the body of a 406 or 415.
func mediaTypeErrorSchema(status int) json.RawMessage {
	return errorSchema(status, `{
		"type": "object",
		"required": ["received", "supportedMediaTypes"],
		"additionalProperties": false,
		"properties": {
			"received": {"type": "string"},
			"supportedMediaTypes": {"type": "array", "items": {"type": "string"}}
		}
	}`)
}

// errorSchema is the body of a framework error of status whose data the
// schema data describes: host.FrameworkError.
func errorSchema(status int, data string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{
		"type": "object",
		"required": ["statusCode", "statusMessage", "data"],
		"additionalProperties": false,
		"properties": {
			"statusCode": {"type": "integer", "enum": [%d]},
			"statusMessage": {"type": "string"},
			"data": %s
		}
	}`, status, data))
}

// frameworkCanonical holds the canonical form of each framework schema, to
// compare $defs of the same name against.
var frameworkCanonical = func() map[string]string {
	m := make(map[string]string, len(frameworkSchemas))
	for name, s := range frameworkSchemas {
		c, err := canonical(s)
		if err != nil {
			panic(fmt.Sprintf("openapi: framework schema %s: %v", name, err))
		}
		m[name] = c
	}
	return m
}()

// perOperation names the framework schemas whose bodies name what one
// operation has (its fields, scopes, schemes, rate limits): their
// examples are made for each operation ([validationExample],
// [HostResponse.Example]), never copied from the schema's own, which
// only shows the shape.
var perOperation = map[string]bool{
	SchemaValidationError: true,
	SchemaUnauthorized:    true,
	SchemaForbidden:       true,
	SchemaTooManyRequests: true,
}

// validationExample returns the 400 body the host would send op for a
// request that leaves out a required property: of the body, else of the
// query, else of the headers (a path parameter is never missing). It is
// nil when op requires none, and the 400 then goes without an example
// rather than with one naming a field op does not have.
func validationExample(op *Route) json.RawMessage {
	r := op.Contract.Request
	if r == nil {
		return nil
	}
	var body json.RawMessage
	if r.Body != nil {
		body = r.Body.Schema
		if body == nil {
			if mt := r.Body.Content[mediaJSON]; mt != nil {
				body = mt.Schema
			}
		}
	}
	for _, part := range []struct {
		name   string
		schema json.RawMessage
	}{{"body", body}, {"query", r.Query}, {"headers", r.Headers}} {
		name := firstRequired(part.schema, op, 0)
		if name == "" {
			continue
		}
		issue, _ := json.Marshal(map[string]any{part.name: []map[string]any{{"path": []string{name}, "message": "is required"}}})
		return json.RawMessage(fmt.Sprintf(`{"statusCode":%d,"statusMessage":"Validation Error","data":%s}`, http.StatusBadRequest, issue))
	}
	return nil
}

// firstRequired returns the first property schema requires, following a
// reference to the contract's $defs; "" when it requires none.
func firstRequired(schema json.RawMessage, op *Route, depth int) string {
	var s struct {
		Ref      string   `json:"$ref"`
		Required []string `json:"required"`
	}
	if depth > maxExampleDepth || json.Unmarshal(schema, &s) != nil {
		return ""
	}
	if len(s.Required) > 0 {
		return s.Required[0]
	}
	if name, ok := strings.CutPrefix(s.Ref, defsPrefix); ok {
		def, ok := op.Contract.Defs[name]
		if !ok {
			def = op.Defs[name]
		}
		return firstRequired(def, op, depth+1)
	}
	return ""
}
