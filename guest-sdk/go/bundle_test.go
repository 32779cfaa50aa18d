//go:build !wasip1

package endpoints

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

// bundleOfTwo registers two routes as the files endpoints build adds to
// each route package of a bundle do: an endpoint with the validation-error
// hook, then a plain route.
func bundleOfTwo(t *testing.T) {
	t.Helper()
	fresh(t)
	BundleRoute("GET /api/a")
	HandleFunc(Operation{Summary: "Route A"}, func(*struct{}) (string, error) { return "a", nil })
	OnValidationError(func(*ValidationFailure) (Reply, bool) { return Respond(422, "hook a"), true })
	BundleRoute("* /b")
	HandleRaw(func(w ResponseWriter, _ *RawRequest) { w.Write([]byte("b")) })
}

// TestBundleDeclaresEachRoute: the declaration lists the routes in the
// order BundleRoute was called, each with the contract its handlers make.
func TestBundleDeclaresEachRoute(t *testing.T) {
	bundleOfTwo(t)
	var decl abi.Bundle
	if err := json.Unmarshal(declaration(), &decl); err != nil {
		t.Fatalf("declaration() = %s: %v", declaration(), err)
	}
	if len(decl.Routes) != 2 || decl.Routes[0].Route != "GET /api/a" || decl.Routes[1].Route != "* /b" {
		t.Fatalf("routes = %+v, want GET /api/a then * /b", decl.Routes)
	}
	if c := string(decl.Routes[0].Contract); !strings.Contains(c, `"summary":"Route A"`) || !strings.Contains(c, `"onValidationError":true`) {
		t.Errorf("route 0's contract = %s, want its summary and hook", c)
	}
	if c := decl.Routes[1].Contract; c != nil {
		t.Errorf("route 1's contract = %s, want none (a plain route)", c)
	}
}

// TestBundleDispatchesByRoute: endpoints_handle_route and the hook serve
// the route of the index the host passes, and refuse an index out of range.
func TestBundleDispatchesByRoute(t *testing.T) {
	bundleOfTwo(t)
	envelope := `{"kind":"endpoint","method":"GET","route":"/api/a","path":"/api/a"}`
	for _, tc := range []struct {
		name     string
		export   func() int32
		status   int32
		wantCode int32
		wantBody string
		wantLog  string
	}{
		{"route 0", func() int32 { return handleRoute(0) }, 200, 0, `"a"`, ""},
		{"route 1", func() int32 { return handleRoute(1) }, 200, 0, "b", ""},
		{"route 0's hook", func() int32 { return onValidationErrorRoute(0) }, 400, abi.HookAnswered, `"hook a"`, ""},
		{"an index past the routes", func() int32 { return handleRoute(2) }, 200, 1, "", "endpoints_handle_route called for route 2; the bundle has 2 routes"},
		{"a negative index", func() int32 { return onValidationErrorRoute(-1) }, 400, hookFailed, "", "called for route -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := envelope
			if tc.status == 400 {
				env = hookEnvelope(schemaFailure)
			}
			resp := callFake(fakeRequest{envelope: env}, tc.status, tc.export)
			if resp.code != tc.wantCode || strings.TrimSpace(resp.body) != tc.wantBody {
				t.Errorf("code %d body %q, want %d %q; logs %v", resp.code, resp.body, tc.wantCode, tc.wantBody, resp.logs)
			}
			if tc.wantLog != "" && (len(resp.logs) == 0 || !strings.Contains(resp.logs[0].msg, tc.wantLog)) {
				t.Errorf("logs %v, want one saying %q", resp.logs, tc.wantLog)
			}
		})
	}
}

// TestOneRouteModuleRefusesHandleRoute: a module of one route answers
// endpoints_handle_route with a failure: the host never calls it there.
func TestOneRouteModuleRefusesHandleRoute(t *testing.T) {
	fresh(t)
	HandleRaw(func(w ResponseWriter, _ *RawRequest) { w.Write([]byte("x")) })
	if resp := callFake(fakeRequest{envelope: `{"kind":"plain"}`}, 200, func() int32 { return handleRoute(0) }); resp.code != 1 || resp.body != "" {
		t.Errorf("handleRoute(0) = %d %q, want 1 and nothing written", resp.code, resp.body)
	}
	if string(declaration()) != string(reg.contractJSON()) {
		t.Errorf("declaration() = %s, want the module's own contract", declaration())
	}
}

// TestBundleMiddleware: middleware declared after BundleMiddleware are
// listed in the bundle's declaration, by name, and each phase's export
// runs the middleware of the index the host passes.
func TestBundleMiddleware(t *testing.T) {
	bundleOfTwo(t)
	var ran []string
	BundleMiddleware("10-audit")
	DeclareMiddleware(Middleware{Methods: []string{"POST"},
		Before: func(*MiddlewareRequest) (Reply, bool) { ran = append(ran, "audit before"); return Reply{}, false },
		After:  func(*MiddlewareRequest, int) { ran = append(ran, "audit after") }})
	BundleMiddleware("20-deny")
	DeclareMiddleware(Middleware{Routes: []string{"/api/**"},
		Before: func(*MiddlewareRequest) (Reply, bool) { return Respond(403, "denied"), true }})
	var decl abi.Bundle
	if err := json.Unmarshal(declaration(), &decl); err != nil {
		t.Fatalf("declaration() = %s: %v", declaration(), err)
	}
	if len(decl.Routes) != 2 || len(decl.Middleware) != 2 {
		t.Fatalf("declaration = %s, want 2 routes and 2 middleware", declaration())
	}
	if m := decl.Middleware[0]; m.Name != "10-audit" || strings.Join(m.Declaration.Phases, ",") != "before,after" || strings.Join(m.Declaration.Methods, ",") != "POST" {
		t.Errorf("middleware 0 = %+v", m)
	}
	if m := decl.Middleware[1]; m.Name != "20-deny" || strings.Join(m.Declaration.Phases, ",") != "before" || strings.Join(m.Declaration.Routes, ",") != "/api/**" {
		t.Errorf("middleware 1 = %+v", m)
	}
	if len(middlewareJSON()) != 0 {
		t.Errorf("the bundle declares middleware of its own: %s", middlewareJSON())
	}
	before := func(i int32) func() int32 {
		return func() int32 { return middlewareRoute(abi.ExportBeforeRoute, i, middlewareBefore) }
	}
	if res := callFake(fakeRequest{envelope: mwEnvelope}, 200, before(0)); res.code != abi.MiddlewareContinue || strings.Join(ran, ",") != "audit before" {
		t.Errorf("middleware 0's before: code %d, ran %v, logs %v", res.code, ran, res.logs)
	}
	if res := callFake(fakeRequest{envelope: mwEnvelope}, 200, before(1)); res.code != abi.MiddlewareAnswered || res.status != 403 {
		t.Errorf("middleware 1's before: code %d status %d, want answered 403", res.code, res.status)
	}
	after := func() int32 { return middlewareRoute(abi.ExportAfterRoute, 0, middlewareAfter) }
	if res := callFake(fakeRequest{envelope: strings.Replace(mwEnvelope, `"phase":"before"`, `"phase":"after","response":{"status":201}`, 1)}, 200, after); res.code != 0 || ran[len(ran)-1] != "audit after" {
		t.Errorf("middleware 0's after: code %d, ran %v", res.code, ran)
	}
	if res := callFake(fakeRequest{envelope: mwEnvelope}, 200, before(2)); res.code != -1 || len(res.logs) == 0 || !strings.Contains(res.logs[0].msg, "called for middleware 2; the module has 2") {
		t.Errorf("an index past the middleware: code %d, logs %v", res.code, res.logs)
	}
}

// TestBundleDeclarationIsMarshal: the declaration, whose contracts are
// written as they are, is the JSON value json.Marshal makes of the same
// abi.Bundle, with or without middleware, with a plain route and with
// text that json.Marshal escapes (<, >, &, a quote).
func TestBundleDeclarationIsMarshal(t *testing.T) {
	for _, tc := range []struct {
		name       string
		middleware bool
	}{{"routes", false}, {"routes and middleware", true}} {
		t.Run(tc.name, func(t *testing.T) {
			bundleOfTwo(t)
			BundleRoute(`GET /api/"q"`)
			HandleFunc(Operation{Summary: "<b>A & B</b>", Tags: []string{"x"}}, func(*struct {
				Name string `query:"name" doc:"a \"name\" <= 10 & > 0"`
			}) (string, error) {
				return "", nil
			})
			if tc.middleware {
				BundleMiddleware("10-audit")
				DeclareMiddleware(Middleware{Methods: []string{"POST"}, Before: func(*MiddlewareRequest) (Reply, bool) { return Reply{}, false }})
			}
			want := abi.Bundle{}
			for _, b := range bundle {
				want.Routes = append(want.Routes, abi.BundleRoute{Route: b.route, Contract: b.reg.contractJSON()})
			}
			for _, m := range bundleMW.list {
				want.Middleware = append(want.Middleware, abi.BundleMiddleware{Name: m.name, Declaration: m.decl})
			}
			wantJSON, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			var got, wantValue any
			if err := json.Unmarshal(declaration(), &got); err != nil {
				t.Fatalf("declaration() = %s: %v", declaration(), err)
			}
			if err := json.Unmarshal(wantJSON, &wantValue); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, wantValue) {
				t.Errorf("declaration() = %s\nwant the value of %s", declaration(), wantJSON)
			}
		})
	}
}

// TestBundleRegistrationPanicNamesTheRoute: a registration that panics in
// a bundle (a tag that does not fit) names the route it was for: every
// route package of a bundle is renamed "route", so "route.input field ID"
// alone does not say which of the app's routes is wrong. A bundle's route
// derives its schemas when it is first used (registry.ready), after the
// next routes registered: the panic still names its own.
func TestBundleRegistrationPanicNamesTheRoute(t *testing.T) {
	fresh(t)
	BundleRoute("GET /api/a")
	HandleFunc(Operation{Summary: "Route A"}, func(*struct{}) (string, error) { return "a", nil })
	BundleRoute("GET /api/items/:id")
	type input struct {
		ID string `path:"id" minimum:"abc"`
	}
	defer func() {
		msg, _ := recover().(string)
		if want := `endpoints (GET /api/items/:id, Summary "Items"): `; !strings.HasPrefix(msg, want) || !strings.Contains(msg, `tag minimum:"abc"`) {
			t.Errorf("panic %q, want it to begin %q and name the tag", msg, want)
		}
	}()
	HandleFunc(Operation{Summary: "Items"}, func(*input) (string, error) { return "", nil })
	BundleRoute("GET /api/c")
	HandleFunc(Operation{Summary: "Route C"}, func(*struct{}) (string, error) { return "c", nil })
	bundle[1].reg.ready()
}
