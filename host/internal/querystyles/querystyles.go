// Package querystyles compiles the object query parameters of an
// operation from its contract: which query parameters are objects, and the
// OpenAPI style (form, deepObject) and explode each is read by
// (internal/queryobject reads them).
package querystyles

import (
	"fmt"
	"maps"
	"slices"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/queryobject"
	"github.com/wasmendpoints/endpoints/internal/validation"
)

// Compile returns the object query parameters of an operation: every
// query property whose schema admits only objects, read by the style its
// contract's queryStyles gives (form with explode by default). A style for
// a parameter that is not an object, or an exploded member that is also a
// query parameter of its own, fails the load: the host could not tell
// which the client meant.
func Compile(file, base string, query *validation.Schema, styles map[string]*abi.QueryStyle) (queryobject.Set, error) {
	var set queryobject.Set
	var props []string
	if query != nil {
		props = query.Properties()
	}
	for _, name := range slices.Sorted(maps.Keys(styles)) {
		if query == nil {
			return nil, fmt.Errorf("%s: contract: %s/request/queryStyles/%s: the contract declares no query (request.query) with a parameter %q", file, base, name, name)
		}
		if _, ok := query.ObjectMembers(name); !ok {
			return nil, fmt.Errorf("%s: contract: %s/request/queryStyles/%s: %q is not a query parameter whose schema is an object (\"type\": \"object\"); a style applies only to object parameters", file, base, name, name)
		}
	}
	for _, name := range props {
		members, ok := query.ObjectMembers(name)
		if !ok {
			continue
		}
		p := queryobject.Param{Name: name, Style: queryobject.Form, Explode: true, Members: members}
		if st := styles[name]; st != nil {
			p.Style = st.Style
			p.Explode = st.Explode == nil || *st.Explode
		}
		if p.Style == queryobject.Form && p.Explode {
			for _, m := range members {
				if slices.Contains(props, m) {
					return nil, fmt.Errorf("%s: contract: %s/request/query/properties/%s: member %q is also a query parameter of its own, and with style form and explode (the default) each member is spelled as a query parameter: rename one, or give %s \"queryStyles\": {\"%s\": {\"style\": \"deepObject\"}}", file, base, name, m, name, name)
				}
			}
		}
		set = append(set, p)
	}
	// The sole exploded object also takes the query's undeclared pairs,
	// as OpenAPI spells it; with two, no pair could be told apart.
	exploded := -1
	for i, p := range set {
		if p.Style == queryobject.Form && p.Explode {
			if exploded >= 0 {
				exploded = -1
				break
			}
			exploded = i
		}
	}
	if exploded >= 0 {
		set[exploded].Rest, set[exploded].Declared = true, props
	}
	return set, nil
}
