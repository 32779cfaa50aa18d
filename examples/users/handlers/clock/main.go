//go:build wasip1

// GET /api/clock — Server-Sent Events, one every interval: by default 3,
// 100 ms apart; up to a stream of minutes (?count=300&interval=1000),
// which its own timeout allows beyond the app's 10 s limits.timeout.
//
//endpoints:route GET /api/clock
package main

import (
	"time"

	"github.com/wasmendpoints/endpoints/examples/users/model"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

const (
	// timeout is the stream's own deadline (the operation's Timeout),
	// within the host's limits.maxTimeout (5 min by default).
	timeout = 5 * time.Minute
	// idleTimeout stops the stream if the handler hangs between two
	// ticks: the longest interval plus a margin.
	idleTimeout = maxInterval + 5*time.Second
	maxInterval = 10 * time.Second
	// margin is how long before its deadline the stream ends itself.
	margin = time.Second
)

type input struct {
	Count    int `query:"count" minimum:"1" maximum:"3000" default:"3" doc:"How many events to send."`
	Interval int `query:"interval" minimum:"10" maximum:"10000" default:"100" doc:"Milliseconds between two events."`
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary: "Clock ticks",
		Description: "Sends count events, one every interval milliseconds, each a ClockEvent as JSON, then ends the stream. " +
			"The stream may last up to 5 minutes (its own timeout, beyond the app's limits.timeout): one that would last longer ends, cleanly, before then.",
		Tags:        []string{"clock"},
		Timeout:     timeout,
		IdleTimeout: idleTimeout,
		Responses: endpoints.Responses{
			200: endpoints.MediaOf[model.ClockEvent]("A stream of ticks; the schema is one event's data", "text/event-stream"),
		},
	}, func(in *input) endpoints.Reply {
		every := time.Duration(in.Interval) * time.Millisecond
		return endpoints.EventStream(func(send func(endpoints.Event) error) error {
			end := time.Now().Add(timeout - margin)
			for tick := 1; tick <= in.Count; tick++ {
				if tick > 1 {
					if time.Now().Add(every).After(end) {
						return nil
					}
					time.Sleep(every)
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
