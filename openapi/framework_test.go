package openapi_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmendpoints/endpoints/openapi"
)

// TestFrameworkSchemaStandsAlone compiles each framework schema on its
// own and checks bodies the host writes against it.
func TestFrameworkSchemaStandsAlone(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema string
		body   string
		valid  bool
	}{
		{"400 body", openapi.SchemaValidationError,
			`{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"path":["limit"],"message":"must be less than or equal to 100"}],"body":[{"path":["items",0],"message":"x"}]}}`, true},
		{"400 with another status code", openapi.SchemaValidationError,
			`{"statusCode":422,"statusMessage":"Validation Error","data":{}}`, false},
		{"400 with an issue of the wrong shape", openapi.SchemaValidationError,
			`{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"path":"limit","message":"x"}]}}`, false},
		{"400 with an unknown part", openapi.SchemaValidationError,
			`{"statusCode":400,"statusMessage":"Validation Error","data":{"cookies":[]}}`, false},
		{"415 body", openapi.SchemaUnsupportedMediaType,
			`{"statusCode":415,"statusMessage":"Unsupported Media Type","data":{"received":"text/plain","supportedMediaTypes":["application/json"]}}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, ok := openapi.FrameworkSchema(tc.schema)
			if !ok {
				t.Fatalf("FrameworkSchema(%q) = false", tc.schema)
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("FrameworkSchema(%q) is not JSON: %v\n%s", tc.schema, err, raw)
			}
			c := jsonschema.NewCompiler()
			c.DefaultDraft(jsonschema.Draft2020)
			if err := c.AddResource("file:///framework.json", doc); err != nil {
				t.Fatal(err)
			}
			s, err := c.Compile("file:///framework.json")
			if err != nil {
				t.Fatalf("compiling FrameworkSchema(%q): %v", tc.schema, err)
			}
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(tc.body)))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(v); (err == nil) != tc.valid {
				t.Errorf("validating %s: error %v, want valid = %v", tc.body, err, tc.valid)
			}
		})
	}
	if _, ok := openapi.FrameworkSchema("User"); ok {
		t.Errorf(`FrameworkSchema("User") = true, want false`)
	}
}

// TestHostAnswerExamples: what the host knows of an operation (its body
// limit, the media types it takes and offers, whether its code can use a
// database) makes the examples of its 413, 415 and 406 the operation's
// own answers, and its 503; without it, the schema's generic examples
// stay, and no 503 is listed.
func TestHostAnswerExamples(t *testing.T) {
	contract := `{"request":{"body":{"content":{"application/json":{},"text/*":{}}}},"responses":{"200":{"media":["application/json","text/csv"]}}}`
	known := op(t, "POST", "/orders", "server/api/orders.post.wasm", contract)
	known.Negotiates, known.Database, known.BodyLimit = true, true, 64
	known.Accepts, known.Offers = []string{"application/json", "text/*"}, []string{"application/json", "text/csv"}
	unknown := op(t, "POST", "/orders", "server/api/orders.post.wasm", contract)
	unknown.Negotiates = true
	const ex = "/paths/~1orders/post/responses/%s/content/application~1json/example"
	for _, tt := range []struct {
		name   string
		route  openapi.Route
		status string
		want   string
	}{
		{"413 names the limit", known, "413", `{"statusCode":413,"statusMessage":"Request Entity Too Large","data":{"limit":64}}`},
		{"415 shows a type no range takes", known, "415", `{"statusCode":415,"statusMessage":"Unsupported Media Type","data":{"received":"application/xml","supportedMediaTypes":["application/json","text/*"]}}`},
		{"406 lists the offers", known, "406", `{"statusCode":406,"statusMessage":"Not Acceptable","data":{"received":"text/html","supportedMediaTypes":["application/json","text/csv"]}}`},
		{"503 of a database, as in production", known, "503", `{"statusCode":503,"statusMessage":"Service Unavailable"}`},
		{"413 without a known limit", unknown, "413", `{"statusCode":413,"statusMessage":"Request Entity Too Large","data":{"limit":1048576}}`},
		{"no database, no 503", unknown, "503", ``},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := build(t, []openapi.Route{tt.route}, openapi.Options{})
			if got := at(t, doc, strings.Replace(ex, "%s", tt.status, 1)); got != canon(t, tt.want) {
				t.Errorf("the %s example = %s, want %s", tt.status, got, tt.want)
			}
		})
	}
	doc := build(t, []openapi.Route{known}, openapi.Options{})
	if got := at(t, doc, "/paths/~1orders/post/responses/503/headers/Retry-After/schema"); got == "" {
		t.Error("the database's 503 lists no Retry-After")
	}
}
