//go:build wasip1

// The runtime declaration of the users app: what the whole app adds to the
// generated OpenAPI document. Built to server/endpoints/runtime.wasm.
//
//endpoints:runtime
package main

import (
	"strings"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

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
					map[string]any{"url": "/", "description": "The server that serves this document, wherever it listens"},
				},
				"tags": []any{
					map[string]any{"name": "users", "description": "People who use the service."},
					map[string]any{"name": "orders", "description": "What users order; placing one needs an Idempotency-Key."},
					map[string]any{"name": "clock", "description": "A stream of Server-Sent Events."},
					map[string]any{"name": "health", "description": "Whether the service is up: a plain route, documented from server/routes.config.json."},
				},
				"components": map[string]any{
					"securitySchemes": map[string]any{
						"partners": map[string]any{"type": "apiKey", "in": "header", "name": "X-API-Key", "description": "A partner's API key, for placing orders. The demo key is demo-partner-key; endpoints.json lists keys by their SHA-256, and operators may store more with `endpoints apikey` (out of the routes' reach)."},
						"bearer":   map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "JWT", "description": "A JWT in Authorization: Bearer <token>, signed by a key of auth/jwks.json; `endpoints token examples/users --sub alice --scope users:write` mints one for development."},
					},
				},
			},
			// Writes need a token with the scope of what they change:
			// users:write for users, orders:write for orders. The host
			// enforces what the document says (401 without a good token,
			// 403 without the scope) and documents those answers. Reads
			// are public, which an empty security list says explicitly.
			Extend: func(doc endpoints.Document) error {
				doc.Operations(func(path, method string, op map[string]any) {
					switch {
					case method != "post" && method != "patch":
						op["security"] = []any{}
					case strings.HasPrefix(path, "/api/orders"):
						// A user's token or a partner's API key.
						op["security"] = []any{
							map[string]any{"bearer": []any{"orders:write"}},
							map[string]any{"partners": []any{"orders:write"}},
						}
					default:
						op["security"] = []any{map[string]any{"bearer": []any{"users:write"}}}
					}
				})
				return nil
			},
		},
	})
}

func main() {}
