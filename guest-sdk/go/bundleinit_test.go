//go:build !wasip1

package endpoints_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

// The tests of BundleInit are an external package: the line a failed
// registration names is the route's, never the SDK's, and here the
// route's code is this file.

type badTag struct {
	ID string `path:"id" minimum:"abc"`
}

func fine() {
	endpoints.HandleFunc(endpoints.Operation{Summary: "Fine"}, func(*struct{}) (string, error) { return "fine", nil })
}

// TestBundleInitFailsOneRoute: a route whose init functions panic (a
// malformed tag, a nil handler, a second Handle, a panic of its own, one
// raised in other code it calls) is declared failed alone, its
// registrations dropped, with the panic and the line of the route's
// source that led to it; the routes before and after it keep their
// contracts. The panic failed the whole bundle.
func TestBundleInitFailsOneRoute(t *testing.T) {
	for _, tc := range []struct {
		name  string
		inits []func()
		want  []string
	}{
		{"a malformed tag", []func(){func() {
			endpoints.HandleFunc(endpoints.Operation{Summary: "Items"}, func(*badTag) (string, error) { return "", nil })
		}}, []string{`registering the route panicked: endpoints (GET /api/bad, Summary "Items"): `, `tag minimum:"abc"`}},
		{"a nil handler", []func(){func() { endpoints.Handle[struct{}](endpoints.Operation{}, nil) }},
			[]string{"registering the route panicked: endpoints (GET /api/bad): Handle: the handler is nil"}},
		{"a second Handle in a later init", []func(){fine, fine},
			[]string{"a module without method suffix registers one handler per method"}},
		{"a panic of the route's own", []func(){func() { panic(errors.New("no config")) }},
			[]string{"registering the route panicked: no config"}},
		{"a panic raised in other code", []func(){func() { reflect.ValueOf(nil).Type() }},
			[]string{"registering the route panicked (in ", "reflect/value.go:", "): reflect: call of reflect.Value.Type on zero Value"}},
		// A guard declared where it never runs: the bundle declares only
		// its middleware packages' middleware.
		{"middleware declared from a route's package", []func(){func() {
			endpoints.DeclareMiddleware(endpoints.Middleware{Before: func(*endpoints.MiddlewareRequest) (endpoints.Reply, bool) {
				return endpoints.Respond(403, nil), true
			}})
			fine()
		}}, []string{"registering the route panicked: endpoints: DeclareMiddleware called from a route's package: the middleware would never run"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			endpoints.Reset()
			t.Cleanup(endpoints.Reset)
			endpoints.BundleRoute("GET /api/a")
			endpoints.BundleInit("handlers/a", fine)
			endpoints.BundleRoute("GET /api/bad")
			endpoints.BundleInit("handlers/bad", tc.inits...)
			endpoints.BundleRoute("GET /api/c")
			endpoints.BundleInit("handlers/c", fine)
			var decl abi.Bundle
			if err := json.Unmarshal(endpoints.Declaration(), &decl); err != nil {
				t.Fatalf("declaration = %s: %v", endpoints.Declaration(), err)
			}
			if len(decl.Routes) != 3 {
				t.Fatalf("routes = %+v, want 3", decl.Routes)
			}
			bad := decl.Routes[1]
			if want := "handlers/bad/bundleinit_test.go:"; !strings.HasPrefix(bad.Error, want) || bad.Contract != nil {
				t.Errorf("the failed route = %+v, want an error beginning %q (the route's line) and no contract", bad, want)
			}
			for _, want := range tc.want {
				if !strings.Contains(bad.Error, want) {
					t.Errorf("error %q, want it to say %q", bad.Error, want)
				}
			}
			for _, i := range []int{0, 2} {
				if r := decl.Routes[i]; r.Error != "" || !strings.Contains(string(r.Contract), `"summary":"Fine"`) {
					t.Errorf("route %d = %+v, want its contract and no error", i, r)
				}
			}
		})
	}
}

// TestBundleInitNoHandler: a route whose package registers no handler
// (no init function, or one that registers nothing) is declared failed,
// saying what to call; it loaded, and answered every request with a 500.
// A route that registered in a variable's initialiser, before BundleInit,
// is not.
func TestBundleInitNoHandler(t *testing.T) {
	endpoints.Reset()
	t.Cleanup(endpoints.Reset)
	endpoints.BundleRoute("GET /api/none")
	endpoints.BundleInit("handlers/none")
	endpoints.BundleRoute("GET /api/empty")
	endpoints.BundleInit("handlers/empty", func() {})
	endpoints.BundleRoute("GET /api/early")
	fine() // as a package variable's initialiser would
	endpoints.BundleInit("handlers/early")
	endpoints.BundleRoute("* /raw")
	endpoints.BundleInit("handlers/raw", func() {
		endpoints.HandleRaw(func(w endpoints.ResponseWriter, _ *endpoints.RawRequest) {})
	})
	var decl abi.Bundle
	if err := json.Unmarshal(endpoints.Declaration(), &decl); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{
		"handlers/none: the route registers no handler: call endpoints.Handle, HandleFunc or HandleRaw",
		"handlers/empty: the route registers no handler",
		"",
		"",
	} {
		if got := decl.Routes[i].Error; (want == "") != (got == "") || !strings.HasPrefix(got, want) {
			t.Errorf("route %s: error %q, want %q", decl.Routes[i].Route, got, want)
		}
	}
}

// TestBundleInitBeforeBundleRoute: BundleInit outside a bundle's route
// package is a mistake of the build, said as such.
func TestBundleInitBeforeBundleRoute(t *testing.T) {
	endpoints.Reset()
	t.Cleanup(endpoints.Reset)
	defer func() {
		if msg, _ := recover().(string); !strings.Contains(msg, "BundleInit called before BundleRoute") {
			t.Errorf("panic %q, want it to say BundleInit came before BundleRoute", msg)
		}
	}()
	endpoints.BundleInit("handlers/a", fine)
}

// TestBundleFailed: a route endpoints dev links in place of a package
// that does not compile is declared failed with the text given, whatever
// it registered before; the bundle's other routes keep their contracts.
func TestBundleFailed(t *testing.T) {
	endpoints.Reset()
	t.Cleanup(endpoints.Reset)
	endpoints.BundleRoute("GET /api/a")
	endpoints.BundleInit("handlers/a", fine)
	endpoints.BundleRoute("GET /api/broken")
	fine()
	endpoints.BundleFailed("handlers/broken/main.go:9:2: undefined: store")
	endpoints.BundleRoute("GET /api/c")
	endpoints.BundleInit("handlers/c", fine)
	var decl abi.Bundle
	if err := json.Unmarshal(endpoints.Declaration(), &decl); err != nil {
		t.Fatal(err)
	}
	if len(decl.Routes) != 3 {
		t.Fatalf("routes = %+v, want 3", decl.Routes)
	}
	if got := decl.Routes[1]; got.Error != "handlers/broken/main.go:9:2: undefined: store" || got.Contract != nil {
		t.Errorf("the failed route = %+v, want the text given as its error and no contract", got)
	}
	for _, i := range []int{0, 2} {
		if r := decl.Routes[i]; r.Error != "" || !strings.Contains(string(r.Contract), `"summary":"Fine"`) {
			t.Errorf("route %d = %+v, want its contract and no error", i, r)
		}
	}
}

// TestBundleMiddlewareRegistersNoHandler: a handler, plain handler or
// validation-error hook registered from a middleware's package of a
// bundle fails, naming the middleware: it landed in the registry of the
// route initialised before, which then served it (a method of its own)
// or failed to load, blamed for it.
func TestBundleMiddlewareRegistersNoHandler(t *testing.T) {
	for _, tc := range []struct {
		name     string
		register func()
	}{
		{"Handle", func() {
			endpoints.HandleFunc(endpoints.Operation{Method: "DELETE", Summary: "Hijack"}, func(*struct{}) (string, error) { return "", nil })
		}},
		{"HandleRaw", func() { endpoints.HandleRaw(func(endpoints.ResponseWriter, *endpoints.RawRequest) {}) }},
		{"OnValidationError", func() {
			endpoints.OnValidationError(func(*endpoints.ValidationFailure) (endpoints.Reply, bool) { return endpoints.Reply{}, false })
		}},
		{"DeclareMiddleware twice", func() {
			endpoints.DeclareMiddleware(endpoints.Middleware{After: func(*endpoints.MiddlewareRequest, int) {}})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			endpoints.Reset()
			t.Cleanup(endpoints.Reset)
			endpoints.BundleRoute("GET /api/a")
			endpoints.BundleInit("handlers/a", fine)
			endpoints.BundleMiddleware("30-audit")
			endpoints.DeclareMiddleware(endpoints.Middleware{After: func(*endpoints.MiddlewareRequest, int) {}})
			func() {
				defer func() {
					msg, _ := recover().(string)
					if !strings.Contains(msg, "middleware 30-audit") || strings.Contains(msg, "GET /api/a") {
						t.Errorf("panic %q, want one naming the middleware 30-audit, not the route GET /api/a", msg)
					}
				}()
				tc.register()
			}()
			endpoints.BundleRoute("GET /api/c")
			endpoints.BundleInit("handlers/c", fine)
			var decl abi.Bundle
			if err := json.Unmarshal(endpoints.Declaration(), &decl); err != nil {
				t.Fatalf("declaration = %s: %v", endpoints.Declaration(), err)
			}
			if len(decl.Routes) != 2 || len(decl.Middleware) != 1 {
				t.Fatalf("declaration = %s, want 2 routes and 1 middleware", endpoints.Declaration())
			}
			for _, r := range decl.Routes {
				if r.Error != "" || strings.Contains(string(r.Contract), "Hijack") || strings.Contains(string(r.Contract), "DELETE") {
					t.Errorf("route %s = %s %s, want its own contract alone", r.Route, r.Contract, r.Error)
				}
			}
		})
	}
}

// nextLine is the line after its caller's.
func nextLine() int {
	_, _, line, _ := runtime.Caller(1)
	return line + 1
}

type withChan struct {
	Updates chan int `json:"updates"`
}

// TestBundleRouteFailsAtItsDeclaration: a bundle's route derives its
// plans and schemas when first used, no longer at registration, but a
// type that cannot be described still fails the route when the bundle is
// declared, at load and at build, never at its first request: the route
// declared failed alone, with the line of the registration that failed
// (of the route's second method too) and the reason; the others keep
// their contracts.
func TestBundleRouteFailsAtItsDeclaration(t *testing.T) {
	var line int // the line of the registration that fails
	for _, tc := range []struct {
		name     string
		register func()
		want     string
	}{
		{"a malformed tag in a second method", func() {
			endpoints.HandleFunc(endpoints.Operation{Method: "GET", Summary: "Get"}, func(*struct{}) (string, error) { return "", nil })
			line = nextLine()
			endpoints.HandleFunc(endpoints.Operation{Method: "PUT", Summary: "Put"}, func(*badTag) (string, error) { return "", nil })
		}, `registering the route panicked: endpoints (GET /api/bad, Method PUT, Summary "Put"): `},
		{"a response type that cannot be described", func() {
			line = nextLine()
			endpoints.HandleFunc(endpoints.Operation{Summary: "Chan"}, func(*struct{}) (withChan, error) { return withChan{}, nil })
		}, "chan"},
		{"a $defs entry that is not JSON", func() {
			line = nextLine()
			endpoints.Handle(endpoints.Operation{Defs: map[string]json.RawMessage{"X": json.RawMessage(`{`)}}, func(*struct{}) endpoints.Reply { return endpoints.Respond(204, nil) })
		}, `Operation.Defs["X"]: not valid JSON`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			endpoints.Reset()
			t.Cleanup(endpoints.Reset)
			endpoints.BundleRoute("GET /api/a")
			endpoints.BundleInit("handlers/a", fine)
			endpoints.BundleRoute("GET /api/bad")
			endpoints.BundleInit("handlers/bad", tc.register)
			endpoints.BundleRoute("GET /api/c")
			endpoints.BundleInit("handlers/c", fine)
			var decl abi.Bundle
			if err := json.Unmarshal(endpoints.Declaration(), &decl); err != nil {
				t.Fatalf("declaration = %s: %v", endpoints.Declaration(), err)
			}
			bad := decl.Routes[1]
			at := fmt.Sprintf("handlers/bad/bundleinit_test.go:%d: ", line)
			if !strings.HasPrefix(bad.Error, at) || !strings.Contains(bad.Error, tc.want) || bad.Contract != nil {
				t.Errorf("the failed route = %+v, want an error beginning %q and saying %q, and no contract", bad, at, tc.want)
			}
			for _, i := range []int{0, 2} {
				if r := decl.Routes[i]; r.Error != "" || !strings.Contains(string(r.Contract), `"summary":"Fine"`) {
					t.Errorf("route %d = %+v, want its contract and no error", i, r)
				}
			}
		})
	}
}
