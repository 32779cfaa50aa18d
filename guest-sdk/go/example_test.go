package endpoints_test

import (
	"fmt"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

func ExampleReply_WithHeader() {
	r := endpoints.Respond(201, Account{ID: 2, Name: "Initech"}).
		WithHeader("Location", "/api/accounts/2")

	fmt.Println(r.Status(), r.Header().Get("Location"), r.Body())
	// Output: 201 /api/accounts/2 {2 Initech}
}

func ExampleHeaders() {
	h := endpoints.Headers{}
	h.Set("Content-Type", "text/csv")
	h.Add("Vary", "Accept")
	h.Add("Vary", "Accept-Encoding")

	fmt.Println(h.Get("content-type"), h.Values("vary"), len(h))
	// Output: text/csv [Accept Accept-Encoding] 2
}
