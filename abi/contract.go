package abi

import "encoding/json"

// Contract is the JSON a module returns from [ExportContract]: what the host
// validates before the handler runs, what it checks the answer against, and
// what the OpenAPI document and the generated clients are built from. See
// docs/spec.md §3; package abi/contract holds the JSON Schema of this format and
// its validator, contract.Parse.
type Contract struct {
	Summary     string   `json:"summary,omitempty"`
	Description string   `json:"description,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	Deprecated  bool     `json:"deprecated,omitempty"`

	// Methods is for modules whose file name has no method suffix: one
	// contract per lower-case method ("get", "put", ...), each without
	// Methods of its own. When set, the other operation fields must be empty.
	Methods map[string]*Contract `json:"methods,omitempty"`

	Request *Request `json:"request,omitempty"`

	// Responses maps a status ("200", "404") to what the endpoint answers
	// with it. When nil nothing is checked.
	Responses map[string]*Response `json:"responses,omitempty"`

	// ResponsesInferred says Responses were derived by an SDK from the
	// handler's return type rather than declared: they document the endpoint
	// and type its clients, but the host does not check answers against
	// them.
	ResponsesInferred bool `json:"responsesInferred,omitempty"`

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

	// Defs are named schemas, referenced as {"$ref": "#/$defs/Name"} from
	// any schema of the contract.
	Defs map[string]json.RawMessage `json:"$defs,omitempty"`
}

// Request holds the request schemas. Params, Query and Headers are JSON
// Schemas (draft 2020-12) of objects whose properties are the parameters;
// header names are lower case.
type Request struct {
	Params  json.RawMessage `json:"params,omitempty"`
	Query   json.RawMessage `json:"query,omitempty"`
	Headers json.RawMessage `json:"headers,omitempty"`
	Body    *Body           `json:"body,omitempty"`
}

// Body declares the request body: either Schema (a JSON body) or Content
// (one entry per accepted media type).
type Body struct {
	Schema  json.RawMessage       `json:"schema,omitempty"`
	Content map[string]*MediaType `json:"content,omitempty"`
	// Required says a request without a body fails validation. Defaults to
	// true.
	Required *bool `json:"required,omitempty"`
	// Description documents the body.
	Description string `json:"description,omitempty"`
	// MaxBytes is the largest body this operation accepts, replacing the
	// app's limits.bodyBytes for it (an upload may need more, a small
	// form less). Larger bodies get 413.
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
type Response struct {
	Description string                     `json:"description,omitempty"`
	Schema      json.RawMessage            `json:"schema,omitempty"`
	ContentType string                     `json:"contentType,omitempty"`
	Media       []string                   `json:"media,omitempty"`
	Headers     map[string]json.RawMessage `json:"headers,omitempty"`
}

// IsMedia reports whether the response is a media response (never
// validated).
func (r *Response) IsMedia() bool { return len(r.Media) > 0 }

// Idempotency declares Idempotency-Key handling (docs/spec.md §6).
type Idempotency struct {
	Required       bool     `json:"required,omitempty"`
	ReplayStatuses []int    `json:"replayStatuses,omitempty"`
	Fingerprint    []string `json:"fingerprint,omitempty"`
}

// Runtime is the JSON the runtime declaration module returns from
// [ExportRuntime]: application-wide settings.
//
//	{"openApi": {"document": {"servers": [{"url": "https://api.example.com"}]}, "extend": true}}
type Runtime struct {
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
