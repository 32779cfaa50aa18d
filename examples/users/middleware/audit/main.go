//go:build wasip1

// The audit middleware of the users app: every write (POST, PATCH,
// DELETE under /api) is logged once it was answered, with who made it
// (the bearer token's subject), what it was, how it ended and the
// request id that ties the line to the host's own. Before the handler it
// passes the subject on as the context value "actor".
//
//endpoints:middleware 10-audit
package main

import (
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

func init() {
	endpoints.DeclareMiddleware(endpoints.Middleware{
		Routes:  []string{"/api/**"},
		Methods: []string{"POST", "PATCH", "DELETE"},
		Before: func(r *endpoints.MiddlewareRequest) (endpoints.Reply, bool) {
			if p := endpoints.Auth(); p != nil {
				_ = r.SetContext("actor", p.Subject)
			}
			return endpoints.Reply{}, false
		},
		After: func(r *endpoints.MiddlewareRequest, status int) {
			actor := "anonymous"
			if p := endpoints.Auth(); p != nil {
				actor = p.Subject
			}
			endpoints.Logger().Info("audit", "actor", actor, "method", r.Method, "route", r.Route, "path", r.Path, "status", status, "request", endpoints.RequestID())
		},
	})
}

func main() {}
