package conformance

import (
	"slices"
	"testing"
)

func TestMissingUsersRoutes(t *testing.T) {
	for _, tt := range []struct {
		name   string
		served []Route
		want   []string
	}{
		{"a port", []Route{{"GET", "/api/users/:id", true}, {"GET", "/health", false}}, nil},
		{"another parameter name, a plain route for all methods", []Route{{"GET", "/api/users/:userId", true}, {"*", "/health", false}}, nil},
		{"an app of its own", []Route{{"GET", "/api/hello", true}},
			[]string{"the endpoint GET /api/users/:id", "the plain route GET /health"}},
		{"the users route is plain", []Route{{"*", "/api/users/:id", false}, {"GET", "/health", false}},
			[]string{"the endpoint GET /api/users/:id"}},
		{"another method", []Route{{"POST", "/api/users/:id", true}, {"GET", "/health", true}},
			[]string{"the endpoint GET /api/users/:id"}},
		{"a static segment for the parameter", []Route{{"GET", "/api/users/me", true}, {"GET", "/health", false}},
			[]string{"the endpoint GET /api/users/:id"}},
		{"nothing", nil, []string{"the endpoint GET /api/users/:id", "the plain route GET /health"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := MissingUsersRoutes(tt.served); !slices.Equal(got, tt.want) {
				t.Errorf("MissingUsersRoutes = %q, want %q", got, tt.want)
			}
		})
	}
}
