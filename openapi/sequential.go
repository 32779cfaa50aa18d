package openapi

import (
	"encoding/json"
	"mime"
	"slices"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
)

// Sequential media types: a body that is a sequence of items, each of
// which a contract's schema describes, rather than one value
// (https://spec.openapis.org/oas/v3.2.0#sequential-media-types).
const (
	// MediaEventStream is Server-Sent Events (WHATWG HTML §9.2): a
	// contract's schema describes the data of one event.
	MediaEventStream = "text/event-stream"
	// MediaJSONLines is JSON Lines (https://jsonlines.org): a contract's
	// schema describes one line. application/x-ndjson is the same format
	// under an older name, and application/json-seq (RFC 7464) the same
	// idea with record separators; both are sequential too.
	MediaJSONLines = "application/jsonl"
)

// sequentialTypes are the media types whose contract schema describes one
// item, lower case and without parameters.
var sequentialTypes = []string{MediaEventStream, MediaJSONLines, "application/x-ndjson", "application/json-seq"}

// sequential reports whether mt is a sequential media type.
func sequential(mt string) bool {
	base, _, err := mime.ParseMediaType(mt)
	if err != nil {
		base = strings.ToLower(strings.TrimSpace(mt))
	}
	for _, s := range sequentialTypes {
		if base == s {
			return true
		}
	}
	return false
}

// IsSequential reports whether a media type is one whose items [Build]
// describes one at a time (docs/spec.md §7): text/event-stream,
// application/jsonl, application/x-ndjson and application/json-seq,
// parameters and case ignored.
func IsSequential(mediaType string) bool { return sequential(mediaType) }

// Schemas of Server-Sent Events, as OpenAPI 3.2 models them: each event
// is an object of its fields, every field a string but retry, a
// non-negative integer
// (https://spec.openapis.org/oas/v3.2.0#special-considerations-for-server-sent-events).
var (
	sseField = json.RawMessage(`{"type":"string"}`)
	sseRetry = json.RawMessage(`{"type":"integer","minimum":0}`)
)

// itemSchema is the schema of one item of the sequential media type mt
// whose contract declares declared (nil: none).
//
// For text/event-stream it is the event object of OpenAPI 3.2: "data" is
// the declared schema when that is a string schema (the guest sends the
// text as it is), else a string whose content is JSON described by
// declared ("contentMediaType" and "contentSchema", JSON Schema 2020-12
// §8.4), else any string; "event" and "id" are strings and "retry" a
// non-negative integer. No field is required: an event may carry only an
// id or a retry. For JSON Lines and JSON text sequences each item is a
// JSON value: the declared schema, or {}.
func itemSchema(mt string, declared json.RawMessage) json.RawMessage {
	base, _, err := mime.ParseMediaType(mt)
	if err != nil {
		base = strings.ToLower(strings.TrimSpace(mt))
	}
	if base != MediaEventStream {
		if declared == nil {
			return slices.Clone(anySchema)
		}
		return declared
	}
	data := slices.Clone(sseField)
	switch {
	case declared == nil:
	case isStringSchema(declared):
		data = declared
	default:
		data, _ = jsonv2.Marshal(map[string]json.RawMessage{
			"type":             json.RawMessage(`"string"`),
			"contentMediaType": json.RawMessage(`"application/json"`),
			"contentSchema":    declared,
		}, jsonv2.Deterministic(true))
	}
	v, _ := jsonv2.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]json.RawMessage{
			"data": data, "event": slices.Clone(sseField), "id": slices.Clone(sseField), "retry": slices.Clone(sseRetry),
		},
	}, jsonv2.Deterministic(true))
	return v
}

// isStringSchema reports whether a schema says "type": "string": the
// data of such events is text, not JSON.
func isStringSchema(s json.RawMessage) bool {
	var v struct {
		Type any `json:"type"`
	}
	return jsonv2.Unmarshal(s, &v) == nil && v.Type == "string"
}

// itemMedia is the Media Type Object of a sequential media type whose
// items item describes, in a document of OpenAPI version spec: OpenAPI
// 3.2 has "itemSchema"; OpenAPI 3.1 has none, so "schema" describes the
// whole body as what it is, text, and [ItemSchemaExtension] carries the
// item schema.
func itemMedia(spec string, item json.RawMessage) *MediaType {
	if spec == Version32 {
		return &MediaType{ItemSchema: item}
	}
	return &MediaType{Schema: slices.Clone(stringSchema), Extra: map[string]json.RawMessage{ItemSchemaExtension: item}}
}

// sequentialMedia is the Media Type Object of a request body of a
// sequential media type.
func (b *builder) sequentialMedia(mt string, declared json.RawMessage) *MediaType {
	return itemMedia(b.spec, itemSchema(mt, declared))
}
