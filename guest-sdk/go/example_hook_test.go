package endpoints_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/wasmendpoints/endpoints/abi"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// InvalidInput is the module's own answer to a request that failed
// validation: an RFC 9457 problem listing the issues.
type InvalidInput struct {
	Title  string                 `json:"title"`
	Status int                    `json:"status"`
	Issues map[string][]abi.Issue `json:"issues"`
}

// invalidInput answers schema failures with 422 and an InvalidInput, and
// leaves 406 and 415 to the app's hook or the default body.
func invalidInput(f *endpoints.ValidationFailure) (endpoints.Reply, bool) {
	if f.Kind != abi.FailureSchema {
		return endpoints.Reply{}, false
	}
	return endpoints.Respond(422, InvalidInput{Title: "Invalid " + f.Part, Status: 422, Issues: f.Issues}).
		WithHeader("Content-Type", "application/problem+json"), true
}

type listAccounts struct {
	Limit int `query:"limit" minimum:"1" maximum:"100"`
}

// The hook is registered from init like the handler, and its answer is
// declared among the responses. Every operation of the module's contract
// then says "onValidationError": true. The hook is a plain function, so a
// test can call it with a failure of its own.
func ExampleOnValidationError() {
	defer endpoints.Reset() // examples share one process; a module never calls Reset

	endpoints.OnValidationError(invalidInput)
	endpoints.Handle(endpoints.Operation{
		Summary: "List accounts",
		Responses: endpoints.Responses{
			200: endpoints.JSON[[]Account]("The accounts"),
			422: endpoints.JSONAs[InvalidInput]("Invalid input", "application/problem+json"),
		},
	}, func(in *listAccounts) endpoints.Reply { return endpoints.Respond(200, []Account{}) })

	var c abi.Contract
	json.Unmarshal(endpoints.ContractJSON(), &c)
	fmt.Println("onValidationError:", c.OnValidationError)

	reply, answered := invalidInput(&endpoints.ValidationFailure{
		Kind: abi.FailureSchema, Status: 400, Part: "query",
		Issues: map[string][]abi.Issue{"query": {{Path: []any{"limit"}, Message: "must be <= 100"}}},
	})
	fmt.Println(answered, reply.Status(), reply.Header().Get("Content-Type"))
	reply.WriteTo(os.Stdout)
	fmt.Println()

	_, answered = invalidInput(&endpoints.ValidationFailure{Kind: abi.FailureAccept, Status: 406, Part: "headers"})
	fmt.Println(answered)
	// Output:
	// onValidationError: true
	// true 422 application/problem+json
	// {"title":"Invalid query","status":422,"issues":{"query":[{"path":["limit"],"message":"must be \u003c= 100"}]}}
	// false
}
