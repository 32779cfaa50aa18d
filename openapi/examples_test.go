package openapi_test

import (
	"encoding/json"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/validation"
	"github.com/wasmendpoints/endpoints/openapi"
)

// TestMediaTypeExamples: a media type gains the example its schema's
// contract states, where OpenAPI tools look for one, and none that the
// contract does not state.
func TestMediaTypeExamples(t *testing.T) {
	const user = `"User": {"type": "object", "required": ["id", "name"], "properties": {
		"id": {"type": "integer", "examples": [7]},
		"name": {"type": "string", "examples": ["Ada"]},
		"nick": {"type": "string"}}}`
	tests := []struct {
		name   string
		schema string // the 200 response's
		defs   string // $defs members
		want   string // the example, "" for none
	}{
		{"the schema's first examples entry", `{"type": "string", "examples": ["a", "b"]}`, "", `"a"`},
		{"the schema's example", `{"type": "integer", "example": 3}`, "", `3`},
		{"its const", `{"const": "fixed"}`, "", `"fixed"`},
		{"its default", `{"type": "integer", "default": 20}`, "", `20`},
		{"its first enum value", `{"type": "string", "enum": ["open", "closed"]}`, "", `"open"`},
		{"examples win over default", `{"type": "integer", "default": 20, "examples": [5]}`, "", `5`},
		{"a plain string states none", `{"type": "string"}`, "", ``},
		{"an object of its properties' examples, in order, optional ones without left out", `{"$ref": "#/$defs/User"}`, user,
			`{"id": 7, "name": "Ada"}`},
		{"an object whose required property has none states none", `{"type": "object", "required": ["a"],
			"properties": {"a": {"type": "string"}, "b": {"type": "integer", "examples": [1]}}}`, "", ``},
		{"an array of one example item", `{"type": "array", "items": {"$ref": "#/$defs/User"}}`, user, `[{"id": 7, "name": "Ada"}]`},
		{"an array that needs two items states none", `{"type": "array", "minItems": 2, "items": {"type": "integer", "examples": [1]}}`, "", ``},
		{"anyOf: an example of the first alternative that states one", `{"anyOf": [{"type": "string"}, {"type": "integer", "examples": [4]}]}`, "", `4`},
		{"a recursive schema ends", `{"$ref": "#/$defs/Node"}`,
			`"Node": {"type": "object", "required": ["next"], "properties": {"next": {"$ref": "#/$defs/Node"}}}`, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			contract := `{"responses": {"200": {"schema": ` + tt.schema + `}}`
			if tt.defs != "" {
				contract += `, "$defs": {` + tt.defs + `}`
			}
			doc := build(t, []openapi.Route{op(t, "GET", "/api/x", "server/api/x.get.wasm", contract+`}`)}, openapi.Options{})
			got := at(t, doc, "/paths/~1api~1x/get/responses/200/content/application~1json/example")
			if tt.want == "" {
				if got != "" {
					t.Errorf("example = %s, want none", got)
				}
				return
			}
			wantJSON(t, "example", got, tt.want)
		})
	}

	t.Run("a request body's too", func(t *testing.T) {
		doc := build(t, []openapi.Route{op(t, "POST", "/api/x", "server/api/x.post.wasm",
			`{"request": {"body": {"schema": {"$ref": "#/$defs/User"}}}, "responses": {"204": {}}, "$defs": {`+user+`}}`)}, openapi.Options{})
		wantJSON(t, "example", at(t, doc, "/paths/~1api~1x/post/requestBody/content/application~1json/example"), `{"id": 7, "name": "Ada"}`)
	})
}

// TestFrameworkExamples: each framework schema carries a description and
// examples that its own schema accepts, and each framework response shows
// the example of its own status.
func TestFrameworkExamples(t *testing.T) {
	for _, name := range []string{
		openapi.SchemaValidationError, openapi.SchemaValidationIssue, openapi.SchemaUnsupportedMediaType,
		openapi.SchemaNotAcceptable, openapi.SchemaContentTooLarge, openapi.SchemaIdempotencyProblem,
		openapi.SchemaUnauthorized, openapi.SchemaForbidden, openapi.SchemaTooManyRequests,
	} {
		t.Run(name, func(t *testing.T) {
			raw, ok := openapi.FrameworkSchema(name)
			if !ok {
				t.Fatalf("FrameworkSchema(%q) reports false", name)
			}
			var whole struct {
				Defs map[string]struct {
					Description string            `json:"description"`
					Examples    []json.RawMessage `json:"examples"`
				} `json:"$defs"`
			}
			if err := json.Unmarshal(raw, &whole); err != nil {
				t.Fatal(err)
			}
			own := whole.Defs[name]
			// The validation issue is shown by the validation error's
			// examples (see annotated).
			if own.Description == "" || len(own.Examples) == 0 && name != openapi.SchemaValidationIssue {
				t.Fatalf("description %q, %d examples: want both", own.Description, len(own.Examples))
			}
			comp, err := validation.NewContract("framework "+name, raw)
			if err != nil {
				t.Fatal(err)
			}
			s, err := comp.Compile("")
			if err != nil {
				t.Fatal(err)
			}
			for _, ex := range own.Examples {
				var v any
				if err := json.Unmarshal(ex, &v); err != nil {
					t.Fatal(err)
				}
				if issues := s.Validate(v); len(issues) > 0 {
					t.Errorf("example %s fails its schema: %v", ex, issues)
				}
			}
		})
	}

	doc := build(t, []openapi.Route{op(t, "POST", "/api/x", "server/api/x.post.wasm",
		`{"request": {"body": {"schema": {"type": "object", "required": ["title"], "properties": {"title": {"type": "string"}}}}}, "idempotency": {}, "responses": {"201": {}}}`)}, openapi.Options{})
	for _, tt := range []struct{ status, media, member string }{
		{"400", "application~1json", "statusCode"},
		{"400", "application~1problem+json", "status"},
		{"409", "application~1problem+json", "status"},
		{"422", "application~1problem+json", "status"},
		{"503", "application~1problem+json", "status"},
		{"413", "application~1json", "statusCode"},
		{"415", "application~1json", "statusCode"},
	} {
		got := at(t, doc, "/paths/~1api~1x/post/responses/"+tt.status+"/content/"+tt.media+"/example/"+tt.member)
		if got != tt.status {
			t.Errorf("the %s %s example's %s = %s, want %s", tt.status, tt.media, tt.member, got, tt.status)
		}
	}
}

// TestValidationExampleNamesTheOperationsFields: the 400 example of each
// operation names a property that operation requires (of its body, else
// its query), and an operation that requires none has no example rather
// than one naming another app's field.
func TestValidationExampleNamesTheOperationsFields(t *testing.T) {
	doc := build(t, []openapi.Route{
		op(t, "POST", "/api/books", "server/api/books.post.wasm",
			`{"$defs": {"Book": {"type": "object", "required": ["isbn"], "properties": {"isbn": {"type": "string"}}}},
			  "request": {"body": {"schema": {"$ref": "#/$defs/Book"}}}, "responses": {"201": {}}}`),
		op(t, "GET", "/api/books", "server/api/books.get.wasm",
			`{"request": {"query": {"type": "object", "required": ["shelf"], "properties": {"shelf": {"type": "string"}}}}, "responses": {"200": {}}}`),
		op(t, "GET", "/api/books/{id}", "server/api/books/[id].get.wasm",
			`{"request": {"params": {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}}, "responses": {"200": {}}}`),
	}, openapi.Options{})
	for _, tt := range []struct{ path, want string }{
		{"/paths/~1api~1books/post", `{"statusCode":400,"statusMessage":"Validation Error","data":{"body":[{"message":"is required","path":["isbn"]}]}}`},
		{"/paths/~1api~1books/get", `{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"message":"is required","path":["shelf"]}]}}`},
		{"/paths/~1api~1books~1{id}/get", ``},
	} {
		got := at(t, doc, tt.path+"/responses/400/content/application~1json/example")
		if tt.want == "" && got != "" || tt.want != "" && !jsonSame(t, got, tt.want) {
			t.Errorf("%s: the 400 example = %s, want %q", tt.path, got, tt.want)
		}
	}
}
