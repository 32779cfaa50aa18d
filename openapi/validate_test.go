package openapi_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/openapi"
)

func TestValidate(t *testing.T) {
	const head = `"openapi": "3.1.0", "info": {"title": "T", "version": "1"}`
	tests := []struct {
		name, doc string
		want      []string // "" for a valid document
	}{
		{"valid", `{` + head + `, "paths": {"/a/{id}": {"parameters": [{"$ref": "#/components/parameters/Id"}],
			"get": {"operationId": "a", "responses": {"200": {"description": "ok"}}}}},
			"components": {"parameters": {"Id": {"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}}}}`, nil},
		{"version and info", `{"openapi": "3.0.3", "info": {}, "paths": {}}`,
			[]string{`/info/title: is required`, `/info/version: is required`, `/openapi: got "3.0.3"`}},
		{"nothing to describe", `{` + head + `}`, []string{"a document needs paths, components or webhooks"}},
		{"path without slash", `{` + head + `, "paths": {"a": {}}}`, []string{`/paths/a: a path must start with "/"`}},
		{"undeclared path parameter", `{` + head + `, "paths": {"/a/{id}": {"get": {"responses": {"200": {"description": "ok"}}}}}}`,
			[]string{`/paths/~1a~1{id}/get/parameters: the path parameter "id" of /a/{id} is not declared`}},
		{"path parameter not in template", `{` + head + `, "paths": {"/a": {"get": {"parameters": [{"name": "id", "in": "path", "required": true}],
			"responses": {"200": {"description": "ok"}}}}}}`, []string{`path parameter "id" is not in the template /a`}},
		{"optional path parameter", `{` + head + `, "paths": {"/a/{id}": {"get": {"parameters": [{"name": "id", "in": "path"}],
			"responses": {"200": {"description": "ok"}}}}}}`, []string{`/paths/~1a~1{id}/get/parameters/0/required: a path parameter must be required`}},
		{"parameter twice", `{` + head + `, "paths": {"/a": {"get": {"parameters": [{"name": "q", "in": "query"}, {"name": "q", "in": "query"}],
			"responses": {"200": {"description": "ok"}}}}}}`, []string{`/paths/~1a/get/parameters/1: query parameter "q" is declared twice`}},
		{"bad location", `{` + head + `, "paths": {"/a": {"get": {"parameters": [{"name": "q", "in": "body"}],
			"responses": {"200": {"description": "ok"}}}}}}`, []string{`/paths/~1a/get/parameters/0/in: got "body"`}},
		{"no responses", `{` + head + `, "paths": {"/a": {"get": {}}}}`, []string{`/paths/~1a/get/responses: an operation needs at least one response`}},
		{"response without description", `{` + head + `, "paths": {"/a": {"get": {"responses": {"200": {}}}}}}`,
			[]string{`/paths/~1a/get/responses/200/description: is required`}},
		{"operationId twice", `{` + head + `, "paths": {"/a": {"get": {"operationId": "x", "responses": {"200": {"description": "ok"}}}},
			"/b": {"get": {"operationId": "x", "responses": {"200": {"description": "ok"}}}}}}`,
			[]string{`/paths/~1b/get/operationId: "x" is also the operationId of /paths/~1a/get`}},
		{"dangling reference", `{` + head + `, "paths": {"/a": {"get": {"responses": {"200": {"$ref": "#/components/responses/Gone"}}}}}}`,
			[]string{`/paths/~1a/get/responses/200/$ref: "#/components/responses/Gone" does not resolve in the document`}},
		{"schema that does not compile", `{` + head + `, "paths": {"/a": {"get": {"responses": {"200": {"description": "ok",
			"content": {"application/json": {"schema": {"type": "objekt"}}}}}}}}}`,
			[]string{`/paths/~1a/get/responses/200/content/application~1json/schema: not a valid JSON Schema 2020-12`}},
		{"external references are not followed", `{` + head + `, "paths": {}, "components": {"schemas": {"A": {"$ref": "https://example.com/a.json"}}}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := openapi.ParseDocument([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			err = doc.Validate()
			if tt.want == nil {
				if err != nil {
					t.Errorf("Validate = %v, want nil", err)
				}
				return
			}
			var derr *openapi.DocumentError
			if !errors.As(err, &derr) {
				t.Fatalf("Validate = %v, want a *DocumentError", err)
			}
			if len(derr.Issues) != len(tt.want) {
				t.Errorf("Validate found %d issues, want %d:\n%v", len(derr.Issues), len(tt.want), err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate =\n%v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}
