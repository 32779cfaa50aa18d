// POST /api/notes: stores a note. It needs a bearer token and an
// Idempotency-Key.
//
//endpoints:route POST /api/notes
package main

import (
	"strconv"

	"github.com/wasmendpoints/endpoints/abi"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// NewNote is the body.
type NewNote struct {
	Text string `json:"text" minLength:"1" maxLength:"200" doc:"The note."`
}

// Note is the answer.
type Note struct {
	ID   int64  `json:"id"`
	Text string `json:"text"`
}

type input struct {
	Body NewNote
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary: "Create a note",
		Tags:    []string{"notes"},
		Responses: endpoints.Responses{
			201: endpoints.JSON[Note]("The new note").DeclareHeader("Location", "The new note's URL"),
		},
		Idempotency: &abi.Idempotency{Required: true},
		Security:    []abi.SecurityRequirement{{"bearer": {}}},
	}, func(in *input) endpoints.Reply {
		var id int64
		if err := endpoints.DB("main").QueryRow("INSERT INTO notes (text) VALUES ($1) RETURNING id", in.Body.Text).Scan(&id); err != nil {
			panic(err) // 500, logged
		}
		return endpoints.Respond(201, Note{ID: id, Text: in.Body.Text}).WithHeader("Location", "/api/notes/"+strconv.FormatInt(id, 10))
	})
}

func main() {}
