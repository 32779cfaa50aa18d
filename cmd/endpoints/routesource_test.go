package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// TestRoutesShowTheirSource: endpoints routes shows the file each route
// comes from: a Go route's file with its //endpoints:route line, one of
// the bundle's routes each, rather than the bundle they all share; a WAT
// route's source; a module no source builds, itself.
func TestRoutesShowTheirSource(t *testing.T) {
	app := t.TempDir()
	writeFiles(t, app, map[string]string{
		"endpoints.json":               `{}`,
		"go.mod":                       "module example.com/app\n\ngo 1.24\n",
		"handlers/users/get/doc.go":    "// Package get gets a user.\npackage main\n",
		"handlers/users/get/main.go":   "package main\n\n//endpoints:route GET /api/users/:id\nfunc main() {}\n",
		"handlers/users/list/main.go":  "package main\n\n//endpoints:route GET /api/users\nfunc main() {}\n",
		"server/routes/health.get.wat": "(module)",
	})
	sources := sourcesOfRoutes(app, nil)
	for _, tc := range []struct {
		name  string
		route host.RouteInfo
		want  string
	}{
		{"a Go route of the bundle", host.RouteInfo{Method: "GET", Path: "/api/users/:id", File: "server/bundles/go.wasm"}, "handlers/users/get/main.go"},
		{"another Go route of the bundle", host.RouteInfo{Method: "GET", Path: "/api/users", File: "server/bundles/go.wasm"}, "handlers/users/list/main.go"},
		// Built with --go-bundle=false, which endpoints.json does not say:
		// each Go route its own module.
		{"a Go route built alone", host.RouteInfo{Method: "GET", Path: "/api/users/:id", File: "server/api/users/[id].get.wasm"}, "handlers/users/get/main.go"},
		{"a WAT route", host.RouteInfo{Method: "GET", Path: "/health", File: "server/routes/health.get.wasm"}, "server/routes/health.get.wat"},
		{"a module no source builds", host.RouteInfo{Method: "GET", Path: "/api/copied", File: "server/api/copied.get.wasm"}, "server/api/copied.get.wasm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sourceOf(tc.route, sources); got != tc.want {
				t.Errorf("sourceOf = %q, want %q (sources %v)", got, tc.want, sources)
			}
		})
	}
	t.Run("the table", func(t *testing.T) {
		var out strings.Builder
		printRoutes(&out, []host.RouteInfo{{Method: "GET", Path: "/api/users/:id", Kind: "endpoint", Summary: "Get a user", File: "server/bundles/go.wasm"}}, sources)
		want := "METHOD  PATH            KIND      SOURCE                      SUMMARY\nGET     /api/users/:id  endpoint  handlers/users/get/main.go  Get a user\n"
		if out.String() != want {
			t.Errorf("printRoutes =\n%s\nwant\n%s", out.String(), want)
		}
	})
	t.Run("a bundle of an app whose routes build alone", func(t *testing.T) {
		// Built with --go-bundle=true, which endpoints.json does not say.
		alone := t.TempDir()
		writeFiles(t, alone, map[string]string{
			"endpoints.json":             `{"build": {"goBundle": false}}`,
			"go.mod":                     "module example.com/app\n\ngo 1.24\n",
			"handlers/users/get/main.go": "package main\n\n//endpoints:route GET /api/users/:id\nfunc main() {}\n",
		})
		r := host.RouteInfo{Method: "GET", Path: "/api/users/:id", File: "server/bundles/go.wasm"}
		if got, want := sourceOf(r, sourcesOfRoutes(alone, nil)), "handlers/users/get/main.go"; got != want {
			t.Errorf("sourceOf = %q, want %q", got, want)
		}
	})
	t.Run("an app without its sources", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "endpoints.json"), []byte(`{"limits": 7}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := sourcesOfRoutes(dir, nil); got != nil {
			t.Errorf("sourcesOfRoutes of an app whose sources cannot be read = %v, want nil", got)
		}
	})
}

// TestRoutesCommandShowsTheSource: `endpoints routes` of a built app
// names each route's source file.
func TestRoutesCommandShowsTheSource(t *testing.T) {
	t.Parallel()
	needTool(t, "wat2wasm")
	hello := helloWAT(t)
	app := t.TempDir()
	writeFiles(t, app, map[string]string{"server/api/hello.get.wat": string(hello)})
	if code, out, errOut := runCLI("build", app); code != exitOK {
		t.Fatalf("build: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut := runCLI("routes", app)
	if code != exitOK || !strings.Contains(out, "SOURCE") || !strings.Contains(out, "server/api/hello.get.wat") {
		t.Errorf("routes: exit %d\n%s\n%s\nwant its source, server/api/hello.get.wat", code, out, errOut)
	}
}
