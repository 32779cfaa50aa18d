//go:build !wasip1

package endpoints

import (
	"encoding/json"
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
