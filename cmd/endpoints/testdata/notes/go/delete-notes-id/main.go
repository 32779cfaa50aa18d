// DELETE /api/notes/:id: removes a note (204), or 404. It needs a bearer
// token.
//
//endpoints:route DELETE /api/notes/:id
package main

import (
	"strconv"

	"github.com/wasmendpoints/endpoints/abi"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type input struct {
	ID int64 `path:"id" minimum:"1" doc:"The note's id."`
}

// NotFound is the 404 answer.
type NotFound struct {
	Message string `json:"message"`
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary: "Delete a note",
		Tags:    []string{"notes"},
		Responses: endpoints.Responses{
			204: endpoints.NoContent("Deleted"),
			404: endpoints.JSON[NotFound]("No such note"),
		},
		Security: []abi.SecurityRequirement{{"bearer": {}}},
	}, func(in *input) endpoints.Reply {
		res, err := endpoints.DB("main").Exec("DELETE FROM notes WHERE id = $1", in.ID)
		if err != nil {
			panic(err) // 500, logged
		}
		if res.RowsAffected == 0 {
			return endpoints.Respond(404, NotFound{Message: "note " + strconv.FormatInt(in.ID, 10) + " not found"})
		}
		return endpoints.Respond(204, nil)
	})
}

func main() {}
