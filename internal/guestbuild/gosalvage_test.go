package guestbuild

import (
	"maps"
	"testing"
)

// TestFailingRoutes: the errors of a failed bundle build are taken route
// by route from go build's "# IMPORTPATH" headers; anything else (a
// shared package's or a middleware's errors, a route already left out, a
// line outside any header, no header) cannot be salvaged.
func TestFailingRoutes(t *testing.T) {
	imports := map[string]Source{
		"example.com/app/handlers/a":  {Lang: LangGo, Path: "handlers/a", Module: "server/api/a.get.wasm"},
		"example.com/app/handlers/b":  {Lang: LangGo, Path: "handlers/b", Module: "server/routes/b.get.wasm"},
		"example.com/app/handlers/mw": {Lang: LangGo, Path: "handlers/mw", Module: "server/middleware/10-mw.wasm"},
		// handlers/a's stand-in, once left out
		"example.com/app/_endpoints_bundle/failed/0": {Lang: LangGo, Path: "handlers/a", Module: "server/api/a.get.wasm"},
	}
	const head = "build Go bundle server/bundles/go.wasm of app: go failed (exit status 1):\n"
	for _, tc := range []struct {
		name   string
		msg    string
		failed map[string]string
		want   map[string]string // nil: not salvageable
	}{
		{"one route", head + "# example.com/app/handlers/a\nhandlers/a/main.go:9:2: undefined: store\nhandlers/a/main.go:10:2: undefined: x",
			nil, map[string]string{"handlers/a": "handlers/a/main.go:9:2: undefined: store\nhandlers/a/main.go:10:2: undefined: x"}},
		{"two routes", head + "# example.com/app/handlers/b\nhandlers/b/main.go:3:1: syntax error\n# example.com/app/handlers/a\nhandlers/a/main.go:9:2: undefined: store\n",
			nil, map[string]string{"handlers/a": "handlers/a/main.go:9:2: undefined: store", "handlers/b": "handlers/b/main.go:3:1: syntax error"}},
		{"a route and one left out before", head + "# example.com/app/handlers/b\nhandlers/b/main.go:3:1: syntax error",
			map[string]string{"handlers/a": "old"}, map[string]string{"handlers/b": "handlers/b/main.go:3:1: syntax error"}},
		{"a shared package", head + "# example.com/app/model\nmodel/store.go:4:2: undefined: y\n# example.com/app/handlers/a\nhandlers/a/main.go:9:2: x", nil, nil},
		{"a middleware", head + "# example.com/app/handlers/mw\nhandlers/mw/main.go:1:1: x", nil, nil},
		{"a route already left out", head + "# example.com/app/_endpoints_bundle/failed/0\n_endpoints_bundle/failed/0/failed.go:7:15: undefined: endpoints.BundleFailed",
			map[string]string{"handlers/a": "old"}, nil},
		{"a line before any header", head + "go: example.com/app/handlers/a: missing go.sum entry\n# example.com/app/handlers/a\nhandlers/a/main.go:9:2: x", nil, nil},
		{"no header", head + "link: wasm: too many functions", nil, nil},
		{"a header without errors", head + "# example.com/app/handlers/a\n", nil, nil},
		{"no output", "build Go bundle server/bundles/go.wasm: go: not found", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := failingRoutes(tc.msg, imports, tc.failed)
			if ok != (tc.want != nil) || !maps.Equal(got, tc.want) {
				t.Errorf("failingRoutes = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}
