//go:build wasip1

// A Go route that panics on every request whose query has boom=1, and
// answers {"fine":true} otherwise: the host must answer 500, discard the
// instance, and serve the next request from a fresh one.
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

type input struct {
	Boom bool `query:"boom"`
}

type answer struct {
	Fine bool `json:"fine"`
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary:   "Panic on demand",
		Responses: endpoints.Responses{200: endpoints.JSON[answer]("Fine")},
	}, func(in *input) endpoints.Reply {
		if in.Boom {
			var m map[string]int
			m["boom"]++ // assignment to entry in nil map
		}
		return endpoints.Respond(200, answer{Fine: true})
	})
}

func main() {}
