//go:build !wasip1

package endpoints

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

type (
	lazyUser struct {
		ID   int    `json:"id"`
		Name string `json:"name" minLength:"1"`
	}
	lazyUserID struct {
		ID int `path:"id" minimum:"1"`
	}
	lazyNewUser struct {
		Body lazyUser
	}
)

// lazyRoutes are two routes and the registrations of their packages: one
// of two methods sharing a named type and a raw $defs entry, one of a
// method.
var lazyRoutes = []struct {
	route    string
	register func()
}{
	{"/api/users/:id", func() {
		HandleFunc(Operation{Method: "GET", Summary: "Get user", Defs: map[string]json.RawMessage{"Extra": json.RawMessage(`{"type":"string"}`)}},
			func(in *lazyUserID) (lazyUser, error) { return lazyUser{ID: in.ID, Name: "Ada"}, nil })
		HandleFunc(Operation{Method: "PUT", Summary: "Put user"},
			func(in *lazyNewUser) (lazyUser, error) { return in.Body, nil })
	}},
	{"GET /api/users", func() {
		HandleFunc(Operation{Summary: "List users"}, func(*struct{}) ([]lazyUser, error) { return []lazyUser{{ID: 1, Name: "Ada"}}, nil })
	}},
}

// unbuilt counts the operations of a registry whose plans and schemas
// wait for their first use.
func unbuilt(r *registry) int {
	n := 0
	for _, o := range r.ops {
		if o.build != nil {
			n++
		}
	}
	return n
}

// TestBundleRouteBuildsOnFirstUse: a bundle's route derives its input
// plan and schemas at its first request, or when the bundle is declared,
// not at registration: a fresh instance of the bundle (a cold start, a
// pool growing, an instance discarded after a failure) would otherwise
// derive every route's at its start, though it serves few of them. A
// request builds its own route's alone; the declaration builds every
// route's, and declares each the contract a module of that route alone
// declares, built at registration.
func TestBundleRouteBuildsOnFirstUse(t *testing.T) {
	fresh(t)
	var eager [][]byte
	for _, r := range lazyRoutes {
		Reset()
		r.register()
		if n := unbuilt(reg); n != 0 {
			t.Fatalf("a module of one route left %d operations unbuilt, want them built at registration", n)
		}
		eager = append(eager, bytes.Clone(reg.contractJSON()))
	}

	Reset()
	for _, r := range lazyRoutes {
		BundleRoute(r.route)
		r.register()
	}
	for i, want := range []int{2, 1} {
		if n := unbuilt(bundle[i].reg); n != want {
			t.Fatalf("route %d: %d operations unbuilt after registration, want %d", i, n, want)
		}
	}
	resp := callFake(fakeRequest{envelope: `{"kind":"endpoint","method":"GET","route":"/api/users","path":"/api/users"}`}, 200, func() int32 { return handleRoute(1) })
	if resp.code != 0 || strings.TrimSpace(resp.body) != `[{"id":1,"name":"Ada"}]` {
		t.Fatalf("route 1's first request: code %d body %q, want 0 and its users; logs %v", resp.code, resp.body, resp.logs)
	}
	if n0, n1 := unbuilt(bundle[0].reg), unbuilt(bundle[1].reg); n0 != 2 || n1 != 0 {
		t.Errorf("after route 1's first request, %d and %d operations unbuilt, want 2 (route 0's) and 0", n0, n1)
	}
	var decl abi.Bundle
	if err := json.Unmarshal(declaration(), &decl); err != nil {
		t.Fatalf("declaration() = %s: %v", declaration(), err)
	}
	for i, r := range decl.Routes {
		if n := unbuilt(bundle[i].reg); n != 0 {
			t.Errorf("route %d: %d operations unbuilt after the declaration, want 0", i, n)
		}
		if r.Error != "" || !bytes.Equal(r.Contract, eager[i]) {
			t.Errorf("route %d declared %s (error %q), want the contract a module of it alone declares:\n%s", i, r.Contract, r.Error, eager[i])
		}
	}
	resp = callFake(fakeRequest{envelope: `{"kind":"endpoint","method":"PUT","route":"/api/users/:id","path":"/api/users/2","params":{"id":2},"body":{"id":2,"name":"Grace"}}`}, 200, func() int32 { return handleRoute(0) })
	if resp.code != 0 || strings.TrimSpace(resp.body) != `{"id":2,"name":"Grace"}` {
		t.Errorf("route 0's PUT after the declaration: code %d body %q, want 0 and the user; logs %v", resp.code, resp.body, resp.logs)
	}
}

// TestBundleRouteKeepsItsOperationAsRegistered: what an Operation holds
// by reference (its Responses, its Defs), changed by the route's code
// after the registration, is not what the route declares when it builds
// later: it declares what it registered.
func TestBundleRouteKeepsItsOperationAsRegistered(t *testing.T) {
	fresh(t)
	BundleRoute("GET /api/a")
	responses := Responses{200: JSON[lazyUser]("the user")}
	defs := map[string]json.RawMessage{"Extra": json.RawMessage(`{"type":"string"}`)}
	Handle(Operation{Responses: responses, Defs: defs}, func(*struct{}) Reply { return Respond(200, lazyUser{}) })
	responses[404] = NoContent("later")
	delete(defs, "Extra")
	var decl abi.Bundle
	if err := json.Unmarshal(declaration(), &decl); err != nil {
		t.Fatalf("declaration() = %s: %v", declaration(), err)
	}
	c := string(decl.Routes[0].Contract)
	if strings.Contains(c, `"404"`) || !strings.Contains(c, `"Extra"`) {
		t.Errorf("contract = %s, want its 200 alone and the $defs entry Extra, as registered", c)
	}
}
