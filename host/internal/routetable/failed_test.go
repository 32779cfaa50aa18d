package routetable

import (
	"errors"
	"testing"

	"github.com/wasmendpoints/endpoints/host/internal/bundle"
	"github.com/wasmendpoints/endpoints/host/internal/routemod"
	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// TestTableFailed: the error of the route a request would reach, had it
// loaded: a module of one route that failed whole, or a route its bundle
// declares failed; not a module whose previous version serves, nor a
// bundle's route refused for another reason, nor a path no failed route
// takes.
func TestTableFailed(t *testing.T) {
	bye, err := routefile.FromRoute("GET /api/bye")
	if err != nil {
		t.Fatal(err)
	}
	bye.File = "server/bundles/go.wasm (GET /api/bye)"
	notCompiled := &bundle.FailedRouteError{Route: bye, Text: "handlers/bye does not compile:\nhandlers/bye/main.go:12:18: undefined: ok"}
	loadFailed := errors.New("server/api/users/[id].get.wasm: not a WebAssembly module")
	tb := &Table{Files: map[string]*File{
		"server/api/users/[id].get.wasm": {Err: loadFailed},
		"server/api/kept.get.wasm":       {Err: errors.New("newer version refused"), Routes: []*routemod.Route{{}}},
		"server/bundles/go.wasm": {Err: &routemod.RefusedError{Routes: []string{"GET /api/bye", "GET /api/refused"},
			Errs: []error{notCompiled, errors.New("server/bundles/go.wasm (GET /api/refused): contract: refused")}}},
	}}
	for _, tc := range []struct {
		method, path string
		want         error
	}{
		{"GET", "/api/users/7", loadFailed},
		{"GET", "/api/bye", notCompiled},
		{"HEAD", "/api/bye", notCompiled},
		{"POST", "/api/bye", nil},
		{"GET", "/api/refused", nil},
		{"GET", "/api/kept", nil},
		{"GET", "/api/none", nil},
	} {
		if got := tb.Failed(tc.method, tc.path); got != tc.want {
			t.Errorf("Failed(%s %s) = %v, want %v", tc.method, tc.path, got, tc.want)
		}
	}
}
