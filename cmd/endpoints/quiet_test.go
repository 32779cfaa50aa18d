package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// TestQuietRouteTable: --quiet leaves out the table of routes, a line per
// route; --json keeps its one "routes" event, and without --quiet the
// table is printed.
func TestQuietRouteTable(t *testing.T) {
	routes := []host.RouteInfo{{Method: "GET", Path: "/api/a", Kind: "endpoint", Summary: "A"}}
	for _, tc := range []struct {
		name        string
		quiet, json bool
		want        string
	}{
		{"the table", false, false, "METHOD  PATH    KIND      SUMMARY\nGET     /api/a  endpoint  A\n"},
		{"quiet", true, false, ""},
		{"quiet JSON", true, true, `"event":"routes"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			newConsole(&b, tc.quiet, tc.json).routes(routes)
			if got := b.String(); tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("routes printed %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDevQuietStart: dev --quiet starts without a line per module built
// nor a line per route, and still says where it listens and what failed.
func TestDevQuietStart(t *testing.T) {
	app := cApp(t)
	writeFiles(t, app, map[string]string{"server/api/broken.get.c": "this is not C\n"})
	_, _, _, stdout, stderr, done := startCLIFlags(t, "dev", app, []string{"--quiet"}, "app", "sources")
	waitFor(t, stdout, regexp.MustCompile(`(listening) on `), done)
	out := stdout.String()
	for _, noise := range []string{"METHOD  PATH", "  ok   server/api/", "building "} {
		if strings.Contains(out, noise) {
			t.Errorf("dev --quiet printed %q:\n%s", noise, out)
		}
	}
	if !strings.Contains(stderr.String(), "FAIL server/api/broken.get.wasm") || !strings.Contains(out, "server/api/broken.get.wasm has no previous version") {
		t.Errorf("dev --quiet hid the failed build:\n%s\n%s", out, stderr.String())
	}
}
