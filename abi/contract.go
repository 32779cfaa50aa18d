package abi

import "encoding/json"

// Contract is the JSON a module returns from [ExportContract]: what the host
// validates before the handler runs, what it checks the answer against, and
// what the OpenAPI document and the generated clients are built from. See
// docs/spec.md §3; package abi/contract holds the JSON Schema of this format and
// its validator, contract.Parse.
//
// Every member is optional: the zero Contract is an endpoint that validates
// nothing and whose answers are not checked.
type Contract struct {
	// Summary is the operation's one-line summary in the document.
	Summary string `json:"summary,omitempty"`
	// Description is its CommonMark description in the document.
	Description string `json:"description,omitempty"`
	// Tags group the operation in the document and its docs page.
	Tags []string `json:"tags,omitempty"`
	// Deprecated marks the operation deprecated in the document; the host
	// serves it as any other.
	Deprecated bool `json:"deprecated,omitempty"`

	// Methods is for modules whose file name has no method suffix: one
	// contract per lower-case method ("get", "put", ...), each without
	// Methods of its own. When set, the other operation fields must be empty.
	Methods map[string]*Contract `json:"methods,omitempty"`

	// Request holds the schemas the request is validated against. Nil:
	// nothing of the request is validated.
	Request *Request `json:"request,omitempty"`

	// Responses maps a status ("200", "404") to what the endpoint answers
	// with it. When nil nothing is checked.
	Responses map[string]*Response `json:"responses,omitempty"`

	// ResponsesInferred says Responses were derived by an SDK from the
	// handler's return type rather than declared: they document the endpoint
	// and type its clients, but the host does not check answers against
	// them.
	ResponsesInferred bool `json:"responsesInferred,omitempty"`

	// Idempotency declares Idempotency-Key handling (docs/spec.md §6),
	// for unsafe methods only. Nil: the header is not looked at.
	Idempotency *Idempotency `json:"idempotency,omitempty"`

	// Security lists the operation's security requirements, as in
	// OpenAPI: alternatives, each naming security schemes (keys of the
	// document's components.securitySchemes) and the scopes each needs.
	// The host enforces them before validation: 401 without a good
	// credential, 403 without a required scope. Nil leaves the
	// operation to the routes configuration and the document; an empty,
	// non-nil list opts it out of any security.
	//
	//	"security": [{"bearer": ["users:write"]}]
	Security []SecurityRequirement `json:"security,omitzero"`

	// OnValidationError says the module exports [ExportOnValidationError].
	OnValidationError bool `json:"onValidationError,omitempty"`

	// Timeout is the deadline of one call of the operation, as a Go
	// duration ("30s", "2m"), replacing the app's limits.timeout. At most
	// the app's limits.maxTimeout (5 min by default), or the module fails
	// its load. Empty: limits.timeout.
	//
	//	"timeout": "2m"
	Timeout string `json:"timeout,omitempty"`

	// IdleTimeout is, for an operation whose answer streams (a media
	// response, such as text/event-stream), the longest the handler may go
	// without writing, as a Go duration; each response_write restarts it.
	// A handler silent longer is stopped, ending the stream. At most the
	// app's limits.maxTimeout. Empty: none beyond Timeout.
	//
	//	"timeout": "5m", "idleTimeout": "30s"
	IdleTimeout string `json:"idleTimeout,omitempty"`

	// Defs are named schemas, referenced as {"$ref": "#/$defs/Name"} from
	// any schema of the contract.
	Defs map[string]json.RawMessage `json:"$defs,omitempty"`
}

// Request holds the request schemas. Params, Query and Headers are JSON
// Schemas (draft 2020-12) of objects whose properties are the parameters;
// header names are lower case. A nil member validates nothing of its part.
type Request struct {
	// Params is the schema of the path parameters: a property per bracket
	// segment of the file name ([id] is "id").
	Params json.RawMessage `json:"params,omitempty"`
	// Query is the schema of the query string's parameters.
	Query json.RawMessage `json:"query,omitempty"`
	// Headers is the schema of the declared request headers, by lower-case
	// name; the others stay readable raw.
	Headers json.RawMessage `json:"headers,omitempty"`
	// Body declares the request body; see [Body].
	Body *Body `json:"body,omitempty"`
	// QueryStyles says, by query parameter name, how an object query
	// parameter is spelled in the query string (OpenAPI's style and
	// explode). A query property whose schema is an object and that is
	// not listed has OpenAPI's default, style form with explode: each
	// member is its own query parameter (?color=red&size=2).
	QueryStyles map[string]*QueryStyle `json:"queryStyles,omitempty"`
}

// QueryStyle is the OpenAPI serialization of one object query parameter.
type QueryStyle struct {
	// Style is "form" (?color=red&size=2, or ?filter=color,red,size,2
	// without explode) or "deepObject" (?filter[color]=red).
	Style string `json:"style"`
	// Explode is OpenAPI's explode, for style form; nil means true.
	Explode *bool `json:"explode,omitempty"`
}

// Body declares the request body: either Schema (a JSON body) or Content
// (one entry per accepted media type).
type Body struct {
	// Schema is the JSON Schema of an application/json body; nil with
	// Content set.
	Schema json.RawMessage `json:"schema,omitempty"`
	// Content maps each accepted media type to its schema; see
	// [MediaType]. Nil with Schema set.
	Content map[string]*MediaType `json:"content,omitempty"`
	// Required says a request without a body fails validation. Nil means
	// true ([Body.IsRequired]).
	Required *bool `json:"required,omitempty"`
	// Description documents the body.
	Description string `json:"description,omitempty"`
	// MaxBytes is the largest body this operation accepts, replacing the
	// app's limits.bodyBytes for it (an upload may need more, a small
	// form less). Larger bodies get 413. Zero keeps the app's limit.
	MaxBytes int64 `json:"maxBytes,omitempty"`
}

// IsRequired reports whether a request must carry the body.
func (b *Body) IsRequired() bool { return b.Required == nil || *b.Required }

// MediaType is one accepted request media type; Schema is optional. The
// key of Body.Content says how the host reads the body:
//
//   - application/json and +json types: parsed and validated against
//     Schema;
//   - application/x-www-form-urlencoded: decoded to an object, its strings
//     coerced like query parameters, then validated;
//   - multipart/form-data: fields decoded and validated like a form; file
//     parts listed in the envelope and read with file_read, their file name
//     standing in the validated object;
//   - any other type, ranges such as text/* included: delivered raw and
//     streamed through body_read; Schema only documents it.
type MediaType struct {
	// Schema is the JSON Schema of the decoded body (JSON, forms,
	// multipart fields), or documentation only (any other type). Nil:
	// any body of the type.
	Schema json.RawMessage `json:"schema,omitempty"`
	// Encoding declares, per field of a multipart body, the media types its
	// part may have (OpenAPI's Encoding Object): a part of another type
	// fails validation.
	//
	//	"encoding": {"photo": {"contentType": "image/png, image/jpeg"}}
	Encoding map[string]*Encoding `json:"encoding,omitempty"`
}

// Encoding constrains one field of a multipart body.
type Encoding struct {
	// ContentType lists the accepted media types, comma-separated; ranges
	// such as image/* are allowed.
	ContentType string `json:"contentType,omitempty"`
}

// Response is one declared status: validated JSON (Schema, with an optional
// +json ContentType) or media (Media, where Schema only documents).
//
// The zero Response declares the status with any body, or none.
type Response struct {
	// Description says when the status is sent; the document uses the
	// status's reason phrase when empty.
	Description string `json:"description,omitempty"`
	// Schema is the JSON Schema the answer's body is checked against
	// (JSON), or documentation only (Media). Nil: any body.
	Schema json.RawMessage `json:"schema,omitempty"`
	// ContentType is the answer's JSON media type: application/json (the
	// default, when empty) or a +json type.
	ContentType string `json:"contentType,omitempty"`
	// Media lists the media types of a media answer (files, CSV, event
	// streams), which goes to the client as written, unchecked. Nil for a
	// JSON answer.
	Media []string `json:"media,omitempty"`
	// Headers are the schemas of the answer's headers, by name, for the
	// document; the host does not check them.
	Headers map[string]json.RawMessage `json:"headers,omitempty"`
}

// IsMedia reports whether the response is a media response (never
// validated).
func (r *Response) IsMedia() bool { return len(r.Media) > 0 }

// Idempotency declares Idempotency-Key handling (docs/spec.md §6). The
// zero value makes the key optional, replays 2xx answers and fingerprints
// params, query and body.
//
//	"idempotency": {"required": true, "replayStatuses": [409]}
type Idempotency struct {
	// Required makes a request without the header a 400
	// IDEMPOTENCY_KEY_REQUIRED. False: a request without it runs as usual.
	Required bool `json:"required,omitempty"`
	// ReplayStatuses are statuses beyond 2xx whose answers are kept and
	// replayed; any other status frees the key for a retry.
	ReplayStatuses []int `json:"replayStatuses,omitempty"`
	// Fingerprint lists the parts ("params", "query", "body") whose
	// values identify a request: the same key with another fingerprint is
	// a 422. Empty: all three.
	Fingerprint []string `json:"fingerprint,omitempty"`
}

// Runtime is the JSON the runtime declaration module returns from
// [ExportRuntime]: application-wide settings.
//
//	{"openApi": {"document": {"servers": [{"url": "https://api.example.com"}]}, "extend": true}}
type Runtime struct {
	// OpenAPI adds to the generated document; nil adds nothing.
	OpenAPI *RuntimeOpenAPI `json:"openApi,omitempty"`
	// OnValidationError says the module exports
	// [ExportOnValidationError]: the app-wide hook that may replace the
	// default 400/406/415 bodies of every endpoint, after the endpoint's
	// own hook declined or when it has none.
	OnValidationError bool `json:"onValidationError,omitempty"`
	// ResponseValidation is the app's policy for checking answers:
	// "always", "development" or "never"; endpoints.json and host options
	// take precedence.
	ResponseValidation string `json:"responseValidation,omitempty"`
}

// RuntimeOpenAPI adds to the generated OpenAPI document.
type RuntimeOpenAPI struct {
	// Document is an OpenAPI fragment deep-merged into the generated
	// document: objects merge, arrays and scalars replace.
	Document json.RawMessage `json:"document,omitempty"`
	// Extend says the module exports [ExportOpenAPIExtend], run last.
	Extend bool `json:"extend,omitempty"`
}

// SecurityRequirement maps security scheme names to the scopes each needs
// (https://spec.openapis.org/oas/v3.1.0#security-requirement-object). An
// empty requirement ({}) is met by any request.
type SecurityRequirement map[string][]string
