package host_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// usersConformance is the HTTP-level behaviour every implementation of the
// users example must show, whatever language its guests are written in.
// It runs in development, so every answer is also checked against the
// contract the guest exported.
var usersConformance = []struct {
	name, method, path  string
	wantStatus          int
	wantBody            string // JSON compared by value, or exact text for text/plain
	wantType, wantAllow string
}{
	{"an existing user", "GET", "/api/users/2", 200, `{"id":2,"name":"Grace Hopper","email":"grace@example.com"}`, "application/json", ""},
	{"the first seed user", "GET", "/api/users/1", 200, `{"id":1,"name":"Ada Lovelace","email":"ada@example.com"}`, "application/json", ""},
	{"a declared 404", "GET", "/api/users/9", 404, `{"message":"user 9 not found"}`, "application/json", ""},
	{"id below the minimum", "GET", "/api/users/0", 400,
		`{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"must be greater than or equal to 1"}]}}`, "application/json", ""},
	{"id not an integer", "GET", "/api/users/abc", 400,
		`{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"expected integer, received string"}]}}`, "application/json", ""},
	{"a fractional id", "GET", "/api/users/1.5", 400,
		`{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"expected integer, received number"}]}}`, "application/json", ""},
	{"an integer written as 2.0 reaches the guest as 2", "GET", "/api/users/2.0", 200, `{"id":2,"name":"Grace Hopper","email":"grace@example.com"}`, "application/json", ""},
	{"an integer written as 2e0 reaches the guest as 2", "GET", "/api/users/2e0", 200, `{"id":2,"name":"Grace Hopper","email":"grace@example.com"}`, "application/json", ""},
	{"an id beyond int64", "GET", "/api/users/9223372036854775808", 400,
		`{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"must be less than or equal to 9223372036854775807"}]}}`, "application/json", ""},
	{"an id beyond float64", "GET", "/api/users/1e400", 400,
		`{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"number out of range: 1e400 exceeds the float64 range; send a number within ±1.7976931348623157e308"}]}}`, "application/json", ""},
	{"HEAD has no body", "HEAD", "/api/users/3", 200, "", "application/json", ""},
	{"a method the route does not serve", "PUT", "/api/users/1", 405, "", "application/json", "GET"},
	{"an unknown path", "GET", "/api/nobody", 404, `{"statusCode":404,"statusMessage":"Not Found","data":{"path":"/api/nobody"}}`, "application/json", ""},
	{"the plain health route", "GET", "/health", 200, "ok", "text/plain; charset=utf-8", ""},
}

func TestUsersConformance(t *testing.T) {
	for _, name := range []string{"users", "users-c", "users-as"} {
		t.Run(name, func(t *testing.T) {
			h, logs := (&app{t: t, dir: builtExample(t, name)}).host(host.Options{Mode: host.Development})
			srv := httptest.NewServer(h)
			defer srv.Close()
			for _, tt := range usersConformance {
				t.Run(tt.name, func(t *testing.T) {
					res := do(t, srv, tt.method, tt.path, "")
					if res.status != tt.wantStatus {
						t.Fatalf("got %d %s, want %d", res.status, res.body, tt.wantStatus)
					}
					switch {
					case tt.wantBody == "" && tt.method == "HEAD" && res.body != "":
						t.Errorf("HEAD answered a body: %q", res.body)
					case tt.wantBody != "" && tt.wantType == "application/json" && !jsonEqual(t, res.body, tt.wantBody):
						t.Errorf("body = %s, want %s", res.body, tt.wantBody)
					case tt.wantBody != "" && tt.wantType != "application/json" && res.body != tt.wantBody:
						t.Errorf("body = %q, want %q", res.body, tt.wantBody)
					}
					if got := res.header.Get("Content-Type"); got != tt.wantType {
						t.Errorf("Content-Type = %q, want %q", got, tt.wantType)
					}
					if tt.wantAllow != "" && !strings.Contains(res.header.Get("Allow"), tt.wantAllow) {
						t.Errorf("Allow = %q, want it to list %s", res.header.Get("Allow"), tt.wantAllow)
					}
				})
			}
			if strings.Contains(logs.String(), "answer breaks the contract") {
				t.Errorf("a guest answer broke its contract:\n%s", logs)
			}
		})
	}
}
