//go:build wasip1

// GET /health — a plain route: no contract, no validation. The OpenAPI
// document lists it with the meta of "plainRoutes" in
// server/routes.config.json.
//
//endpoints:route GET /health
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

func init() {
	endpoints.HandleRaw(func(w endpoints.ResponseWriter, r *endpoints.RawRequest) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok"))
	})
}

func main() {}
