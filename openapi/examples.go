package openapi

import (
	"bytes"
	"encoding/json"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// maxExampleDepth bounds how deep [exampleOf] follows properties, items
// and references, so that a recursive schema ends.
const maxExampleDepth = 8

// exampleSchema is what [exampleOf] reads of a schema.
type exampleSchema struct {
	Ref        string            `json:"$ref"`
	Examples   []json.RawMessage `json:"examples"`
	Example    json.RawMessage   `json:"example"`
	Const      json.RawMessage   `json:"const"`
	Default    json.RawMessage   `json:"default"`
	Enum       []json.RawMessage `json:"enum"`
	Type       json.RawMessage   `json:"type"`
	Properties jsontext.Value    `json:"properties"`
	Required   []string          `json:"required"`
	Items      json.RawMessage   `json:"items"`
	MinItems   *int              `json:"minItems"`
	MaxItems   *int              `json:"maxItems"`
	AnyOf      []json.RawMessage `json:"anyOf"`
	OneOf      []json.RawMessage `json:"oneOf"`
}

// fillExamples gives each media type of the document's operations that
// has no example of its own the example its schema's contract states,
// where OpenAPI tools (mock servers, documentation pages, linters) look
// for one. See [exampleOf] for where an example comes from; a media type
// whose schema states none stays without.
func (d *Document) fillExamples() {
	var schemas map[string]json.RawMessage
	if d.Components != nil {
		schemas = d.Components.Schemas
	}
	d.Operations(func(_, _ string, op *Operation) {
		if op.RequestBody != nil {
			fillContent(op.RequestBody.Content, schemas, "")
		}
		for status, r := range op.Responses {
			if r != nil {
				fillContent(r.Content, schemas, status)
			}
		}
	})
}

// fillContent sets the example of each media type of content that has
// none, for a response of status ("" for a request body).
func fillContent(content map[string]*MediaType, schemas map[string]json.RawMessage, status string) {
	for _, mt := range content {
		if mt == nil || mt.Example != nil || mt.Examples != nil || mt.Schema == nil {
			continue
		}
		mt.Example = exampleOf(mt.Schema, schemas, 0, status)
	}
}

// exampleOf returns an example value of schema, taken from what the
// schema itself states, or nil when it states none. In order: its first
// "examples" entry (of several, the first whose "status" or "statusCode"
// member is status, when one is), its "example", its "const", its
// "default", its first "enum" value; then, for "anyOf" or "oneOf", an
// example of an alternative (of status, when one is); for a "$ref" to
// components/schemas, the example of the schema named; for an object, an
// object of its properties' examples (nil when a required property has
// none); for an array, an array of one example of its items. A reference
// to a framework schema of [perOperation] has none. Nothing is
// invented: a string schema with no example has none.
func exampleOf(schema json.RawMessage, schemas map[string]json.RawMessage, depth int, status string) json.RawMessage {
	if depth > maxExampleDepth || len(schema) == 0 || schema[0] != '{' {
		return nil
	}
	var s exampleSchema
	if jsonv2.Unmarshal(schema, &s) != nil {
		return nil
	}
	switch {
	case len(s.Examples) > 0:
		return exampleForStatus(s.Examples, status)
	case s.Example != nil:
		return s.Example
	case s.Const != nil:
		return s.Const
	case s.Default != nil:
		return s.Default
	case len(s.Enum) > 0:
		return s.Enum[0]
	case s.Ref != "":
		name, ok := strings.CutPrefix(s.Ref, componentPrefix)
		if !ok || perOperation[unescapeToken(name)] {
			// A framework body naming an operation's own fields or scopes
			// has the example made for the operation, or none.
			return nil
		}
		return exampleOf(schemas[unescapeToken(name)], schemas, depth+1, status)
	case len(s.AnyOf) > 0 || len(s.OneOf) > 0:
		// An example of one alternative is an example of the whole: the
		// first that states one (for a response, of its status when one
		// does).
		var first json.RawMessage
		for _, alt := range append(s.AnyOf, s.OneOf...) {
			ex := exampleOf(alt, schemas, depth+1, status)
			if ex == nil {
				continue
			}
			if status == "" || hasStatus(ex, status) {
				return ex
			}
			if first == nil {
				first = ex
			}
		}
		return first
	case s.Properties.Kind() == '{':
		return objectExample(s, schemas, depth)
	case s.Items != nil:
		if (s.MinItems != nil && *s.MinItems > 1) || (s.MaxItems != nil && *s.MaxItems < 1) {
			return nil
		}
		item := exampleOf(s.Items, schemas, depth+1, "")
		if item == nil {
			return nil
		}
		return append(append(json.RawMessage{'['}, item...), ']')
	}
	return nil
}

// exampleForStatus returns the first of examples whose "status" or
// "statusCode" member is status (one schema for the bodies of several
// statuses, as a Problem Details schema is), else the first.
func exampleForStatus(examples []json.RawMessage, status string) json.RawMessage {
	if len(examples) > 1 && status != "" {
		for _, ex := range examples {
			if hasStatus(ex, status) {
				return ex
			}
		}
	}
	return examples[0]
}

// hasStatus reports whether example is an object whose "status" or
// "statusCode" member is status.
func hasStatus(example json.RawMessage, status string) bool {
	var v struct {
		Status     json.Number `json:"status"`
		StatusCode json.Number `json:"statusCode"`
	}
	return json.Unmarshal(example, &v) == nil && (string(v.Status) == status || string(v.StatusCode) == status)
}

// objectExample is the example of an object schema made of its
// properties' examples, in the order the schema lists them: nil when a
// required property has none, or when no property has one.
func objectExample(s exampleSchema, schemas map[string]json.RawMessage, depth int) json.RawMessage {
	dec := jsontext.NewDecoder(bytes.NewReader(s.Properties))
	if _, err := dec.ReadToken(); err != nil { // {
		return nil
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	n := 0
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil
		}
		name := tok.String()
		prop, err := dec.ReadValue()
		if err != nil {
			return nil
		}
		ex := exampleOf(json.RawMessage(prop), schemas, depth+1, "")
		if ex == nil {
			for _, r := range s.Required {
				if r == name {
					return nil
				}
			}
			continue
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		key, _ := jsontext.AppendQuote(nil, name)
		buf.Write(key)
		buf.WriteByte(':')
		buf.Write(ex)
		n++
	}
	if n == 0 {
		return nil
	}
	buf.WriteByte('}')
	return buf.Bytes()
}
