//go:build wasip1

// Command db is the database guest of TestWasmGuestDB and
// BenchmarkWasmGuestDB: GET /api/users/:id read with QueryRowAs and
// answered as the struct, as examples/users does. The test builds it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o db.wasm ./testdata/db/main.go
package main

import (
	"errors"
	"strconv"

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

type problem struct {
	Message string `json:"message"`
}

var db = endpoints.DB("main")

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary:   "Get a user",
		Responses: endpoints.Responses{200: endpoints.JSON[user]("The user"), 404: endpoints.JSON[problem]("No such user"), 503: endpoints.JSON[problem]("The database failed")},
	}, func(in *input) endpoints.Reply {
		u, err := endpoints.QueryRowAs[user](db, "SELECT id, name, email FROM users WHERE id = $1", in.ID)
		switch {
		case errors.Is(err, endpoints.ErrNoRows):
			return endpoints.Respond(404, problem{"user " + strconv.Itoa(in.ID) + " not found"})
		case err != nil:
			return endpoints.Respond(503, problem{err.Error()})
		}
		return endpoints.Respond(200, u)
	})
}

func main() {}
