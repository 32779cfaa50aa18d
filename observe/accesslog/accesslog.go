// Package accesslog logs one line per request an Endpoints host answers,
// through log/slog, so the handler the program chose (text, JSON, its
// own) decides the format:
//
//	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
//	h, err := host.New(ctx, "examples/users", host.Options{Observer: accesslog.New(logger)})
//
// A text line reads
//
//	time=2026-11-25T17:00:36.132Z level=INFO msg="GET /api/users/2" method=GET route=/api/users/:id status=200 bytes=58 duration=41µs requestId=7f3a9c1e2b4d6f80a1c3e5d7
//
// and a JSON line has the same keys. `endpoints serve` and `dev` log
// this way (--json for JSON, --quiet for none).
//
// # Notes
//
//   - The message is the method and the path with its query, as the
//     client sent them; route is the route's template (absent when no
//     route matched, as for a 404), requestId the X-Request-Id the host
//     answered with (absent likewise), duration the time from receipt to
//     answer, rounded to the microsecond, bytes the body bytes written.
//   - Answers of 500 and above are logged at slog.LevelError, the others at
//     slog.LevelInfo; a logger whose level is above Info logs only the
//     former. What it costs per request is measured by BenchmarkObservers
//     (README, "Operating").
//   - Combine it with other observers with host.JoinObservers.
package accesslog

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/wasmendpoints/endpoints/host"
)

// New returns an observer whose Request hook logs each request to logger.
func New(logger *slog.Logger) *host.Observer {
	return &host.Observer{Request: func(e host.RequestEvent) { log(logger, e) }}
}

func log(logger *slog.Logger, e host.RequestEvent) {
	level := slog.LevelInfo
	if e.Status >= http.StatusInternalServerError {
		level = slog.LevelError
	}
	ctx := e.Request.Context()
	if !logger.Enabled(ctx, level) {
		return
	}
	msg := e.Method + " " + e.Request.URL.Path
	if q := e.Request.URL.RawQuery; q != "" {
		msg += "?" + q
	}
	var buf [6]slog.Attr
	attrs := append(buf[:0], slog.String("method", e.Method))
	if e.Route != "" {
		attrs = append(attrs, slog.String("route", e.Route))
	}
	attrs = append(attrs,
		slog.Int("status", e.Status),
		slog.Int64("bytes", e.Bytes),
		slog.Duration("duration", e.Duration.Round(time.Microsecond)))
	if e.RequestID != "" {
		attrs = append(attrs, slog.String("requestId", e.RequestID))
	}
	logger.LogAttrs(ctx, level, msg, attrs...)
}
