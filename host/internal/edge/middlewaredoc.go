package edge

import (
	stdjson "encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/validation"
	"github.com/wasmendpoints/endpoints/openapi"
)

// RoutesWithMiddleware returns the routes configuration rc with the
// responses the middleware declare (abi.Middleware.Responses, one
// declaration per loaded module, in chain order) added, so
// the document lists a middleware's own answers (its 429) on every
// operation it wraps. A status the configuration already gives a pattern
// keeps the configuration's; a middleware pattern that wraps none of ops
// adds nothing (the configuration's own unmatched patterns stay errors).
// rc is never changed: a copy is returned when anything is added.
func RoutesWithMiddleware(rc *openapi.RoutesConfig, decls []abi.Middleware, ops []openapi.Route) *openapi.RoutesConfig {
	out := rc
	copied := false
	scopeFor := func(pattern string) *openapi.RouteScope {
		if !copied {
			c := openapi.RoutesConfig{}
			if rc != nil {
				c = *rc
			}
			c.Routes = maps.Clone(c.Routes)
			if c.Routes == nil {
				c.Routes = map[string]*openapi.RouteScope{}
			}
			out, copied = &c, true
		}
		s := &openapi.RouteScope{}
		if old := out.Routes[pattern]; old != nil {
			*s = *old
		}
		s.Responses = maps.Clone(s.Responses)
		s.Methods = maps.Clone(s.Methods)
		out.Routes[pattern] = s
		return s
	}
	for i := range decls {
		decl := &decls[i]
		if len(decl.Responses) == 0 {
			continue
		}
		patterns := decl.Routes
		if len(patterns) == 0 {
			patterns = []string{"/**"}
		}
		for _, p := range patterns {
			if len(decl.Methods) == 0 {
				if wraps(p, "", ops) {
					addResponses(&scopeFor(p).Responses, decl.Responses)
				}
				continue
			}
			for _, meth := range decl.Methods {
				if !wraps(p, meth, ops) {
					continue
				}
				s := scopeFor(p)
				if s.Methods == nil {
					s.Methods = map[string]*openapi.MethodScope{}
				}
				ms := &openapi.MethodScope{}
				if old := s.Methods[strings.ToLower(meth)]; old != nil {
					*ms = *old
				}
				ms.Responses = maps.Clone(ms.Responses)
				addResponses(&ms.Responses, decl.Responses)
				s.Methods[strings.ToLower(meth)] = ms
			}
		}
	}
	return out
}

// wraps reports whether pattern matches one of ops, with method ("" for
// any).
func wraps(pattern, method string, ops []openapi.Route) bool {
	for _, op := range ops {
		if (method == "" || op.Method == method) && openapi.MatchRoutePattern(pattern, openapi.ClientPath(op.Path)) {
			return true
		}
	}
	return false
}

// addResponses adds each of add to *to whose status it lacks.
func addResponses(to *map[string]*abi.Response, add map[string]*abi.Response) {
	if *to == nil {
		*to = map[string]*abi.Response{}
	}
	for st, r := range add {
		if _, ok := (*to)[st]; !ok {
			(*to)[st] = r
		}
	}
}

// CheckMiddlewareResponses checks the responses of a middleware
// declaration as a contract's are checked (statuses, schemas that
// compile), so a mistake names the middleware's file, not the routes
// configuration the document later builds them through.
func CheckMiddlewareResponses(file string, responses map[string]*abi.Response) error {
	if len(responses) == 0 {
		return nil
	}
	doc, err := stdjson.Marshal(map[string]any{"responses": responses})
	if err != nil {
		return fmt.Errorf("%s: middleware declaration: /responses: %v", file, err)
	}
	comp, err := validation.NewContract(file, doc)
	if err != nil {
		return err
	}
	for _, key := range slices.Sorted(maps.Keys(responses)) {
		if st, err := strconv.Atoi(key); err != nil || st < 100 || st > 599 || len(key) != 3 {
			return fmt.Errorf("%s: middleware declaration: /responses/%s: want an HTTP status (100-599) such as \"429\"", file, openapi.EscapeToken(key))
		}
		r := responses[key]
		if r == nil {
			continue
		}
		if _, err := comp.Compile("/responses/" + key + "/schema"); err != nil {
			return err
		}
		for name := range r.Headers {
			if _, err := comp.Compile("/responses/" + key + "/headers/" + openapi.EscapeToken(name)); err != nil {
				return err
			}
		}
	}
	return nil
}
