package contract_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/wasmendpoints/endpoints/abi/contract"
)

func ExampleParse() {
	data := []byte(`{
	  "summary": "Get a user",
	  "request": {
	    "params": {"type": "object", "properties": {"id": {"type": "integer", "minimum": 1}}, "required": ["id"]}
	  },
	  "responses": {
	    "200": {"description": "The user", "schema": {"$ref": "#/$defs/User"}},
	    "404": {"description": "No such user"}
	  },
	  "$defs": {"User": {"type": "object", "properties": {"name": {"type": "string"}}}}
	}`)
	c, err := contract.Parse("server/api/users/[id].get.wasm", data, contract.Options{Method: "GET"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Summary)
	fmt.Println(slices.Sorted(maps.Keys(c.Responses)))
	fmt.Println(string(c.Responses["200"].Schema))
	// Output:
	// Get a user
	// [200 404]
	// {"$ref": "#/$defs/User"}
}

func ExampleParse_issues() {
	data := []byte(`{
	  "request": {"query": {"type": "object", "properties": {"limit": {"type": "integer", "minimum": "1"}}}},
	  "respones": {"200": {}},
	  "idempotency": {"required": true}
	}`)
	_, err := contract.Parse("server/api/users/[id].get.wasm", data, contract.Options{Method: "GET"})
	fmt.Println(err)

	var cerr *contract.Error
	if errors.As(err, &cerr) {
		fmt.Println(len(cerr.Issues), "issues; the first breaks", cerr.Issues[0].Rule)
	}
	// Output:
	// server/api/users/[id].get.wasm: contract: /idempotency: endpoints/idempotency-method: GET is a safe method and takes no Idempotency-Key; idempotency applies to POST, PATCH, PUT and DELETE (docs/spec.md §6)
	// server/api/users/[id].get.wasm: contract: /request/query/properties/limit/minimum: type: got string, want number
	// server/api/users/[id].get.wasm: contract: /respones: additionalProperties: unknown key "respones" at the top level (did you mean "responses"?); allowed: summary, description, tags, deprecated, methods, request, responses, responsesInferred, idempotency, security, onValidationError, timeout, idleTimeout, $defs
	// 3 issues; the first breaks endpoints/idempotency-method
}
