package host_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// Loading an app and serving it with net/http. The app in testdata/hello
// has one endpoint, GET /api/hello, written in WAT.
func Example() {
	ctx := context.Background()
	h, err := host.New(ctx, "testdata/hello", host.Options{
		Mode:   host.Development,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close(ctx)

	srv := httptest.NewServer(h) // or http.ListenAndServe("127.0.0.1:3000", h)
	defer srv.Close()
	for _, path := range []string{"/api/hello?name=Ada", "/api/hello", "/api/hello?name="} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		fmt.Println(res.StatusCode, string(body))
	}
	// Output:
	// 200 {"hello":"Ada"}
	// 200 {"hello":"world"}
	// 400 {"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"path":["name"],"message":"must contain at least 1 character"}]}}
}

// Listing the routes of an app, as `endpoints routes` does.
func ExampleHost_Routes() {
	ctx := context.Background()
	h, err := host.New(ctx, "testdata/hello", host.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close(ctx)
	for _, r := range h.Routes() {
		fmt.Println(r.Method, r.Path, r.Kind, r.Summary)
	}
	// Output:
	// GET /api/hello endpoint Say hello
}

// Embedding the host beside other handlers: requests no route matches go to
// the fallback.
func ExampleOptions_fallback() {
	ctx := context.Background()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "v1.2.3") })
	h, err := host.New(ctx, "testdata/hello", host.Options{Fallback: mux, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close(ctx)
	for _, path := range []string{"/api/hello?name=Grace", "/version"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		fmt.Println(rec.Code, rec.Body.String())
	}
	// Output:
	// 200 {"hello":"Grace"}
	// 200 v1.2.3
}

// Observing the host: a hook per event, here counting answers by status
// and the parts validation refused. Packages observe/prometheus and
// observe/accesslog are observers of this kind.
func ExampleObserver() {
	ctx := context.Background()
	var mu sync.Mutex
	statuses := map[int]int{}
	h, err := host.New(ctx, "testdata/hello", host.Options{
		Logger: slog.New(slog.DiscardHandler),
		Observer: &host.Observer{
			Request: func(e host.RequestEvent) {
				mu.Lock()
				statuses[e.Status]++
				mu.Unlock()
			},
			ValidationFailure: func(e host.ValidationEvent) {
				fmt.Println("refused:", e.Method, e.Route, e.Part)
			},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close(ctx)
	for _, path := range []string{"/api/hello?name=Ada", "/api/hello?name=", "/nowhere"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
	}
	mu.Lock()
	fmt.Println("200:", statuses[200], "400:", statuses[400], "404:", statuses[404])
	mu.Unlock()
	// Output:
	// refused: GET /api/hello query
	// 200: 1 400: 1 404: 1
}

// Checking readiness, as a /readyz endpoint does.
func ExampleHost_Ready() {
	ctx := context.Background()
	h, err := host.New(ctx, "testdata/hello", host.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range h.Ready(ctx) {
		fmt.Println(c.Name, c.Err)
	}
	h.Close(ctx)
	for _, c := range h.Ready(ctx) {
		fmt.Println(c.Name, c.Err)
	}
	// Output:
	// routes <nil>
	// store <nil>
	// databases <nil>
	// routes the host is shutting down
	// store <nil>
	// databases <nil>
}

func TestCommittedHelloModuleMatchesItsSource(t *testing.T) {
	requireTool(t, "wat2wasm")
	dir := filepath.Join("testdata", "hello", "server", "api")
	out := filepath.Join(t.TempDir(), "hello.wasm")
	if err := guestbuild.WAT(context.Background(), filepath.Join(dir, "hello.get.wat"), out); err != nil {
		t.Fatal(err)
	}
	built, _ := os.ReadFile(out)
	committed, err := os.ReadFile(filepath.Join(dir, "hello.get.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(built, committed) {
		t.Error("testdata/hello/server/api/hello.get.wasm differs from its .wat: rebuild it with the command in testdata/hello/README.md")
	}
	src, _ := os.ReadFile(filepath.Join(dir, "hello.get.wat"))
	upstream, _ := os.ReadFile(filepath.Join("..", "guest-sdk", "wat", "hello.wat"))
	if !bytes.Equal(src, upstream) {
		t.Error("testdata/hello/server/api/hello.get.wat differs from guest-sdk/wat/hello.wat: copy it again and rebuild")
	}
}
