package guestrequest

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
)

func newRequest(plain bool) *Request {
	q := &Request{}
	q.Reset(httptest.NewRequest("GET", "/users/7?x=1", nil), plain, time.Unix(1, 0))
	return q
}

func TestValue(t *testing.T) {
	for _, tc := range []struct {
		name    string
		failure bool
		part    abi.Part
		key     string
		want    string
		errno   abi.Errno
	}{
		{name: "a path parameter", part: abi.PartParams, key: "id", want: "7"},
		{name: "a header, by any case", part: abi.PartHeaders, key: "X-Tenant", want: `"acme"`},
		{name: "a missing value", part: abi.PartQuery, key: "limit", errno: abi.ErrNotFound},
		{name: "none while an onValidationError hook runs", failure: true, part: abi.PartParams, key: "id", errno: abi.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := newRequest(false)
			q.Params["id"] = int64(7)
			q.Headers["x-tenant"] = "acme"
			if tc.failure {
				q.Failure = &abi.ValidationFailure{Kind: abi.FailureSchema}
			}
			got, errno := q.Value(tc.part, tc.key)
			if string(got) != tc.want || errno != tc.errno {
				t.Errorf("Value(%v, %q) = %q, %v; want %q, %v", tc.part, tc.key, got, errno, tc.want, tc.errno)
			}
		})
	}
}

func TestEnvelope(t *testing.T) {
	q := newRequest(false)
	q.ID = "req-1"
	q.Params["id"] = int64(7)
	first := string(q.Envelope(&Call{Kind: abi.KindEndpoint, Route: "/users/[id]"}))
	for _, want := range []string{`"requestId":"req-1"`, `"id":7`, `"/users/[id]"`} {
		if !strings.Contains(first, want) {
			t.Errorf("envelope %s lacks %s", first, want)
		}
	}
	if again := string(q.Envelope(&Call{Kind: abi.KindPlain, Route: "/other"})); again != first {
		t.Errorf("the envelope was encoded twice: %s, then %s", first, again)
	}
	q.Reset(httptest.NewRequest("GET", "/", nil), true, time.Now())
	if len(q.Params) != 0 || q.ID != "" {
		t.Errorf("after Reset: params %v, id %q; want none", q.Params, q.ID)
	}
	if next := string(q.Envelope(&Call{Kind: abi.KindPlain, Route: "/"})); strings.Contains(next, "req-1") {
		t.Errorf("after Reset the previous request's envelope was kept: %s", next)
	}
}

func TestMiddlewareServesItsRequest(t *testing.T) {
	owner := newRequest(false)
	owner.ID = "req-9"
	owner.Principal = &abi.Principal{Subject: "ann"}
	mw := &Request{}
	mw.Reset(owner.HTTP, true, time.Now())
	mw.Serve(owner, map[string]any{"id": "7"})

	if mw.Of() != owner || owner.Of() != owner {
		t.Fatalf("Of does not lead to the request")
	}
	if mw.Params["id"] != "7" || !mw.Start.Equal(owner.Start) {
		t.Errorf("the middleware call got params %v and start %v; want the raw parameters and its request's start", mw.Params, mw.Start)
	}
	if errno := mw.SetContext([]byte("tenant"), []byte("acme")); errno != 0 {
		t.Fatalf("SetContext = %v", errno)
	}
	if got := owner.Passed.Values()["tenant"]; got != "acme" {
		t.Errorf("the request's context value is %q, want what its middleware set", got)
	}
	if errno, fault := mw.SetRequestHeader([]byte("X-User"), []byte("ann")); errno != 0 || fault != "" {
		t.Fatalf("SetRequestHeader = %v, %q", errno, fault)
	}
	if got := owner.HTTP.Header.Get("X-User"); got != "ann" {
		t.Errorf("the request's header is %q, want what its middleware set", got)
	}
	if errno := mw.SetPrincipal([]byte(`{"subject":"bob"}`)); errno != 0 {
		t.Fatalf("SetPrincipal = %v", errno)
	}
	if mw.Principal == nil || mw.Principal.Subject != "bob" || owner.Principal.Subject != "ann" {
		t.Errorf("a verify call's principal is its own until the host takes it: got %+v, request's %+v", mw.Principal, owner.Principal)
	}
	env := string(mw.Envelope(&Call{Kind: abi.KindMiddleware, Route: "/users/[id]", Phase: abi.PhaseBefore}))
	for _, want := range []string{`"requestId":"req-9"`, `"tenant":"acme"`, `"subject":"ann"`, `"phase":"before"`} {
		if !strings.Contains(env, want) {
			t.Errorf("the middleware's envelope %s lacks %s", env, want)
		}
	}
	mw.Issues.Query = []abi.Issue{{Message: "bad"}}
	if err := mw.Release(); err != nil {
		t.Fatal(err)
	}
	if mw.Of() != mw || mw.HTTP != nil || mw.Principal != nil || !mw.Issues.Empty() {
		t.Errorf("after Release the call still holds its request")
	}
}
