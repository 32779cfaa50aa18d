// Package router matches request paths against file-system routes.
//
// Precedence, per segment from the left: a static segment beats a parameter,
// a parameter beats a catch-all. The most specific route whose path matches is
// chosen first; only then is the method looked up, so a path that matches a
// route without the request's method answers 405 rather than falling through
// to a less specific route. A route for a specific method beats a route for
// every method at the same path.
//
// A Router is built once and then only read: it is safe for concurrent
// Match calls and is replaced whole, never changed under readers.
package router

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// Router maps method and path to values of type T.
type Router[T any] struct {
	root node[T]
}

type node[T any] struct {
	static   map[string]*node[T]
	param    *node[T]
	catchAll *leaf[T] // matches one or more remaining segments
	leaf     *leaf[T] // routes ending here
}

type leaf[T any] struct {
	methods map[string]entry[T]
	any     *entry[T]
}

type entry[T any] struct {
	value T
	route routefile.Route
	names []string // parameter names of this expansion, in path order
}

// Add registers value for route. Optional segments register the route with
// and without them. Two routes with the same method and path are an error
// naming both files.
// On an error nothing is registered.
func (rt *Router[T]) Add(route routefile.Route, value T) error {
	return rt.AddMethods(route, []string{route.Method}, value)
}

// AddMethods registers value for route under each of methods, as if the
// route's file carried each method: a module without a method suffix that
// declares its methods. A method another route claims at the same path is
// an error naming both files, and then nothing is registered.
func (rt *Router[T]) AddMethods(route routefile.Route, methods []string, value T) error {
	expansions := expand(route.Segments)
	for _, m := range methods {
		r := route
		r.Method = m
		for _, segs := range expansions {
			if prev, ok := rt.claimed(r.Method, segs); ok {
				return conflict(prev, r)
			}
		}
	}
	for _, m := range methods {
		r := route
		r.Method = m
		for _, segs := range expansions {
			if err := rt.add(r, segs, value); err != nil {
				return err
			}
		}
	}
	return nil
}

// claimed returns the route registered for method ("" for every method)
// at exactly segs, if any, without changing the router.
func (rt *Router[T]) claimed(method string, segs []routefile.Segment) (routefile.Route, bool) {
	n := &rt.root
	var l *leaf[T]
	for _, s := range segs {
		switch s.Kind {
		case routefile.Static:
			n = n.static[s.Value]
		case routefile.Param:
			n = n.param
		case routefile.CatchAll:
			l = n.catchAll
		}
		if n == nil {
			return routefile.Route{}, false
		}
	}
	if l == nil {
		l = n.leaf
	}
	switch {
	case l == nil:
	case method == "" && l.any != nil:
		return l.any.route, true
	case method != "":
		if e, ok := l.methods[method]; ok {
			return e.route, true
		}
	}
	return routefile.Route{}, false
}

// expand turns optional segments into the list of concrete segment lists.
func expand(segs []routefile.Segment) [][]routefile.Segment {
	out := [][]routefile.Segment{nil}
	for _, s := range segs {
		var next [][]routefile.Segment
		for _, prefix := range out {
			switch s.Kind {
			case routefile.OptionalParam:
				next = append(next, clone(prefix), append(clone(prefix), routefile.Segment{Kind: routefile.Param, Value: s.Value}))
			case routefile.OptionalCatchAll:
				next = append(next, clone(prefix), append(clone(prefix), routefile.Segment{Kind: routefile.CatchAll, Value: s.Value}))
			default:
				next = append(next, append(clone(prefix), s))
			}
		}
		out = next
	}
	return out
}

func clone(s []routefile.Segment) []routefile.Segment { return append([]routefile.Segment(nil), s...) }

func (rt *Router[T]) add(route routefile.Route, segs []routefile.Segment, value T) error {
	n := &rt.root
	var lf **leaf[T]
	for i, s := range segs {
		switch s.Kind {
		case routefile.Static:
			if n.static == nil {
				n.static = map[string]*node[T]{}
			}
			child := n.static[s.Value]
			if child == nil {
				child = &node[T]{}
				n.static[s.Value] = child
			}
			n = child
		case routefile.Param:
			if n.param == nil {
				n.param = &node[T]{}
			}
			n = n.param
		case routefile.CatchAll:
			if i != len(segs)-1 {
				return fmt.Errorf("%s: catch-all must be the last segment", route.File)
			}
			lf = &n.catchAll
		}
	}
	if lf == nil {
		lf = &n.leaf
	}
	if *lf == nil {
		*lf = &leaf[T]{methods: map[string]entry[T]{}}
	}
	l := *lf
	e := entry[T]{value: value, route: route}
	for _, s := range segs {
		if s.Kind != routefile.Static {
			e.names = append(e.names, s.Value)
		}
	}
	if route.Method == "" {
		if l.any != nil {
			return conflict(l.any.route, route)
		}
		l.any = &e
		return nil
	}
	if prev, ok := l.methods[route.Method]; ok {
		return conflict(prev.route, route)
	}
	l.methods[route.Method] = e
	return nil
}

func conflict(a, b routefile.Route) error {
	return fmt.Errorf("%s and %s both claim %s: remove or rename one of them", a.File, b.File, b.String())
}

// Result of a Match.
type Result[T any] struct {
	// Found reports that a route matched the path.
	Found bool
	// Value is the matched route's value; valid when Allowed.
	Value T
	// Allowed reports that the route serves the method.
	Allowed bool
	// Route is the matched route.
	Route routefile.Route
	// Names and Params are the parameter names and values in path order,
	// values unescaped; a catch-all keeps its slashes. An optional
	// parameter that is absent is not listed.
	Names, Params []string
	// Allow lists the methods the path serves, for 405 and OPTIONS; set
	// only when the method is not allowed.
	Allow []string
}

// Match finds the route for method and escapedPath (as in
// url.URL.EscapedPath). Each segment is unescaped on its own, so %2F stays
// inside its segment. A trailing slash is ignored.
func (rt *Router[T]) Match(method, escapedPath string) Result[T] {
	p := strings.TrimPrefix(escapedPath, "/")
	if len(p) > 0 && p[len(p)-1] == '/' {
		p = p[:len(p)-1]
	}
	var params []string
	l := rt.root.match(p, p == "", &params)
	if l == nil {
		return Result[T]{}
	}
	for i, v := range params {
		if u, err := url.PathUnescape(v); err == nil {
			params[i] = u
		}
	}
	res := Result[T]{Found: true, Params: params}
	e, ok := l.methods[method]
	if !ok && method == "HEAD" {
		e, ok = l.methods["GET"]
	}
	if !ok && l.any != nil {
		e, ok = *l.any, true
	}
	if !ok {
		for _, m := range l.allow() {
			if e, ok = l.methods[m]; ok {
				break
			}
		}
		ok = false
	}
	res.Allowed, res.Value, res.Route, res.Names = ok, e.value, e.route, e.names
	if !ok {
		res.Allow = l.allow()
	}
	return res
}

func (l *leaf[T]) allow() []string {
	set := map[string]bool{"OPTIONS": true}
	for m := range l.methods {
		set[m] = true
		if m == "GET" {
			set["HEAD"] = true
		}
	}
	out := make([]string, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// match matches the rest of the path, p without its leading slash; done
// says no segment is left (p == "" is one empty segment otherwise).
func (n *node[T]) match(p string, done bool, params *[]string) *leaf[T] {
	if done {
		return n.leaf
	}
	head, rest, more := strings.Cut(p, "/")
	child := n.static[head]
	if child == nil && strings.IndexByte(head, '%') >= 0 {
		// A file name that needs escaping in a URL ("menu du jour",
		// "café") arrives percent-encoded: compare it decoded.
		if u, err := url.PathUnescape(head); err == nil {
			child = n.static[u]
		}
	}
	if child != nil {
		if l := child.match(rest, !more, params); l != nil {
			return l
		}
	}
	if n.param != nil && head != "" {
		mark := len(*params)
		*params = append(*params, head)
		if l := n.param.match(rest, !more, params); l != nil {
			return l
		}
		*params = (*params)[:mark]
	}
	if n.catchAll != nil {
		*params = append(*params, p)
		return n.catchAll
	}
	return nil
}

// Each calls fn once for every registered route, in a stable order.
func (rt *Router[T]) Each(fn func(routefile.Route, T)) {
	var walk func(n *node[T])
	seen := map[string]bool{}
	visit := func(l *leaf[T]) {
		if l == nil {
			return
		}
		fn := func(r routefile.Route, v T) {
			if key := r.Method + " " + r.File; !seen[key] {
				seen[key] = true
				fn(r, v)
			}
		}
		ms := make([]string, 0, len(l.methods))
		for m := range l.methods {
			ms = append(ms, m)
		}
		slices.Sort(ms)
		for _, m := range ms {
			fn(l.methods[m].route, l.methods[m].value)
		}
		if l.any != nil {
			fn(l.any.route, l.any.value)
		}
	}
	walk = func(n *node[T]) {
		visit(n.leaf)
		keys := make([]string, 0, len(n.static))
		for k := range n.static {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			walk(n.static[k])
		}
		if n.param != nil {
			walk(n.param)
		}
		visit(n.catchAll)
	}
	walk(&rt.root)
}
