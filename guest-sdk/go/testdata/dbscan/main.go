//go:build wasip1

// Command dbscan is the guest of BenchmarkWasmGuestDBScan: GET
// /api/users/:id read three ways, by the query's "how": "as"
// (QueryRowAs into a struct), "scan" (QueryRow(...).Scan into the
// struct's fields, as database/sql code reads) and "json" (SQLite's
// json_object scanned into a json.RawMessage and answered as it came).
package main

import (
	"encoding/json"
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
	ID  int    `path:"id" minimum:"1"`
	How string `query:"how"`
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
		var body any
		var err error
		switch in.How {
		case "as":
			body, err = endpoints.QueryRowAs[user](db, "SELECT id, name, email FROM users WHERE id = $1", in.ID)
		case "scan":
			var u user
			err = db.QueryRow("SELECT id, name, email FROM users WHERE id = $1", in.ID).Scan(&u.ID, &u.Name, &u.Email)
			body = u
		default:
			var u json.RawMessage
			err = db.QueryRow("SELECT json_object('id', id, 'name', name, 'email', email) FROM users WHERE id = $1", in.ID).Scan(&u)
			body = u
		}
		switch {
		case errors.Is(err, endpoints.ErrNoRows):
			return endpoints.Respond(404, problem{"user " + strconv.Itoa(in.ID) + " not found"})
		case err != nil:
			return endpoints.Respond(503, problem{err.Error()})
		}
		return endpoints.Respond(200, body)
	})
}

func main() {}
