package accesslog_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/observe/accesslog"
)

// An access log of text lines on standard output; the time and the
// duration, which differ at each run, are left out here.
func ExampleNew() {
	ctx := context.Background()
	handler := slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "duration" {
				return slog.Attr{}
			}
			return a
		},
	})
	access := accesslog.New(slog.New(handler))
	h, err := host.New(ctx, hello, host.Options{Observer: access.Observer(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	for _, path := range []string{"/api/hello?name=Ada", "/api/hello?name=", "/nowhere"} {
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("X-Request-Id", "example-1")
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	h.Close(ctx)
	access.Close() // after the host: the lines still queued are written
	// Output:
	// level=INFO msg="GET /api/hello?name=Ada" method=GET route=/api/hello client=192.0.2.1 status=200 bytes=15 requestId=example-1
	// level=INFO msg="GET /api/hello?name=" method=GET route=/api/hello client=192.0.2.1 status=400 bytes=136 requestId=example-1
	// level=INFO msg="GET /nowhere" method=GET client=192.0.2.1 status=404 bytes=73
}
