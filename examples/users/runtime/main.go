//go:build wasip1

// The runtime declaration of the users app: what the whole app adds to the
// generated OpenAPI document. Built to server/endpoints/runtime.wasm.
//
//endpoints:runtime
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

func init() {
	endpoints.DeclareRuntime(endpoints.Runtime{
		OpenAPI: endpoints.OpenAPI{
			Document: map[string]any{
				"info": map[string]any{
					"description": "An example Endpoints app: users with validated requests and checked answers.",
					"contact":     map[string]any{"name": "Endpoints", "url": "https://github.com/wasmendpoints/endpoints"},
					"license":     map[string]any{"name": "MIT", "identifier": "MIT"},
				},
				"servers": []any{
					map[string]any{"url": "http://127.0.0.1:3000", "description": "endpoints dev examples/users"},
				},
				"tags": []any{
					map[string]any{"name": "users", "description": "People who use the service."},
					map[string]any{"name": "orders", "description": "What users order; placing one needs an Idempotency-Key."},
					map[string]any{"name": "clock", "description": "A stream of Server-Sent Events."},
				},
				"components": map[string]any{
					"securitySchemes": map[string]any{
						"bearer": map[string]any{"type": "http", "scheme": "bearer", "description": "A token in Authorization: Bearer <token>."},
					},
				},
			},
			// Writes need a token: security on every POST and PATCH. Reads
			// are public, which an empty security list says explicitly.
			Extend: func(doc endpoints.Document) error {
				doc.Operations(func(path, method string, op map[string]any) {
					if method == "post" || method == "patch" {
						op["security"] = []any{map[string]any{"bearer": []any{}}}
					} else {
						op["security"] = []any{}
					}
				})
				return nil
			},
		},
	})
}

func main() {}
