//go:build wasip1

// GET /api/clock — a few Server-Sent Events, one every 100 ms.
//
//endpoints:route GET /api/clock
package main

import (
	"time"

	"github.com/wasmendpoints/endpoints/examples/users/model"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type input struct {
	Count int `query:"count" minimum:"1" maximum:"20" default:"3" doc:"How many events to send."`
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary:     "Clock ticks",
		Description: "Sends count events, one every 100 ms, each a ClockEvent as JSON, then ends the stream.",
		Tags:        []string{"clock"},
		Responses: endpoints.Responses{
			200: endpoints.MediaOf[model.ClockEvent]("A stream of ticks; the schema is one event's data", "text/event-stream"),
		},
	}, func(in *input) endpoints.Reply {
		return endpoints.EventStream(func(send func(endpoints.Event) error) error {
			for tick := 1; tick <= in.Count; tick++ {
				if tick > 1 {
					time.Sleep(100 * time.Millisecond)
				}
				ev := model.ClockEvent{Tick: tick, Time: time.Now().UTC().Format(time.RFC3339Nano)}
				if err := send(endpoints.Event{Event: "tick", Data: ev}); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

func main() {}
