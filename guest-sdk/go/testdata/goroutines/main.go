//go:build wasip1

// Command goroutines is the guest of TestWasmGuestCallRunsOnOneGoroutine:
// GET /api/goroutines answers how many goroutines the instance has while
// the call runs. The test builds it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o goroutines.wasm ./testdata/goroutines/main.go
package main

import (
	"runtime"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type input struct{}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary:   "Count the goroutines",
		Responses: endpoints.Responses{200: endpoints.JSON[int]("How many goroutines the instance has")},
	}, func(*input) endpoints.Reply { return endpoints.Respond(200, runtime.NumGoroutine()) })
}

func main() {}
