//go:build wasip1

// PATCH /api/users/:id — change a user's name or email.
//
//endpoints:route PATCH /api/users/:id
package main

import (
	"fmt"

	"github.com/wasmendpoints/endpoints/examples/users/model"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type input struct {
	model.ByID
	Body model.UserPatch `minProperties:"1" doc:"The fields to change, at least one."`
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary:     "Change a user",
		Description: "Sets the fields present in the body, at least one, and answers the changed user.",
		Tags:        []string{"users"},
		Responses: endpoints.Responses{
			200: endpoints.JSON[model.User]("The changed user"),
			404: endpoints.JSON[model.NotFound]("No such user"),
		},
	}, func(in *input) endpoints.Reply {
		u, ok, err := model.Update(in.ID, in.Body)
		if err != nil {
			return model.StoreFailure(err)
		}
		if !ok {
			return endpoints.Respond(404, model.NotFound{Message: fmt.Sprintf("user %d not found", in.ID)})
		}
		return endpoints.Respond(200, u)
	})
}

func main() {}
