package clientgen_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wasmendpoints/endpoints/cmd/endpoints/internal/clientgen"
)

// A Go client for an app with one operation: its method, and the fields of
// its response, one per status.
func ExampleGo() {
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
	src, err := clientgen.Go(m, clientgen.GoOptions{Package: "users"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range strings.Split(string(src), "\n") {
		exported := strings.HasPrefix(line, "func (c *Client) G") // the method, not the unexported do
		if exported || strings.HasPrefix(line, "\tOK ") || strings.HasPrefix(line, "\tNotFound ") {
			fmt.Println(strings.TrimSpace(line))
		}
	}
	// Output:
	// func (c *Client) GetAPIUsersByID(ctx context.Context, req *GetAPIUsersByIDRequest) (*GetAPIUsersByIDResponse, error) {
	// OK *User
	// NotFound *any
}
