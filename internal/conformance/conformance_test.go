package conformance

import (
	"slices"
	"strings"
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

// TestUsersDocumentListsTheHostsAnswers: the suite's document case wants
// the host's 500 and 503 on GET /api/users/{id}, as every port's host
// answers them, beside the port's own 200, 400 and 404.
func TestUsersDocumentListsTheHostsAnswers(t *testing.T) {
	doc := func(statuses ...string) []byte {
		responses := ""
		for i, s := range statuses {
			if i > 0 {
				responses += ","
			}
			responses += `"` + s + `":{"description":"d"}`
		}
		return []byte(`{"paths":{"/api/users/{id}":{"get":{"summary":"Get a user",
			"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer","minimum":1}}],
			"responses":{` + responses + `}}}}}`)
	}
	if err := usersDocument(doc("200", "400", "404", "500", "503")); err != nil {
		t.Errorf("a document with the host's answers: %v", err)
	}
	err := usersDocument(doc("200", "400", "404"))
	if err == nil || !strings.Contains(err.Error(), "no 500 response") || !strings.Contains(err.Error(), "no 503 response") {
		t.Errorf("a document without the host's 500 and 503: %v, want an error naming both", err)
	}
}
