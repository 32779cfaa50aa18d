package openapi

import (
	"bytes"
	"encoding/json"
)

// integerFormats are the integer formats of the OpenAPI format registry
// the host asserts (internal/validation), with their ranges as JSON
// numbers.
var integerFormats = map[string][2]json.Number{
	"int8":  {"-128", "127"},
	"int16": {"-32768", "32767"},
	"int32": {"-2147483648", "2147483647"},
	"int64": {"-9223372036854775808", "9223372036854775807"},
	"uint8": {"0", "255"},
}

// boundIntegerFormats states the range of every integer format in schema
// as "minimum" and "maximum" where the schema gives none: the host asserts
// "format": "int32", and a validator that leaves formats to annotation
// (as JSON Schema 2020-12 allows) then still refuses what the host
// refuses. A schema without such a format is returned as it is.
func boundIntegerFormats(schema json.RawMessage) json.RawMessage {
	if !bytes.Contains(schema, []byte(`"format"`)) || !bytes.Contains(schema, []byte(`int`)) {
		return schema
	}
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return schema
	}
	if !bound(v, 0) {
		return schema
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // a pattern's "&" stays as written
	if err := enc.Encode(v); err != nil {
		return schema
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}

// bound adds the bounds to v and the schemas inside it, and reports
// whether it changed anything.
func bound(v any, depth int) bool {
	if depth > 64 {
		return false
	}
	changed := false
	switch v := v.(type) {
	case map[string]any:
		if f, ok := v["format"].(string); ok {
			if r, ok := integerFormats[f]; ok {
				if _, has := v["minimum"]; !has {
					if _, has := v["exclusiveMinimum"]; !has {
						v["minimum"], changed = r[0], true
					}
				}
				if _, has := v["maximum"]; !has {
					if _, has := v["exclusiveMaximum"]; !has {
						v["maximum"], changed = r[1], true
					}
				}
			}
		}
		for k, e := range v {
			// const, enum, default and examples hold values, not schemas.
			if k == "const" || k == "enum" || k == "default" || k == "examples" || k == "example" {
				continue
			}
			if bound(e, depth+1) {
				changed = true
			}
		}
	case []any:
		for _, e := range v {
			if bound(e, depth+1) {
				changed = true
			}
		}
	}
	return changed
}
