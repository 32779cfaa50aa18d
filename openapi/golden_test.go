package openapi_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmendpoints/endpoints/openapi"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// usersDefs are the $defs the users example's contracts share.
const usersDefs = `{
	"User": {"type": "object", "additionalProperties": false, "required": ["id", "name", "email"], "properties": {
		"id": {"type": "integer", "minimum": 1, "description": "The user's id."},
		"name": {"type": "string", "minLength": 1, "maxLength": 100, "description": "Full name."},
		"email": {"type": "string", "format": "email", "description": "Contact address."}}},
	"NewUser": {"type": "object", "additionalProperties": false, "required": ["name", "email"], "properties": {
		"name": {"type": "string", "minLength": 1, "maxLength": 100, "description": "Full name."},
		"email": {"type": "string", "format": "email", "description": "Contact address."}}},
	"UserPatch": {"type": "object", "additionalProperties": false, "minProperties": 1, "properties": {
		"name": {"type": "string", "minLength": 1, "maxLength": 100, "description": "New full name."},
		"email": {"type": "string", "format": "email", "description": "New contact address."}}},
	"SearchResult": {"type": "object", "additionalProperties": false, "required": ["items", "total"], "properties": {
		"items": {"type": "array", "items": {"$ref": "#/$defs/User"}, "description": "The matching users, at most limit of them."},
		"total": {"type": "integer", "description": "How many users match in all."}}},
	"NotFound": {"type": "object", "required": ["message"], "properties": {"message": {"type": "string"}}}
}`

const usersIDParams = `{"type": "object", "required": ["id"], "properties": {"id": {"type": "integer", "minimum": 1, "description": "The user's id."}}}`

// usersOperations are the endpoints of examples/users, as their contracts
// would declare them.
func usersOperations(t testing.TB) []openapi.Route {
	return []openapi.Route{
		op(t, "GET", "/api/users/{id}", "server/api/users/[id].get.wasm", `{
			"summary": "Get a user", "tags": ["users"],
			"request": {"params": `+usersIDParams+`},
			"responses": {
				"200": {"description": "The user", "schema": {"$ref": "#/$defs/User"}},
				"404": {"description": "No such user", "schema": {"$ref": "#/$defs/NotFound"}}},
			"$defs": `+usersDefs+`}`),
		op(t, "PATCH", "/api/users/{id}", "server/api/users/[id].patch.wasm", `{
			"summary": "Change a user", "description": "Changes the fields the body names.", "tags": ["users"],
			"request": {"params": `+usersIDParams+`, "body": {"schema": {"$ref": "#/$defs/UserPatch"}, "description": "The fields to change"}},
			"responses": {
				"200": {"description": "The changed user", "schema": {"$ref": "#/$defs/User"}},
				"404": {"description": "No such user", "schema": {"$ref": "#/$defs/NotFound"}}},
			"$defs": `+usersDefs+`}`),
		op(t, "GET", "/api/users/search", "server/api/users/search.get.wasm", `{
			"summary": "Search users", "tags": ["users"],
			"request": {"query": {"type": "object", "required": ["q"], "properties": {
				"q": {"type": "string", "minLength": 1, "description": "Text to find in names and emails, ignoring case."},
				"limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10, "description": "The most users to answer."}}}},
			"responses": {"200": {"description": "The matching users", "schema": {"$ref": "#/$defs/SearchResult"}}},
			"responsesInferred": true,
			"$defs": `+usersDefs+`}`),
		op(t, "POST", "/api/users", "server/api/users.post.wasm", `{
			"summary": "Create a user", "tags": ["users"],
			"request": {
				"headers": {"type": "object", "properties": {
					"authorization": {"type": "string", "pattern": "^Bearer "},
					"x-request-id": {"type": "string", "format": "uuid", "description": "Correlates logs."}}},
				"body": {"schema": {"$ref": "#/$defs/NewUser"}}},
			"responses": {
				"201": {"description": "The new user", "schema": {"$ref": "#/$defs/User"},
					"headers": {"location": {"type": "string", "format": "uri-reference", "description": "Where the user lives."}}}},
			"idempotency": {"required": false},
			"$defs": `+usersDefs+`}`),
		op(t, "GET", "/health", "server/routes/health.get.wasm", `{
			"summary": "Liveness",
			"responses": {"200": {"media": ["text/plain"]}}}`),
	}
}

// usersRoutesConfig is examples/users/server/routes.config.json.
const usersRoutesConfig = `{
  "responses": {
    "500": {
      "description": "The server failed: a guest trapped, ran past its deadline, or broke its contract",
      "schema": {"$ref": "#/$defs/ServerError"}
    }
  },
  "routes": {
    "/api/users/**": {
      "methods": {
        "post": {"responses": {"401": {"description": "Missing or invalid bearer token", "schema": {"$ref": "#/$defs/Unauthorized"}}}},
        "patch": {"responses": {"401": {"description": "Missing or invalid bearer token", "schema": {"$ref": "#/$defs/Unauthorized"}}}}
      }
    }
  },
  "$defs": {
    "ServerError": {
      "type": "object",
      "properties": {
        "statusCode": {"type": "integer", "enum": [500]},
        "statusMessage": {"type": "string"},
        "data": {"type": "object"}
      },
      "required": ["statusCode", "statusMessage"]
    },
    "Unauthorized": {
      "type": "object",
      "properties": {"message": {"type": "string"}},
      "required": ["message"]
    }
  }
}`

func TestGoldenUsers(t *testing.T) {
	cfg, err := openapi.ParseRoutesConfig("server/routes.config.json", []byte(usersRoutesConfig))
	if err != nil {
		t.Fatal(err)
	}
	opts := openapi.Options{Title: "Users API", Version: "1.0.0", Routes: cfg}
	ops := usersOperations(t)
	doc := build(t, ops, opts)
	got, err := doc.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}

	// The same operations in another order give the same bytes.
	reversed := make([]openapi.Route, len(ops))
	for i, o := range ops {
		reversed[len(ops)-1-i] = o
	}
	again, err := build(t, reversed, opts).MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, again) {
		t.Errorf("building the operations in reverse order changed the document:\n%s\nvs\n%s", got, again)
	}

	path := filepath.Join("testdata", "users.golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("document differs from %s (run go test -update and review the diff):\n%s", path, got)
	}
}

// streamsOperations are streams of each sequential media type and plain
// routes, with and without meta: what TestGoldenStreams documents.
func streamsOperations(t testing.TB) []openapi.Route {
	return []openapi.Route{
		op(t, "GET", "/api/ticks", "server/api/ticks.get.wasm", `{
			"summary": "Ticks as Server-Sent Events", "tags": ["streams"],
			"responses": {"200": {"description": "A tick a second", "media": ["text/event-stream"], "schema": {"$ref": "#/$defs/Tick"}}},
			"$defs": {"Tick": {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer", "minimum": 0}}}}}`),
		op(t, "GET", "/api/log", "server/api/log.get.wasm", `{
			"summary": "Log lines as text events", "tags": ["streams"],
			"responses": {"200": {"description": "One line an event", "media": ["text/event-stream"], "schema": {"type": "string"}}}}`),
		op(t, "GET", "/api/export", "server/api/export.get.wasm", `{
			"summary": "Every tick as JSON Lines", "tags": ["streams"],
			"responses": {"200": {"description": "One tick a line", "media": ["application/jsonl", "application/x-ndjson"], "schema": {"$ref": "#/$defs/Tick"}}},
			"$defs": {"Tick": {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer", "minimum": 0}}}}}`),
		op(t, "POST", "/api/import", "server/api/import.post.wasm", `{
			"summary": "Import ticks from NDJSON", "tags": ["streams"],
			"request": {"body": {"content": {"application/x-ndjson": {"schema": {"$ref": "#/$defs/Tick"}}}}},
			"responses": {"204": {"description": "Imported"}},
			"$defs": {"Tick": {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer", "minimum": 0}}}}}`),
		{Method: "GET", Path: "/feed.xml", File: "server/routes/feed.xml.get.wasm", Plain: true},
		{Method: "", Path: "/hooks/{source}", File: "server/routes/hooks/[source].wasm", Plain: true,
			Serves: []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}},
		{Method: "GET", Path: "/robots.txt", File: "server/routes/robots.txt.get.wasm", Plain: true},
	}
}

// streamsRoutesConfig gives two of the plain routes their meta.
const streamsRoutesConfig = `{
  "plainRoutes": {
    "/feed.xml": {
      "summary": "The RSS feed", "tags": ["blog"],
      "responses": {"200": {"description": "The feed", "media": ["application/rss+xml"]}}
    },
    "/hooks/:source": {
      "tags": ["hooks"],
      "methods": {"post": {"summary": "Receive a webhook", "responses": {"204": {"description": "Received"}}}}
    }
  }
}`

// TestGoldenStreams documents streams and plain routes in both OpenAPI
// versions: testdata/streams.golden.json (3.1) and
// testdata/streams-oas32.golden.json (3.2); CI lints both
// (tests/openapi/lint).
func TestGoldenStreams(t *testing.T) {
	cfg, err := openapi.ParseRoutesConfig("server/routes.config.json", []byte(streamsRoutesConfig))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ spec, file string }{
		{openapi.Version31, "streams.golden.json"},
		{openapi.Version32, "streams-oas32.golden.json"},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			doc := build(t, streamsOperations(t), openapi.Options{Title: "Streams", Version: "1.0.0", Routes: cfg, SpecVersion: tt.spec})
			got, err := doc.MarshalIndent()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tt.file)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("document differs from %s (run go test -update and review the diff):\n%s", path, got)
			}
		})
	}
}
