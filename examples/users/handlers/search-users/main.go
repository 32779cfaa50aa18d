//go:build wasip1

// GET /api/users/search?q=&limit= — users whose name or email contains q.
//
//endpoints:route GET /api/users/search
package main

import (
	"github.com/wasmendpoints/endpoints/examples/users/model"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type input struct {
	Q     string `query:"q" required:"true" minLength:"1" doc:"Text to find in names and emails, ignoring case."`
	Limit int    `query:"limit" minimum:"1" maximum:"100" default:"10" doc:"The most users to answer."`
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary:     "Search users",
		Description: "Finds users whose name or email contains q, ignoring case; answers at most limit of them and how many match in all.",
		Tags:        []string{"users"},
		Responses: endpoints.Responses{
			200: endpoints.JSON[model.SearchResult]("The matching users"),
		},
	}, func(in *input) endpoints.Reply {
		return endpoints.Respond(200, model.Search(in.Q, in.Limit))
	})
}

func main() {}
