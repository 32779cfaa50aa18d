package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Where named schemas live: "$defs" in a contract or routes configuration,
// components/schemas in the document.
const (
	defsPrefix      = "#/$defs/"
	componentPrefix = "#/components/schemas/"
)

// JSON Schema 2020-12 keywords (and the older ones still found in the wild)
// whose value is a schema, an array of schemas or a map of schemas: where
// references are looked for.
var (
	schemaValued = []string{"additionalProperties", "unevaluatedProperties", "unevaluatedItems",
		"items", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else", "contentSchema"}
	schemaArrays = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	schemaMaps   = []string{"properties", "patternProperties", "dependentSchemas", "$defs", "definitions", "dependencies"}
)

// refVisitor is called for every "#/$defs/Name..." reference found; ptr is
// the JSON pointer of the "$ref" member relative to the schema walked,
// prefixed with the pointer given to rewriteRefs.
type refVisitor func(name, ptr string)

// rewriteRefs returns s with every "#/$defs/X..." reference rewritten to
// "#/components/schemas/X...", calling visit for each. Only "$ref" members
// of schemas are rewritten (a "$ref" inside an "enum" or "default" value is
// data); a subschema with "$id" starts a resource of its own, where "#"
// means that resource, so its references are left alone. The input is not
// changed; everything but the rewritten strings is kept byte for byte, and
// a schema without such references is returned as it is.
func rewriteRefs(s json.RawMessage, ptr string, visit refVisitor) (json.RawMessage, error) {
	if k := jsontext.Value(s).Kind(); k != '{' || !mayHaveRefs(s) {
		return s, nil
	}
	w := refWalker{dec: jsontext.NewDecoder(bytes.NewReader(s))}
	if err := w.schema(); err != nil {
		return nil, fmt.Errorf("%s%s: %w", ptr, w.dec.StackPointer(), err)
	}
	if len(w.splices) == 0 {
		return s, nil
	}
	out := make([]byte, 0, len(s)+len(w.splices)*(len(componentPrefix)-len(defsPrefix)))
	last := 0
	for _, sp := range w.splices {
		visit(sp.name, ptr+sp.ptr)
		out = append(out, s[last:sp.start]...)
		out = append(out, sp.value...)
		last = sp.end
	}
	return append(out, s[last:]...), nil
}

// splice replaces s[start:end] with value.
type splice struct {
	start, end int
	value      []byte
	name, ptr  string
}

// refWalker streams through a schema, recording the references to rewrite.
type refWalker struct {
	dec     *jsontext.Decoder
	splices []splice
}

// schema reads the schema that comes next.
func (w *refWalker) schema() error {
	if w.dec.PeekKind() != '{' {
		return w.dec.SkipValue()
	}
	if _, err := w.dec.ReadToken(); err != nil {
		return err
	}
	first, ownResource := len(w.splices), false
	for w.dec.PeekKind() != '}' {
		tok, err := w.dec.ReadToken()
		if err != nil {
			return err
		}
		switch name := tok.String(); {
		case name == "$id":
			ownResource = true
			err = w.dec.SkipValue()
		case name == "$ref" && w.dec.PeekKind() == '"':
			err = w.ref()
		case slices.Contains(schemaValued, name) && w.dec.PeekKind() == '{':
			err = w.schema()
		case slices.Contains(schemaArrays, name) && w.dec.PeekKind() == '[':
			err = w.each(false)
		case slices.Contains(schemaMaps, name) && w.dec.PeekKind() == '{':
			err = w.each(true)
		default:
			err = w.dec.SkipValue()
		}
		if err != nil {
			return err
		}
	}
	if _, err := w.dec.ReadToken(); err != nil {
		return err
	}
	if ownResource {
		w.splices = w.splices[:first]
	}
	return nil
}

// each reads an array of schemas, or an object of schemas when members.
func (w *refWalker) each(members bool) error {
	if _, err := w.dec.ReadToken(); err != nil {
		return err
	}
	for k := w.dec.PeekKind(); k != ']' && k != '}'; k = w.dec.PeekKind() {
		if members {
			if _, err := w.dec.ReadToken(); err != nil {
				return err
			}
		}
		if err := w.schema(); err != nil {
			return err
		}
	}
	_, err := w.dec.ReadToken()
	return err
}

// ref reads a "$ref" string and records its rewrite.
func (w *refWalker) ref() error {
	v, err := w.dec.ReadValue()
	if err != nil {
		return err
	}
	var ref string
	if err := jsonv2.Unmarshal(v, &ref); err != nil {
		return err
	}
	rest, ok := strings.CutPrefix(ref, defsPrefix)
	if !ok {
		return nil
	}
	end := int(w.dec.InputOffset())
	name, _, _ := strings.Cut(rest, "/")
	w.splices = append(w.splices, splice{
		start: end - len(v), end: end, value: quote(componentPrefix + rest),
		name: unescapeToken(name), ptr: string(w.dec.StackPointer()),
	})
	return nil
}

// mayHaveRefs reports whether s may contain a "$ref" member: false only
// when the text cannot hold one, escaped or not.
func mayHaveRefs(s []byte) bool {
	return bytes.Contains(s, []byte("$ref")) || bytes.Contains(s, []byte(`\u`))
}

// canonical is the RFC 8785 form of v, for comparing schemas.
func canonical(v json.RawMessage) (string, error) {
	c := jsontext.Value(slices.Clone(v))
	if err := c.Canonicalize(); err != nil {
		return "", err
	}
	return string(c), nil
}

// quote encodes s as a JSON string.
func quote(s string) json.RawMessage {
	v, _ := jsonv2.Marshal(s)
	return v
}

// EscapeToken escapes a JSON Pointer reference token (RFC 6901 §3):
// "application/json" → "application~1json".
func EscapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// unescapeToken undoes EscapeToken.
func unescapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}

// pointer joins reference tokens into a JSON pointer.
func pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(EscapeToken(t))
	}
	return b.String()
}

// objectMembers decodes a JSON object into its members; anything else
// gives nil.
func objectMembers(v json.RawMessage) map[string]json.RawMessage {
	if jsontext.Value(v).Kind() != '{' {
		return nil
	}
	var m map[string]json.RawMessage
	if jsonv2.Unmarshal(v, &m) != nil {
		return nil
	}
	return m
}
