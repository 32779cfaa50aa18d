package openapi_test

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/openapi"
)

func TestSecurityInBuild(t *testing.T) {
	cfg, err := openapi.ParseRoutesConfig("server/routes.config.json", []byte(`{
		"security": [{"bearer": []}],
		"routes": {
			"/api/admin/**": {"security": [{"bearer": ["admin"]}], "methods": {"get": {"security": [{"bearer": ["admin:read"]}, {"key": []}]}}},
			"/api/public": {"security": []}
		}}`))
	if err != nil {
		t.Fatal(err)
	}
	doc := build(t, []openapi.Route{
		op(t, "GET", "/api/admin/users", "server/api/admin/users.get.wasm", `{"responses": {"200": {}}}`),
		op(t, "POST", "/api/admin/users", "server/api/admin/users.post.wasm", `{"responses": {"200": {}}}`),
		op(t, "POST", "/api/admin/reset", "server/api/admin/reset.post.wasm", `{"security": [{"bearer": ["root"]}], "responses": {"200": {}}}`),
		op(t, "GET", "/api/public", "server/api/public.get.wasm", `{"responses": {"200": {}}}`),
		op(t, "GET", "/api/health", "server/api/health.get.wasm", `{"security": [], "responses": {"200": {}}}`),
		op(t, "GET", "/api/me", "server/api/me.get.wasm", `{"responses": {"200": {}}}`),
	}, openapi.Options{Routes: cfg})
	tests := []struct{ name, ptr, want string }{
		{"a method entry wins over its pattern", "/paths/~1api~1admin~1users/get/security", `[{"bearer": ["admin:read"]}, {"key": []}]`},
		{"a pattern wins over the app-wide list", "/paths/~1api~1admin~1users/post/security", `[{"bearer": ["admin"]}]`},
		{"the contract wins over the configuration", "/paths/~1api~1admin~1reset/post/security", `[{"bearer": ["root"]}]`},
		{"an empty list in the configuration opts out", "/paths/~1api~1public/get/security", `[]`},
		{"an empty list in the contract opts out", "/paths/~1api~1health/get/security", `[]`},
		{"the app-wide list applies elsewhere", "/paths/~1api~1me/get/security", `[{"bearer": []}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := at(t, doc, tt.ptr); !jsonSame(t, got, tt.want) {
				t.Errorf("%s = %s, want %s", tt.ptr, got, tt.want)
			}
		})
	}
}

func TestAddHostResponse(t *testing.T) {
	doc := build(t, []openapi.Route{
		op(t, "POST", "/api/a", "server/api/a.post.wasm", `{"responses": {"200": {}, "401": {"description": "Ours", "schema": {"type": "object"}}}}`),
		op(t, "POST", "/api/b", "server/api/b.post.wasm", `{"responses": {"200": {}}}`),
	}, openapi.Options{})
	hr := openapi.HostResponse{Status: 401, Description: "No credential", Schema: openapi.SchemaUnauthorized,
		Headers: map[string]*openapi.Header{"WWW-Authenticate": {Required: true, Schema: []byte(`{"type":"string"}`)}},
		Example: []byte(`{"statusCode":401,"statusMessage":"Unauthorized","data":{"schemes":["partnerKey"]}}`)}
	doc.Operations(func(path, method string, o *openapi.Operation) {
		if err := doc.AddHostResponse(o, hr); err != nil {
			t.Fatal(err)
		}
	})
	checkDocument(t, doc)
	if got, want := at(t, doc, "/paths/~1api~1a/post/responses/401/content/application~1json/schema"),
		`{"anyOf": [{"type": "object"}, {"$ref": "#/components/schemas/EndpointsUnauthorized"}]}`; !jsonSame(t, got, want) {
		t.Errorf("a declared 401 and the host's: %s, want %s", got, want)
	}
	if got := at(t, doc, "/paths/~1api~1a/post/responses/401/description"); got != `"Unauthorized, for one of these reasons:\n\n- Ours\n- No credential"` {
		t.Errorf("description = %s, want the declared one, then the host's", got)
	}
	// The app's own 401 need not carry the host's WWW-Authenticate.
	if got := at(t, doc, "/paths/~1api~1a/post/responses/401/headers/WWW-Authenticate/required"); got != "" {
		t.Errorf("beside a declared 401, WWW-Authenticate required = %s, want not", got)
	}
	if got, want := at(t, doc, "/paths/~1api~1b/post/responses/401"),
		`{"description": "No credential", "headers": {"WWW-Authenticate": {"required": true, "schema": {"type": "string"}}},
		  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/EndpointsUnauthorized"},
		    "example": {"statusCode": 401, "statusMessage": "Unauthorized", "data": {"schemes": ["partnerKey"]}}}}}`; !jsonSame(t, got, want) {
		t.Errorf("the host's 401 = %s, want %s", got, want)
	}
	if at(t, doc, "/components/schemas/EndpointsUnauthorized") == "" {
		t.Error("the framework schema is not in the components")
	}
}

// jsonSame reports whether two JSON texts are the same value.
func jsonSame(t testing.TB, a, b string) bool {
	t.Helper()
	return a != "" && canon(t, a) == canon(t, b)
}

// TestAddHostResponseTwice: a status the host answers for two reasons
// with one body (a 503 of security and of rate limits) over a declared one
// lists the host's schema once, in one anyOf, and each reason.
func TestAddHostResponseTwice(t *testing.T) {
	doc := build(t, []openapi.Route{
		op(t, "POST", "/api/a", "server/api/a.post.wasm", `{"responses": {"200": {}, "503": {"description": "Ours", "schema": {"type": "object"}}}}`),
	}, openapi.Options{})
	for _, why := range []string{"The rate limit cannot be checked", "Credentials cannot be verified"} {
		hr := openapi.HostResponse{Status: 503, Description: why, Schema: openapi.SchemaServiceUnavailable}
		doc.Operations(func(path, method string, o *openapi.Operation) {
			if err := doc.AddHostResponse(o, hr); err != nil {
				t.Fatal(err)
			}
		})
	}
	checkDocument(t, doc)
	if got, want := at(t, doc, "/paths/~1api~1a/post/responses/503/content/application~1json/schema"),
		`{"anyOf": [{"type": "object"}, {"$ref": "#/components/schemas/EndpointsServiceUnavailable"}]}`; !jsonSame(t, got, want) {
		t.Errorf("a declared 503 and the host's twice: %s, want %s", got, want)
	}
	// The host's own 503s (no instance in time, shutting down) come
	// between the declared reason and those added after the build.
	if got := at(t, doc, "/paths/~1api~1a/post/responses/503/description"); !strings.HasPrefix(got, `"Service Unavailable, for one of these reasons:\n\n- Ours\n- No instance of the route's module came free`) ||
		!strings.HasSuffix(got, `seconds\n- The rate limit cannot be checked\n- Credentials cannot be verified"`) {
		t.Errorf("the description: %s, want Ours, the host's own 503, then each reason added", got)
	}
}

// TestAddHostResponseOverSharedResponse: an operation that refers to the
// host's shared 503 (components/responses) and gains another reason for
// it (a rate limit's store) gets a copy of its own naming both, with the
// same schema and Retry-After; the shared response, which other
// operations refer to, is unchanged.
func TestAddHostResponseOverSharedResponse(t *testing.T) {
	doc := build(t, []openapi.Route{
		op(t, "GET", "/api/a", "server/api/a.get.wasm", `{"responses": {"200": {}}}`),
		op(t, "GET", "/api/b", "server/api/b.get.wasm", `{"responses": {"200": {}}}`),
	}, openapi.Options{})
	shared := at(t, doc, "/components/responses/EndpointsServiceUnavailable")
	if got := at(t, doc, "/paths/~1api~1a/get/responses/503"); got != canon(t, `{"$ref": "#/components/responses/EndpointsServiceUnavailable"}`) {
		t.Fatalf("the 503 of an operation with no other = %s, want the shared response", got)
	}
	err := doc.AddHostResponse(doc.Paths["/api/a"].Get, openapi.HostResponse{Status: 503, Description: "The rate limit cannot be checked", Schema: openapi.SchemaServiceUnavailable,
		Headers: map[string]*openapi.Header{"Retry-After": {Description: "Seconds until the store is tried again"}}})
	if err != nil {
		t.Fatal(err)
	}
	checkDocument(t, doc)
	if got := at(t, doc, "/paths/~1api~1a/get/responses/503/description"); !strings.HasPrefix(got, `"Service Unavailable, for one of these reasons:\n\n- No instance of the route's module came free`) || !strings.HasSuffix(got, `seconds\n- The rate limit cannot be checked"`) {
		t.Errorf("the 503 given another reason: %s, want the shared description, then the reason", got)
	}
	wantJSON(t, "its schema", at(t, doc, "/paths/~1api~1a/get/responses/503/content/application~1json/schema"), `{"$ref": "#/components/schemas/EndpointsServiceUnavailable"}`)
	if got := at(t, doc, "/paths/~1api~1a/get/responses/503/headers/Retry-After/description"); !strings.Contains(got, "Seconds to wait before trying again") || !strings.Contains(got, "store") {
		t.Errorf("its Retry-After: %s, want both reasons' descriptions", got)
	}
	if got := at(t, doc, "/components/responses/EndpointsServiceUnavailable"); got != shared {
		t.Errorf("the shared 503 changed:\n%s\nwas\n%s", got, shared)
	}
	if got := at(t, doc, "/paths/~1api~1b/get/responses/503"); got != canon(t, `{"$ref": "#/components/responses/EndpointsServiceUnavailable"}`) {
		t.Errorf("the 503 of another operation = %s, want the shared response still", got)
	}
}

// TestAddHostResponseMergesHeaders: a header two reasons of one status
// both send (the Retry-After of the Idempotency-Key records' 429 and of a
// rate limit's) describes each reason, as the status's description does,
// and is required only when every reason requires it; a header the
// operation had the same description for stays as it was, and the
// HostResponse's own header (shared by every operation it is added to) is
// not changed.
func TestAddHostResponseMergesHeaders(t *testing.T) {
	const (
		quota = "Seconds until the client's oldest record expires"
		limit = "Seconds until a request may pass"
	)
	tests := []struct {
		name         string
		add          string
		required     bool
		wantDesc     string
		wantRequired bool
	}{
		{name: "a second reason's description is added", add: limit, required: true, wantDesc: "Depending on the answer:\n\n- " + quota + "\n- " + limit},
		{name: "the same description is kept once", add: quota, wantDesc: quota},
		{name: "a description that says it already is kept", add: "the client's oldest record expires", wantDesc: quota},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := build(t, []openapi.Route{
				op(t, "POST", "/api/orders", "server/api/orders.post.wasm", `{"idempotency": {}, "responses": {"201": {}}}`),
			}, openapi.Options{})
			header := &openapi.Header{Description: tt.add, Required: tt.required, Schema: []byte(`{"type":"integer","minimum":1}`)}
			o := doc.Paths["/api/orders"].Post
			if err := doc.AddHostResponse(o, openapi.HostResponse{Status: 429, Description: "Too many requests: rate limit orders",
				Schema: openapi.SchemaTooManyRequests, Headers: map[string]*openapi.Header{"Retry-After": header}}); err != nil {
				t.Fatal(err)
			}
			got := o.Responses["429"].Headers["Retry-After"]
			if got.Description != tt.wantDesc {
				t.Errorf("Retry-After description = %q, want %q", got.Description, tt.wantDesc)
			}
			if got.Required != tt.wantRequired {
				t.Errorf("Retry-After required = %v, want %v (the Idempotency-Key records' 429 does not require it)", got.Required, tt.wantRequired)
			}
			if header.Description != tt.add || header.Required != tt.required {
				t.Errorf("the added header was changed to %+v", header)
			}
		})
	}
}
