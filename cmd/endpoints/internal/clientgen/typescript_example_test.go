package clientgen_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wasmendpoints/endpoints/cmd/endpoints/internal/clientgen"
)

// A TypeScript client for an app with one operation: the type of its
// schema, and its result, a union with one member per status, which a
// status check narrows.
func ExampleTypeScript() {
	m := &clientgen.Model{
		Title: "Users API",
		Schemas: map[string]json.RawMessage{
			"User": json.RawMessage(`{"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}`),
		},
		Operations: []clientgen.Operation{{
			Method: "GET", Path: "/api/users/:id", OpenAPIPath: "/api/users/{id}", OperationID: "getApiUsersById",
			Params: []clientgen.Param{{Name: "id", Required: true, Schema: json.RawMessage(`{"type": "integer"}`)}},
			Responses: []clientgen.Response{
				{Status: 200, Content: []clientgen.Content{{MediaType: "application/json", Schema: json.RawMessage(`{"$ref": "#/components/schemas/User"}`)}}},
				{Status: 404, Content: []clientgen.Content{{MediaType: "application/problem+json"}}},
			},
		}},
	}
	src, err := clientgen.TypeScript(m, clientgen.TSOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	module := string(src)
	start := strings.Index(module, "export type User =")
	end := strings.Index(module[start:], "\n\n")
	fmt.Println(module[start : start+end])
	start = strings.Index(module, "export type GetApiUsersByIdResult =")
	end = strings.Index(module[start:], "\n\n")
	fmt.Println(module[start : start+end])
	// Output:
	// export type User = {
	//   name: string;
	// };
	// export type GetApiUsersByIdResult =
	//   | EndpointResponse<200, true, "application/json", User>
	//   | EndpointResponse<404, false, "application/problem+json", unknown>;
}
