package openapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/openapi"
)

// TestHostWideResponses: every operation a guest serves lists the host's
// 500 (a guest that failed) and 503 (no instance in time, loading,
// shutting down), in 3.1 and 3.2 alike: by reference to the shared
// components/responses when it has no other answer of the status, else
// beside that answer, with the host's schema, example, reason and
// Retry-After.
func TestHostWideResponses(t *testing.T) {
	const (
		ref500    = `{"$ref": "#/components/responses/EndpointsInternalServerError"}`
		ref503    = `{"$ref": "#/components/responses/EndpointsServiceUnavailable"}`
		schema500 = `{"$ref": "#/components/schemas/EndpointsInternalServerError"}`
		schema503 = `{"$ref": "#/components/schemas/EndpointsServiceUnavailable"}`
	)
	db := op(t, "GET", "/api/db", "server/api/db.get.wasm", `{"responses": {"200": {}}}`)
	db.Database = true
	// A 503 of three reasons: the database's, the idempotency store's, the
	// host's own.
	three := op(t, "POST", "/api/three", "server/api/three.post.wasm", `{"idempotency": {}, "responses": {"200": {}}}`)
	three.Database = true
	ops := []openapi.Route{
		three,
		op(t, "GET", "/api/plain", "server/api/plain.get.wasm", `{"responses": {"200": {}}}`),
		op(t, "GET", "/api/none", "server/api/none.get.wasm", `{}`),
		op(t, "GET", "/api/own", "server/api/own.get.wasm", `{"responses": {"200": {}, "500": {"description": "Ours", "schema": {"type": "object", "required": ["code"]}}}}`),
		op(t, "GET", "/api/bare", "server/api/bare.get.wasm", `{"responses": {"200": {}, "503": {"description": "Come back later"}}}`),
		db,
		plain("GET", "/feed", "server/routes/feed.get.wasm"),
	}
	for _, spec := range []string{openapi.Version31, openapi.Version32} {
		t.Run(spec, func(t *testing.T) {
			doc := build(t, ops, openapi.Options{SpecVersion: spec})
			for _, tt := range []struct{ ptr, want string }{
				{"/paths/~1api~1plain/get/responses/500", ref500},
				{"/paths/~1api~1plain/get/responses/503", ref503},
				// Responses not declared: "default", and the host's.
				{"/paths/~1api~1none/get/responses/500", ref500},
				{"/paths/~1feed/get/responses/500", ref500},
				{"/paths/~1feed/get/responses/503", ref503},
				{"/paths/~1api~1own/get/responses/500/content/application~1json/schema", `{"anyOf": [{"type": "object", "required": ["code"]}, ` + schema500 + `]}`},
				{"/paths/~1api~1own/get/responses/503", ref503},
				// Declared without a body: the host's body, the declared
				// description.
				{"/paths/~1api~1bare/get/responses/503/description", `"Come back later"`},
				{"/paths/~1api~1bare/get/responses/503/content/application~1json", `{"schema": ` + schema503 + `, "example": {"statusCode": 503, "statusMessage": "Service Unavailable"}}`},
				{"/paths/~1api~1db/get/responses/503/content/application~1json", `{"schema": ` + schema503 + `, "example": {"statusCode": 503, "statusMessage": "Service Unavailable"}}`},
				{"/components/responses/EndpointsInternalServerError/content/application~1json", `{"schema": ` + schema500 + `, "example": {"statusCode": 500, "statusMessage": "Internal Server Error"}}`},
				{"/components/responses/EndpointsServiceUnavailable/content/application~1json", `{"schema": ` + schema503 + `, "example": {"statusCode": 503, "statusMessage": "Service Unavailable"}}`},
				// The host sends it with every one of these 503s.
				{"/components/responses/EndpointsServiceUnavailable/headers/Retry-After", `{"description": "Seconds to wait before trying again", "required": true, "schema": {"type": "integer", "minimum": 1}}`},
			} {
				wantJSON(t, tt.ptr, at(t, doc, tt.ptr), tt.want)
			}
			// Every 503 of the host carries Retry-After; an app's own 503
			// need not.
			if got := at(t, doc, "/paths/~1api~1db/get/responses/503/headers/Retry-After/required"); got != "true" {
				t.Errorf("the 503 of a database and the host's: Retry-After required %s, want true", got)
			}
			if got := at(t, doc, "/paths/~1api~1bare/get/responses/503/headers/Retry-After/required"); got != "" {
				t.Errorf("a 503 the app declares: Retry-After required %s, want not", got)
			}
			// The same app, the same document: the reasons' order is
			// fixed.
			if again := build(t, ops, openapi.Options{SpecVersion: spec}); at(t, again, "") != at(t, doc, "") {
				t.Error("two builds of one app differ")
			}
			if got := at(t, doc, "/paths/~1api~1none/get/responses/default"); got == "" {
				t.Error("an operation that declares no responses lost its default")
			}
			// A status of several reasons: a summary line, then each
			// reason as an item of a list, the declared one first.
			for _, tt := range []struct {
				ptr, summary string
				items        []string // how each item begins
			}{
				{"/paths/~1api~1own/get/responses/500/description", "Internal Server Error, for one of these reasons:", []string{"Ours", "The guest or a middleware failed"}},
				{"/paths/~1api~1db/get/responses/503/description", "Service Unavailable, for one of these reasons:", []string{"The database the operation uses is down", "No instance of the route's module came free"}},
				{"/paths/~1api~1db/get/responses/503/headers/Retry-After/description", "Depending on the answer:", []string{"Seconds until the host tries the database again", "Seconds to wait before trying again"}},
				{"/paths/~1api~1three/post/responses/503/description", "Service Unavailable, for one of these reasons:", []string{"The database the operation uses is down", "The idempotency store cannot be reached; nothing ran", "No instance of the route's module came free"}},
			} {
				var got string
				if err := json.Unmarshal([]byte(at(t, doc, tt.ptr)), &got); err != nil {
					t.Fatalf("%s: %v", tt.ptr, err)
				}
				summary, list, _ := strings.Cut(got, "\n\n")
				items := strings.Split(strings.TrimPrefix(list, "- "), "\n- ")
				ok := summary == tt.summary && strings.HasPrefix(list, "- ") && len(items) == len(tt.items)
				for i := 0; ok && i < len(items); i++ {
					ok = strings.HasPrefix(items[i], tt.items[i]) && !strings.HasSuffix(items[i], ".")
				}
				if !ok {
					t.Errorf("%s =\n%s\nwant %q, then a list of items beginning %q", tt.ptr, got, tt.summary, tt.items)
				}
			}
		})
	}
}
