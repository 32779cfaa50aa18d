//go:build wasip1

// Command timeouts is the guest of the host's per-route timeout tests
// (host/timeouts_test.go): GET and POST both send count Server-Sent
// Events, gap milliseconds apart; GET sets its own timeout (5 s) and idle
// timeout (1 s), POST has the app's limits.timeout. The tests build it
// with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o timeouts.wasm ./testdata/timeouts/main.go
package main

import (
	"time"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// Tick is the data of one event.
type Tick struct {
	N int `json:"n"`
}

type input struct {
	Count int `query:"count" minimum:"1" default:"1"`
	Gap   int `query:"gap" minimum:"0" doc:"Milliseconds between two events."`
}

func ticks(in *input) endpoints.Reply {
	return endpoints.EventStream(func(send func(endpoints.Event) error) error {
		for i := range in.Count {
			if i > 0 {
				time.Sleep(time.Duration(in.Gap) * time.Millisecond)
			}
			if err := send(endpoints.Event{Data: Tick{N: i + 1}}); err != nil {
				return err
			}
		}
		return nil
	})
}

func init() {
	responses := endpoints.Responses{200: endpoints.MediaOf[Tick]("Ticks", "text/event-stream")}
	endpoints.Handle(endpoints.Operation{Method: "GET", Summary: "Ticks, with their own timeouts", Responses: responses,
		Timeout: 5 * time.Second, IdleTimeout: time.Second}, ticks)
	endpoints.Handle(endpoints.Operation{Method: "POST", Summary: "Ticks, within limits.timeout", Responses: responses}, ticks)
}

func main() {}
