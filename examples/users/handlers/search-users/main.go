//go:build wasip1

// GET /api/users/search?q=&limit= — users whose name or email contains q.
// Its validation errors are RFC 9457 Problem Details rather than the
// host's default body: the module's OnValidationError hook replaces them.
//
//endpoints:route GET /api/users/search
package main

import (
	"fmt"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
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
		Description: "Finds users whose name or email contains q, ignoring case; answers at most limit of them and how many match in all. An invalid query is answered as Problem Details.",
		Tags:        []string{"users"},
		Responses: endpoints.Responses{
			200: endpoints.JSON[model.SearchResult]("The matching users"),
			400: endpoints.JSONAs[model.ValidationProblem]("The query is not valid", "application/problem+json"),
		},
	}, func(in *input) endpoints.Reply {
		res, err := model.Search(in.Q, in.Limit)
		if err != nil {
			return model.StoreFailure(err)
		}
		return endpoints.Respond(200, res)
	})

	// Validation failures become Problem Details listing every failing
	// field; anything else (none is possible here) keeps the default.
	endpoints.OnValidationError(func(f *endpoints.ValidationFailure) (endpoints.Reply, bool) {
		if f.Kind != abi.FailureSchema {
			return endpoints.Reply{}, false
		}
		p := model.ValidationProblem{
			Type: "https://example.com/problems/invalid-query", Title: "Invalid query", Status: 400,
			Detail: "The search query is not valid; see errors.",
		}
		for _, part := range []string{"params", "query", "headers", "body"} {
			for _, issue := range f.Issues[part] {
				p.Errors = append(p.Errors, model.FieldError{Part: part, Pointer: pointer(issue.Path), Message: issue.Message})
			}
		}
		return endpoints.Respond(400, p), true
	})
}

// pointer writes an issue's path as a JSON Pointer (RFC 6901).
func pointer(path []any) string {
	var b strings.Builder
	for _, token := range path {
		b.WriteByte('/')
		s := fmt.Sprint(token)
		s = strings.ReplaceAll(s, "~", "~0")
		b.WriteString(strings.ReplaceAll(s, "/", "~1"))
	}
	return b.String()
}

func main() {}
