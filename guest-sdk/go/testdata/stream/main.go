//go:build wasip1

// Command stream is the streaming guest of TestWasmGuestStream: GET sends
// three Server-Sent Events 50 ms apart (time.Sleep in a module), POST
// answers a picture in the negotiated media type, in two chunks, and
// fails after the first one when asked to. The test builds it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o stream.wasm ./testdata/stream/main.go
package main

import (
	"errors"
	"io"
	"strconv"
	"time"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// Tick is the data of one event.
type Tick struct {
	N int `json:"n"`
}

type picture struct {
	Fail bool `query:"fail"`
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Method:  "GET",
		Summary: "Three ticks",
		Responses: endpoints.Responses{
			200: endpoints.MediaOf[Tick]("A tick every 50 ms", "text/event-stream"),
		},
	}, func(*struct{}) endpoints.Reply {
		return endpoints.EventStream(func(send func(endpoints.Event) error) error {
			for i := range 3 {
				if i > 0 {
					time.Sleep(50 * time.Millisecond)
				}
				if err := send(endpoints.Event{ID: strconv.Itoa(i), Event: "tick", Data: Tick{N: i}}); err != nil {
					return err
				}
			}
			return nil
		})
	})
	endpoints.Handle(endpoints.Operation{
		Method:  "POST",
		Summary: "A picture",
		Responses: endpoints.Responses{
			200: endpoints.Media("The picture", "image/svg+xml", "image/png"),
			400: endpoints.JSONAs[problem]("Bad input", "application/problem+json"),
		},
	}, func(in *picture) endpoints.Reply {
		mt := endpoints.MediaType()
		return endpoints.Stream(200, mt, func(w io.Writer) error {
			if _, err := io.WriteString(w, "<"+mt+">"); err != nil {
				return err
			}
			if in.Fail {
				return errors.New("the renderer gave up")
			}
			_, err := io.WriteString(w, "</"+mt+">")
			return err
		})
	})
}

type problem struct {
	Title string `json:"title"`
}

func main() {}
