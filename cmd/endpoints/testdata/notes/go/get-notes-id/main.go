// GET /api/notes/:id: one note, or 404.
//
//endpoints:route GET /api/notes/:id
package main

import (
	"errors"
	"strconv"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type input struct {
	ID int64 `path:"id" minimum:"1" doc:"The note's id."`
}

// Note is the answer.
type Note struct {
	ID   int64  `json:"id"`
	Text string `json:"text"`
}

// NotFound is the 404 answer.
type NotFound struct {
	Message string `json:"message"`
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary: "Get a note",
		Tags:    []string{"notes"},
		Responses: endpoints.Responses{
			200: endpoints.JSON[Note]("The note"),
			404: endpoints.JSON[NotFound]("No such note"),
		},
	}, func(in *input) endpoints.Reply {
		n, err := endpoints.QueryRowAs[Note](endpoints.DB("main"), "SELECT id, text FROM notes WHERE id = $1", in.ID)
		if errors.Is(err, endpoints.ErrNoRows) {
			return endpoints.Respond(404, NotFound{Message: "note " + strconv.FormatInt(in.ID, 10) + " not found"})
		}
		if err != nil {
			panic(err) // 500, logged
		}
		return endpoints.Respond(200, n)
	})
}

func main() {}
