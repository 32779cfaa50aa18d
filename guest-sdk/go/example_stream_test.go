package endpoints_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// Tick is the data of one event of the ticker's stream.
type Tick struct {
	N    int       `json:"n"`
	Time time.Time `json:"time"`
}

// ticker sends three ticks; a real one would sleep between them, as
// time.Sleep works in a module.
func ticker(*struct{}) endpoints.Reply {
	return endpoints.EventStream(func(send func(endpoints.Event) error) error {
		start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		for i := range 3 {
			tick := Tick{N: i, Time: start.Add(time.Duration(i) * time.Second)}
			if err := send(endpoints.Event{ID: strconv.Itoa(i), Event: "tick", Data: tick}); err != nil {
				return err // the client went away
			}
		}
		return nil
	})
}

// MediaOf declares the stream, and documents one event's data with the
// schema of Tick. A test of the handler reads what it would stream with
// WriteTo.
func ExampleEventStream() {
	defer endpoints.Reset() // examples share one process; a module never calls Reset

	endpoints.Handle(endpoints.Operation{
		Summary: "Tick",
		Responses: endpoints.Responses{
			200: endpoints.MediaOf[Tick]("A tick a second", "text/event-stream"),
		},
	}, ticker)
	fmt.Println(string(endpoints.ContractJSON()))

	reply := ticker(&struct{}{})
	fmt.Println(reply.Status(), reply.Header())
	reply.WriteTo(os.Stdout)
	// Output:
	// {"summary":"Tick","responses":{"200":{"description":"A tick a second","schema":{"$ref":"#/$defs/Tick"},"media":["text/event-stream"]}},"$defs":{"Tick":{"type":"object","properties":{"n":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},"time":{"type":"string","format":"date-time"}},"required":["n","time"],"additionalProperties":false}}}
	// 200 map[cache-control:[no-cache] content-type:[text/event-stream]]
	// id: 0
	// event: tick
	// data: {"n":0,"time":"2026-01-02T03:04:05Z"}
	//
	// id: 1
	// event: tick
	// data: {"n":1,"time":"2026-01-02T03:04:06Z"}
	//
	// id: 2
	// event: tick
	// data: {"n":2,"time":"2026-01-02T03:04:07Z"}
}

// export answers every account, one line each, in the type the client
// asked for. Each Write reaches the client at once.
func export(*struct{}) endpoints.Reply {
	ndjson := endpoints.MediaType() == "application/x-ndjson"
	ct := "text/csv"
	if ndjson {
		ct = "application/x-ndjson"
	}
	return endpoints.Stream(200, ct, func(w io.Writer) error {
		for _, id := range []int{1, 2} {
			a := Account{ID: id, Name: fmt.Sprint("Account ", id)}
			var err error
			if ndjson {
				err = json.NewEncoder(w).Encode(a)
			} else {
				_, err = fmt.Fprintf(w, "%d,%s\n", a.ID, a.Name)
			}
			if err != nil {
				return err // the client went away
			}
		}
		return nil
	})
}

// Two media types on one status: the host picks one with the client's
// Accept header and the handler reads it with MediaType (empty outside a
// request, so export answers CSV here).
func ExampleStream() {
	defer endpoints.Reset() // examples share one process; a module never calls Reset

	endpoints.Handle(endpoints.Operation{
		Summary: "Export the accounts",
		Responses: endpoints.Responses{
			200: endpoints.Media("The accounts, one a line", "text/csv", "application/x-ndjson"),
		},
	}, export)
	fmt.Println(string(endpoints.ContractJSON()))

	reply := export(&struct{}{})
	fmt.Println(reply.Status(), reply.Header().Get("Content-Type"))
	reply.WriteTo(os.Stdout)
	// Output:
	// {"summary":"Export the accounts","responses":{"200":{"description":"The accounts, one a line","media":["text/csv","application/x-ndjson"]}}}
	// 200 text/csv
	// 1,Account 1
	// 2,Account 2
}

// A +json profile is declared with JSONAs: the host validates the body as
// JSON and sends it with that Content-Type.
func ExampleJSONAs() {
	defer endpoints.Reset() // examples share one process; a module never calls Reset

	type problem struct {
		Title  string `json:"title"`
		Status int    `json:"status"`
	}
	endpoints.Handle(endpoints.Operation{
		Summary: "Get an account",
		Responses: endpoints.Responses{
			200: endpoints.JSON[Account]("The account"),
			404: endpoints.JSONAs[problem]("No such account", "application/problem+json"),
		},
	}, func(in *getAccount) endpoints.Reply {
		return endpoints.Respond(404, problem{Title: "No such account", Status: 404})
	})
	fmt.Println(string(endpoints.ContractJSON()))
	// Output:
	// {"summary":"Get an account","request":{"params":{"type":"object","properties":{"id":{"type":"integer","description":"The account's id.","minimum":1,"maximum":9223372036854775807}},"required":["id"]},"query":{"type":"object","properties":{"expand":{"type":"string","enum":["owner","members"]}}}},"responses":{"200":{"description":"The account","schema":{"$ref":"#/$defs/Account"}},"404":{"description":"No such account","schema":{"$ref":"#/$defs/problem"},"contentType":"application/problem+json"}},"$defs":{"Account":{"type":"object","properties":{"id":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},"name":{"type":"string","minLength":1}},"required":["id","name"],"additionalProperties":false},"problem":{"type":"object","properties":{"title":{"type":"string"},"status":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}},"required":["title","status"],"additionalProperties":false}}}
}
