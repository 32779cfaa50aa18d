//go:build wasip1

// Command echo is the endpoint guest of TestWasmGuest: it answers with what
// it received. The test builds it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o echo.wasm ./testdata/echo/main.go
package main

import (
	"strconv"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type echoInput struct {
	ID     int    `path:"id" minimum:"1" doc:"What to echo."`
	Limit  int    `query:"limit" minimum:"1" maximum:"100" default:"10"`
	Tenant string `header:"x-tenant"`
	Body   *note
}

type note struct {
	Text string `json:"text" minLength:"1"`
}

// Echo is the answer.
type Echo struct {
	ID     int    `json:"id"`
	Limit  int    `json:"limit"`
	Tenant string `json:"tenant"`
	Text   string `json:"text,omitempty"`
	Agent  string `json:"agent"`
}

// Problem is the answer for id 404.
type Problem struct {
	Message string `json:"message"`
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary: "Echo the request",
		Responses: endpoints.Responses{
			201: endpoints.JSON[Echo]("The echo"),
			404: endpoints.JSON[Problem]("Asked for"),
		},
	}, func(in *echoInput) endpoints.Reply {
		if in.ID == 404 {
			return endpoints.Respond(404, Problem{Message: "no such echo"})
		}
		agent, _ := endpoints.Header("User-Agent")
		endpoints.Logger().Info("echo", "id", in.ID)
		out := Echo{ID: in.ID, Limit: in.Limit, Tenant: in.Tenant, Agent: agent}
		if in.Body != nil {
			out.Text = in.Body.Text
		}
		return endpoints.Respond(201, out).WithHeader("Location", "/api/echo/"+strconv.Itoa(in.ID))
	})
}

func main() {}
