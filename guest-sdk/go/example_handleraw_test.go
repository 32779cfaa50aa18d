package endpoints_test

import (
	"fmt"
	"io"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// echo answers with the request body, like a net/http handler.
func echo(w endpoints.ResponseWriter, r *endpoints.RawRequest) {
	w.Header().Set("Content-Type", r.Headers.Get("Content-Type"))
	w.WriteHeader(200)
	if _, err := io.Copy(w, r.Body); err != nil {
		endpoints.Logger().Warn("echo cut short", "error", err)
	}
}

// A plain route exports no contract: ContractJSON is nil and the
// endpoints_contract export returns 0.
func ExampleHandleRaw() {
	defer endpoints.Reset() // examples share one process; a module never calls Reset

	endpoints.HandleRaw(echo)

	fmt.Println(endpoints.ContractJSON() == nil)
	// Output:
	// true
}
