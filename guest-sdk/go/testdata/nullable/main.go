//go:build wasip1

// Command nullable is the guest of the host's test of the nullable tag
// (host/nullable_test.go): POST /api/notes answers the note it was sent,
// whose body may be null, as a NULLable column's *string field is. With
// ?drop=true it answers the note without its body (null).
package main

import (
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// Note is a note whose body may be NULL in the database.
type Note struct {
	Title string  `json:"title"`
	Body  *string `json:"body" nullable:"true" doc:"The text; null when there is none."`
}

type input struct {
	Drop bool `query:"drop" doc:"Answer the note without its body."`
	Body Note
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary:   "Echo a note",
		Responses: endpoints.Responses{200: endpoints.JSON[Note]("The note")},
	}, func(in *input) endpoints.Reply {
		n := in.Body
		if in.Drop {
			n.Body = nil
		}
		return endpoints.Respond(200, n)
	})
}

func main() {}
