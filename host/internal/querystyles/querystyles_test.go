package querystyles

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/queryobject"
	"github.com/wasmendpoints/endpoints/internal/validation"
)

// query compiles a contract's /request/query schema; "" gives none.
func query(t *testing.T, schema string) *validation.Schema {
	t.Helper()
	if schema == "" {
		return nil
	}
	c, err := validation.NewContract("a.get.wasm", []byte(`{"request": {"query": `+schema+`}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("/request/query")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func explode(b bool) *bool { return &b }

const (
	filter     = `"filter": {"type": "object", "properties": {"color": {"type": "string"}, "size": {"type": "integer"}}}`
	page       = `"page": {"type": "object", "properties": {"limit": {"type": "integer"}}}`
	colorParam = `"color": {"type": "string"}`
)

// TestCompile: the style each object parameter is read by, which one takes
// the query's undeclared pairs, and the contracts refused.
func TestCompile(t *testing.T) {
	for _, tt := range []struct {
		name    string
		schema  string
		styles  map[string]*abi.QueryStyle
		want    string // the set, one "name style explode rest" per parameter
		wantErr string
	}{
		{"no query", "", nil, "", ""},
		{"no object", `{"type": "object", "properties": {` + colorParam + `}}`, nil, "", ""},
		{"an object, form exploded by default, takes the rest", `{"type": "object", "properties": {` + filter + `}}`, nil,
			"filter form true true", ""},
		{"deepObject", `{"type": "object", "properties": {` + filter + `}}`, map[string]*abi.QueryStyle{"filter": {Style: queryobject.DeepObject}},
			"filter deepObject true false", ""},
		{"form without explode", `{"type": "object", "properties": {` + filter + `}}`, map[string]*abi.QueryStyle{"filter": {Style: queryobject.Form, Explode: explode(false)}},
			"filter form false false", ""},
		{"two exploded objects: neither takes the rest", `{"type": "object", "properties": {` + filter + `, ` + page + `}}`, nil,
			"filter form true false; page form true false", ""},
		{"a style without a query", "", map[string]*abi.QueryStyle{"filter": {Style: queryobject.DeepObject}},
			"", "a.get.wasm: contract: /request/queryStyles/filter: the contract declares no query"},
		{"a style for a parameter that is not an object", `{"type": "object", "properties": {` + colorParam + `}}`, map[string]*abi.QueryStyle{"color": {Style: queryobject.DeepObject}},
			"", `a.get.wasm: contract: /request/queryStyles/color: "color" is not a query parameter whose schema is an object`},
		{"an exploded member that is a parameter too", `{"type": "object", "properties": {` + filter + `, ` + colorParam + `}}`, nil,
			"", `a.get.wasm: contract: /request/query/properties/filter: member "color" is also a query parameter of its own`},
		{"the same under deepObject is fine", `{"type": "object", "properties": {` + filter + `, ` + colorParam + `}}`, map[string]*abi.QueryStyle{"filter": {Style: queryobject.DeepObject}},
			"filter deepObject true false", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			set, err := Compile("a.get.wasm", "", query(t, tt.schema), tt.styles)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("Compile error:\ngot  %v\nwant %s...", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range set {
				got = append(got, fmt.Sprintf("%s %s %v %v", p.Name, p.Style, p.Explode, p.Rest))
			}
			if g := strings.Join(got, "; "); g != tt.want {
				t.Errorf("set:\ngot  %s\nwant %s", g, tt.want)
			}
		})
	}
}
