package apidiff

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wasmendpoints/endpoints/openapi"
)

// withoutHostAlternatives takes out of every response body of spec that
// is an anyOf of the app's schemas and the host's (the framework schemas
// endpoints adds beside a status the app declares: its 500 of a guest that
// failed, its 503s, its 400, 413, 415, 406, 429), the host's: what is
// compared is what the app declares. The host always sent those bodies,
// listed or not; a version that lists one where another did not (a newer
// endpoints, a module that starts using a database) changes no answer a
// client gets, where oasdiff would read a response body widened to
// anyOf. A response whose body is the host's alone is compared as it is.
func withoutHostAlternatives(spec *openapi3.T) {
	if spec.Paths == nil {
		return
	}
	for _, item := range spec.Paths.Map() {
		for _, op := range item.Operations() {
			if op.Responses == nil {
				continue
			}
			for _, resp := range op.Responses.Map() {
				if resp == nil || resp.Ref != "" || resp.Value == nil {
					continue // a shared response is the host's, or the author's, whole
				}
				for _, mt := range resp.Value.Content {
					if mt != nil {
						mt.Schema = appAlternatives(mt.Schema)
					}
				}
			}
		}
	}
}

// appAlternatives returns s without the host's alternatives of its
// anyOf: s itself when it has none or nothing else, the one left, or a
// copy of s with an anyOf of those left.
func appAlternatives(s *openapi3.SchemaRef) *openapi3.SchemaRef {
	if s == nil || s.Ref != "" || s.Value == nil || len(s.Value.AnyOf) < 2 {
		return s
	}
	var kept openapi3.SchemaRefs
	for _, alt := range s.Value.AnyOf {
		if !hostSchema(alt) {
			kept = append(kept, alt)
		}
	}
	switch {
	case len(kept) == len(s.Value.AnyOf) || len(kept) == 0:
		return s
	case len(kept) == 1 && isOnlyAnyOf(s.Value):
		return kept[0]
	}
	v := *s.Value
	v.AnyOf = kept
	return &openapi3.SchemaRef{Value: &v}
}

// hostSchema reports whether s refers to one of the framework schemas,
// the bodies of the answers the host makes itself.
func hostSchema(s *openapi3.SchemaRef) bool {
	name, ok := strings.CutPrefix(s.Ref, "#/components/schemas/")
	if !ok {
		return false
	}
	_, framework := openapi.FrameworkSchema(name)
	return framework
}

// isOnlyAnyOf reports whether s says nothing but its anyOf (as endpoints
// writes a status declared twice), so that one alternative left can
// stand for it.
func isOnlyAnyOf(s *openapi3.Schema) bool {
	v := *s
	v.AnyOf = nil
	return v.IsEmpty()
}
