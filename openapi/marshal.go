package openapi

import (
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Every type of the model that keeps unmodelled members in an Extra field
// has four methods, so that encoding/json and github.com/go-json-experiment/json
// both write and read the "x-" members in the object that holds them (as
// Huma's model does): MarshalJSON and UnmarshalJSON for encoding/json,
// MarshalJSONTo and UnmarshalJSONFrom for the v2 library, which then keeps
// the options of the encoder or decoder (MarshalIndent's sorting and
// indentation). Each method encodes or decodes the type's bare twin: the
// same fields, the same tags, no methods, so the ",embed" option of Extra
// takes effect and nothing recurses.

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

// MarshalJSONTo encodes the Document for github.com/go-json-experiment/json
// with the encoder's options.
func (d *Document) MarshalJSONTo(enc *jsontext.Encoder) error {
	return jsonv2.MarshalEncode(enc, (*bareDocument)(d))
}

// UnmarshalJSONFrom decodes a Document for github.com/go-json-experiment/json
// with the decoder's options.
func (d *Document) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(dec, (*bareDocument)(d))
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

// MarshalJSONTo encodes the Info for github.com/go-json-experiment/json
// with the encoder's options.
func (i *Info) MarshalJSONTo(enc *jsontext.Encoder) error {
	return jsonv2.MarshalEncode(enc, (*bareInfo)(i))
}

// UnmarshalJSONFrom decodes a Info for github.com/go-json-experiment/json
// with the decoder's options.
func (i *Info) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(dec, (*bareInfo)(i))
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

// MarshalJSONTo encodes the Contact for github.com/go-json-experiment/json
// with the encoder's options.
func (c *Contact) MarshalJSONTo(enc *jsontext.Encoder) error {
	return jsonv2.MarshalEncode(enc, (*bareContact)(c))
}

// UnmarshalJSONFrom decodes a Contact for github.com/go-json-experiment/json
// with the decoder's options.
func (c *Contact) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(dec, (*bareContact)(c))
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

// MarshalJSONTo encodes the License for github.com/go-json-experiment/json
// with the encoder's options.
func (l *License) MarshalJSONTo(enc *jsontext.Encoder) error {
	return jsonv2.MarshalEncode(enc, (*bareLicense)(l))
}

// UnmarshalJSONFrom decodes a License for github.com/go-json-experiment/json
// with the decoder's options.
func (l *License) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(dec, (*bareLicense)(l))
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

// MarshalJSONTo encodes the Server for github.com/go-json-experiment/json
// with the encoder's options.
func (s *Server) MarshalJSONTo(enc *jsontext.Encoder) error {
	return jsonv2.MarshalEncode(enc, (*bareServer)(s))
}

// UnmarshalJSONFrom decodes a Server for github.com/go-json-experiment/json
// with the decoder's options.
func (s *Server) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(dec, (*bareServer)(s))
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

// MarshalJSONTo encodes the ServerVariable for github.com/go-json-experiment/json
// with the encoder's options.
func (s *ServerVariable) MarshalJSONTo(enc *jsontext.Encoder) error {
	return jsonv2.MarshalEncode(enc, (*bareServerVariable)(s))
}

// UnmarshalJSONFrom decodes a ServerVariable for github.com/go-json-experiment/json
// with the decoder's options.
func (s *ServerVariable) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(dec, (*bareServerVariable)(s))
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

// MarshalJSONTo encodes the Components for github.com/go-json-experiment/json
// with the encoder's options.
func (c *Components) MarshalJSONTo(enc *jsontext.Encoder) error {
	return jsonv2.MarshalEncode(enc, (*bareComponents)(c))
}

// UnmarshalJSONFrom decodes a Components for github.com/go-json-experiment/json
// with the decoder's options.
func (c *Components) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(dec, (*bareComponents)(c))
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

// MarshalJSONTo encodes the PathItem for github.com/go-json-experiment/json
// with the encoder's options.
func (p *PathItem) MarshalJSONTo(enc *jsontext.Encoder) error {
	return jsonv2.MarshalEncode(enc, (*barePathItem)(p))
}

// UnmarshalJSONFrom decodes a PathItem for github.com/go-json-experiment/json
// with the decoder's options.
func (p *PathItem) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(dec, (*barePathItem)(p))
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

// MarshalJSONTo encodes the Operation for github.com/go-json-experiment/json
// with the encoder's options.
func (o *Operation) MarshalJSONTo(enc *jsontext.Encoder) error {
	return jsonv2.MarshalEncode(enc, (*bareOperation)(o))
}

// UnmarshalJSONFrom decodes a Operation for github.com/go-json-experiment/json
// with the decoder's options.
func (o *Operation) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(dec, (*bareOperation)(o))
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

// MarshalJSONTo encodes the ExternalDocs for github.com/go-json-experiment/json
// with the encoder's options.
func (e *ExternalDocs) MarshalJSONTo(enc *jsontext.Encoder) error {
	return jsonv2.MarshalEncode(enc, (*bareExternalDocs)(e))
}

// UnmarshalJSONFrom decodes a ExternalDocs for github.com/go-json-experiment/json
// with the decoder's options.
func (e *ExternalDocs) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(dec, (*bareExternalDocs)(e))
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

// MarshalJSONTo encodes the Parameter for github.com/go-json-experiment/json
// with the encoder's options.
func (p *Parameter) MarshalJSONTo(enc *jsontext.Encoder) error {
	return jsonv2.MarshalEncode(enc, (*bareParameter)(p))
}

// UnmarshalJSONFrom decodes a Parameter for github.com/go-json-experiment/json
// with the decoder's options.
func (p *Parameter) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(dec, (*bareParameter)(p))
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

// MarshalJSONTo encodes the RequestBody for github.com/go-json-experiment/json
// with the encoder's options.
func (r *RequestBody) MarshalJSONTo(enc *jsontext.Encoder) error {
	return jsonv2.MarshalEncode(enc, (*bareRequestBody)(r))
}

// UnmarshalJSONFrom decodes a RequestBody for github.com/go-json-experiment/json
// with the decoder's options.
func (r *RequestBody) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(dec, (*bareRequestBody)(r))
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

// MarshalJSONTo encodes the MediaType for github.com/go-json-experiment/json
// with the encoder's options.
func (m *MediaType) MarshalJSONTo(enc *jsontext.Encoder) error {
	return jsonv2.MarshalEncode(enc, (*bareMediaType)(m))
}

// UnmarshalJSONFrom decodes a MediaType for github.com/go-json-experiment/json
// with the decoder's options.
func (m *MediaType) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(dec, (*bareMediaType)(m))
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

// MarshalJSONTo encodes the Response for github.com/go-json-experiment/json
// with the encoder's options.
func (r *Response) MarshalJSONTo(enc *jsontext.Encoder) error {
	return jsonv2.MarshalEncode(enc, (*bareResponse)(r))
}

// UnmarshalJSONFrom decodes a Response for github.com/go-json-experiment/json
// with the decoder's options.
func (r *Response) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(dec, (*bareResponse)(r))
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

// MarshalJSONTo encodes the Header for github.com/go-json-experiment/json
// with the encoder's options.
func (h *Header) MarshalJSONTo(enc *jsontext.Encoder) error {
	return jsonv2.MarshalEncode(enc, (*bareHeader)(h))
}

// UnmarshalJSONFrom decodes a Header for github.com/go-json-experiment/json
// with the decoder's options.
func (h *Header) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(dec, (*bareHeader)(h))
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

// MarshalJSONTo encodes the Tag for github.com/go-json-experiment/json
// with the encoder's options.
func (t *Tag) MarshalJSONTo(enc *jsontext.Encoder) error {
	return jsonv2.MarshalEncode(enc, (*bareTag)(t))
}

// UnmarshalJSONFrom decodes a Tag for github.com/go-json-experiment/json
// with the decoder's options.
func (t *Tag) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(dec, (*bareTag)(t))
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

// MarshalJSONTo encodes the SecurityScheme for github.com/go-json-experiment/json
// with the encoder's options.
func (s *SecurityScheme) MarshalJSONTo(enc *jsontext.Encoder) error {
	return jsonv2.MarshalEncode(enc, (*bareSecurityScheme)(s))
}

// UnmarshalJSONFrom decodes a SecurityScheme for github.com/go-json-experiment/json
// with the decoder's options.
func (s *SecurityScheme) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(dec, (*bareSecurityScheme)(s))
}
