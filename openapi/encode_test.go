package openapi_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/openapi"
)

// smallDoc is a built document to merge into.
func smallDoc(t *testing.T) *openapi.Document {
	t.Helper()
	return build(t, []openapi.Route{
		op(t, "GET", "/api/users/{id}", "server/api/users/[id].get.wasm", `{
			"summary": "Get a user", "tags": ["users"],
			"request": {"params": {"type": "object", "properties": {"id": {"type": "integer"}}}},
			"responses": {"200": {"schema": {"type": "object"}}}}`),
	}, openapi.Options{Title: "Users", Version: "1.0.0"})
}

func TestMerge(t *testing.T) {
	tests := []struct {
		name, fragment string
		// want maps a JSON pointer to the JSON expected there.
		want map[string]string
	}{
		{
			name:     "objects merge recursively",
			fragment: `{"info": {"description": "All about users", "contact": {"name": "Ops"}}}`,
			want: map[string]string{
				"/info": `{"title": "Users", "version": "1.0.0", "description": "All about users", "contact": {"name": "Ops"}}`,
			},
		},
		{
			name:     "scalars replace",
			fragment: `{"info": {"title": "People"}, "paths": {"/api/users/{id}": {"get": {"summary": "Fetch a user"}}}}`,
			want: map[string]string{
				"/info/title":                               `"People"`,
				"/paths/~1api~1users~1{id}/get/summary":     `"Fetch a user"`,
				"/paths/~1api~1users~1{id}/get/operationId": `"getApiUsersById"`,
			},
		},
		{
			name:     "arrays replace",
			fragment: `{"tags": [{"name": "people", "description": "Humans"}], "paths": {"/api/users/{id}": {"get": {"tags": ["people"]}}}}`,
			want: map[string]string{
				"/tags":                              `[{"name": "people", "description": "Humans"}]`,
				"/paths/~1api~1users~1{id}/get/tags": `["people"]`,
			},
		},
		{
			name: "security, servers and schemes added",
			fragment: `{"servers": [{"url": "https://api.example.com"}], "security": [{"bearer": []}],
				"components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}}}}`,
			want: map[string]string{
				"/servers":                    `[{"url": "https://api.example.com"}]`,
				"/security":                   `[{"bearer": []}]`,
				"/components/securitySchemes": `{"bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}}`,
				"/components/schemas/EndpointsValidationIssue/required": `["path", "message"]`,
			},
		},
		{
			name: "unknown members and extensions survive at every level",
			fragment: `{"x-top": {"a": [1, 2.50, 12345678901234567890]}, "info": {"x-logo": {"url": "l.png"}},
				"paths": {"/api/users/{id}": {"x-path": true, "get": {"x-op": "o", "callbacks": {"cb": {"{$request.body#/url}": {}}},
					"responses": {"200": {"x-resp": 1, "links": {"self": {"operationId": "getApiUsersById"}}}}}}},
				"components": {"x-comp": null, "examples": {"ex": {"value": 1}}},
				"webhooks": {"created": {"post": {"responses": {"200": {"description": "ok"}}}}}}`,
			want: map[string]string{
				"/x-top":                             `{"a": [1, 2.50, 12345678901234567890]}`,
				"/info/x-logo":                       `{"url": "l.png"}`,
				"/paths/~1api~1users~1{id}/x-path":   `true`,
				"/paths/~1api~1users~1{id}/get/x-op": `"o"`,
				"/paths/~1api~1users~1{id}/get/responses/200/x-resp": `1`,
				"/paths/~1api~1users~1{id}/get/responses/200/links":  `{"self": {"operationId": "getApiUsersById"}}`,
				"/paths/~1api~1users~1{id}/get/callbacks":            `{"cb": {"{$request.body#/url}": {}}}`,
				"/components/x-comp":                                 `null`,
				"/components/examples":                               `{"ex": {"value": 1}}`,
				"/webhooks/created/post/responses/200/description":   `"ok"`,
			},
		},
		{
			name:     "an empty security list is kept",
			fragment: `{"paths": {"/api/users/{id}": {"get": {"security": []}}}}`,
			want:     map[string]string{"/paths/~1api~1users~1{id}/get/security": `[]`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := smallDoc(t)
			if err := doc.Merge([]byte(tt.fragment)); err != nil {
				t.Fatalf("Merge: %v", err)
			}
			checkDocument(t, doc)
			for ptr, want := range tt.want {
				wantJSON(t, ptr, at(t, doc, ptr), want)
			}
		})
	}
}

func TestMergeErrors(t *testing.T) {
	tests := []struct {
		name, fragment, want string
		wantErr              error
	}{
		{name: "an array", fragment: `[{"openapi": "3.1.0"}]`, want: "got an array", wantErr: openapi.ErrNotObject},
		{name: "a string", fragment: `"x"`, want: "got a string", wantErr: openapi.ErrNotObject},
		{name: "not JSON", fragment: `{"info": `, want: "fragment is not valid JSON"},
		{name: "a member of the wrong type", fragment: `{"paths": []}`, want: "the merged document is not an OpenAPI document"},
		{name: "a wrong OpenAPI version", fragment: `{"openapi": "3.0.3"}`, want: `/openapi: got "3.0.3", want an OpenAPI 3.1 or 3.2 version`},
		{name: "a dangling reference", fragment: `{"components": {"schemas": {"A": {"$ref": "#/components/schemas/B"}}}}`,
			want: `/components/schemas/A/$ref: "#/components/schemas/B" does not resolve`},
		{name: "an operation without responses", fragment: `{"paths": {"/x": {"get": {"summary": "x"}}}}`,
			want: `/paths/~1x/get/responses: an operation needs at least one response`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := smallDoc(t)
			before, _ := doc.MarshalIndent()
			err := doc.Merge([]byte(tt.fragment))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Merge error = %v, want it to contain %q", err, tt.want)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("Merge error = %v, want %v", err, tt.wantErr)
			}
			if after, _ := doc.MarshalIndent(); !bytes.Equal(before, after) {
				t.Errorf("a failed Merge changed the document")
			}
		})
	}
}

// TestParseDocumentRoundTrip decodes a document that uses every modelled
// object and many unmodelled members, and checks that encoding gives the
// same JSON back.
// everyMember is a document with every modelled member of every type of
// the model, and an "x-" member in each object that may carry one.
const everyMember = `{
  "openapi": "3.1.0",
  "info": {"title": "T", "summary": "S", "description": "D", "termsOfService": "https://t.example",
    "contact": {"name": "N", "url": "https://c.example", "email": "c@example.com", "x-c": 1},
    "license": {"name": "MIT", "identifier": "MIT", "x-l": 2}, "version": "1", "x-i": 3},
  "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
  "servers": [{"url": "https://{env}.example.com", "description": "Env", "variables": {"env": {"enum": ["a", "b"], "default": "a", "description": "E", "x-v": 4}}, "x-s": 5}],
  "paths": {
    "/p/{id}": {
      "summary": "PS", "description": "PD", "x-p": 6,
      "parameters": [{"$ref": "#/components/parameters/Id"}],
      "servers": [{"url": "https://p.example"}],
      "get": {"tags": ["t"], "summary": "s", "description": "d", "externalDocs": {"url": "https://d.example", "description": "ed", "x-e": 7},
        "operationId": "o", "deprecated": true, "security": [{"k": ["r"]}], "servers": [{"url": "https://o.example"}],
        "parameters": [{"name": "q", "in": "query", "description": "qd", "required": true, "deprecated": true, "allowEmptyValue": true,
          "style": "form", "explode": false, "allowReserved": true, "schema": {"type": "string"}, "example": "e",
          "examples": {"one": {"value": "1"}}, "x-q": 8},
          {"name": "c", "in": "cookie", "content": {"application/json": {"schema": {"type": "object"}}}}],
        "responses": {"200": {"description": "ok",
          "headers": {"h": {"description": "hd", "required": true, "deprecated": true, "style": "simple", "explode": true, "schema": {"type": "integer"}, "example": 1, "examples": {"e": {"value": 2}}, "x-h": 9},
            "r": {"$ref": "#/components/headers/H"}},
          "content": {"application/json": {"schema": {"type": "object", "x-in-schema": true}, "example": {"a": 1}, "examples": {"e": {"value": {}}},
            "encoding": {"a": {"contentType": "text/plain"}}, "x-m": 10}},
          "links": {"l": {"operationId": "o"}}, "x-r": 11},
          "default": {"$ref": "#/components/responses/Err"}},
        "callbacks": {"cb": {"{$request.body#/u}": {"post": {"responses": {"200": {"description": "ok"}}}}}},
        "x-o": 12},
      "post": {"requestBody": {"$ref": "#/components/requestBodies/B"}, "responses": {"204": {"description": "none"}}},
      "put": {"requestBody": {"description": "bd", "required": true, "content": {"text/plain": {}}, "x-b": 13}, "responses": {"204": {"description": "none"}}},
      "delete": {"responses": {"204": {"description": "none"}}},
      "options": {"responses": {"204": {"description": "none"}}},
      "head": {"responses": {"204": {"description": "none"}}},
      "patch": {"responses": {"204": {"description": "none"}}},
      "trace": {"responses": {"204": {"description": "none"}}}
    },
    "/alias": {"$ref": "#/components/pathItems/P"}
  },
  "webhooks": {"w": {"post": {"responses": {"200": {"description": "ok"}}}}},
  "components": {
    "schemas": {"S": {"type": "object", "properties": {"n": {"type": "number", "multipleOf": 0.01}}}},
    "responses": {"Err": {"description": "error"}},
    "parameters": {"Id": {"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}},
    "examples": {"E": {"value": 1}},
    "requestBodies": {"B": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/S"}}}}},
    "headers": {"H": {"schema": {"type": "string"}}},
    "securitySchemes": {
      "k": {"type": "apiKey", "name": "X-Key", "in": "header", "description": "key", "x-k": 14},
      "b": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
      "o": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "https://t.example", "scopes": {"r": "read"}}}},
      "i": {"type": "openIdConnect", "openIdConnectUrl": "https://i.example/.well-known/openid-configuration"},
      "ref": {"$ref": "#/components/securitySchemes/b"}},
    "links": {"L": {"operationId": "o"}},
    "callbacks": {"C": {}},
    "pathItems": {"P": {"get": {"responses": {"200": {"description": "ok"}}}}},
    "x-comp": 15
  },
  "security": [{}, {"b": []}],
  "tags": [{"name": "t", "description": "td", "externalDocs": {"url": "https://t.example"}, "x-t": 16}],
  "externalDocs": {"url": "https://docs.example", "x-d": 17},
  "x-top": [18]
}`

func TestParseDocumentRoundTrip(t *testing.T) {
	src := everyMember
	doc, err := openapi.ParseDocument([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	checkDocument(t, doc)
	got, err := doc.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	if g, w := canon(t, string(got)), canon(t, src); g != w {
		t.Errorf("round trip lost or changed members:\ngot  %s\nwant %s", g, w)
	}
	if doc.Paths["/p/{id}"].Get.Parameters[0].Explode == nil || *doc.Paths["/p/{id}"].Get.Parameters[0].Explode {
		t.Errorf("explode: false was not decoded")
	}
}

// TestEncodingJSON checks that encoding/json writes and reads the model
// as MarshalIndent and ParseDocument do: every "x-" member in the object
// that holds it, never a member named "Extra".
func TestEncodingJSON(t *testing.T) {
	parsed, err := openapi.ParseDocument([]byte(everyMember))
	if err != nil {
		t.Fatal(err)
	}
	var decoded openapi.Document
	if err := json.Unmarshal([]byte(everyMember), &decoded); err != nil {
		t.Fatalf("encoding/json Unmarshal: %v", err)
	}
	checkDocument(t, &decoded)
	tests := []struct {
		name string
		in   any
	}{
		{"pointer from ParseDocument", parsed},
		{"value from ParseDocument", *parsed},
		{"pointer from encoding/json", &decoded},
		{"inside another value", map[string]any{"doc": parsed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatalf("encoding/json Marshal: %v", err)
			}
			if bytes.Contains(data, []byte(`"Extra"`)) {
				t.Errorf("output has a member named Extra: %s", data)
			}
			if _, ok := tt.in.(map[string]any); ok {
				var outer map[string]json.RawMessage
				if err := json.Unmarshal(data, &outer); err != nil {
					t.Fatal(err)
				}
				data = outer["doc"]
			}
			if g, w := canon(t, string(data)), canon(t, everyMember); g != w {
				t.Errorf("encoding/json lost or changed members:\ngot  %s\nwant %s", g, w)
			}
		})
	}
}

func TestMarshalIndentIsCanonical(t *testing.T) {
	// Two documents that differ only in the order of members encode the
	// same.
	a, err := openapi.ParseDocument([]byte(`{"openapi": "3.1.0", "info": {"version": "1", "title": "T", "x-b": 1, "x-a": 2},
		"paths": {"/b": {}, "/a": {}}, "components": {"schemas": {"S": {"type": "string", "minLength": 1}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := openapi.ParseDocument([]byte(`{"components": {"schemas": {"S": {"minLength": 1, "type": "string"}}},
		"paths": {"/a": {}, "/b": {}}, "info": {"x-a": 2, "title": "T", "x-b": 1, "version": "1"}, "openapi": "3.1.0"}`))
	if err != nil {
		t.Fatal(err)
	}
	ea, _ := a.MarshalIndent()
	eb, _ := b.MarshalIndent()
	if !bytes.Equal(ea, eb) {
		t.Errorf("member order leaked into the encoding:\n%s\nvs\n%s", ea, eb)
	}
	want := `{
  "openapi": "3.1.0",
  "info": {
    "title": "T",
    "version": "1",
    "x-a": 2,
    "x-b": 1
  },
  "paths": {
    "/a": {},
    "/b": {}
  },
  "components": {
    "schemas": {
      "S": {
        "minLength": 1,
        "type": "string"
      }
    }
  }
}
`
	if string(ea) != want {
		t.Errorf("MarshalIndent =\n%s\nwant\n%s", ea, want)
	}
}

// TestRawMembersKeepTheirText checks, byte for byte, what a decode and
// encode does to the members the model keeps as raw JSON (schemas,
// examples, Extra): numbers keep their text, strings their value (not
// their escapes), objects nested in them are sorted at every depth, arrays
// keep their order, and null survives.
func TestRawMembersKeepTheirText(t *testing.T) {
	doc, err := openapi.ParseDocument([]byte(`{"openapi": "3.1.0", "x-z": {"b": [3, {"d": 1.50e3, "c": -0.0}], "a": 12345678901234567890},
		"info": {"title": "T", "version": "1", "x-null": null, "x-text": "caf\u00e9\/\n"},
		"components": {"schemas": {"S": {"type": "object", "properties": {"z": {}, "a": {"minimum": 0.10}}}},
			"examples": {"E": {"value": [2, 1]}}}, "x-a": true}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := doc.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	const want = `{
  "openapi": "3.1.0",
  "info": {
    "title": "T",
    "version": "1",
    "x-null": null,
    "x-text": "café/\n"
  },
  "components": {
    "schemas": {
      "S": {
        "properties": {
          "a": {
            "minimum": 0.10
          },
          "z": {}
        },
        "type": "object"
      }
    },
    "examples": {
      "E": {
        "value": [
          2,
          1
        ]
      }
    }
  },
  "x-a": true,
  "x-z": {
    "a": 12345678901234567890,
    "b": [
      3,
      {
        "c": -0.0,
        "d": 1.50e3
      }
    ]
  }
}
`
	if string(got) != want {
		t.Errorf("MarshalIndent =\n%s\nwant\n%s", got, want)
	}
}

func TestMarshalIndentRefusesInvalidRawJSON(t *testing.T) {
	doc := &openapi.Document{OpenAPI: openapi.Version31, Info: openapi.Info{Title: "T", Version: "1",
		Extra: map[string]json.RawMessage{"x-broken": json.RawMessage(`{"a": `)}}}
	_, err := doc.MarshalIndent()
	if err == nil || !strings.Contains(err.Error(), "/info/x-broken") {
		t.Errorf("MarshalIndent error = %v, want one naming /info/x-broken", err)
	}
}
