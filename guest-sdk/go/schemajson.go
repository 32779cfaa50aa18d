package endpoints

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/jsonenc"
)

// This file writes schemas as JSON by hand, byte for byte as an
// encoding/json Encoder with SetEscapeHTML(false) writes a *schema
// (marshalJSON): a bundle's declaration derives and writes every route's
// schemas in wazero's interpreter while a saved route's new version
// loads, and there encoding/json's reflection over the struct's 30
// fields, its encoders built per type in every fresh instance and its
// scan of each Marshaler's output at each level of nesting cost the
// host about a tenth of a second of CPU per reload of the users example
// (RATIONALE.md, "The declaration, halved"). TestSchemaJSON holds this
// writer to encoding/json's output.

// json returns s as JSON, as marshalJSON(s) does: "null" for a nil s.
func (s *schema) json() ([]byte, error) {
	return s.appendJSON(make([]byte, 0, 64))
}

// appendJSON appends s as JSON to b. It fails, as encoding/json does,
// only on a json.RawMessage member that is not valid JSON, or an
// additionalProperties that is neither false nor a schema.
func (s *schema) appendJSON(b []byte) ([]byte, error) {
	if s == nil {
		return append(b, "null"...), nil
	}
	w := schemaWriter{b: append(b, '{')}
	w.str("$ref", s.Ref)
	if len(s.AnyOf) > 0 {
		w.key("anyOf")
		w.b = append(w.b, '[')
		for i, a := range s.AnyOf {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.schema(a)
		}
		w.b = append(w.b, ']')
	}
	w.str("type", s.Type)
	w.str("description", s.Description)
	w.str("format", s.Format)
	w.str("contentEncoding", s.ContentEncoding)
	w.str("contentMediaType", s.ContentMediaType)
	w.raws("enum", s.Enum)
	w.raw("default", s.Default)
	w.raw("minimum", s.Minimum)
	w.raw("exclusiveMinimum", s.ExclusiveMinimum)
	w.raw("maximum", s.Maximum)
	w.raw("exclusiveMaximum", s.ExclusiveMaximum)
	w.raw("multipleOf", s.MultipleOf)
	w.count("minLength", s.MinLength)
	w.count("maxLength", s.MaxLength)
	w.str("pattern", s.Pattern)
	if s.Items != nil {
		w.key("items")
		w.schema(s.Items)
	}
	w.count("minItems", s.MinItems)
	w.count("maxItems", s.MaxItems)
	w.flag("uniqueItems", s.UniqueItems)
	if len(s.Properties) > 0 {
		w.key("properties")
		w.b = append(w.b, '{')
		for i, p := range s.Properties {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = jsonenc.AppendStringNoHTML(w.b, p.name)
			w.b = append(w.b, ':')
			w.schema(p.schema)
		}
		w.b = append(w.b, '}')
	}
	if len(s.Required) > 0 {
		w.key("required")
		w.b = append(w.b, '[')
		for i, name := range s.Required {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = jsonenc.AppendStringNoHTML(w.b, name)
		}
		w.b = append(w.b, ']')
	}
	switch v := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		w.key("additionalProperties")
		w.b = strconv.AppendBool(w.b, v)
	case *schema:
		w.key("additionalProperties")
		w.schema(v)
	default:
		// Never set by this package: encoding/json's reference.
		w.key("additionalProperties")
		j, err := marshalJSON(v)
		if err != nil {
			return nil, err
		}
		w.b = append(w.b, j...)
	}
	w.count("minProperties", s.MinProperties)
	w.count("maxProperties", s.MaxProperties)
	w.raws("examples", s.Examples)
	w.flag("deprecated", s.Deprecated)
	w.flag("readOnly", s.ReadOnly)
	w.flag("writeOnly", s.WriteOnly)
	if w.err != nil {
		return nil, w.err
	}
	return append(w.b, '}'), nil
}

// schemaWriter appends the members of one schema object: each member
// after the first is preceded by a comma.
type schemaWriter struct {
	b     []byte
	after bool // a member was written
	err   error
}

// key writes the name of the next member, and its colon.
func (w *schemaWriter) key(name string) {
	if w.after {
		w.b = append(w.b, ',')
	}
	w.after = true
	w.b = append(w.b, '"')
	w.b = append(w.b, name...)
	w.b = append(w.b, '"', ':')
}

// str writes a string member, omitted when empty.
func (w *schemaWriter) str(name, value string) {
	if value != "" {
		w.key(name)
		w.b = jsonenc.AppendStringNoHTML(w.b, value)
	}
}

// flag writes a boolean member, omitted when false.
func (w *schemaWriter) flag(name string, value bool) {
	if value {
		w.key(name)
		w.b = append(w.b, "true"...)
	}
}

// count writes an unsigned member, omitted when nil.
func (w *schemaWriter) count(name string, value *uint64) {
	if value != nil {
		w.key(name)
		w.b = strconv.AppendUint(w.b, *value, 10)
	}
}

// raw writes a JSON member, omitted when empty.
func (w *schemaWriter) raw(name string, value json.RawMessage) {
	if len(value) > 0 {
		w.key(name)
		w.rawValue(name, value)
	}
}

// raws writes an array of JSON values, omitted when empty.
func (w *schemaWriter) raws(name string, values []json.RawMessage) {
	if len(values) > 0 {
		w.key(name)
		w.b = append(w.b, '[')
		for i, v := range values {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			if v == nil {
				w.b = append(w.b, "null"...) // json.RawMessage(nil).MarshalJSON
				continue
			}
			w.rawValue(name, v)
		}
		w.b = append(w.b, ']')
	}
}

// rawValue appends a JSON value compacted, as encoding/json writes a
// json.RawMessage, and notes an invalid one.
func (w *schemaWriter) rawValue(name string, value json.RawMessage) {
	var err error
	if w.b, err = appendCompact(w.b, value); err != nil && w.err == nil {
		w.err = fmt.Errorf("json: error calling MarshalJSON for type json.RawMessage (%s): %w", name, err)
	}
}

// schema writes a nested schema.
func (w *schemaWriter) schema(s *schema) {
	var err error
	if w.b, err = s.appendJSON(w.b); err != nil && w.err == nil {
		w.err = err
	}
}
