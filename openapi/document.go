package openapi

import (
	"encoding/json"

	"github.com/wasmendpoints/endpoints/abi"
)

// OpenAPI versions [Build] writes in a document's "openapi" member
// (docs/spec.md §7). Options.SpecVersion chooses one.
const (
	// Version31 is OpenAPI 3.1, the default: every OpenAPI 3.1 tool reads
	// the document. A sequential media type (text/event-stream, JSON
	// Lines) gets the schema of its whole body, a string, and the schema
	// of one item in the extension [ItemSchemaExtension].
	Version31 = "3.1.0"
	// Version32 is OpenAPI 3.2: a sequential media type gets the schema
	// of one item in "itemSchema"
	// (https://spec.openapis.org/oas/v3.2.0#media-type-object).
	Version32 = "3.2.0"
)

// ItemSchemaExtension is the member of a Media Type Object that carries
// the schema of one item of a sequential media type in an OpenAPI 3.1
// document, where "itemSchema" does not exist: the very schema OpenAPI
// 3.2 puts in "itemSchema". See [MediaType.Item].
const ItemSchemaExtension = "x-endpoints-item-schema"

// TimeoutExtension is the deadline an operation's contract sets for its
// calls ("timeout", abi.Contract.Timeout), in place of the app's
// limits.timeout, as the contract writes it: "x-endpoints-timeout": "5m".
// Absent: the app's limits.timeout applies.
const TimeoutExtension = "x-endpoints-timeout"

// IdleTimeoutExtension is the idle timeout of an operation that streams
// its answer ("idleTimeout", abi.Contract.IdleTimeout): the longest the
// handler may go without writing, "x-endpoints-idle-timeout": "30s".
const IdleTimeoutExtension = "x-endpoints-idle-timeout"

// Document is an OpenAPI 3.1 document: the OpenAPI Object of
// https://spec.openapis.org/oas/v3.1.0#openapi-object.
//
// Every object of the model keeps the members it does not name (the "x-"
// specification extensions of
// https://spec.openapis.org/oas/v3.1.0#specification-extensions and any
// other member) in its Extra field, so a document decoded with
// [ParseDocument], changed by [Document.Merge] or by an extend hook, and
// encoded with [Document.MarshalIndent] loses nothing. Schemas are kept as
// raw JSON (JSON Schema 2020-12, which OpenAPI 3.1 uses unchanged).
//
// Schemas, examples, the objects the model does not break down (links,
// callbacks, encodings, OAuth flows) and the members of every Extra are
// [json.RawMessage] values: the JSON text as it was given, which any JSON
// library reads.
//
//	doc.Info.Extra = map[string]json.RawMessage{"x-logo": json.RawMessage(`{"url": "/logo.png"}`)}
//
// # Notes
//
//   - Encode and decode a Document with [Document.MarshalIndent] and
//     [ParseDocument], or with encoding/json (json.Marshal, json.Unmarshal):
//     every type of the model has MarshalJSON and UnmarshalJSON methods
//     that write and read the members of Extra in the object that holds
//     them. Only MarshalIndent sorts the members of raw JSON values and
//     indents.
//   - A [json.RawMessage] that is not valid JSON makes
//     [Document.MarshalIndent] fail, naming its JSON pointer.
//   - Members with a zero value (an empty string, false, a nil slice or
//     map) are omitted when encoding. A member written as false or "" in a
//     merged fragment therefore disappears; neither changes the meaning of
//     an OpenAPI document. An empty, non-nil slice or map is kept: "security":
//     [] (no security for an operation) survives a round trip.
//   - A member written as null in a fragment clears a modelled member.
type Document struct {
	// OpenAPI is the version of the OpenAPI Specification the document uses.
	// [Build] sets [Version31] or [Version32].
	OpenAPI string `json:"openapi,omitzero"`
	// Info is the metadata of the API.
	Info Info `json:"info"`
	// JSONSchemaDialect is the default "$schema" of the document's Schema
	// Objects. Defaults to OpenAPI's base dialect, a superset of JSON Schema
	// 2020-12; [Build] leaves it unset.
	JSONSchemaDialect string `json:"jsonSchemaDialect,omitzero"`
	// Servers are the base URLs of the API.
	Servers []*Server `json:"servers,omitzero"`
	// Paths maps a path template (/api/users/{id}) to its operations.
	Paths map[string]*PathItem `json:"paths,omitzero"`
	// Webhooks are the requests the API may send, by name.
	Webhooks map[string]*PathItem `json:"webhooks,omitzero"`
	// Components holds the reusable objects the document refers to.
	Components *Components `json:"components,omitzero"`
	// Security lists the security requirements of every operation that
	// declares none of its own.
	Security []SecurityRequirement `json:"security,omitzero"`
	// Tags describe the tags operations use.
	Tags []*Tag `json:"tags,omitzero"`
	// ExternalDocs links further documentation.
	ExternalDocs *ExternalDocs `json:"externalDocs,omitzero"`
	// Extra holds the members this type does not model, "x-" extensions
	// included.
	Extra map[string]json.RawMessage `json:",embed"`
}

// Info is the metadata of the API
// (https://spec.openapis.org/oas/v3.1.0#info-object). Title and Version
// are required.
type Info struct {
	// Title is the name of the API. [Build] defaults it to [DefaultTitle].
	Title string `json:"title,omitzero"`
	// Summary is a short summary of the API.
	Summary string `json:"summary,omitzero"`
	// Description is a CommonMark description of the API.
	Description string `json:"description,omitzero"`
	// TermsOfService is a URL.
	TermsOfService string `json:"termsOfService,omitzero"`
	// Contact names who to contact about the API.
	Contact *Contact `json:"contact,omitzero"`
	// License is the API's license.
	License *License `json:"license,omitzero"`
	// Version is the version of the API (not of OpenAPI). [Build] defaults
	// it to [DefaultVersion].
	Version string `json:"version,omitzero"`
	// Extra holds the members this type does not model.
	Extra map[string]json.RawMessage `json:",embed"`
}

// Contact is https://spec.openapis.org/oas/v3.1.0#contact-object.
//
// A field without a comment of its own is the member its JSON name says,
// as the linked section defines it; a zero field is omitted.
type Contact struct {
	Name  string `json:"name,omitzero"`
	URL   string `json:"url,omitzero"`
	Email string `json:"email,omitzero"`
	// Extra holds the members this type does not model.
	Extra map[string]json.RawMessage `json:",embed"`
}

// License is https://spec.openapis.org/oas/v3.1.0#license-object: Name and
// one of Identifier (SPDX) or URL.
//
// A field without a comment of its own is the member its JSON name says,
// as the linked section defines it; a zero field is omitted.
type License struct {
	Name       string `json:"name,omitzero"`
	Identifier string `json:"identifier,omitzero"`
	URL        string `json:"url,omitzero"`
	// Extra holds the members this type does not model.
	Extra map[string]json.RawMessage `json:",embed"`
}

// Server is a base URL of the API
// (https://spec.openapis.org/oas/v3.1.0#server-object).
//
// A field without a comment of its own is the member its JSON name says,
// as the linked section defines it; a zero field is omitted.
type Server struct {
	URL         string                     `json:"url,omitzero"`
	Description string                     `json:"description,omitzero"`
	Variables   map[string]*ServerVariable `json:"variables,omitzero"`
	// Extra holds the members this type does not model.
	Extra map[string]json.RawMessage `json:",embed"`
}

// ServerVariable is https://spec.openapis.org/oas/v3.1.0#server-variable-object.
//
// A field without a comment of its own is the member its JSON name says,
// as the linked section defines it; a zero field is omitted.
type ServerVariable struct {
	Enum        []string `json:"enum,omitzero"`
	Default     string   `json:"default,omitzero"`
	Description string   `json:"description,omitzero"`
	// Extra holds the members this type does not model.
	Extra map[string]json.RawMessage `json:",embed"`
}

// Components holds reusable objects
// (https://spec.openapis.org/oas/v3.1.0#components-object). [Build] fills
// Schemas with the lifted $defs and the framework error shapes it uses.
//
// A field without a comment of its own is the member its JSON name says,
// as the linked section defines it; a zero field is omitted.
type Components struct {
	Schemas         map[string]json.RawMessage `json:"schemas,omitzero"`
	Responses       map[string]*Response       `json:"responses,omitzero"`
	Parameters      map[string]*Parameter      `json:"parameters,omitzero"`
	Examples        map[string]json.RawMessage `json:"examples,omitzero"`
	RequestBodies   map[string]*RequestBody    `json:"requestBodies,omitzero"`
	Headers         map[string]*Header         `json:"headers,omitzero"`
	SecuritySchemes map[string]*SecurityScheme `json:"securitySchemes,omitzero"`
	Links           map[string]json.RawMessage `json:"links,omitzero"`
	Callbacks       map[string]json.RawMessage `json:"callbacks,omitzero"`
	PathItems       map[string]*PathItem       `json:"pathItems,omitzero"`
	// Extra holds the members this type does not model.
	Extra map[string]json.RawMessage `json:",embed"`
}

// PathItem holds the operations of one path
// (https://spec.openapis.org/oas/v3.1.0#path-item-object).
//
// A field without a comment of its own is the member its JSON name says,
// as the linked section defines it; a zero field is omitted.
type PathItem struct {
	// Ref points to a path item defined elsewhere.
	Ref         string `json:"$ref,omitzero"`
	Summary     string `json:"summary,omitzero"`
	Description string `json:"description,omitzero"`

	Get     *Operation `json:"get,omitzero"`
	Put     *Operation `json:"put,omitzero"`
	Post    *Operation `json:"post,omitzero"`
	Delete  *Operation `json:"delete,omitzero"`
	Options *Operation `json:"options,omitzero"`
	Head    *Operation `json:"head,omitzero"`
	Patch   *Operation `json:"patch,omitzero"`
	Trace   *Operation `json:"trace,omitzero"`

	Servers []*Server `json:"servers,omitzero"`
	// Parameters apply to every operation of the path.
	Parameters []*Parameter `json:"parameters,omitzero"`
	// Extra holds the members this type does not model.
	Extra map[string]json.RawMessage `json:",embed"`
}

// methods lists the operation fields of p with their lower-case method
// names, in the order of the OpenAPI specification.
func (p *PathItem) methods() []struct {
	name string
	op   **Operation
} {
	return []struct {
		name string
		op   **Operation
	}{
		{"get", &p.Get}, {"put", &p.Put}, {"post", &p.Post}, {"delete", &p.Delete},
		{"options", &p.Options}, {"head", &p.Head}, {"patch", &p.Patch}, {"trace", &p.Trace},
	}
}

// Operation is one method of a path
// (https://spec.openapis.org/oas/v3.1.0#operation-object).
//
// A field without a comment of its own is the member its JSON name says,
// as the linked section defines it; a zero field is omitted.
type Operation struct {
	Tags         []string      `json:"tags,omitzero"`
	Summary      string        `json:"summary,omitzero"`
	Description  string        `json:"description,omitzero"`
	ExternalDocs *ExternalDocs `json:"externalDocs,omitzero"`
	// OperationID is unique in the document; see [OperationID].
	OperationID string       `json:"operationId,omitzero"`
	Parameters  []*Parameter `json:"parameters,omitzero"`
	RequestBody *RequestBody `json:"requestBody,omitzero"`
	// Responses maps a status ("200"), a range ("4XX") or "default" to a
	// response.
	Responses  map[string]*Response       `json:"responses,omitzero"`
	Callbacks  map[string]json.RawMessage `json:"callbacks,omitzero"`
	Deprecated bool                       `json:"deprecated,omitzero"`
	// Security overrides the document's; an empty, non-nil slice removes it.
	Security []SecurityRequirement `json:"security,omitzero"`
	Servers  []*Server             `json:"servers,omitzero"`
	// Extra holds the members this type does not model.
	Extra map[string]json.RawMessage `json:",embed"`
}

// ExternalDocs is https://spec.openapis.org/oas/v3.1.0#external-documentation-object.
//
// A field without a comment of its own is the member its JSON name says,
// as the linked section defines it; a zero field is omitted.
type ExternalDocs struct {
	Description string `json:"description,omitzero"`
	URL         string `json:"url,omitzero"`
	// Extra holds the members this type does not model.
	Extra map[string]json.RawMessage `json:",embed"`
}

// Parameter is one path, query, header or cookie parameter
// (https://spec.openapis.org/oas/v3.1.0#parameter-object), or a reference
// to one (Ref).
//
// A field without a comment of its own is the member its JSON name says,
// as the linked section defines it; a zero field is omitted.
type Parameter struct {
	// Ref points to a parameter in components.
	Ref string `json:"$ref,omitzero"`
	// Name is case-sensitive; a header parameter named Accept, Content-Type
	// or Authorization is ignored by OpenAPI tools and never built.
	Name string `json:"name,omitzero"`
	// In is "path", "query", "header" or "cookie".
	In              string `json:"in,omitzero"`
	Description     string `json:"description,omitzero"`
	Required        bool   `json:"required,omitzero"`
	Deprecated      bool   `json:"deprecated,omitzero"`
	AllowEmptyValue bool   `json:"allowEmptyValue,omitzero"`
	Style           string `json:"style,omitzero"`
	Explode         *bool  `json:"explode,omitzero"`
	AllowReserved   bool   `json:"allowReserved,omitzero"`
	// Schema is a JSON Schema 2020-12.
	Schema   json.RawMessage            `json:"schema,omitzero"`
	Example  json.RawMessage            `json:"example,omitzero"`
	Examples map[string]json.RawMessage `json:"examples,omitzero"`
	Content  map[string]*MediaType      `json:"content,omitzero"`
	// Extra holds the members this type does not model.
	Extra map[string]json.RawMessage `json:",embed"`
}

// RequestBody is https://spec.openapis.org/oas/v3.1.0#request-body-object,
// or a reference to one (Ref).
//
// A field without a comment of its own is the member its JSON name says,
// as the linked section defines it; a zero field is omitted.
type RequestBody struct {
	Ref         string `json:"$ref,omitzero"`
	Description string `json:"description,omitzero"`
	// Content maps a media type or range to its schema.
	Content map[string]*MediaType `json:"content,omitzero"`
	// Required defaults to false in OpenAPI; [Build] sets it from the
	// contract's body.required, which defaults to true.
	Required bool `json:"required,omitzero"`
	// Extra holds the members this type does not model.
	Extra map[string]json.RawMessage `json:",embed"`
}

// MediaType is https://spec.openapis.org/oas/v3.1.0#media-type-object,
// with "itemSchema" of OpenAPI 3.2
// (https://spec.openapis.org/oas/v3.2.0#media-type-object).
//
// A field without a comment of its own is the member its JSON name says,
// as the linked section defines it; a zero field is omitted.
type MediaType struct {
	// Schema is a JSON Schema 2020-12 of the whole content.
	Schema json.RawMessage `json:"schema,omitzero"`
	// ItemSchema (OpenAPI 3.2 only) is the schema of each item of a
	// sequential media type: one event of text/event-stream, one line of
	// application/jsonl. [Build] sets it only in a 3.2 document; see
	// [MediaType.Item].
	ItemSchema json.RawMessage            `json:"itemSchema,omitzero"`
	Example    json.RawMessage            `json:"example,omitzero"`
	Examples   map[string]json.RawMessage `json:"examples,omitzero"`
	Encoding   map[string]json.RawMessage `json:"encoding,omitzero"`
	// Extra holds the members this type does not model, such as
	// [ItemSchemaExtension].
	Extra map[string]json.RawMessage `json:",embed"`
}

// Item returns the schema of one item of a sequential media type as
// [Build] writes it: ItemSchema in an OpenAPI 3.2 document, else the
// [ItemSchemaExtension] member of an OpenAPI 3.1 one; nil when the media
// type has neither.
//
//	events := doc.Paths["/api/clock"].Get.Responses["200"].Content["text/event-stream"].Item()
func (m *MediaType) Item() json.RawMessage {
	if m == nil {
		return nil
	}
	if m.ItemSchema != nil {
		return m.ItemSchema
	}
	return m.Extra[ItemSchemaExtension]
}

// Response is https://spec.openapis.org/oas/v3.1.0#response-object, or a
// reference to one (Ref). Description is required.
//
// A field without a comment of its own is the member its JSON name says,
// as the linked section defines it; a zero field is omitted.
type Response struct {
	Ref         string                     `json:"$ref,omitzero"`
	Description string                     `json:"description,omitzero"`
	Headers     map[string]*Header         `json:"headers,omitzero"`
	Content     map[string]*MediaType      `json:"content,omitzero"`
	Links       map[string]json.RawMessage `json:"links,omitzero"`
	// Extra holds the members this type does not model.
	Extra map[string]json.RawMessage `json:",embed"`
}

// Header is a response header
// (https://spec.openapis.org/oas/v3.1.0#header-object), or a reference to
// one (Ref).
//
// A field without a comment of its own is the member its JSON name says,
// as the linked section defines it; a zero field is omitted.
type Header struct {
	Ref         string `json:"$ref,omitzero"`
	Description string `json:"description,omitzero"`
	Required    bool   `json:"required,omitzero"`
	Deprecated  bool   `json:"deprecated,omitzero"`
	Style       string `json:"style,omitzero"`
	Explode     *bool  `json:"explode,omitzero"`
	// Schema is a JSON Schema 2020-12.
	Schema   json.RawMessage            `json:"schema,omitzero"`
	Example  json.RawMessage            `json:"example,omitzero"`
	Examples map[string]json.RawMessage `json:"examples,omitzero"`
	Content  map[string]*MediaType      `json:"content,omitzero"`
	// Extra holds the members this type does not model.
	Extra map[string]json.RawMessage `json:",embed"`
}

// Tag describes a tag used by operations
// (https://spec.openapis.org/oas/v3.1.0#tag-object).
//
// A field without a comment of its own is the member its JSON name says,
// as the linked section defines it; a zero field is omitted.
type Tag struct {
	Name         string        `json:"name,omitzero"`
	Description  string        `json:"description,omitzero"`
	ExternalDocs *ExternalDocs `json:"externalDocs,omitzero"`
	// Extra holds the members this type does not model.
	Extra map[string]json.RawMessage `json:",embed"`
}

// SecurityScheme is https://spec.openapis.org/oas/v3.1.0#security-scheme-object,
// or a reference to one (Ref): for example {"type": "http", "scheme":
// "bearer"}. [Build] adds none; an application adds them with
// [Document.Merge].
//
// A field without a comment of its own is the member its JSON name says,
// as the linked section defines it; a zero field is omitted.
type SecurityScheme struct {
	Ref string `json:"$ref,omitzero"`
	// Type is "apiKey", "http", "mutualTLS", "oauth2" or "openIdConnect".
	Type         string `json:"type,omitzero"`
	Description  string `json:"description,omitzero"`
	Name         string `json:"name,omitzero"`
	In           string `json:"in,omitzero"`
	Scheme       string `json:"scheme,omitzero"`
	BearerFormat string `json:"bearerFormat,omitzero"`
	// Flows is the OAuth Flows Object, kept as JSON.
	Flows            json.RawMessage `json:"flows,omitzero"`
	OpenIDConnectURL string          `json:"openIdConnectUrl,omitzero"`
	// Extra holds the members this type does not model.
	Extra map[string]json.RawMessage `json:",embed"`
}

// SecurityRequirement maps the name of a security scheme to the scopes it
// needs (https://spec.openapis.org/oas/v3.1.0#security-requirement-object):
// the contract's own type, so a contract's requirements are the document's.
type SecurityRequirement = abi.SecurityRequirement
