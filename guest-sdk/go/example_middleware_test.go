package endpoints_test

import (
	"encoding/json"
	"fmt"

	"github.com/wasmendpoints/endpoints/abi"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// A tenant middleware: requests under /api must name their tenant, which
// the handlers then read with endpoints.Value("tenant"). The declaration
// lists the phases the module implements, so the host never calls the
// others.
func ExampleDeclareMiddleware() {
	defer endpoints.Reset() // examples share one process; a module never calls Reset
	endpoints.DeclareMiddleware(endpoints.Middleware{
		Routes: []string{"/api/**"},
		Before: func(r *endpoints.MiddlewareRequest) (endpoints.Reply, bool) {
			tenant := r.Header("X-Tenant")
			if tenant == "" {
				return endpoints.Respond(400, map[string]string{"error": "send X-Tenant"}), true
			}
			_ = r.SetContext("tenant", tenant)
			return endpoints.Reply{}, false
		},
	})
	fmt.Println("declared")
	// Output: declared
}

type order struct {
	ID int `path:"id" minimum:"1"`
}

// A handler that authorises per resource: the host has checked the token
// and the orders:read scope; whose order it is, only the handler knows.
func ExampleAuth() {
	defer endpoints.Reset()
	endpoints.Handle(endpoints.Operation{
		Summary:  "Get an order",
		Security: []abi.SecurityRequirement{{"bearer": {"orders:read"}}},
		Responses: endpoints.Responses{
			200: endpoints.JSON[map[string]any]("The order"),
			403: endpoints.JSON[map[string]string]("Not your order"),
		},
	}, func(in *order) endpoints.Reply {
		owner := "alice" // read from the store in a real handler
		if p := endpoints.Auth(); p == nil || p.Subject != owner && !p.HasScope("orders:admin") {
			return endpoints.Respond(403, map[string]string{"error": "not your order"})
		}
		return endpoints.Respond(200, map[string]any{"id": in.ID, "owner": owner})
	})
	var contract struct {
		Security json.RawMessage `json:"security"`
	}
	_ = json.Unmarshal(endpoints.ContractJSON(), &contract)
	fmt.Println(string(contract.Security))
	// Output: [{"bearer":["orders:read"]}]
}
