//go:build !wasip1

package endpoints

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

// declare registers m for one test.
func declare(t *testing.T, m Middleware) {
	t.Helper()
	fresh(t)
	DeclareMiddleware(m)
}

const mwEnvelope = `{"kind":"middleware","method":"POST","route":"/api/orders/:id","path":"/api/orders/7","rawQuery":"a=1",
 "requestId":"req-1","auth":{"scheme":"bearer","subject":"alice","scopes":["orders:write"],"claims":{"tenant":"acme"}},
 "params":{"id":"7"},"headers":{"x-tenant":["acme"]},"phase":"before"}`

func TestDeclareMiddleware(t *testing.T) {
	declare(t, Middleware{Routes: []string{"/api/**"}, Methods: []string{"POST"},
		Before: func(*MiddlewareRequest) (Reply, bool) { return Reply{}, false },
		After:  func(*MiddlewareRequest, int) {}})
	if got, want := string(middlewareJSON()), `{"routes":["/api/**"],"methods":["POST"],"phases":["before","after"]}`; got != want {
		t.Errorf("declaration = %s, want %s", got, want)
	}
}

// Types of the middleware responses test.
type (
	Throttled struct {
		Tenant string `json:"tenant" doc:"Whose requests are too many."`
		Retry  Retry  `json:"retry"`
	}
	Retry struct {
		After int `json:"after" minimum:"1"`
	}
	selfLoop struct {
		Next *selfLoop `json:"next,omitempty"`
	}
)

// TestMiddlewareResponses: the answers a middleware declares reach its
// declaration, a JSON type's schema written whole (a middleware
// declaration has no $defs), and a bad one says which and why.
func TestMiddlewareResponses(t *testing.T) {
	before := func(*MiddlewareRequest) (Reply, bool) { return Reply{}, false }
	declare(t, Middleware{Before: before, Responses: Responses{
		429: JSON[Throttled]("Too many requests from this tenant").DeclareHeader("Retry-After", "Seconds to wait"),
		401: RawJSON("No tenant", `{"type": "object"}`),
		307: NoContent("Go elsewhere"),
	}})
	want := `{"phases":["before"],"responses":{` +
		`"307":{"description":"Go elsewhere"},` +
		`"401":{"description":"No tenant","schema":{"type":"object"}},` +
		`"429":{"description":"Too many requests from this tenant","schema":{"type":"object","properties":{"tenant":{"type":"string","description":"Whose requests are too many."},` +
		`"retry":{"type":"object","properties":{"after":{"type":"integer","minimum":1,` + intMaximum + `}},"required":["after"],"additionalProperties":false}},` +
		`"required":["tenant","retry"],"additionalProperties":false},"headers":{"Retry-After":{"type":"string","description":"Seconds to wait"}}}}}`
	if got := string(middlewareJSON()); got != want {
		t.Errorf("declaration:\n got %s\nwant %s", got, want)
	}

	for _, tt := range []struct {
		name      string
		responses Responses
		want      string
	}{
		{"not a status", Responses{42: NoContent("?")}, "Responses[42]: not an HTTP status (100-599)"},
		{"a type that contains itself", Responses{429: JSON[selfLoop]("Loop")}, "Responses[429]: selfLoop contains itself"},
		{"raw schema not JSON", Responses{429: RawJSON("Bad", `{`)}, "Responses[429]: RawJSON schema is not valid JSON"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fresh(t)
			defer func() {
				if msg, _ := recover().(string); !strings.Contains(msg, tt.want) {
					t.Errorf("panic = %q, want it to contain %q", msg, tt.want)
				}
			}()
			DeclareMiddleware(Middleware{Before: before, Responses: tt.responses})
		})
	}
}

func TestMiddlewareBefore(t *testing.T) {
	var seen *MiddlewareRequest
	var who *Principal
	declare(t, Middleware{Before: func(r *MiddlewareRequest) (Reply, bool) {
		seen, who = r, Auth()
		if r.Header("x-tenant") != "acme" {
			return Respond(400, map[string]string{"error": "no tenant"}), true
		}
		if err := r.SetContext("tenant", "acme"); err != nil {
			t.Error(err)
		}
		if err := r.SetRequestHeader("X-Tenant-Id", "42"); err != nil {
			t.Error(err)
		}
		return Reply{}, false
	}})
	res := callFake(fakeRequest{envelope: mwEnvelope, headers: map[string]string{"x-tenant": "acme"}}, 200, middlewareBefore)
	if res.code != abi.MiddlewareContinue {
		t.Fatalf("code %d, logs %v: want continue", res.code, res.logs)
	}
	if seen.Method != "POST" || seen.Route != "/api/orders/:id" || seen.Params["id"] != "7" || seen.RawQuery != "a=1" {
		t.Errorf("request = %+v", seen)
	}
	if who == nil || who.Subject != "alice" || !who.HasScope("orders:write") {
		t.Errorf("Auth() = %+v, want alice with orders:write", who)
	}
	t.Run("an answer in the handler's place", func(t *testing.T) {
		res := callFake(fakeRequest{envelope: mwEnvelope}, 200, middlewareBefore)
		if res.code != abi.MiddlewareAnswered || res.status != 400 || !strings.Contains(res.body, "no tenant") {
			t.Errorf("got code %d, %d %s, want answered 400", res.code, res.status, res.body)
		}
	})
}

func TestMiddlewareAfterAndPanics(t *testing.T) {
	var status int
	declare(t, Middleware{After: func(r *MiddlewareRequest, s int) {
		status = s
		if s == 500 {
			panic("boom")
		}
		_ = r.AddResponseHeader("X-Audited", "yes")
	}})
	res := callFake(fakeRequest{envelope: strings.Replace(mwEnvelope, `"phase":"before"`, `"phase":"after","response":{"status":201}`, 1)}, 200, middlewareAfter)
	if res.code != 0 || status != 201 || res.header.Get("X-Audited") != "yes" {
		t.Errorf("code %d, status seen %d, headers %v", res.code, status, res.header)
	}
	res = callFake(fakeRequest{envelope: strings.Replace(mwEnvelope, `"phase":"before"`, `"phase":"after","response":{"status":500}`, 1)}, 200, middlewareAfter)
	if res.code != -1 || len(res.logs) == 0 || !strings.Contains(res.logs[0].msg, "panicked: boom") {
		t.Errorf("a panic: code %d, logs %v; want -1 and the panic logged", res.code, res.logs)
	}
}

func TestMiddlewareVerify(t *testing.T) {
	declare(t, Middleware{Verify: func(r *MiddlewareRequest, scheme string) (*Principal, VerifyResult) {
		switch r.Header("x-token") {
		case "":
			return nil, VerifyMissing
		case "good":
			return &Principal{Subject: "svc-" + scheme, Scopes: []string{"read"}}, VerifyOK
		}
		return nil, VerifyRejected
	}})
	env := strings.Replace(mwEnvelope, `"phase":"before"`, `"phase":"verify","verify":{"scheme":"token"}`, 1)
	for _, tt := range []struct {
		token     string
		want      int32
		principal string
	}{
		{"", abi.VerifyMissing, ""},
		{"bad", abi.VerifyRejected, ""},
		{"good", abi.VerifyOK, `{"subject":"svc-token","scopes":["read"]}`},
	} {
		var principal string
		res := callFake(fakeRequest{envelope: env, headers: map[string]string{"x-token": tt.token}}, 200, func() int32 {
			code := middlewareVerify()
			principal = fake.principal
			return code
		})
		if res.code != tt.want || principal != tt.principal {
			t.Errorf("token %q: code %d principal %s, want %d %s", tt.token, res.code, principal, tt.want, tt.principal)
		}
	}
}

func TestAuthRequestIDAndValue(t *testing.T) {
	beginRequest([]byte(`{"kind":"endpoint","requestId":"r-9","traceId":"4bf92f3577b34da6a3ce929d0e0e4736","context":{"tenant":"acme"},"auth":{"scheme":"bearer","subject":"bob","claims":{"tenant":"acme","n":12345678901234567890}}}`))
	defer endRequest()
	p := Auth()
	var claims struct {
		Tenant string `json:"tenant"`
	}
	if p == nil || p.Subject != "bob" || p.HasScope("x") || p.DecodeClaims(&claims) != nil || claims.Tenant != "acme" {
		t.Errorf("Auth() = %+v, claims %+v", p, claims)
	}
	if RequestID() != "r-9" {
		t.Errorf("RequestID() = %q", RequestID())
	}
	if got := TraceID(); got != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("TraceID() = %q, want 4bf92f3577b34da6a3ce929d0e0e4736", got)
	}
	if v, ok := Value("tenant"); !ok || v != "acme" {
		t.Errorf("Value(tenant) = %q, %v", v, ok)
	}
	if _, ok := Value("nope"); ok {
		t.Error("Value(nope) found")
	}
	endRequest()
	if Auth() != nil || RequestID() != "" || TraceID() != "" {
		t.Error("outside a request: want no principal, no request id and no trace id")
	}
}
