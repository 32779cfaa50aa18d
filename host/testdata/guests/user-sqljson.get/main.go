//go:build wasip1

// Command user-sqljson.get answers GET /api/users/:id from the database
// as the KV guest answers from the key-value store: SQLite makes the
// user's JSON (json_object) and the guest answers it as it came, decoding
// and encoding nothing. Beside user-sql.get (a struct scanned and encoded)
// and user-kv.get in BenchmarkUsersGetDatabase, it separates what the
// database read costs from what the Go guest's decoding and encoding do.
package main

import (
	"encoding/json"
	"errors"
	"fmt"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type user struct {
	ID    int    `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
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
		var u json.RawMessage
		err := db.QueryRow("SELECT json_object('id', id, 'name', name, 'email', email) FROM users WHERE id = $1", in.ID).Scan(&u)
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
