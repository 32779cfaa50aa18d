// Package routefile maps route module file names to HTTP routes (docs/spec.md §2).
//
//	server/api/users/[id].get.wasm    → GET  /api/users/:id   (/api/users/{id})
//	server/api/users/index.post.wasm  → POST /api/users
//	server/routes/health.get.wasm     → GET  /health
//	server/routes/files/[...path].wasm → any /files/**:path
package routefile

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Directories that hold route modules, relative to the app directory, and the
// URL prefix each one mounts at.
var Roots = []struct{ Dir, Prefix string }{
	{"server/api", "/api"},
	{"server/routes", ""},
}

// Extension is the file extension of a route module.
const Extension = ".wasm"

// Methods are the method suffixes a file name may carry, lower case.
var Methods = []string{"get", "post", "put", "patch", "delete", "head", "options"}

// SegmentKind says how a path segment matches.
type SegmentKind int

// Segment kinds.
const (
	// Static matches its text exactly.
	Static SegmentKind = iota
	// Param ([id]) matches one non-empty segment.
	Param
	// OptionalParam ([[id]]) matches one segment or none.
	OptionalParam
	// CatchAll ([...path]) matches one or more segments.
	CatchAll
	// OptionalCatchAll ([[...path]]) matches zero or more segments.
	OptionalCatchAll
)

// Segment is one element of a route path.
type Segment struct {
	Kind SegmentKind
	// Value is the static text or the parameter name.
	Value string
}

// Route is what a file name says about a route module.
type Route struct {
	// File is the module's path relative to the app, with forward slashes.
	File string
	// Method is the upper-case method of the suffix, "" when the module has
	// none and serves every method.
	Method string
	// Segments is the path, without the leading empty segment.
	Segments []Segment
}

// Parse maps a module path relative to the app directory (forward slashes)
// to its route. The error says which part of the name is wrong.
func Parse(rel string) (Route, error) {
	r := Route{File: rel}
	if !strings.HasSuffix(rel, Extension) {
		return r, fmt.Errorf("%s: a route module's name must end in %s", rel, Extension)
	}
	var prefix, inside string
	found := false
	for _, root := range Roots {
		if strings.HasPrefix(rel, root.Dir+"/") {
			prefix, inside, found = root.Prefix, strings.TrimPrefix(rel, root.Dir+"/"), true
			break
		}
	}
	if !found {
		return r, fmt.Errorf("%s: route modules live under server/api or server/routes", rel)
	}
	inside = strings.TrimSuffix(inside, Extension)
	dir, base := path.Split(inside)
	for _, m := range Methods {
		if b, ok := strings.CutSuffix(base, "."+m); ok && b != "" {
			base, r.Method = b, strings.ToUpper(m)
			break
		}
	}
	var parts []string
	if prefix != "" {
		parts = append(parts, strings.TrimPrefix(prefix, "/"))
	}
	if dir != "" {
		parts = append(parts, strings.Split(strings.TrimSuffix(dir, "/"), "/")...)
	}
	if base != "index" {
		parts = append(parts, base)
	}
	seen := map[string]bool{}
	for i, p := range parts {
		seg, err := parseSegment(p)
		if err != nil {
			return r, fmt.Errorf("%s: %w", rel, err)
		}
		if seg.Kind != Static {
			if seen[seg.Value] {
				return r, fmt.Errorf("%s: parameter %q appears twice", rel, seg.Value)
			}
			seen[seg.Value] = true
		}
		if (seg.Kind == CatchAll || seg.Kind == OptionalCatchAll) && i != len(parts)-1 {
			return r, fmt.Errorf("%s: catch-all segment %q must be the last one", rel, p)
		}
		r.Segments = append(r.Segments, seg)
	}
	return r, nil
}

func parseSegment(s string) (Segment, error) {
	if s == "" {
		return Segment{}, fmt.Errorf("empty path segment")
	}
	if !strings.ContainsAny(s, "[]") {
		return Segment{Kind: Static, Value: s}, nil
	}
	kind, name := Param, s
	switch {
	case strings.HasPrefix(s, "[[...") && strings.HasSuffix(s, "]]"):
		kind, name = OptionalCatchAll, s[5:len(s)-2]
	case strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]"):
		kind, name = OptionalParam, s[2:len(s)-2]
	case strings.HasPrefix(s, "[...") && strings.HasSuffix(s, "]"):
		kind, name = CatchAll, s[4:len(s)-1]
	case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
		name = s[1 : len(s)-1]
	default:
		return Segment{}, fmt.Errorf("segment %q: a segment is either static text or one [param], [[param]], [...param] or [[...param]]", s)
	}
	if !validName(name) {
		return Segment{}, fmt.Errorf("segment %q: parameter name %q must be letters, digits and _, not starting with a digit", s, name)
	}
	return Segment{Kind: kind, Value: name}, nil
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// Dynamic reports whether the route has a catch-all or optional segment,
// which only plain routes may use.
func (r Route) Dynamic() bool {
	for _, s := range r.Segments {
		if s.Kind != Static && s.Kind != Param {
			return true
		}
	}
	return false
}

// ParamNames lists the route's parameter names in path order.
func (r Route) ParamNames() []string {
	var names []string
	for _, s := range r.Segments {
		if s.Kind != Static {
			names = append(names, s.Value)
		}
	}
	return names
}

// Pattern is the route template in client form: /api/users/:id,
// /files/:name?, /docs/**:path.
func (r Route) Pattern() string {
	var b strings.Builder
	for _, s := range r.Segments {
		b.WriteByte('/')
		switch s.Kind {
		case Static:
			b.WriteString(s.Value)
		case Param:
			b.WriteString(":" + s.Value)
		case OptionalParam:
			b.WriteString(":" + s.Value + "?")
		case CatchAll, OptionalCatchAll:
			b.WriteString("**:" + s.Value)
		}
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

// OpenAPIPath is the route template in OpenAPI form: /api/users/{id}. Only
// meaningful for routes without catch-all or optional segments.
func (r Route) OpenAPIPath() string {
	var b strings.Builder
	for _, s := range r.Segments {
		b.WriteByte('/')
		if s.Kind == Static {
			b.WriteString(s.Value)
		} else {
			b.WriteString("{" + s.Value + "}")
		}
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

// String is "GET /api/users/:id", or "* /path" for every method.
func (r Route) String() string {
	m := r.Method
	if m == "" {
		m = "*"
	}
	return m + " " + r.Pattern()
}

// FromRoute maps a route in the form `endpoints routes` prints ("GET
// /api/users/:id", "* /files/**:path") back to the module file that serves
// it: the inverse of Parse. Paths under /api map to server/api, all others
// to server/routes; :name is [name], :name? is [[name]], **:name is
// [...name]; a route that is a whole route directory (/api, /) is its index.
//
//	FromRoute("GET /api/users/:id") → server/api/users/[id].get.wasm
//	FromRoute("POST /api/users")    → server/api/users.post.wasm
//	FromRoute("* /")                → server/routes/index.wasm
func FromRoute(route string) (Route, error) {
	method, path, ok := strings.Cut(strings.TrimSpace(route), " ")
	path = strings.TrimSpace(path)
	if !ok || !strings.HasPrefix(path, "/") {
		return Route{}, fmt.Errorf("route %q: want METHOD /path, e.g. GET /api/users/:id", route)
	}
	suffix := ""
	if method != "*" {
		m := strings.ToLower(method)
		if !slices.Contains(Methods, m) {
			return Route{}, fmt.Errorf("route %q: method %q is not one of %s or *", route, method, strings.ToUpper(strings.Join(Methods, ", ")))
		}
		suffix = "." + m
	}
	dir, rest := "server/routes", strings.Trim(path, "/")
	if rest == "api" || strings.HasPrefix(rest, "api/") {
		dir, rest = "server/api", strings.TrimPrefix(strings.TrimPrefix(rest, "api"), "/")
	}
	var parts []string
	if rest != "" {
		for _, seg := range strings.Split(rest, "/") {
			switch {
			case strings.HasPrefix(seg, "**:"):
				seg = "[..." + seg[3:] + "]"
			case strings.HasPrefix(seg, ":") && strings.HasSuffix(seg, "?"):
				seg = "[[" + seg[1:len(seg)-1] + "]]"
			case strings.HasPrefix(seg, ":"):
				seg = "[" + seg[1:] + "]"
			case strings.Contains(seg, ":"):
				return Route{}, fmt.Errorf("route %q: segment %q: a parameter is a whole segment (:name, :name? or **:name)", route, seg)
			case seg == "*" || seg == "**":
				named := strings.TrimSuffix(path[:strings.LastIndex(path, seg)], "/") + "/**:path"
				return Route{}, fmt.Errorf("route %q: segment %q: a catch-all is named: %s (a plain route's; an endpoint cannot sit on one)", route, seg, named)
			case strings.Contains(seg, "*"):
				return Route{}, fmt.Errorf("route %q: segment %q: '*' is only for a catch-all, **:name", route, seg)
			}
			parts = append(parts, seg)
		}
	}
	if len(parts) == 0 {
		parts = []string{"index"}
	}
	file := dir + "/" + strings.Join(parts, "/") + suffix + Extension
	r, err := Parse(file)
	if err != nil {
		return Route{}, fmt.Errorf("route %q: %w", route, err)
	}
	if got := r.String(); got != method+" "+path && !(method == "*" && got == "* "+path) {
		return Route{}, fmt.Errorf("route %q: not a route a file name can give (it would be %s)", route, got)
	}
	return r, nil
}
