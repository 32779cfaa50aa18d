//go:build wasip1

// Command user-kv.get answers GET /api/users/:id from the key-value store,
// as examples/users did before it kept its users in a database: the KV
// side of BenchmarkUsersGetDatabase. The first request writes the three
// seed users.
package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

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

var seed = []user{{1, "Ada Lovelace", "ada@example.com"}, {2, "Grace Hopper", "grace@example.com"}, {3, "Alan Turing", "alan@example.com"}}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary:   "Get a user",
		Responses: endpoints.Responses{200: endpoints.JSON[user]("The user"), 404: endpoints.JSON[notFound]("No such user")},
	}, func(in *input) endpoints.Reply {
		key := userKey(in.ID)
		v, ok, err := endpoints.KV.Get(key)
		if err == nil && !ok {
			for _, u := range seed {
				if err := endpoints.KV.SetJSON(userKey(u.ID), u, 0); err != nil {
					return endpoints.Respond(503, nil)
				}
			}
			v, ok, err = endpoints.KV.Get(key)
		}
		switch {
		case err != nil:
			return endpoints.Respond(503, nil)
		case !ok:
			return endpoints.Respond(404, notFound{fmt.Sprintf("user %d not found", in.ID)})
		}
		return endpoints.Respond(200, json.RawMessage(v))
	})
}

// userKey is the key of user id, zero-padded as the example's was, built
// without fmt (whose reflection costs microseconds in a module).
func userKey(id int) string {
	s := strconv.Itoa(id)
	return "users/" + strings.Repeat("0", max(0, 10-len(s))) + s
}

func main() {}
