package edge

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/openapi"
)

// Served is a route of the app as an entry naming route patterns and
// methods (a rate limit, a middleware's declaration) sees it.
type Served struct {
	// Pattern is the route's template, such as /api/users/:id.
	Pattern string
	// Methods are the upper-case methods it serves; nil: every method
	// (a plain route without a method suffix).
	Methods []string
}

// serves reports whether s serves method (a GET route serves HEAD too).
func (s Served) serves(method string) bool {
	return s.Methods == nil || slices.Contains(s.Methods, method) ||
		method == http.MethodHead && slices.Contains(s.Methods, http.MethodGet)
}

// String is the route as messages name it: "GET, POST /api/orders".
func (s Served) String() string {
	if s.Methods == nil {
		return s.Pattern
	}
	return strings.Join(s.Methods, ", ") + " " + s.Pattern
}

// unmatched returns, for an entry selecting the routes patterns match
// (none: every route) and of those the methods (none: every method),
// what of it applies to no route of routes: a pattern that matches none
// (at /routes/i), or none serving any of methods; with no patterns,
// methods no route serves any of (at /methods), or, with no methods
// either, an app without routes (at the entry itself, ""). A pattern that applies
// to one of its methods is no error: "/api/**" with POST, PATCH and
// DELETE (audit every write) in an app without DELETE routes wraps what
// it means to. Each is a JSON pointer below the entry and the message
// after it.
func unmatched(patterns, methods []string, routes []Served) (pointers, msgs []string) {
	for i, p := range patterns {
		var matched []Served
		for _, r := range routes {
			if openapi.MatchRoutePattern(p, r.Pattern) {
				matched = append(matched, r)
			}
		}
		if len(matched) == 0 {
			pointers, msgs = append(pointers, fmt.Sprintf("/routes/%d", i)), append(msgs, fmt.Sprintf("pattern %q matches no route of the app", p))
			continue
		}
		if !servesAny(matched, methods) {
			pointers = append(pointers, fmt.Sprintf("/routes/%d", i))
			msgs = append(msgs, fmt.Sprintf("pattern %q matches no route serving %s (it matches %s)", p, orList(methods), describe(matched)))
		}
	}
	switch {
	case len(patterns) > 0 || servesAny(routes, methods):
	case len(methods) == 0:
		// The entry applies to every route, and there is none: the
		// entry itself, not a member of it.
		pointers, msgs = append(pointers, ""), append(msgs, "the app has no route")
	default:
		pointers, msgs = append(pointers, "/methods"), append(msgs, fmt.Sprintf("no route of the app serves %s", orList(methods)))
	}
	return pointers, msgs
}

// servesAny reports whether one of routes serves one of methods (none:
// any method).
func servesAny(routes []Served, methods []string) bool {
	if len(methods) == 0 {
		return len(routes) > 0
	}
	return slices.ContainsFunc(routes, func(r Served) bool { return slices.ContainsFunc(methods, r.serves) })
}

// orList is "POST", "POST or PUT", "POST, PUT or DELETE".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// describe names routes, at most three of them.
func describe(routes []Served) string {
	names := make([]string, 0, 3)
	for _, r := range routes[:min(len(routes), 3)] {
		names = append(names, r.String())
	}
	if len(routes) > 3 {
		names = append(names, fmt.Sprintf("and %d more", len(routes)-3))
	}
	return strings.Join(names, "; ")
}

// UnmatchedRateLimits returns an error for each pattern of a policy's
// "routes" that matches none of routes (the routes the app serves),
// or none serving one of its "methods", naming its member of
// endpoints.json: a typo there ("/api/evnts", a POST limit on a GET-only
// route) would leave the routes it meant unlimited, with nothing said.
func UnmatchedRateLimits(limits []*RateLimit, routes []Served) []error {
	var errs []error
	for _, rl := range limits {
		pointers, msgs := unmatched(rl.cfg.Routes, rl.cfg.Methods, routes)
		for i := range pointers {
			errs = append(errs, unmatchedEntry(fmt.Sprintf("%s: /rateLimits/%s%s: %s, so the rate limit %s limits nothing there: fix the pattern (such as \"/api/orders\" or \"/api/orders/**\") or the methods, or remove it", config.File, rl.Name, pointers[i], msgs[i], rl.Name)))
		}
	}
	return errs
}

// UnmatchedMiddleware returns an error for each pattern of a
// middleware's declaration (abi.Middleware.Routes) that matches none of
// routes, or none serving one of its methods, naming the middleware's
// file: it would wrap nothing there, with nothing said. A middleware
// that only verifies a security scheme wraps no route, and is left
// alone.
func UnmatchedMiddleware(mws []*Middleware, routes []Served) []error {
	var errs []error
	for _, m := range mws {
		if !m.before && !m.after {
			continue
		}
		pointers, msgs := unmatched(m.Decl.Routes, m.Decl.Methods, routes)
		for i := range pointers {
			where := "declaration"
			if pointers[i] != "" {
				where += " " + pointers[i]
			}
			errs = append(errs, unmatchedEntry(fmt.Sprintf("%s: middleware %s: %s: %s, so the middleware wraps nothing there: fix the pattern or the methods, or remove it", m.File, m.Name, where, msgs[i])))
		}
	}
	return errs
}

// unmatchedEntry is a rate limit's or a middleware's pattern that
// matches no route: an [openapi.ErrUnmatchedPattern], as an entry of the
// routes configuration that matches none, so that development ignores
// it and `endpoints check` and a production start refuse it alike.
type unmatchedEntry string

func (e unmatchedEntry) Error() string { return string(e) }
func (e unmatchedEntry) Unwrap() error { return openapi.ErrUnmatchedPattern }
