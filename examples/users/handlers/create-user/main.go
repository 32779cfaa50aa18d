//go:build wasip1

// POST /api/users — create a user.
//
//endpoints:route POST /api/users
package main

import (
	"strconv"

	"github.com/wasmendpoints/endpoints/examples/users/model"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type input struct {
	Body model.NewUser
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary:     "Create a user",
		Description: "Creates a user and answers it with its new id and a Location header.",
		Tags:        []string{"users"},
		Responses: endpoints.Responses{
			201: endpoints.JSON[model.User]("The new user"),
		},
	}, func(in *input) endpoints.Reply {
		u := model.User{ID: model.NextID(), Name: in.Body.Name, Email: in.Body.Email}
		return endpoints.Respond(201, u).WithHeader("Location", "/api/users/"+strconv.Itoa(u.ID))
	})
}

func main() {}
