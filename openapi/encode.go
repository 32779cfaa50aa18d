package openapi

import (
	"errors"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// encodeOptions make the output deterministic: map keys and the members of
// raw JSON objects (schemas, extensions) sorted, two-space indentation.
var encodeOptions = jsonv2.JoinOptions(
	jsonv2.Deterministic(true),
	jsontext.ReorderRawObjects(true),
	bareMarshalers,
)

// MarshalIndent encodes the document as JSON indented by two spaces, with
// a trailing newline. The output depends only on the document: the members
// of every JSON object are sorted (struct fields in the order of the
// OpenAPI specification first, then the members kept in Extra), so the
// same input gives byte-identical output.
//
//	data, err := doc.MarshalIndent()
//
// # Notes
//
//   - Schemas and other raw members are re-indented and their members
//     sorted (RFC 8785 §3.2.3 order); numbers are written as they were
//     given, strings with the same value but escaped only where JSON
//     needs it ("\u00e9" becomes "é").
func (d *Document) MarshalIndent() ([]byte, error) {
	data, err := jsonv2.Marshal(d, encodeOptions, jsontext.WithIndent("  "))
	if err != nil {
		return nil, fmt.Errorf("openapi: encode document: %w", err)
	}
	return append(data, '\n'), nil
}

// ParseDocument decodes an OpenAPI 3.1 document, such as the one an
// openApi.extend hook returns (docs/spec.md §7). Members the model does not name
// are kept in the Extra fields. It checks types only; call
// [Document.Validate] for the rules of the specification.
func ParseDocument(data []byte) (*Document, error) {
	var d Document
	if err := jsonv2.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("openapi: decode document: %w", err)
	}
	return &d, nil
}

// ErrNotObject is returned by [Document.Merge] for a fragment that is not
// a JSON object.
var ErrNotObject = errors.New("openapi: a document fragment must be a JSON object")

// Merge deep-merges a fragment into the document, the openApi.document
// rule of docs/spec.md §7: objects merge member by member, recursively; arrays,
// strings, numbers, booleans and null replace what was there. The fragment
// must be a JSON object, and the merged result must decode as a [Document]
// and pass [Document.Validate]; otherwise the document is left unchanged.
//
//	err := doc.Merge([]byte(`{"servers": [{"url": "https://api.example.com"}],
//		"components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}}}`))
//
// # Notes
//
//   - The merge works on JSON, so any member merges, modelled or not.
//   - Arrays replace: a fragment with "tags" replaces the tags the builder
//     listed, it does not add to them.
//   - null replaces too, which for a modelled member means removing it.
func (d *Document) Merge(fragment []byte) error {
	frag := jsontext.Value(fragment)
	if !frag.IsValid() {
		var v any
		err := jsonv2.Unmarshal(fragment, &v)
		return fmt.Errorf("openapi: merge: fragment is not valid JSON: %w", err)
	}
	if frag.Kind() != '{' {
		return fmt.Errorf("%w, got %s", ErrNotObject, kindName(frag.Kind()))
	}
	cur, err := jsonv2.Marshal(d, bareMarshalers)
	if err != nil {
		return fmt.Errorf("openapi: merge: encode document: %w", err)
	}
	merged, err := mergeJSON(cur, frag)
	if err != nil {
		return fmt.Errorf("openapi: merge: %w", err)
	}
	var out Document
	if err := jsonv2.Unmarshal(merged, &out); err != nil {
		return fmt.Errorf("openapi: merge: the merged document is not an OpenAPI document: %w", err)
	}
	if err := out.Validate(); err != nil {
		return fmt.Errorf("merged document: %w", err)
	}
	*d = out
	return nil
}

// mergeJSON merges src into dst: objects recursively, anything else
// replaces.
func mergeJSON(dst, src jsontext.Value) (jsontext.Value, error) {
	if dst.Kind() != '{' || src.Kind() != '{' {
		return src, nil
	}
	var dm, sm map[string]jsontext.Value
	if err := jsonv2.Unmarshal(dst, &dm); err != nil {
		return nil, err
	}
	if err := jsonv2.Unmarshal(src, &sm); err != nil {
		return nil, err
	}
	for k, sv := range sm {
		if dv, ok := dm[k]; ok {
			mv, err := mergeJSON(dv, sv)
			if err != nil {
				return nil, err
			}
			dm[k] = mv
			continue
		}
		dm[k] = sv
	}
	return jsonv2.Marshal(dm, jsonv2.Deterministic(true))
}

// kindName names a JSON kind for error messages.
func kindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "nothing"
}
