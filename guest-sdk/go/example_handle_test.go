package endpoints_test

import (
	"bytes"
	"encoding/json"
	"fmt"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// Account is what the endpoint answers with. Named structs become $defs.
type Account struct {
	ID   int    `json:"id"`
	Name string `json:"name" minLength:"1"`
}

// Problem is the body of the 404.
type Problem struct {
	Message string `json:"message"`
}

// getAccount is the input: one path parameter and one optional query
// parameter, validated by the host before the handler runs.
type getAccount struct {
	ID     int    `path:"id" minimum:"1" doc:"The account's id."`
	Expand string `query:"expand" enum:"owner,members"`
}

var accounts = map[int]Account{1: {ID: 1, Name: "Acme"}}

// In a route module (a main package with //endpoints:route GET /api/accounts/:id) the Handle call
// sits in init and main is empty.
func ExampleHandle() {
	defer endpoints.Reset() // examples share one process; a module never calls Reset

	endpoints.Handle(endpoints.Operation{
		Summary: "Get an account",
		Tags:    []string{"accounts"},
		Responses: endpoints.Responses{
			200: endpoints.JSON[Account]("The account"),
			404: endpoints.JSON[Problem]("No such account"),
		},
	}, func(in *getAccount) endpoints.Reply {
		a, ok := accounts[in.ID]
		if !ok {
			return endpoints.Respond(404, Problem{Message: "no such account"})
		}
		return endpoints.Respond(200, a)
	})

	var out bytes.Buffer
	json.Indent(&out, endpoints.ContractJSON(), "", "  ")
	fmt.Println(out.String())
	// Output:
	// {
	//   "summary": "Get an account",
	//   "tags": [
	//     "accounts"
	//   ],
	//   "request": {
	//     "params": {
	//       "type": "object",
	//       "properties": {
	//         "id": {
	//           "type": "integer",
	//           "description": "The account's id.",
	//           "minimum": 1,
	//           "maximum": 9223372036854775807
	//         }
	//       },
	//       "required": [
	//         "id"
	//       ]
	//     },
	//     "query": {
	//       "type": "object",
	//       "properties": {
	//         "expand": {
	//           "type": "string",
	//           "enum": [
	//             "owner",
	//             "members"
	//           ]
	//         }
	//       }
	//     }
	//   },
	//   "responses": {
	//     "200": {
	//       "description": "The account",
	//       "schema": {
	//         "$ref": "#/$defs/Account"
	//       }
	//     },
	//     "404": {
	//       "description": "No such account",
	//       "schema": {
	//         "$ref": "#/$defs/Problem"
	//       }
	//     }
	//   },
	//   "$defs": {
	//     "Account": {
	//       "type": "object",
	//       "properties": {
	//         "id": {
	//           "type": "integer",
	//           "minimum": -9223372036854775808,
	//           "maximum": 9223372036854775807
	//         },
	//         "name": {
	//           "type": "string",
	//           "minLength": 1
	//         }
	//       },
	//       "required": [
	//         "id",
	//         "name"
	//       ],
	//       "additionalProperties": false
	//     },
	//     "Problem": {
	//       "type": "object",
	//       "properties": {
	//         "message": {
	//           "type": "string"
	//         }
	//       },
	//       "required": [
	//         "message"
	//       ],
	//       "additionalProperties": false
	//     }
	//   }
	// }
}
