package openapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/openapi"
)

// sseEvent is the OpenAPI 3.2 event object of text/event-stream with data
// described by data.
func sseEvent(data string) string {
	return `{"type": "object", "properties": {"data": ` + data + `, "event": {"type": "string"}, "id": {"type": "string"}, "retry": {"type": "integer", "minimum": 0}}}`
}

func TestSequentialMediaTypes(t *testing.T) {
	const tick = `{"type": "object", "properties": {"n": {"type": "integer"}}}`
	tests := []struct {
		name, contract string
		// item is the schema of one item, wherever the version puts it.
		mediaType, item string
	}{
		{
			name:      "events with JSON data",
			contract:  `{"responses": {"200": {"media": ["text/event-stream"], "schema": ` + tick + `}}}`,
			mediaType: "text/event-stream",
			item:      sseEvent(`{"type": "string", "contentMediaType": "application/json", "contentSchema": ` + tick + `}`),
		},
		{
			name:      "events with text data",
			contract:  `{"responses": {"200": {"media": ["text/event-stream"], "schema": {"type": "string", "maxLength": 10}}}}`,
			mediaType: "text/event-stream",
			item:      sseEvent(`{"type": "string", "maxLength": 10}`),
		},
		{
			name:      "events without a schema",
			contract:  `{"responses": {"200": {"media": ["text/event-stream"]}}}`,
			mediaType: "text/event-stream",
			item:      sseEvent(`{"type": "string"}`),
		},
		{
			name:      "events with a reference to a def",
			contract:  `{"responses": {"200": {"media": ["text/event-stream"], "schema": {"$ref": "#/$defs/Tick"}}}, "$defs": {"Tick": ` + tick + `}}`,
			mediaType: "text/event-stream",
			item:      sseEvent(`{"type": "string", "contentMediaType": "application/json", "contentSchema": {"$ref": "#/components/schemas/Tick"}}`),
		},
		{
			name:      "JSON Lines",
			contract:  `{"responses": {"200": {"media": ["application/jsonl"], "schema": ` + tick + `}}}`,
			mediaType: "application/jsonl",
			item:      tick,
		},
		{
			name:      "NDJSON without a schema",
			contract:  `{"responses": {"200": {"media": ["application/x-ndjson"]}}}`,
			mediaType: "application/x-ndjson",
			item:      `{}`,
		},
	}
	for _, tt := range tests {
		ptr := "/paths/~1api~1x/get/responses/200/content/" + strings.ReplaceAll(tt.mediaType, "/", "~1")
		t.Run(tt.name+", OpenAPI 3.1", func(t *testing.T) {
			doc := build(t, []openapi.Route{op(t, "GET", "/api/x", "server/api/x.get.wasm", tt.contract)}, openapi.Options{})
			wantJSON(t, "openapi", at(t, doc, "/openapi"), `"3.1.0"`)
			wantJSON(t, "the whole body", at(t, doc, ptr+"/schema"), `{"type": "string"}`)
			wantJSON(t, "the item", at(t, doc, ptr+"/x-endpoints-item-schema"), tt.item)
			if got := at(t, doc, ptr+"/itemSchema"); got != "" {
				t.Errorf("itemSchema in a 3.1 document: got %s, want none", got)
			}
		})
		t.Run(tt.name+", OpenAPI 3.2", func(t *testing.T) {
			doc := build(t, []openapi.Route{op(t, "GET", "/api/x", "server/api/x.get.wasm", tt.contract)}, openapi.Options{SpecVersion: openapi.Version32})
			wantJSON(t, "openapi", at(t, doc, "/openapi"), `"3.2.0"`)
			wantJSON(t, "the media type", at(t, doc, ptr), `{"itemSchema": `+tt.item+`}`)
		})
	}
}

func TestSequentialRequestBody(t *testing.T) {
	const line = `{"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}`
	contract := `{"request": {"body": {"content": {"application/x-ndjson": {"schema": ` + line + `}, "text/csv": {}}}}}`
	for _, tt := range []struct {
		name, spec, want string
	}{
		{"OpenAPI 3.1", "", `{"schema": {"type": "string"}, "x-endpoints-item-schema": ` + line + `}`},
		{"OpenAPI 3.2", openapi.Version32, `{"itemSchema": ` + line + `}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := build(t, []openapi.Route{op(t, "POST", "/api/x", "server/api/x.post.wasm", contract)}, openapi.Options{SpecVersion: tt.spec})
			wantJSON(t, "NDJSON", at(t, doc, "/paths/~1api~1x/post/requestBody/content/application~1x-ndjson"), tt.want)
			wantJSON(t, "CSV stays one body", at(t, doc, "/paths/~1api~1x/post/requestBody/content/text~1csv"), `{"schema": {"type": "string"}}`)
		})
	}
}

func TestMediaTypeItem(t *testing.T) {
	for _, tt := range []struct {
		name string
		m    *openapi.MediaType
		want string
	}{
		{"OpenAPI 3.2", &openapi.MediaType{ItemSchema: []byte(`{"type":"integer"}`)}, `{"type":"integer"}`},
		{"OpenAPI 3.1", &openapi.MediaType{Schema: []byte(`{"type":"string"}`), Extra: map[string]json.RawMessage{openapi.ItemSchemaExtension: []byte(`{"type":"integer"}`)}}, `{"type":"integer"}`},
		{"not sequential", &openapi.MediaType{Schema: []byte(`{"type":"integer"}`)}, ``},
		{"nil", nil, ``},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(tt.m.Item()); got != tt.want {
				t.Errorf("Item() = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestBuildRefusesAnUnknownSpecVersion(t *testing.T) {
	_, err := openapi.Build(nil, openapi.Options{SpecVersion: "3.0.3"})
	if err == nil || !strings.Contains(err.Error(), `"3.0.3"`) {
		t.Errorf("Build with SpecVersion 3.0.3: got %v, want an error naming it", err)
	}
}
