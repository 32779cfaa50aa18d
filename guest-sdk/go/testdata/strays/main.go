//go:build wasip1

// Command strays is the guest of TestWasmGuestNamesAGoroutineLeftSleeping:
// GET /api/strays?start=1 leaves a goroutine sleeping on a timer, which
// logs "the sleeper woke" when it runs; GET /api/strays without start
// does nothing. The test builds it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o strays.wasm ./testdata/strays/main.go
package main

import (
	"time"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type input struct {
	Start bool `query:"start"`
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary:   "Leave a goroutine sleeping",
		Responses: endpoints.Responses{200: endpoints.JSON[bool]("Whether a goroutine was started")},
	}, func(in *input) endpoints.Reply {
		if in.Start {
			go sleeper() // the warning names this line
		}
		return endpoints.Respond(200, in.Start)
	})
}

// sleeper sleeps past the end of the call that started it.
func sleeper() {
	time.Sleep(100 * time.Millisecond)
	endpoints.Logger().Info("the sleeper woke")
}

func main() {}
