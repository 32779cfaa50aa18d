package openapi_test

import (
	"encoding/json"
	"fmt"
	"log"
	"maps"
	"slices"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/openapi"
)

func ExampleBuild() {
	var c abi.Contract
	if err := json.Unmarshal([]byte(`{
		"summary": "Get a user",
		"tags": ["users"],
		"responses": {
			"200": {"description": "The user", "schema": {"$ref": "#/$defs/User"}},
			"404": {}
		},
		"$defs": {"User": {"type": "object", "properties": {"name": {"type": "string"}}}}
	}`), &c); err != nil {
		log.Fatal(err)
	}
	doc, err := openapi.Build([]openapi.Route{{
		Method:   "GET",
		Path:     "/api/users/{id}",
		File:     "server/api/users/[id].get.wasm",
		Contract: &c,
		Defs:     c.Defs,
	}}, openapi.Options{Title: "Users API", Version: "1.0.0"})
	if err != nil {
		log.Fatal(err)
	}
	out, err := doc.MarshalIndent()
	if err != nil {
		log.Fatal(err)
	}
	// The operation, then the components: its own schemas, and the host's
	// answers every operation can get (a 500 of a guest that failed, a
	// 503 when no instance is free in time), which it refers to.
	var d struct {
		Paths      json.RawMessage `json:"paths"`
		Components struct {
			Schemas, Responses map[string]json.RawMessage
		} `json:"components"`
	}
	if err := json.Unmarshal(out, &d); err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(d.Paths))
	fmt.Println("schemas:", slices.Sorted(maps.Keys(d.Components.Schemas)))
	fmt.Println("responses:", slices.Sorted(maps.Keys(d.Components.Responses)))
	// Output:
	// {
	//     "/api/users/{id}": {
	//       "get": {
	//         "tags": [
	//           "users"
	//         ],
	//         "summary": "Get a user",
	//         "operationId": "getApiUsersById",
	//         "parameters": [
	//           {
	//             "name": "id",
	//             "in": "path",
	//             "required": true,
	//             "schema": {
	//               "type": "string"
	//             }
	//           }
	//         ],
	//         "responses": {
	//           "200": {
	//             "description": "The user",
	//             "content": {
	//               "application/json": {
	//                 "schema": {
	//                   "$ref": "#/components/schemas/User"
	//                 }
	//               }
	//             }
	//           },
	//           "404": {
	//             "description": "Not Found"
	//           },
	//           "500": {
	//             "$ref": "#/components/responses/EndpointsInternalServerError"
	//           },
	//           "503": {
	//             "$ref": "#/components/responses/EndpointsServiceUnavailable"
	//           }
	//         }
	//       }
	//     }
	//   }
	// schemas: [EndpointsInternalServerError EndpointsServiceUnavailable EndpointsValidationIssue User]
	// responses: [EndpointsInternalServerError EndpointsServiceUnavailable]
}

func ExampleOperationID() {
	fmt.Println(openapi.OperationID("GET", "/api/users/{id}/posts"))
	fmt.Println(openapi.OperationID("POST", "/api/user-groups"))
	fmt.Println(openapi.OperationID("GET", "/openapi.json"))
	// Output:
	// getApiUsersByIdPosts
	// postApiUserGroups
	// getOpenapiJson
}

func ExampleDocument_Merge() {
	doc, err := openapi.Build(nil, openapi.Options{})
	if err != nil {
		log.Fatal(err)
	}
	// What a runtime declaration's openApi.document adds (docs/spec.md §7).
	err = doc.Merge([]byte(`{
		"info": {"description": "Our API"},
		"servers": [{"url": "https://api.example.com"}],
		"components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
		"security": [{"bearer": []}]
	}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(doc.Info.Title, "-", doc.Info.Description)
	fmt.Println(doc.Servers[0].URL)
	fmt.Println(doc.Components.SecuritySchemes["bearer"].Scheme)

	err = doc.Merge([]byte(`{"paths": {"/x": {"get": {}}}}`))
	fmt.Println(err)
	// Output:
	// Endpoints API - Our API
	// https://api.example.com
	// bearer
	// merged document: openapi: /paths/~1x/get/responses: an operation needs at least one response
}

func ExampleParseRoutesConfig() {
	_, err := openapi.ParseRoutesConfig("server/routes.config.json", []byte(`{
		"responses": {"5xx": {"description": "Server failure"}},
		"routes": {"/api/admin/*": {"responses": {"403": {"descripton": "Not an admin"}}}}
	}`))
	fmt.Println(err)
	// Output:
	// server/routes.config.json: /responses/5xx: status "5xx": want three digits from 100 to 599, such as "404"
	// server/routes.config.json: /routes/~1api~1admin~1*: pattern "/api/admin/*": "*" may only end a pattern as "/**"
	// server/routes.config.json: /routes/~1api~1admin~1*/responses/403/descripton: unknown member "descripton"; allowed: description, schema, contentType, media, headers
}

func ExampleRoutesConfig_ResponsesFor() {
	cfg, err := openapi.ParseRoutesConfig("server/routes.config.json", []byte(`{
		"responses": {"500": {"description": "Server failure"}},
		"routes": {"/api/admin/**": {"methods": {"post": {"responses": {"403": {"description": "Not an admin"}}}}}}
	}`))
	if err != nil {
		log.Fatal(err)
	}
	for _, route := range []string{"/api/admin/users/:id", "/api/public"} {
		rs := cfg.ResponsesFor("POST", route)
		fmt.Println(route, len(rs), rs["403"] != nil)
	}
	// Output:
	// /api/admin/users/:id 2 true
	// /api/public 1 false
}

// A stream's schema describes one event: read it with Item, whichever
// OpenAPI version the document is in.
func ExampleMediaType_Item() {
	var c abi.Contract
	if err := json.Unmarshal([]byte(`{"responses": {"200": {"media": ["application/jsonl"], "schema": {"type":"integer"}}}}`), &c); err != nil {
		log.Fatal(err)
	}
	for _, spec := range []string{openapi.Version31, openapi.Version32} {
		doc, err := openapi.Build([]openapi.Route{{Method: "GET", Path: "/api/numbers", File: "server/api/numbers.get.wasm", Contract: &c}},
			openapi.Options{SpecVersion: spec})
		if err != nil {
			log.Fatal(err)
		}
		m := doc.Paths["/api/numbers"].Get.Responses["200"].Content["application/jsonl"]
		fmt.Printf("%s: schema %q, item %s\n", spec, string(m.Schema), string(m.Item()))
	}
	// Output:
	// 3.1.0: schema "{\"type\":\"string\"}", item {"type":"integer"}
	// 3.2.0: schema "", item {"type":"integer"}
}

// A plain route, a module without a contract, is documented from the
// routes configuration's "plainRoutes".
func ExampleBuild_plainRoute() {
	cfg, err := openapi.ParseRoutesConfig("server/routes.config.json", []byte(`{
		"plainRoutes": {"/feed.xml": {"summary": "The RSS feed", "responses": {"200": {"media": ["application/rss+xml"]}}}}
	}`))
	if err != nil {
		log.Fatal(err)
	}
	doc, err := openapi.Build([]openapi.Route{{Method: "GET", Path: "/feed.xml", File: "server/routes/feed.xml.get.wasm", Plain: true}},
		openapi.Options{Routes: cfg})
	if err != nil {
		log.Fatal(err)
	}
	op := doc.Paths["/feed.xml"].Get
	fmt.Println(op.Summary, slices.Sorted(maps.Keys(op.Responses)), string(op.Extra[openapi.PlainExtension]))
	// Output:
	// The RSS feed [200 500 503 default] true
}

// Schemas, examples and the members the model does not name are
// json.RawMessage: read them with encoding/json, and set them to any JSON
// text.
func ExampleDocument_extra() {
	doc, err := openapi.ParseDocument([]byte(`{"openapi": "3.1.0", "info": {"title": "Users", "version": "1"},
		"components": {"schemas": {"User": {"type": "object", "required": ["name"]}}}}`))
	if err != nil {
		log.Fatal(err)
	}
	var user struct {
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(doc.Components.Schemas["User"], &user); err != nil {
		log.Fatal(err)
	}
	fmt.Println("required:", user.Required)

	doc.Info.Extra = map[string]json.RawMessage{"x-logo": json.RawMessage(`{"url": "/logo.png", "altText": "Users"}`)}
	out, err := doc.MarshalIndent()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(out))
	// Output:
	// required: [name]
	// {
	//   "openapi": "3.1.0",
	//   "info": {
	//     "title": "Users",
	//     "version": "1",
	//     "x-logo": {
	//       "altText": "Users",
	//       "url": "/logo.png"
	//     }
	//   },
	//   "components": {
	//     "schemas": {
	//       "User": {
	//         "required": [
	//           "name"
	//         ],
	//         "type": "object"
	//       }
	//     }
	//   }
	// }
}

// Reading a document that came from elsewhere (an openApi.extend hook, a
// file), changing it, and writing it back: members the model does not name,
// such as "x-" extensions, survive.
func ExampleParseDocument() {
	doc, err := openapi.ParseDocument([]byte(`{
		"openapi": "3.1.0",
		"info": {"title": "Users API", "version": "1.0.0", "x-logo": {"url": "/logo.png"}},
		"paths": {"/api/health": {"get": {"responses": {"204": {"description": "Healthy"}}}}}
	}`))
	if err != nil {
		log.Fatal(err)
	}
	if err := doc.Validate(); err != nil {
		log.Fatal(err)
	}
	doc.Info.Version = "1.1.0"
	doc.Operations(func(path, method string, op *openapi.Operation) {
		fmt.Println(method, path, slices.Collect(maps.Keys(op.Responses)))
	})
	out, err := doc.MarshalIndent()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(out))
	// Output:
	// GET /api/health [204]
	// {
	//   "openapi": "3.1.0",
	//   "info": {
	//     "title": "Users API",
	//     "version": "1.1.0",
	//     "x-logo": {
	//       "url": "/logo.png"
	//     }
	//   },
	//   "paths": {
	//     "/api/health": {
	//       "get": {
	//         "responses": {
	//           "204": {
	//             "description": "Healthy"
	//           }
	//         }
	//       }
	//     }
	//   }
	// }
}

// Validate names every problem of a document, each at its JSON pointer.
func ExampleDocument_Validate() {
	doc, err := openapi.ParseDocument([]byte(`{
		"openapi": "3.1.0",
		"info": {"title": "Users API", "version": "1.0.0"},
		"paths": {"/api/users/{id}": {"get": {"responses": {"200": {"$ref": "#/components/responses/User"}}}}}
	}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(doc.Validate())
	// Output:
	// openapi: /paths/~1api~1users~1{id}/get/parameters: the path parameter "id" of /api/users/{id} is not declared; want {"name": "id", "in": "path", "required": true}
	// openapi: /paths/~1api~1users~1{id}/get/responses/200/$ref: "#/components/responses/User" does not resolve in the document
}
