package main

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// TestFailedBuildsReported: the host's problem of a route the last build
// of its bundle left out is the build's to print, and no other problem is:
// another route's, another bundle's, a route the build linked again.
func TestFailedBuildsReported(t *testing.T) {
	bye := guestbuild.Uncompiled{Route: guestbuild.Source{Path: "handlers/bye", Module: "server/api/bye.get.wasm"}, Errors: "handlers/bye/main.go:12:18: cannot use"}
	problem := errors.New("server/bundles/go.wasm (GET /api/bye): " + bye.Declared())
	var f failedBuilds
	f.leftOut("server/bundles/go.wasm", []guestbuild.Uncompiled{bye})
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"the left-out route's problem", problem, true},
		{"its problem in another bundle", errors.New("server/bundles/admin.wasm (GET /api/bye): " + bye.Declared()), false},
		{"other errors of the route", errors.New("server/bundles/go.wasm (GET /api/bye): handlers/bye does not compile:\nhandlers/bye/main.go:3:1: syntax error"), false},
		{"a contract's problem", errors.New("server/bundles/go.wasm (GET /api/bye): contract: /request: unknown member"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := f.reported(c.err); got != c.want {
				t.Errorf("reported(%q) = %v, want %v", c.err, got, c.want)
			}
		})
	}
	f.leftOut("server/bundles/go.wasm", nil) // a build that linked every route
	if f.reported(problem) {
		t.Errorf("reported(%q) after a build that linked bye = true, want false", problem)
	}
	var none *failedBuilds
	if none.reported(problem) || len(none.unreported([]error{problem})) != 1 {
		t.Errorf("a nil *failedBuilds reports %q, want it to know of none", problem)
	}
}

// TestWithoutReportedDropsOnlyReportedProblems: the log keeps every record
// but one whose error the build printed.
func TestWithoutReportedDropsOnlyReportedProblems(t *testing.T) {
	bye := guestbuild.Uncompiled{Route: guestbuild.Source{Path: "handlers/bye"}, Errors: "handlers/bye/main.go:12:18: cannot use"}
	var f failedBuilds
	f.leftOut("server/bundles/go.wasm", []guestbuild.Uncompiled{bye})
	var out bytes.Buffer
	logger := slog.New(f.withoutReported(slog.NewTextHandler(&out, nil))).With("app", "two")
	logger.Error("route module not served", "error", errors.New("server/bundles/go.wasm (GET /api/bye): "+bye.Declared()))
	logger.Error("route module not served", "error", errors.New("server/api/x.get.wasm: not a module"))
	logger.Info("GET /api/bye", "status", 404)
	got := out.String()
	if strings.Contains(got, "cannot use") {
		t.Errorf("the log has the reported problem:\n%s", got)
	}
	for _, want := range []string{"not a module", `msg="GET /api/bye"`, "app=two"} {
		if !strings.Contains(got, want) {
			t.Errorf("the log lacks %q:\n%s", want, got)
		}
	}
}
