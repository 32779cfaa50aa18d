//go:build wasip1

// A Go route whose hand-written query schema is wider than its input's Go
// type: n is any integer for the host, an int8 for the handler. The SDK
// must answer a value the int8 cannot hold with the host's 400, which the
// host must take as a declared answer, and keep the instance.
package main

import (
	"encoding/json"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type input struct {
	N int8 `query:"n"`
}

type answer struct {
	N int8 `json:"n"`
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary: "Echo a small number",
		Request: endpoints.RequestSchemas{
			Query: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`),
		},
		Responses: endpoints.Responses{200: endpoints.JSON[answer]("The number")},
	}, func(in *input) endpoints.Reply {
		return endpoints.Respond(200, answer{N: in.N})
	})
}

func main() {}
