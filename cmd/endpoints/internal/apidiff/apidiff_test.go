package apidiff

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParseTypes(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"string", []string{"string"}},
		{"string, integer", []string{"string", "integer"}},
		{"string, null", []string{"string"}},
		{"array<string, integer>, null", []string{"array"}},
		{"any", nil},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := parseTypes(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("parseTypes(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// document is an OpenAPI 3.1 document with one GET /items whose query
// parameter q, header X-A and form body field f have the given type
// (JSON), and whose answer has the header X-R of that type.
func document(typ string) []byte {
	return fmt.Appendf(nil, `{"openapi": "3.1.0", "info": {"title": "t", "version": "1.0.0"}, "paths": {"/items": {"post": {
  "parameters": [{"name": "q", "in": "query", "schema": {"type": %[1]s}}, {"name": "X-A", "in": "header", "schema": {"type": %[1]s}}],
  "requestBody": {"content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": {"f": {"type": %[1]s}}}}}},
  "responses": {"200": {"description": "ok", "headers": {"X-R": {"schema": {"type": %[1]s}}}}}}}}}`, typ)
}

// TestTypeListsWhereValuesAreText: a change to a list of types of a
// parameter, a header or a form field is judged by the sets of types, both
// ways (oasdiff v1.37.0 alone gets each of these wrong).
func TestTypeListsWhereValuesAreText(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []string // "level id (corrected from)" per change, in order
	}{
		{
			"a type removed from the request's list breaks; the answer's header returns less",
			`["integer", "boolean"]`, `"integer"`,
			[]string{
				"error request-parameter-type-changed (request-parameter-type-generalized)",
				"error request-parameter-type-changed (request-parameter-type-generalized)",
				"error request-property-type-changed (request-property-type-compatible)",
				"info api-version-not-bumped ()",
				"info response-header-type-specialized ()",
			},
		},
		{
			"a type added to the request's list breaks nothing; the answer's header may return more",
			`["integer", "boolean"]`, `["integer", "boolean", "number"]`,
			[]string{
				"error response-header-type-changed (response-header-type-compatible)",
				"info api-version-not-bumped ()",
				"info request-parameter-type-generalized (request-parameter-type-changed)",
				"info request-parameter-type-generalized (request-parameter-type-changed)",
				"info request-property-type-generalized ()",
			},
		},
		{
			"string takes any text: from a list with string to string breaks nothing",
			`["string", "integer"]`, `"string"`,
			[]string{
				"info request-parameter-type-generalized ()",
				"info request-parameter-type-generalized ()",
				"info request-property-type-compatible ()",
				"info response-header-type-specialized ()",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changes, err := Compare(Document{Name: "old.json", Data: document(tt.old)}, Document{Name: "new.json", Data: document(tt.new)})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range changes {
				got = append(got, fmt.Sprintf("%s %s (%s)", c.Level, c.ID, c.Corrected))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("changes from %s to %s:\n%s\nwant:\n%s", tt.old, tt.new, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestCompareRefusesWhatIsNotADocument(t *testing.T) {
	good := Document{Name: "good.json", Data: document(`"string"`)}
	for _, bad := range []Document{
		{Name: "empty.json"},
		{Name: "cut.json", Data: []byte(`{"openapi": "3.1.0", "paths": {`)},
		{Name: "other.json", Data: []byte(`{"name": "not openapi"}`)},
	} {
		t.Run(bad.Name, func(t *testing.T) {
			if _, err := Compare(good, bad); err == nil || !strings.Contains(err.Error(), bad.Name) {
				t.Errorf("Compare(good, %s) = %v, want an error naming %s", bad.Name, err, bad.Name)
			}
		})
	}
}
