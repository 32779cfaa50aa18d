package openapi_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/openapi"
)

func TestOperationID(t *testing.T) {
	tests := []struct {
		method, path, want string
	}{
		{"GET", "/api/users/{id}", "getApiUsersById"},
		{"GET", "/api/users/{id}/posts", "getApiUsersByIdPosts"},
		{"GET", "/openapi.json", "getOpenapiJson"},
		{"POST", "/api/user-groups", "postApiUserGroups"},
		{"GET", "/", "get"},
		{"DELETE", "/api/users/{userId}", "deleteApiUsersByUserId"},
		{"PUT", "/api/orgs/{org_id}/members/{member-id}", "putApiOrgsByOrgIdMembersByMemberId"},
		{"PATCH", "/v1/camelCase", "patchV1CamelCase"},
		{"options", "/api/files/report.v2.csv", "optionsApiFilesReportV2Csv"},
		{"GET", "/api/users/{id}.json", "getApiUsersByIdJson"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			if got := openapi.OperationID(tt.method, tt.path); got != tt.want {
				t.Errorf("OperationID(%q, %q) = %q, want %q", tt.method, tt.path, got, tt.want)
			}
		})
	}
}

func TestBuildRejectsDuplicates(t *testing.T) {
	const empty = `{"responses": {"204": {}}}`
	tests := []struct {
		name    string
		ops     []openapi.Route
		wantErr error
		want    []string
	}{
		{
			name: "two paths give one operationId",
			ops: []openapi.Route{
				op(t, "POST", "/api/user-groups", "server/api/user-groups.post.wasm", empty),
				op(t, "POST", "/api/user_groups", "server/api/user_groups.post.wasm", empty),
			},
			wantErr: openapi.ErrDuplicateOperationID,
			want:    []string{`"postApiUserGroups"`, "server/api/user-groups.post.wasm", "server/api/user_groups.post.wasm"},
		},
		{
			// Both routes of one module, a bundle: its file alone does not
			// say which the first one is.
			name: "two routes of a bundle give one operationId",
			ops: []openapi.Route{
				op(t, "GET", "/api/user-groups", "server/bundles/go.wasm", empty),
				op(t, "GET", "/api/user_groups", "server/bundles/go.wasm", empty),
			},
			wantErr: openapi.ErrDuplicateOperationID,
			want:    []string{`"getApiUserGroups"`, "GET /api/user-groups (server/bundles/go.wasm)", "GET /api/user_groups (server/bundles/go.wasm)"},
		},
		{
			name: "two modules declare one operation",
			ops: []openapi.Route{
				op(t, "GET", "/api/a", "server/api/a.get.wasm", empty),
				op(t, "GET", "/api/a", "server/api/a/index.get.wasm", empty),
			},
			wantErr: openapi.ErrDuplicateOperation,
			want:    []string{"GET /api/a", "server/api/a.get.wasm", "server/api/a/index.get.wasm"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openapi.Build(tt.ops, openapi.Options{})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Build error = %v, want %v", err, tt.wantErr)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Build error = %q, want it to name %s", err, w)
				}
			}
		})
	}
}

func TestParameters(t *testing.T) {
	tests := []struct {
		name, method, path, contract string
		want                         string
	}{
		{
			name: "params, query and headers in order, reserved headers dropped", method: "GET", path: "/api/orgs/{org}/users/{id}",
			contract: `{
				"request": {
					"params": {"type": "object", "required": ["id", "org"], "properties": {
						"org": {"type": "string", "description": "Organisation slug."},
						"id": {"type": "integer", "minimum": 1}}},
					"query": {"type": "object", "required": ["b"], "properties": {
						"b": {"type": "string"},
						"a": {"type": "array", "items": {"type": "string"}, "deprecated": true}}},
					"headers": {"type": "object", "properties": {
						"authorization": {"type": "string"},
						"accept": {"type": "string"},
						"content-type": {"type": "string"},
						"x-tenant": {"type": "string", "description": "Tenant id."}}}},
				"responses": {"200": {}}}`,
			want: `[
				{"name": "org", "in": "path", "required": true, "description": "Organisation slug.", "schema": {"type": "string", "description": "Organisation slug."}},
				{"name": "id", "in": "path", "required": true, "schema": {"type": "integer", "minimum": 1}},
				{"name": "a", "in": "query", "deprecated": true, "schema": {"type": "array", "items": {"type": "string"}, "deprecated": true}},
				{"name": "b", "in": "query", "required": true, "schema": {"type": "string"}},
				{"name": "x-tenant", "in": "header", "description": "Tenant id.", "schema": {"type": "string", "description": "Tenant id."}}]`,
		},
		{
			name: "a route parameter the schema lacks is a string", method: "GET", path: "/api/files/{name}",
			contract: `{"request": {"query": {"type": "object", "properties": {"v": {"type": "integer"}}}}, "responses": {"200": {}}}`,
			want: `[
				{"name": "name", "in": "path", "required": true, "schema": {"type": "string"}},
				{"name": "v", "in": "query", "schema": {"type": "integer"}}]`,
		},
		{
			name: "a part schema that is a reference is followed", method: "GET", path: "/api/items",
			contract: `{
				"request": {"query": {"$ref": "#/$defs/Paging"}},
				"responses": {"200": {}},
				"$defs": {
					"Paging": {"type": "object", "required": ["page"], "properties": {
						"page": {"$ref": "#/$defs/Page"}, "size": {"type": "integer"}}},
					"Page": {"type": "integer", "minimum": 1}}}`,
			want: `[
				{"name": "page", "in": "query", "required": true, "schema": {"$ref": "#/components/schemas/Page"}},
				{"name": "size", "in": "query", "schema": {"type": "integer"}}]`,
		},
		{
			name: "object query parameters state their style", method: "GET", path: "/api/items",
			contract: `{"request": {"query": {"type": "object", "properties": {
					"deep": {"type": "object"}, "pick": {"type": "object"}, "plain": {"type": "object"}}},
					"queryStyles": {"deep": {"style": "deepObject"}, "pick": {"style": "form", "explode": false}, "plain": {"style": "form"}}},
				"responses": {"200": {}}}`,
			want: `[
				{"name": "deep", "in": "query", "style": "deepObject", "explode": true, "schema": {"type": "object"}},
				{"name": "pick", "in": "query", "style": "form", "explode": false, "schema": {"type": "object"}},
				{"name": "plain", "in": "query", "schema": {"type": "object"}}]`,
		},
		{
			name: "integer formats state their range", method: "GET", path: "/api/items",
			contract: `{"request": {"query": {"type": "object", "properties": {
					"a": {"type": "integer", "format": "int32"},
					"b": {"type": "integer", "format": "int64", "minimum": 1},
					"c": {"type": "string", "format": "email"}}}},
				"responses": {"200": {}}}`,
			want: `[
				{"name": "a", "in": "query", "schema": {"type": "integer", "format": "int32", "minimum": -2147483648, "maximum": 2147483647}},
				{"name": "b", "in": "query", "schema": {"type": "integer", "format": "int64", "minimum": 1, "maximum": 9223372036854775807}},
				{"name": "c", "in": "query", "schema": {"type": "string", "format": "email"}}]`,
		},
		{
			name: "no request, no parameters", method: "GET", path: "/api/ping",
			contract: `{"responses": {"204": {}}}`,
			want:     ``,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := build(t, []openapi.Route{op(t, tt.method, tt.path, "server/api/x.wasm", tt.contract)}, openapi.Options{})
			got := at(t, doc, "/paths/"+esc(tt.path)+"/"+strings.ToLower(tt.method)+"/parameters")
			if tt.want == "" {
				if got != "" {
					t.Errorf("parameters = %s, want none", got)
				}
				return
			}
			wantJSON(t, "parameters", got, tt.want)
		})
	}
}

func TestBuildRejectsBadOperations(t *testing.T) {
	c := parseContract(t, "server/api/a.get.wasm", "GET", `{"responses": {"200": {}}}`)
	root := parseContract(t, "server/api/b.wasm", "", `{"methods": {"get": {"responses": {"200": {}}}}}`)
	tests := []struct {
		name string
		op   openapi.Route
		want string
	}{
		{"no contract", openapi.Route{Method: "GET", Path: "/api/a", File: "server/api/a.get.wasm"},
			`server/api/a.get.wasm: GET /api/a: no contract`},
		{"a path in another form", openapi.Route{Method: "GET", Path: "api/a", File: "server/api/a.get.wasm", Contract: c},
			`server/api/a.get.wasm: path "api/a": want an OpenAPI path template starting with "/"`},
		{"an unknown method", openapi.Route{Method: "FETCH", Path: "/api/a", File: "server/api/a.get.wasm", Contract: c},
			`server/api/a.get.wasm: method "FETCH": want one of GET, PUT, POST, DELETE, OPTIONS, HEAD, PATCH, TRACE`},
		{"a root contract with methods", openapi.Route{Method: "GET", Path: "/api/b", File: "server/api/b.wasm", Contract: root},
			`server/api/b.wasm: GET /api/b: the contract declares "methods"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openapi.Build([]openapi.Route{tt.op}, openapi.Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Build error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParametersNotInPath(t *testing.T) {
	o := op(t, "GET", "/api/users/{id}", "server/api/users/[id].get.wasm", `{
		"request": {"params": {"type": "object", "properties": {"id": {"type": "integer"}, "slug": {"type": "string"}}}},
		"responses": {"200": {}}}`)
	_, err := openapi.Build([]openapi.Route{o}, openapi.Options{})
	want := `server/api/users/[id].get.wasm: /request/params/properties/slug: "slug" is not a parameter of /api/users/{id}`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Build error = %v, want it to contain %q", err, want)
	}
}

func TestRequestBody(t *testing.T) {
	tests := []struct {
		name, contract, want string
	}{
		{
			name:     "a JSON schema",
			contract: `{"request": {"body": {"schema": {"type": "object"}, "description": "The thing"}}, "responses": {"201": {}}}`,
			want:     `{"description": "The thing", "required": true, "content": {"application/json": {"schema": {"type": "object"}}}}`,
		},
		{
			name:     "optional",
			contract: `{"request": {"body": {"schema": {"type": "object"}, "required": false}}, "responses": {"201": {}}}`,
			want:     `{"content": {"application/json": {"schema": {"type": "object"}}}}`,
		},
		{
			name: "one entry per media type, defaults by kind",
			contract: `{"request": {"body": {"content": {
				"application/json": {},
				"application/merge-patch+json": {"schema": {"type": "object"}},
				"application/x-www-form-urlencoded": {},
				"multipart/form-data": {},
				"image/png": {},
				"text/plain": {"schema": {"type": "string", "maxLength": 10}}}}},
				"responses": {"201": {}}}`,
			want: `{"required": true, "content": {
				"application/json": {"schema": {}},
				"application/merge-patch+json": {"schema": {"type": "object"}},
				"application/x-www-form-urlencoded": {"schema": {"type": "object"}},
				"multipart/form-data": {"schema": {"type": "object"}},
				"image/png": {"schema": {"type": "string", "contentEncoding": "binary"}},
				"text/plain": {"schema": {"type": "string", "maxLength": 10}}}}`,
		},
		{
			name: "a multipart encoding and text ranges",
			contract: `{"request": {"body": {"content": {
				"multipart/form-data": {"schema": {"type": "object"}, "encoding": {"photo": {"contentType": "image/png, image/jpeg"}}},
				"text/*": {}}}},
				"responses": {"201": {}}}`,
			want: `{"required": true, "content": {
				"multipart/form-data": {"schema": {"type": "object"}, "encoding": {"photo": {"contentType": "image/png, image/jpeg"}}},
				"text/*": {"schema": {"type": "string"}}}}`,
		},
		{
			name:     "no body",
			contract: `{"request": {"query": {"type": "object"}}, "responses": {"201": {}}}`,
			want:     ``,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := build(t, []openapi.Route{op(t, "POST", "/api/things", "server/api/things.post.wasm", tt.contract)}, openapi.Options{})
			got := at(t, doc, "/paths/~1api~1things/post/requestBody")
			if tt.want == "" {
				if got != "" {
					t.Errorf("requestBody = %s, want none", got)
				}
				return
			}
			wantJSON(t, "requestBody", got, tt.want)
		})
	}
}

func TestResponses(t *testing.T) {
	tests := []struct {
		name, contract, want string
	}{
		{
			name: "JSON, +json profile, default descriptions",
			contract: `{"responses": {
				"200": {"description": "The user", "schema": {"type": "object"}},
				"201": {"schema": {"type": "object"}, "contentType": "application/vnd.acme.user+json"},
				"204": {}}}`,
			want: `{
				"200": {"description": "The user", "content": {"application/json": {"schema": {"type": "object"}}}},
				"201": {"description": "Created", "content": {"application/vnd.acme.user+json": {"schema": {"type": "object"}}}},
				"204": {"description": "No Content"}}`,
		},
		{
			name: "media with and without schema",
			contract: `{"responses": {
				"200": {"description": "Avatar", "media": ["image/png", "image/webp"]},
				"206": {"media": ["text/csv"], "schema": {"type": "string", "description": "Some rows"}}}}`,
			want: `{
				"200": {"description": "Avatar", "content": {
					"image/png": {"schema": {"type": "string", "contentEncoding": "binary"}},
					"image/webp": {"schema": {"type": "string", "contentEncoding": "binary"}}}},
				"206": {"description": "Partial Content", "content": {
					"text/csv": {"schema": {"type": "string", "description": "Some rows"}}}}}`,
		},
		{
			name: "headers, Content-Type dropped",
			contract: `{"responses": {"201": {"description": "Made",
				"headers": {"location": {"type": "string", "description": "Where it is."}, "content-type": {"type": "string"}, "x-rate": {"type": "integer"}}}}}`,
			want: `{"201": {"description": "Made", "headers": {
				"location": {"description": "Where it is.", "schema": {"type": "string", "description": "Where it is."}},
				"x-rate": {"schema": {"type": "integer"}}}}}`,
		},
		{
			name:     "a contentType without schema still has content",
			contract: `{"responses": {"200": {"contentType": "application/hal+json"}}}`,
			want:     `{"200": {"description": "OK", "content": {"application/hal+json": {"schema": {}}}}}`,
		},
		{
			name:     "no responses",
			contract: `{"summary": "Unchecked"}`,
			want:     `{"default": {"description": "Responses are not declared"}}`,
		},
		{
			name:     "inferred responses are documented",
			contract: `{"responses": {"200": {"schema": {"type": "string"}}}, "responsesInferred": true}`,
			want:     `{"200": {"description": "OK", "content": {"application/json": {"schema": {"type": "string"}}}}}`,
		},
		{
			name:     "a status without a reason phrase",
			contract: `{"responses": {"299": {}}}`,
			want:     `{"299": {"description": "Status 299"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := build(t, []openapi.Route{op(t, "GET", "/api/x", "server/api/x.get.wasm", tt.contract)}, openapi.Options{})
			wantJSON(t, "responses", at(t, doc, "/paths/~1api~1x/get/responses"), withHostWide(tt.want))
		})
	}
}

func TestOperationMetadata(t *testing.T) {
	doc := build(t, []openapi.Route{
		op(t, "GET", "/api/a", "server/api/a.get.wasm", `{"summary": "A", "description": "All about A.", "tags": ["b", "a"], "deprecated": true, "responses": {"200": {}}}`),
		op(t, "GET", "/api/c", "server/api/c.get.wasm", `{"tags": ["c", "a"], "responses": {"200": {}}}`),
		op(t, "GET", "/api/clock", "server/api/clock.get.wasm", `{"timeout": "5m", "idleTimeout": "30s", "responses": {"200": {"media": ["text/event-stream"]}}}`),
	}, openapi.Options{})
	tests := []struct{ ptr, want string }{
		{"/paths/~1api~1a/get/summary", `"A"`},
		{"/paths/~1api~1a/get/description", `"All about A."`},
		{"/paths/~1api~1a/get/tags", `["b", "a"]`},
		{"/paths/~1api~1a/get/deprecated", `true`},
		{"/paths/~1api~1a/get/operationId", `"getApiA"`},
		{"/paths/~1api~1a/get/x-endpoints-timeout", ``},
		{"/paths/~1api~1clock/get/x-endpoints-timeout", `"5m"`},
		{"/paths/~1api~1clock/get/x-endpoints-idle-timeout", `"30s"`},
		{"/tags", `[{"name": "a"}, {"name": "b"}, {"name": "c"}]`},
		{"/info", `{"title": "Endpoints API", "version": "0.1.0"}`},
		{"/openapi", `"3.1.0"`},
	}
	for _, tt := range tests {
		t.Run(tt.ptr, func(t *testing.T) {
			wantJSON(t, tt.ptr, at(t, doc, tt.ptr), tt.want)
		})
	}
}

func TestFrameworkResponses(t *testing.T) {
	ref := func(name string) string { return `{"$ref": "#/components/schemas/` + name + `"}` }
	tests := []struct {
		name       string
		contract   string
		negotiates bool
		// want maps a status to the content of the response, "" for a
		// status that must be absent.
		want       map[string]string
		wantDesc   map[string]string
		components []string
	}{
		{
			name:       "nothing declared, nothing reachable",
			contract:   `{"responses": {"200": {"schema": {"type": "string"}}}}`,
			want:       map[string]string{"400": "", "406": "", "415": ""},
			components: nil,
		},
		{
			name:       "a query makes 400 reachable",
			contract:   `{"request": {"query": {"type": "object"}}, "responses": {"200": {}}}`,
			want:       map[string]string{"400": `{"application/json": {"schema": ` + ref("EndpointsValidationError") + `}}`, "415": "", "406": ""},
			wantDesc:   map[string]string{"400": "Validation Error"},
			components: []string{"EndpointsValidationError", "EndpointsValidationIssue"},
		},
		{
			name:     "a body makes 400, 408, 413 and 415 reachable",
			contract: `{"request": {"body": {"schema": {}}}, "responses": {"200": {}}}`,
			want: map[string]string{
				"400": `{"application/json": {"schema": ` + ref("EndpointsValidationError") + `}}`,
				"408": `{"application/json": {"schema": ` + ref("EndpointsRequestTimeout") + `}}`,
				"413": `{"application/json": {"schema": ` + ref("EndpointsContentTooLarge") + `}}`,
				"415": `{"application/json": {"schema": ` + ref("EndpointsUnsupportedMediaType") + `}}`,
				"406": ""},
			wantDesc:   map[string]string{"400": "Validation Error", "408": "The request body did not arrive whole within the server's read timeout (server.readTimeout)", "413": "The request body is larger than the host accepts", "415": "Unsupported Media Type: not a declared request media type, or JSON in a charset other than utf-8"},
			components: []string{"EndpointsContentTooLarge", "EndpointsRequestTimeout", "EndpointsUnsupportedMediaType", "EndpointsValidationError", "EndpointsValidationIssue"},
		},
		{
			name:       "negotiation makes 406 reachable",
			contract:   `{"responses": {"200": {"media": ["image/png", "image/webp"]}}}`,
			negotiates: true,
			want:       map[string]string{"406": `{"application/json": {"schema": ` + ref("EndpointsNotAcceptable") + `}}`, "400": "", "415": ""},
			wantDesc:   map[string]string{"406": "Not Acceptable"},
			components: []string{"EndpointsNotAcceptable"},
		},
		{
			name: "a declared 400 of the same media type becomes oneOf, its description kept and the host's added",
			contract: `{"request": {"params": {"type": "object", "properties": {"id": {"type": "integer"}}}},
				"responses": {"200": {}, "400": {"description": "Bad id", "schema": {"type": "object", "required": ["reason"]}}}}`,
			want: map[string]string{"400": `{"application/json": {"schema": {"anyOf": [
				{"type": "object", "required": ["reason"]}, ` + ref("EndpointsValidationError") + `]}}}`},
			wantDesc:   map[string]string{"400": "Bad Request, for one of these reasons:\n\n- Bad id\n- Validation Error"},
			components: []string{"EndpointsValidationError", "EndpointsValidationIssue"},
		},
		{
			name: "a declared 400 of another media type adds an entry",
			contract: `{"request": {"params": {"type": "object", "properties": {"id": {"type": "integer"}}}},
				"responses": {"200": {}, "400": {"schema": {"type": "object"}, "contentType": "application/problem+json"}}}`,
			want: map[string]string{"400": `{
				"application/json": {"schema": ` + ref("EndpointsValidationError") + `},
				"application/problem+json": {"schema": {"type": "object"}}}`},
			// The declared 400 has no description: the first one given wins.
			wantDesc:   map[string]string{"400": "Validation Error"},
			components: []string{"EndpointsValidationError", "EndpointsValidationIssue"},
		},
		{
			name:     "a declared 415 without body keeps its description and gains content",
			contract: `{"request": {"body": {"content": {"text/csv": {}}}}, "responses": {"200": {}, "415": {"description": "CSV only"}}}`,
			want: map[string]string{
				"415": `{"application/json": {"schema": ` + ref("EndpointsUnsupportedMediaType") + `}}`},
			wantDesc:   map[string]string{"415": "CSV only"},
			components: []string{"EndpointsContentTooLarge", "EndpointsRequestTimeout", "EndpointsUnsupportedMediaType", "EndpointsValidationError", "EndpointsValidationIssue"},
		},
		{
			name: "idempotency adds its Problem Details, merged with a declared 409 of the same type",
			contract: `{"idempotency": {"required": true}, "responses": {"201": {},
				"409": {"description": "Already exists", "schema": {"type": "object"}, "contentType": "application/problem+json"}}}`,
			want: map[string]string{
				"400": `{"application/problem+json": {"schema": ` + ref("EndpointsIdempotencyProblem") + `}}`,
				"409": `{"application/problem+json": {"schema": {"anyOf": [{"type": "object"}, ` + ref("EndpointsIdempotencyProblem") + `]}}}`,
				"422": `{"application/problem+json": {"schema": ` + ref("EndpointsIdempotencyProblem") + `}}`,
				"503": `{"application/problem+json": {"schema": ` + ref("EndpointsIdempotencyProblem") + `}, "application/json": {"schema": ` + ref("EndpointsServiceUnavailable") + `}}`,
				"415": ""},
			wantDesc:   map[string]string{"409": "Conflict, for one of these reasons:\n\n- Already exists\n- A request with this Idempotency-Key is still running, or ran past its lease", "422": "The Idempotency-Key was used for a different request"},
			components: []string{"EndpointsIdempotencyProblem"},
		},
		{
			name:     "a status the host answers for two reasons describes both",
			contract: `{"idempotency": {}, "request": {"body": {"schema": {}}}, "responses": {"201": {}}}`,
			want: map[string]string{
				"400": `{"application/json": {"schema": ` + ref("EndpointsValidationError") + `},
					"application/problem+json": {"schema": ` + ref("EndpointsIdempotencyProblem") + `}}`},
			wantDesc:   map[string]string{"400": "Bad Request, for one of these reasons:\n\n- Validation Error\n- The Idempotency-Key is malformed, or required and missing"},
			components: []string{"EndpointsContentTooLarge", "EndpointsIdempotencyProblem", "EndpointsRequestTimeout", "EndpointsUnsupportedMediaType", "EndpointsValidationError", "EndpointsValidationIssue"},
		},
		{
			name: "a declared description that says the host's reason already is not repeated",
			contract: `{"idempotency": {}, "responses": {"201": {},
				"422": {"description": "No such user, or the Idempotency-Key was used for a different request", "schema": {"type": "object"}, "contentType": "application/problem+json"}}}`,
			want: map[string]string{
				"422": `{"application/problem+json": {"schema": {"anyOf": [{"type": "object"}, ` + ref("EndpointsIdempotencyProblem") + `]}}}`},
			wantDesc:   map[string]string{"422": "No such user, or the Idempotency-Key was used for a different request"},
			components: []string{"EndpointsIdempotencyProblem"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := op(t, "POST", "/api/x/{id}", "server/api/x/[id].post.wasm", tt.contract)
			o.Negotiates = tt.negotiates
			doc := build(t, []openapi.Route{o}, openapi.Options{})
			for status, want := range tt.want {
				// The examples each media type gains are TestFrameworkExamples'.
				got := withoutMediaExamples(t, at(t, doc, "/paths/~1api~1x~1{id}/post/responses/"+status+"/content"))
				if want == "" {
					if r := at(t, doc, "/paths/~1api~1x~1{id}/post/responses/"+status); r != "" {
						t.Errorf("response %s = %s, want none", status, r)
					}
					continue
				}
				wantJSON(t, "content of "+status, got, want)
			}
			for status, want := range tt.wantDesc {
				quoted, _ := json.Marshal(want)
				wantJSON(t, "description of "+status, at(t, doc, "/paths/~1api~1x~1{id}/post/responses/"+status+"/description"), string(quoted))
			}
			var got []string
			if doc.Components != nil {
				for name := range doc.Components.Schemas {
					got = append(got, name)
				}
			}
			// Every operation refers to the host's 500 and 503 too.
			want := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(tt.components), hostWideSchemas...))))
			if g, w := strings.Join(slices.Sorted(slices.Values(got)), ","), strings.Join(want, ","); g != w {
				t.Errorf("components = %s, want %s", g, w)
			}
		})
	}
}

// TestFrameworkSchemas pins the framework bodies to what host/errors.go
// writes: FrameworkError with ValidationData or MediaTypeData.
func TestFrameworkSchemas(t *testing.T) {
	o := op(t, "POST", "/api/x", "server/api/x.post.wasm", `{"request": {"body": {"schema": {}}}, "responses": {"200": {}}}`)
	o.Negotiates = true
	doc := build(t, []openapi.Route{o}, openapi.Options{})
	media := func(status int) string {
		return `{"type": "object", "required": ["statusCode", "statusMessage", "data"], "additionalProperties": false,
			"properties": {
				"statusCode": {"type": "integer", "enum": [` + itoa(status) + `]},
				"statusMessage": {"type": "string"},
				"data": {"type": "object", "required": ["received", "supportedMediaTypes"], "additionalProperties": false,
					"properties": {"received": {"type": "string"}, "supportedMediaTypes": {"type": "array", "items": {"type": "string"}}}}}}`
	}
	issues := `{"type": "array", "items": {"$ref": "#/components/schemas/EndpointsValidationIssue"}}`
	tests := []struct{ name, want string }{
		{"EndpointsValidationError", `{"type": "object", "required": ["statusCode", "statusMessage", "data"], "additionalProperties": false,
			"properties": {
				"statusCode": {"type": "integer", "enum": [400]},
				"statusMessage": {"type": "string"},
				"data": {"type": "object", "additionalProperties": false,
					"properties": {"params": ` + issues + `, "query": ` + issues + `, "headers": ` + issues + `, "body": ` + issues + `}}}}`},
		{"EndpointsValidationIssue", `{"type": "object", "required": ["path", "message"], "additionalProperties": false,
			"properties": {"path": {"type": "array", "items": {"type": ["string", "integer"]}}, "message": {"type": "string"}}}`},
		{"EndpointsUnsupportedMediaType", media(415)},
		{"EndpointsNotAcceptable", media(406)},
		{"EndpointsContentTooLarge", `{"type": "object", "required": ["statusCode", "statusMessage", "data"], "additionalProperties": false,
			"properties": {
				"statusCode": {"type": "integer", "enum": [413]},
				"statusMessage": {"type": "string"},
				"data": {"type": "object", "required": ["limit"], "additionalProperties": false,
					"properties": {"limit": {"type": "integer", "minimum": 0}}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantJSON(t, tt.name, withoutAnnotations(t, at(t, doc, "/components/schemas/"+tt.name)), tt.want)
		})
	}
}

// withoutMediaExamples is the content map of a response without the
// "example" of each media type.
func withoutMediaExamples(t *testing.T, content string) string {
	t.Helper()
	if content == "" {
		return ""
	}
	var m map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(content), &m); err != nil {
		t.Fatalf("%s: %v", content, err)
	}
	for _, mt := range m {
		delete(mt, "example")
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// withoutAnnotations is the JSON object schema without its top-level
// "description" and "examples", which TestFrameworkExamples checks.
func withoutAnnotations(t *testing.T, schema string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(schema), &m); err != nil {
		t.Fatalf("%s: %v", schema, err)
	}
	delete(m, "description")
	delete(m, "examples")
	b, _ := json.Marshal(m)
	return string(b)
}

func TestDefs(t *testing.T) {
	t.Run("lifted, references rewritten everywhere", func(t *testing.T) {
		doc := build(t, []openapi.Route{op(t, "POST", "/api/orders", "server/api/orders.post.wasm", `{
			"request": {
				"query": {"type": "object", "properties": {"status": {"$ref": "#/$defs/Order/properties/status"}}},
				"body": {"schema": {"$ref": "#/$defs/Order"}}},
			"responses": {"201": {"schema": {"type": "array", "items": {"$ref": "#/$defs/Order"}},
				"headers": {"x-order": {"$ref": "#/$defs/Id"}}}},
			"$defs": {
				"Id": {"type": "integer"},
				"Order": {"type": "object", "properties": {
					"id": {"$ref": "#/$defs/Id"},
					"status": {"enum": ["open", "closed"]},
					"lines": {"type": "array", "items": {"allOf": [{"$ref": "#/$defs/Line"}]}},
					"meta": {"$ref": "#/$defs/Meta"}}},
				"Line": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Id"}},
				"Meta": {"$id": "https://example.com/meta", "$defs": {"K": {}}, "properties": {"k": {"$ref": "#/$defs/K"}}}}}`)}, openapi.Options{})
		tests := []struct{ ptr, want string }{
			{"/paths/~1api~1orders/post/parameters/0/schema", `{"$ref": "#/components/schemas/Order/properties/status"}`},
			{"/paths/~1api~1orders/post/requestBody/content/application~1json/schema", `{"$ref": "#/components/schemas/Order"}`},
			{"/paths/~1api~1orders/post/responses/201/content/application~1json/schema", `{"type": "array", "items": {"$ref": "#/components/schemas/Order"}}`},
			{"/paths/~1api~1orders/post/responses/201/headers/x-order/schema", `{"$ref": "#/components/schemas/Id"}`},
			{"/components/schemas/Order/properties/id", `{"$ref": "#/components/schemas/Id"}`},
			{"/components/schemas/Order/properties/lines", `{"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/Line"}]}}`},
			{"/components/schemas/Line", `{"type": "object", "additionalProperties": {"$ref": "#/components/schemas/Id"}}`},
			// A schema with $id is a resource of its own: "#" is that schema.
			{"/components/schemas/Meta/properties/k", `{"$ref": "#/$defs/K"}`},
		}
		for _, tt := range tests {
			wantJSON(t, tt.ptr, at(t, doc, tt.ptr), tt.want)
		}
	})

	t.Run("identical defs are shared", func(t *testing.T) {
		doc := build(t, []openapi.Route{
			op(t, "GET", "/api/a", "server/api/a.get.wasm", `{"responses": {"200": {"schema": {"$ref": "#/$defs/U"}}}, "$defs": {"U": {"type": "string", "minLength": 1}}}`),
			op(t, "GET", "/api/b", "server/api/b.get.wasm", `{"responses": {"200": {"schema": {"$ref": "#/$defs/U"}}}, "$defs": {"U": {"minLength": 1, "type": "string"}}}`),
		}, openapi.Options{})
		wantJSON(t, "U", at(t, doc, "/components/schemas/U"), `{"type": "string", "minLength": 1}`)
		if got := doc.Components.Schemas; len(got) != 1+len(hostWideSchemas) {
			t.Errorf("components/schemas has %d entries, want U and the host's %v", len(got), hostWideSchemas)
		}
	})

	t.Run("per-method defs are lifted with the root's", func(t *testing.T) {
		root := parseContract(t, "server/api/items.wasm", "", `{
			"methods": {
				"get": {"responses": {"200": {"schema": {"$ref": "#/$defs/Item"}}}},
				"put": {"request": {"body": {"schema": {"$ref": "#/$defs/Item"}}}, "responses": {"200": {"schema": {"$ref": "#/$defs/Own"}}},
					"$defs": {"Own": {"type": "boolean"}}}},
			"$defs": {"Item": {"type": "object"}}}`)
		doc := build(t, []openapi.Route{
			{Method: "GET", Path: "/api/items", File: "server/api/items.wasm", Contract: root.Methods["get"], Defs: root.Defs},
			{Method: "PUT", Path: "/api/items", File: "server/api/items.wasm", Contract: root.Methods["put"], Defs: root.Defs},
		}, openapi.Options{})
		for _, name := range []string{"Item", "Own"} {
			if at(t, doc, "/components/schemas/"+name) == "" {
				t.Errorf("components/schemas/%s is missing", name)
			}
		}
	})

	errs := []struct {
		name    string
		ops     []openapi.Route
		wantErr error
		want    []string
	}{
		{
			name: "one name, two schemas",
			ops: []openapi.Route{
				op(t, "GET", "/api/a", "server/api/a.get.wasm", `{"responses": {"200": {}}, "$defs": {"U": {"type": "string"}}}`),
				op(t, "GET", "/api/b", "server/api/b.get.wasm", `{"responses": {"200": {}}, "$defs": {"U": {"type": "integer"}}}`),
			},
			wantErr: openapi.ErrSchemaConflict,
			want:    []string{`schema "U"`, "server/api/a.get.wasm", "server/api/b.get.wasm"},
		},
		{
			name: "a def named like a framework schema",
			ops: []openapi.Route{
				op(t, "GET", "/api/a", "server/api/a.get.wasm", `{"responses": {"200": {}}, "$defs": {"EndpointsValidationError": {"type": "string"}}}`),
			},
			wantErr: openapi.ErrSchemaConflict,
			want:    []string{"server/api/a.get.wasm", "/$defs/EndpointsValidationError", "rename"},
		},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openapi.Build(tt.ops, openapi.Options{})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Build error = %v, want %v", err, tt.wantErr)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Build error = %q, want it to contain %s", err, w)
				}
			}
		})
	}

	// Two bundles whose routes each define a schema of one name
	// differently (two Go types named Record, in two packages): the clash
	// is reported once, naming an operation of each. It was reported once
	// per operation of the second bundle, naming the bundles alone.
	t.Run("one clash between two bundles is one error naming operations", func(t *testing.T) {
		var ops []openapi.Route
		for _, f := range []struct{ file, typ string }{{"server/bundles/admin.wasm", "integer"}, {"server/bundles/users.wasm", "string"}} {
			for _, leaf := range []string{"/a", "/b", "/c"} {
				p := "/api/" + strings.TrimSuffix(strings.TrimPrefix(f.file, "server/bundles/"), ".wasm") + leaf
				ops = append(ops, op(t, "GET", p, f.file, `{"responses": {"200": {}}, "$defs": {"Record": {"type": "`+f.typ+`"}}}`))
			}
		}
		_, err := openapi.Build(ops, openapi.Options{})
		want := `schema "Record" is defined differently by server/bundles/admin.wasm (GET /api/admin/a) and server/bundles/users.wasm (GET /api/users/a); rename one (in Go, one of the two types named Record`
		if !errors.Is(err, openapi.ErrSchemaConflict) || !strings.Contains(err.Error(), want) || strings.Count(err.Error(), "defined differently") != 1 {
			t.Errorf("Build error = %v, want one error: %s", err, want)
		}
	})

	t.Run("a reference to a missing def", func(t *testing.T) {
		// contract.Parse rejects this contract; a Go embedder might not.
		o := op(t, "GET", "/api/a", "server/api/a.get.wasm", `{"responses": {"200": {}}}`)
		o.Contract.Responses["200"].Schema = []byte(`{"$ref": "#/$defs/Gone"}`)
		_, err := openapi.Build([]openapi.Route{o}, openapi.Options{})
		want := `server/api/a.get.wasm: /responses/200/schema/$ref: "#/$defs/Gone" names no entry of "$defs"`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Build error = %v, want it to contain %q", err, want)
		}
	})

	t.Run("a def equal to a framework schema is accepted", func(t *testing.T) {
		doc := build(t, []openapi.Route{op(t, "GET", "/api/a", "server/api/a.get.wasm", `{"responses": {"200": {}}, "$defs": {
			"EndpointsValidationIssue": {"type": "object", "required": ["path", "message"], "additionalProperties": false,
				"description": "One problem of a request part: where (the JSON path of the value, as property names and item indexes) and what is wrong.",
				"properties": {"path": {"type": "array", "items": {"type": ["string", "integer"]}}, "message": {"type": "string"}}}}}`)}, openapi.Options{})
		if at(t, doc, "/components/schemas/EndpointsValidationIssue") == "" {
			t.Errorf("the def is missing from components")
		}
	})
}

func TestBuildIsOrderIndependent(t *testing.T) {
	ops := usersOperations(t)
	first, err := build(t, ops, openapi.Options{}).MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	for i := range ops {
		t.Run("rotated by "+itoa(i), func(t *testing.T) {
			rot := append(append([]openapi.Route{}, ops[i:]...), ops[:i]...)
			got, err := build(t, rot, openapi.Options{}).MarshalIndent()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(first) {
				t.Errorf("document depends on the order of operations")
			}
		})
	}
}

func TestBuildCopiesSchemas(t *testing.T) {
	o := op(t, "GET", "/api/a/{id}", "server/api/a/[id].get.wasm", `{
		"request": {"params": {"type": "object", "properties": {"id": {"type": "integer"}}}},
		"responses": {"200": {"schema": {"type": "string"}}}}`)
	doc := build(t, []openapi.Route{o}, openapi.Options{})
	for _, s := range [][]byte{
		doc.Paths["/api/a/{id}"].Get.Responses["200"].Content["application/json"].Schema,
		doc.Paths["/api/a/{id}"].Get.Parameters[0].Schema,
	} {
		for i := range s {
			s[i] = ' '
		}
	}
	if got := string(o.Contract.Responses["200"].Schema); got != `{"type": "string"}` {
		t.Errorf("changing the document changed the contract: %q", got)
	}
	if got := string(o.Contract.Request.Params); !strings.Contains(got, `"integer"`) {
		t.Errorf("changing the document changed the contract: %q", got)
	}
}

// TestHostHeadersAreDeclared: the headers the host adds to answers are in
// the document: Idempotent-Replayed on the 2xx of an idempotent operation,
// Retry-After on its 409 and 503, Vary on every answer of one that
// negotiates.
func TestHostHeadersAreDeclared(t *testing.T) {
	idem := op(t, "POST", "/api/orders", "server/api/orders.post.wasm", `{"idempotency": {}, "responses": {"201": {}, "404": {}}}`)
	neg := op(t, "GET", "/api/pics", "server/api/pics.get.wasm", `{"responses": {"200": {"media": ["image/png", "image/webp"]}}}`)
	neg.Negotiates = true
	doc := build(t, []openapi.Route{idem, neg}, openapi.Options{})
	for _, ptr := range []string{
		"/paths/~1api~1orders/post/responses/201/headers/Idempotent-Replayed",
		"/paths/~1api~1orders/post/responses/409/headers/Retry-After",
		"/paths/~1api~1orders/post/responses/503/headers/Retry-After",
		"/paths/~1api~1pics/get/responses/200/headers/Vary",
		"/paths/~1api~1pics/get/responses/406/headers/Vary",
	} {
		if at(t, doc, ptr) == "" {
			t.Errorf("the document lacks %s", ptr)
		}
	}
	if got := at(t, doc, "/paths/~1api~1orders/post/responses/404/headers/Idempotent-Replayed"); got != "" {
		t.Errorf("a 404 is never replayed, but declares Idempotent-Replayed: %s", got)
	}
}
