package openapi

import (
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Every type of the model that keeps unmodelled members in an Extra field
// has MarshalJSON and UnmarshalJSON, so that encoding/json writes and reads
// the "x-" members in the object that holds them (as Huma's model does).
// Each method encodes or decodes the type's bare twin: the same fields, the
// same tags, no methods, so the ",embed" option of Extra takes effect and
// nothing recurses. They have no MarshalJSONTo or UnmarshalJSONFrom for
// the v2 library (github.com/go-json-experiment/json, which the package
// uses inside): those would show its pre-release types in this package's
// API; v2 calls MarshalJSON and formats its output as the encoder's
// options say, except where the package encodes with [bareMarshalers].

// bareMarshalers has the v2 library encode each model type as its bare
// twin, straight into the encoder (its field order, the encoder's
// options), rather than through MarshalJSON's bytes; the package's own
// encoding (MarshalIndent) passes it. As an option, not as MarshalJSONTo
// methods, it keeps the v2 library's pre-release types out of this
// package's API.
var bareMarshalers = jsonv2.WithMarshalers(jsonv2.JoinMarshalers(
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v Document) error { return jsonv2.MarshalEncode(enc, bareDocument(v)) }),
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v Info) error { return jsonv2.MarshalEncode(enc, bareInfo(v)) }),
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v Contact) error { return jsonv2.MarshalEncode(enc, bareContact(v)) }),
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v License) error { return jsonv2.MarshalEncode(enc, bareLicense(v)) }),
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v Server) error { return jsonv2.MarshalEncode(enc, bareServer(v)) }),
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v ServerVariable) error {
		return jsonv2.MarshalEncode(enc, bareServerVariable(v))
	}),
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v Components) error { return jsonv2.MarshalEncode(enc, bareComponents(v)) }),
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v PathItem) error { return jsonv2.MarshalEncode(enc, barePathItem(v)) }),
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v Operation) error { return jsonv2.MarshalEncode(enc, bareOperation(v)) }),
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v ExternalDocs) error {
		return jsonv2.MarshalEncode(enc, bareExternalDocs(v))
	}),
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v Parameter) error { return jsonv2.MarshalEncode(enc, bareParameter(v)) }),
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v RequestBody) error { return jsonv2.MarshalEncode(enc, bareRequestBody(v)) }),
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v MediaType) error { return jsonv2.MarshalEncode(enc, bareMediaType(v)) }),
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v Response) error { return jsonv2.MarshalEncode(enc, bareResponse(v)) }),
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v Header) error { return jsonv2.MarshalEncode(enc, bareHeader(v)) }),
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v Tag) error { return jsonv2.MarshalEncode(enc, bareTag(v)) }),
	jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v SecurityScheme) error {
		return jsonv2.MarshalEncode(enc, bareSecurityScheme(v))
	}),
))

// v1Options make MarshalJSON's output deterministic, as encoding/json's
// is: map keys sorted.
var v1Options = jsonv2.Deterministic(true)

type bareDocument Document

// MarshalJSON encodes the Document for encoding/json, the members of Extra
// among the modelled ones.
func (d Document) MarshalJSON() ([]byte, error) {
	return jsonv2.Marshal((*bareDocument)(&d), v1Options)
}

// UnmarshalJSON decodes a Document for encoding/json, members it does not
// model into Extra.
func (d *Document) UnmarshalJSON(data []byte) error {
	return jsonv2.Unmarshal(data, (*bareDocument)(d))
}

type bareInfo Info

// MarshalJSON encodes the Info for encoding/json, the members of Extra
// among the modelled ones.
func (i Info) MarshalJSON() ([]byte, error) {
	return jsonv2.Marshal((*bareInfo)(&i), v1Options)
}

// UnmarshalJSON decodes a Info for encoding/json, members it does not
// model into Extra.
func (i *Info) UnmarshalJSON(data []byte) error {
	return jsonv2.Unmarshal(data, (*bareInfo)(i))
}

type bareContact Contact

// MarshalJSON encodes the Contact for encoding/json, the members of Extra
// among the modelled ones.
func (c Contact) MarshalJSON() ([]byte, error) {
	return jsonv2.Marshal((*bareContact)(&c), v1Options)
}

// UnmarshalJSON decodes a Contact for encoding/json, members it does not
// model into Extra.
func (c *Contact) UnmarshalJSON(data []byte) error {
	return jsonv2.Unmarshal(data, (*bareContact)(c))
}

type bareLicense License

// MarshalJSON encodes the License for encoding/json, the members of Extra
// among the modelled ones.
func (l License) MarshalJSON() ([]byte, error) {
	return jsonv2.Marshal((*bareLicense)(&l), v1Options)
}

// UnmarshalJSON decodes a License for encoding/json, members it does not
// model into Extra.
func (l *License) UnmarshalJSON(data []byte) error {
	return jsonv2.Unmarshal(data, (*bareLicense)(l))
}

type bareServer Server

// MarshalJSON encodes the Server for encoding/json, the members of Extra
// among the modelled ones.
func (s Server) MarshalJSON() ([]byte, error) {
	return jsonv2.Marshal((*bareServer)(&s), v1Options)
}

// UnmarshalJSON decodes a Server for encoding/json, members it does not
// model into Extra.
func (s *Server) UnmarshalJSON(data []byte) error {
	return jsonv2.Unmarshal(data, (*bareServer)(s))
}

type bareServerVariable ServerVariable

// MarshalJSON encodes the ServerVariable for encoding/json, the members of Extra
// among the modelled ones.
func (s ServerVariable) MarshalJSON() ([]byte, error) {
	return jsonv2.Marshal((*bareServerVariable)(&s), v1Options)
}

// UnmarshalJSON decodes a ServerVariable for encoding/json, members it does not
// model into Extra.
func (s *ServerVariable) UnmarshalJSON(data []byte) error {
	return jsonv2.Unmarshal(data, (*bareServerVariable)(s))
}

type bareComponents Components

// MarshalJSON encodes the Components for encoding/json, the members of Extra
// among the modelled ones.
func (c Components) MarshalJSON() ([]byte, error) {
	return jsonv2.Marshal((*bareComponents)(&c), v1Options)
}

// UnmarshalJSON decodes a Components for encoding/json, members it does not
// model into Extra.
func (c *Components) UnmarshalJSON(data []byte) error {
	return jsonv2.Unmarshal(data, (*bareComponents)(c))
}

type barePathItem PathItem

// MarshalJSON encodes the PathItem for encoding/json, the members of Extra
// among the modelled ones.
func (p PathItem) MarshalJSON() ([]byte, error) {
	return jsonv2.Marshal((*barePathItem)(&p), v1Options)
}

// UnmarshalJSON decodes a PathItem for encoding/json, members it does not
// model into Extra.
func (p *PathItem) UnmarshalJSON(data []byte) error {
	return jsonv2.Unmarshal(data, (*barePathItem)(p))
}

type bareOperation Operation

// MarshalJSON encodes the Operation for encoding/json, the members of Extra
// among the modelled ones.
func (o Operation) MarshalJSON() ([]byte, error) {
	return jsonv2.Marshal((*bareOperation)(&o), v1Options)
}

// UnmarshalJSON decodes a Operation for encoding/json, members it does not
// model into Extra.
func (o *Operation) UnmarshalJSON(data []byte) error {
	return jsonv2.Unmarshal(data, (*bareOperation)(o))
}

type bareExternalDocs ExternalDocs

// MarshalJSON encodes the ExternalDocs for encoding/json, the members of Extra
// among the modelled ones.
func (e ExternalDocs) MarshalJSON() ([]byte, error) {
	return jsonv2.Marshal((*bareExternalDocs)(&e), v1Options)
}

// UnmarshalJSON decodes a ExternalDocs for encoding/json, members it does not
// model into Extra.
func (e *ExternalDocs) UnmarshalJSON(data []byte) error {
	return jsonv2.Unmarshal(data, (*bareExternalDocs)(e))
}

type bareParameter Parameter

// MarshalJSON encodes the Parameter for encoding/json, the members of Extra
// among the modelled ones.
func (p Parameter) MarshalJSON() ([]byte, error) {
	return jsonv2.Marshal((*bareParameter)(&p), v1Options)
}

// UnmarshalJSON decodes a Parameter for encoding/json, members it does not
// model into Extra.
func (p *Parameter) UnmarshalJSON(data []byte) error {
	return jsonv2.Unmarshal(data, (*bareParameter)(p))
}

type bareRequestBody RequestBody

// MarshalJSON encodes the RequestBody for encoding/json, the members of Extra
// among the modelled ones.
func (r RequestBody) MarshalJSON() ([]byte, error) {
	return jsonv2.Marshal((*bareRequestBody)(&r), v1Options)
}

// UnmarshalJSON decodes a RequestBody for encoding/json, members it does not
// model into Extra.
func (r *RequestBody) UnmarshalJSON(data []byte) error {
	return jsonv2.Unmarshal(data, (*bareRequestBody)(r))
}

type bareMediaType MediaType

// MarshalJSON encodes the MediaType for encoding/json, the members of Extra
// among the modelled ones.
func (m MediaType) MarshalJSON() ([]byte, error) {
	return jsonv2.Marshal((*bareMediaType)(&m), v1Options)
}

// UnmarshalJSON decodes a MediaType for encoding/json, members it does not
// model into Extra.
func (m *MediaType) UnmarshalJSON(data []byte) error {
	return jsonv2.Unmarshal(data, (*bareMediaType)(m))
}

type bareResponse Response

// MarshalJSON encodes the Response for encoding/json, the members of Extra
// among the modelled ones.
func (r Response) MarshalJSON() ([]byte, error) {
	return jsonv2.Marshal((*bareResponse)(&r), v1Options)
}

// UnmarshalJSON decodes a Response for encoding/json, members it does not
// model into Extra.
func (r *Response) UnmarshalJSON(data []byte) error {
	return jsonv2.Unmarshal(data, (*bareResponse)(r))
}

type bareHeader Header

// MarshalJSON encodes the Header for encoding/json, the members of Extra
// among the modelled ones.
func (h Header) MarshalJSON() ([]byte, error) {
	return jsonv2.Marshal((*bareHeader)(&h), v1Options)
}

// UnmarshalJSON decodes a Header for encoding/json, members it does not
// model into Extra.
func (h *Header) UnmarshalJSON(data []byte) error {
	return jsonv2.Unmarshal(data, (*bareHeader)(h))
}

type bareTag Tag

// MarshalJSON encodes the Tag for encoding/json, the members of Extra
// among the modelled ones.
func (t Tag) MarshalJSON() ([]byte, error) {
	return jsonv2.Marshal((*bareTag)(&t), v1Options)
}

// UnmarshalJSON decodes a Tag for encoding/json, members it does not
// model into Extra.
func (t *Tag) UnmarshalJSON(data []byte) error {
	return jsonv2.Unmarshal(data, (*bareTag)(t))
}

type bareSecurityScheme SecurityScheme

// MarshalJSON encodes the SecurityScheme for encoding/json, the members of Extra
// among the modelled ones.
func (s SecurityScheme) MarshalJSON() ([]byte, error) {
	return jsonv2.Marshal((*bareSecurityScheme)(&s), v1Options)
}

// UnmarshalJSON decodes a SecurityScheme for encoding/json, members it does not
// model into Extra.
func (s *SecurityScheme) UnmarshalJSON(data []byte) error {
	return jsonv2.Unmarshal(data, (*bareSecurityScheme)(s))
}
