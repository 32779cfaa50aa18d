// GET /api/notes?limit=: the first notes, oldest first.
//
//endpoints:route GET /api/notes
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

type input struct {
	Limit int64 `query:"limit" minimum:"1" maximum:"100" default:"10" doc:"How many notes to answer."`
}

// Note is one note.
type Note struct {
	ID   int64  `json:"id"`
	Text string `json:"text"`
}

// List is the answer.
type List struct {
	Notes []Note `json:"notes"`
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary: "List notes",
		Tags:    []string{"notes"},
		Responses: endpoints.Responses{
			200: endpoints.JSON[List]("The notes"),
		},
	}, func(in *input) endpoints.Reply {
		notes, err := endpoints.QueryAs[Note](endpoints.DB("main"), "SELECT id, text FROM notes ORDER BY id LIMIT $1", in.Limit)
		if err != nil {
			panic(err) // 500, logged
		}
		return endpoints.Respond(200, List{Notes: notes})
	})
}

func main() {}
