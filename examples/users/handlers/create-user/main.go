//go:build wasip1

// POST /api/users — create a user. An Idempotency-Key header is optional:
// a retry with the same key and body replays the first answer rather than
// creating a second user.
//
//endpoints:route POST /api/users
package main

import (
	"strconv"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/examples/users/model"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type input struct {
	Body model.NewUser `doc:"The user to create."`
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary:     "Create a user",
		Description: "Stores a user and answers it with its new id and a Location header. Send an Idempotency-Key to make retries safe: a retry with the same key and body answers the first user again.",
		Tags:        []string{"users"},
		Responses: endpoints.Responses{
			201: endpoints.JSON[model.User]("The new user").DeclareHeader("Location", "The new user's URL"),
		},
		Idempotency: &abi.Idempotency{},
	}, func(in *input) endpoints.Reply {
		u, err := model.Create(in.Body)
		if err != nil {
			return model.StoreFailure(err)
		}
		return endpoints.Respond(201, u).WithHeader("Location", "/api/users/"+strconv.Itoa(u.ID))
	})
}

func main() {}
