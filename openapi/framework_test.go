package openapi_test

import (
	"bytes"
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
