//go:build wasip1

// Command user-sql.get answers GET /api/users/:id from the database, as
// examples/users does: the SQL side of BenchmarkUsersGetDatabase, whose
// app's migration creates the users.
package main

import (
	"errors"
	"fmt"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type user struct {
	ID    int    `json:"id" db:"id"`
	Name  string `json:"name" db:"name"`
	Email string `json:"email" db:"email"`
}

type input struct {
	ID int `path:"id" minimum:"1"`
}

type notFound struct {
	Message string `json:"message"`
}

var db = endpoints.DB("main")

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary:   "Get a user",
		Responses: endpoints.Responses{200: endpoints.JSON[user]("The user"), 404: endpoints.JSON[notFound]("No such user")},
	}, func(in *input) endpoints.Reply {
		u, err := endpoints.QueryRowAs[user](db, "SELECT id, name, email FROM users WHERE id = $1", in.ID)
		switch {
		case errors.Is(err, endpoints.ErrNoRows):
			return endpoints.Respond(404, notFound{fmt.Sprintf("user %d not found", in.ID)})
		case err != nil:
			return endpoints.Respond(503, nil)
		}
		return endpoints.Respond(200, u)
	})
}

func main() {}
