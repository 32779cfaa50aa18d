package edge_test

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/openapi"
)

// TestRoutesWithMiddleware: a middleware's declared answers join the
// scopes of the patterns it wraps, never replacing the routes
// configuration's own, and never changing the configuration given.
func TestRoutesWithMiddleware(t *testing.T) {
	limited := &abi.Response{Description: "rate limited by the middleware"}
	configured := &abi.Response{Description: "rate limited, says the configuration"}
	ops := []openapi.Route{{Method: "GET", Path: "/users/{id}"}, {Method: "POST", Path: "/users"}}
	tests := []struct {
		name  string
		rc    *openapi.RoutesConfig
		decls []abi.Middleware
		// want: pattern, then "" (the pattern's responses) or a
		// lower-case method, then the status and its description; empty
		// when the configuration comes back as given.
		want [][4]string
	}{
		{name: "no middleware", decls: nil},
		{name: "no responses declared", decls: []abi.Middleware{{Routes: []string{"/users/**"}}}},
		{name: "every route", decls: []abi.Middleware{{Responses: map[string]*abi.Response{"429": limited}}},
			want: [][4]string{{"/**", "", "429", limited.Description}}},
		{name: "one method", decls: []abi.Middleware{{Routes: []string{"/users"}, Methods: []string{"POST"}, Responses: map[string]*abi.Response{"429": limited}}},
			want: [][4]string{{"/users", "post", "429", limited.Description}}},
		{name: "a method the pattern does not serve", decls: []abi.Middleware{{Routes: []string{"/users"}, Methods: []string{"DELETE"}, Responses: map[string]*abi.Response{"429": limited}}}},
		{name: "a pattern that wraps nothing", decls: []abi.Middleware{{Routes: []string{"/orders/**"}, Responses: map[string]*abi.Response{"429": limited}}}},
		{name: "the configuration's status stays",
			rc:    &openapi.RoutesConfig{Routes: map[string]*openapi.RouteScope{"/**": {Responses: map[string]*abi.Response{"429": configured}}}},
			decls: []abi.Middleware{{Responses: map[string]*abi.Response{"429": limited, "503": limited}}},
			want:  [][4]string{{"/**", "", "429", configured.Description}, {"/**", "", "503", limited.Description}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before int
			if tt.rc != nil {
				before = len(tt.rc.Routes["/**"].Responses)
			}
			got := edge.RoutesWithMiddleware(tt.rc, tt.decls, ops)
			if len(tt.want) == 0 {
				if got != tt.rc {
					t.Fatalf("got a new configuration %+v, want the one given", got)
				}
				return
			}
			if got == nil || got == tt.rc {
				t.Fatalf("got %p, want a copy of %p", got, tt.rc)
			}
			if tt.rc != nil && len(tt.rc.Routes["/**"].Responses) != before {
				t.Errorf("the configuration given changed: %v", tt.rc.Routes["/**"].Responses)
			}
			for _, w := range tt.want {
				scope := got.Routes[w[0]]
				if scope == nil {
					t.Fatalf("no scope for %s in %v", w[0], got.Routes)
				}
				responses := scope.Responses
				if w[1] != "" {
					if scope.Methods[w[1]] == nil {
						t.Fatalf("no %s scope under %s", w[1], w[0])
					}
					responses = scope.Methods[w[1]].Responses
				}
				if r := responses[w[2]]; r == nil || r.Description != w[3] {
					t.Errorf("%s %s %s = %+v, want %q", w[0], w[1], w[2], r, w[3])
				}
			}
		})
	}
}

// TestCheckMiddlewareResponses: a declaration's statuses and schemas are
// checked, and a mistake names the middleware's file.
func TestCheckMiddlewareResponses(t *testing.T) {
	const file = "server/middleware/10-limit.wasm"
	tests := []struct {
		name      string
		responses map[string]*abi.Response
		wantErr   string
	}{
		{name: "none"},
		{name: "a status with a schema", responses: map[string]*abi.Response{"429": {Schema: []byte(`{"type":"object"}`)}}},
		{name: "not a status", responses: map[string]*abi.Response{"4xx": {}}, wantErr: "/responses/4xx: want an HTTP status"},
		{name: "out of range", responses: map[string]*abi.Response{"600": {}}, wantErr: "/responses/600: want an HTTP status"},
		{name: "a schema that does not compile", responses: map[string]*abi.Response{"429": {Schema: []byte(`{"type":"no such type"}`)}}, wantErr: file},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := edge.CheckMiddlewareResponses(file, tt.responses)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("got %v, want no error", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), file)):
				t.Fatalf("got %v, want an error naming %s and saying %q", err, file, tt.wantErr)
			}
		})
	}
}
