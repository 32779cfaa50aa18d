// Command wirecal calibrates the wire benchmark: it serves GET
// /api/users/{id} as the benchmark's native variant does (net/http's
// ServeMux, the id checked against {"type":"integer","minimum":1} by
// jsonschema, the user encoded by encoding/json v2), plus a fixed amount
// of busy CPU work per request (-work). Served on one core with wrk on the
// other (run.sh), the requests per second at each amount of work show
// what a given per-request cost does to a ratio on that setup, which is
// not proportional: the client, idle while it waits, is woken for every
// answer once the server is the slower of the two.
//
//	go run ./bench/wirecal -addr 127.0.0.1:18090 -work 10us
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

type user struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:18090", "listen on `HOST:PORT`")
	work := flag.Duration("work", 0, "busy CPU `time` spent per request before answering")
	flag.Parse()
	handler, err := newHandler(*work)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wirecal:", err)
		os.Exit(1)
	}
	log.Fatal(http.ListenAndServe(*addr, handler))
}

// newHandler is the native variant of the wire benchmark with work of
// busy CPU time added to every request.
func newHandler(work time.Duration) (http.Handler, error) {
	c := jsonschema.NewCompiler()
	if err := c.AddResource("id.json", map[string]any{"type": "integer", "minimum": 1}); err != nil {
		return nil, err
	}
	schema, err := c.Compile("id.json")
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		spins.Add(uint64(busy(work)))
		segment := r.PathValue("id")
		var value any = segment
		id, err := strconv.ParseInt(segment, 10, 64)
		if err == nil {
			value = id
		}
		if schema.Validate(value) != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":"id must be an integer >= 1"}`))
			return
		}
		s := strconv.FormatInt(id, 10)
		w.Header().Set("Content-Type", "application/json")
		json.MarshalWrite(w, user{ID: id, Name: "User " + s, Email: "user" + s + "@example.com"})
	})
	return mux, nil
}

// spins counts busy's clock reads, so that a test sees the work done.
var spins atomic.Uint64

// busy spins on the CPU for d, reading the clock as it goes, and returns
// how many times it read it.
func busy(d time.Duration) (reads int) {
	if d <= 0 {
		return 0
	}
	for end := time.Now().Add(d); time.Now().Before(end); {
		reads++
	}
	return reads
}
