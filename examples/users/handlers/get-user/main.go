//go:build wasip1

// GET /api/users/:id — one user by id.
//
// Built by `endpoints build examples/users` into server/bundles/go.wasm with
// the other Go routes ("goBundle": false: server/api/users/[id].get.wasm).
//
//endpoints:route GET /api/users/:id
package main

import (
	"fmt"

	"github.com/wasmendpoints/endpoints/examples/users/model"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type input struct {
	ID int `path:"id" minimum:"1" doc:"The user's id."`
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary:     "Get a user",
		Description: "Answers the user with this id, or 404 when there is none.",
		Tags:        []string{"users"},
		Responses: endpoints.Responses{
			200: endpoints.JSON[model.User]("The user"),
			404: endpoints.JSON[model.NotFound]("No such user"),
		},
	}, func(in *input) endpoints.Reply {
		u, ok, err := model.Find(in.ID)
		if err != nil {
			return model.StoreFailure(err) // 503 when the store is down
		}
		if !ok {
			return endpoints.Respond(404, model.NotFound{Message: fmt.Sprintf("user %d not found", in.ID)})
		}
		return endpoints.Respond(200, u)
	})
}

func main() {}
