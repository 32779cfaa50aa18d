package main

import (
	"context"
	"log/slog"
)

// withoutReported returns a handler that passes next every record but
// those of a problem the build printed already (failedBuilds.reported):
// the host logs each route of a module that did not load ("route module
// not served", a reload's problems), and a route dev's build left out for
// not compiling would print its compiler's errors a second and third time.
func (f *failedBuilds) withoutReported(next slog.Handler) slog.Handler {
	return reportedFilter{next: next, builds: f}
}

// reportedFilter is the handler of failedBuilds.withoutReported.
type reportedFilter struct {
	next   slog.Handler
	builds *failedBuilds
}

// Enabled is next's.
func (h reportedFilter) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

// Handle drops r when its "error" attribute is a problem the build
// reported, and passes it to next otherwise.
func (h reportedFilter) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		reported := false
		r.Attrs(func(a slog.Attr) bool {
			if err, ok := a.Value.Any().(error); ok && a.Key == "error" {
				reported = h.builds.reported(err)
				return false
			}
			return true
		})
		if reported {
			return nil
		}
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs is next's, filtered.
func (h reportedFilter) WithAttrs(attrs []slog.Attr) slog.Handler {
	return reportedFilter{next: h.next.WithAttrs(attrs), builds: h.builds}
}

// WithGroup is next's, filtered.
func (h reportedFilter) WithGroup(name string) slog.Handler {
	return reportedFilter{next: h.next.WithGroup(name), builds: h.builds}
}
