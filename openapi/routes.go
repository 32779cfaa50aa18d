package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/mediatype"
	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// RoutesConfig is the routes configuration, server/routes.config.json
// (docs/spec.md §7): responses declared once for the whole app, for the routes
// under a path, or for one method of those routes, merged into every
// operation they apply to as if its contract declared them.
//
//	{
//	  "responses": {"500": {"description": "Server failure", "schema": {"$ref": "#/$defs/ServerError"}}},
//	  "routes": {
//	    "/api/admin/**": {"responses": {"403": {"description": "Not an admin"}}},
//	    "/api/users/:id": {"methods": {"patch": {"responses": {"409": {"description": "Edit conflict"}}}}}
//	  },
//	  "$defs": {"ServerError": {"type": "object"}}
//	}
//
// Decode one with [ParseRoutesConfig]; a Go embedder may also fill one in
// and hand it to [Build], which checks it the same way.
//
// # Notes
//
//   - A pattern is a route template in client form: an exact one
//     ("/api/users/:id", matching that template only, parameter names
//     included) or a prefix ending in "/**" ("/api/admin/**" matches
//     /api/admin and every route below it; "/**" matches every route).
//   - Every pattern, and every method under a pattern, must apply to at
//     least one operation of the document; [Build] fails otherwise, since
//     such an entry is almost always a typo.
//   - References "#/$defs/Name" in its schemas name entries of Defs, which
//     [Build] lifts into components/schemas beside the contracts' $defs.
//   - A RoutesConfig is not changed by [Build] or [RoutesConfig.ResponsesFor]
//     and may be shared by goroutines once built.
type RoutesConfig struct {
	// File names the configuration in errors. [ParseRoutesConfig] sets it;
	// defaults to "routes configuration".
	File string `json:"-"`
	// Responses apply to every operation, by status ("500").
	Responses map[string]*abi.Response `json:"responses,omitempty"`
	// Routes maps a pattern to the responses of the routes it matches.
	Routes map[string]*RouteScope `json:"routes,omitempty"`
	// Security is the security requirement of every operation whose
	// contract declares none, unless a pattern says otherwise; nil says
	// nothing, an empty non-nil list opts out.
	Security []SecurityRequirement `json:"security,omitzero"`
	// PlainRoutes maps the exact route template of plain routes (client
	// form: "/feed.xml", "/hooks/:source") to what the document says of
	// them; see [PlainRoute].
	PlainRoutes map[string]*PlainRoute `json:"plainRoutes,omitempty"`
	// Defs are named schemas, referenced as {"$ref": "#/$defs/Name"}.
	Defs map[string]json.RawMessage `json:"$defs,omitempty"`
}

// RouteScope is what a routes configuration declares for one pattern.
type RouteScope struct {
	// Responses apply to every operation the pattern matches.
	Responses map[string]*abi.Response `json:"responses,omitempty"`
	// Methods maps a lower-case method ("post") to the responses of the
	// matching operations with that method.
	Methods map[string]*MethodScope `json:"methods,omitempty"`
	// Security is the security requirement of the matching operations
	// whose contract declares none; a narrower pattern's wins.
	Security []SecurityRequirement `json:"security,omitzero"`
}

// MethodScope is what a routes configuration declares for one method of a
// pattern.
type MethodScope struct {
	// Responses apply to the matching operations of the method.
	Responses map[string]*abi.Response `json:"responses,omitempty"`
	// Security is the security requirement of the matching operations of
	// the method whose contract declares none; it wins over the
	// pattern's.
	Security []SecurityRequirement `json:"security,omitzero"`
}

// RoutesConfigError lists every problem of a routes configuration, each
// with the JSON pointer of the member at fault:
//
//	server/routes.config.json: /routes/~1api~1admin~1*: pattern "/api/admin/*": "*" may only end a pattern as "/**"
type RoutesConfigError struct {
	// File names the configuration, as given to [ParseRoutesConfig].
	File string
	// Issues are the problems, sorted by pointer.
	Issues []Issue
}

// Issue is one problem of a routes configuration or a document.
type Issue struct {
	// Pointer is the JSON pointer (RFC 6901) of the member at fault; "" is
	// the whole file or document.
	Pointer string
	// Message says what is wrong and what is expected.
	Message string
}

// Error lists the issues, one a line.
func (e *RoutesConfigError) Error() string {
	var b strings.Builder
	for i, is := range e.Issues {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.File + ": ")
		if is.Pointer != "" {
			b.WriteString(is.Pointer + ": ")
		}
		b.WriteString(is.Message)
	}
	return b.String()
}

// ParseRoutesConfig decodes and checks a routes configuration. file names
// it in errors (server/routes.config.json). Decoding is strict; every
// problem is reported in one [*RoutesConfigError]:
//
//   - a member other than "responses", "routes", "security",
//     "plainRoutes", "$defs" (and "$schema", for editors) at the top,
//     "responses", "methods" and "security" in a route, "responses" and
//     "security" in a method, and description, schema, contentType, media and headers
//     in a response (the contract's response shape, docs/spec.md §3);
//   - in "plainRoutes", a key that is not one exact route template, a
//     member other than summary, description, tags, deprecated, responses
//     and methods ([PlainRoute]), or one of the wrong type;
//   - a status key that is not three digits from 100 to 599;
//   - a method key that is not a lower-case method of docs/spec.md §2;
//   - a pattern that does not start with "/", has an empty segment, a
//     trailing "/", "{name}" instead of ":name", or "*" other than a final
//     "/**";
//   - a contentType that is not application/json or a +json type, media
//     types that do not parse, are ranges or repeat, both contentType and
//     media in one response;
//   - a schema that is not valid JSON Schema 2020-12, or a "$ref" to
//     "#/$defs/Name" that names no entry of "$defs".
//
// For example:
//
//	cfg, err := openapi.ParseRoutesConfig("server/routes.config.json", data)
func ParseRoutesConfig(file string, data []byte) (*RoutesConfig, error) {
	p := &configParser{file: file}
	cfg := p.parse(data)
	if len(p.issues) > 0 {
		slices.SortStableFunc(p.issues, func(a, b Issue) int { return strings.Compare(a.Pointer, b.Pointer) })
		return nil, &RoutesConfigError{File: file, Issues: p.issues}
	}
	cfg.File = file
	return cfg, nil
}

// configParser collects the issues of one routes configuration.
type configParser struct {
	file    string
	issues  []Issue
	schemas []string // pointers of every schema, compiled at the end
}

func (p *configParser) add(ptr, format string, args ...any) {
	p.issues = append(p.issues, Issue{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

// object decodes the object at ptr and reports members not in allowed.
func (p *configParser) object(ptr string, v jsontext.Value, allowed ...string) map[string]jsontext.Value {
	if v.Kind() != '{' {
		p.add(ptr, "got %s, want an object", kindName(v.Kind()))
		return nil
	}
	var m map[string]jsontext.Value
	if err := jsonv2.Unmarshal(v, &m); err != nil {
		p.add(ptr, "%v", err)
		return nil
	}
	if allowed != nil {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !slices.Contains(allowed, k) {
				p.add(ptr+"/"+EscapeToken(k), "unknown member %q; allowed: %s", k, strings.Join(allowed, ", "))
			}
		}
	}
	return m
}

func (p *configParser) parse(data []byte) *RoutesConfig {
	v := jsontext.Value(data)
	if !v.IsValid() {
		var x any
		err := jsonv2.Unmarshal(data, &x)
		p.add("", "not valid JSON: %v", err)
		return nil
	}
	top := p.object("", v, "$schema", "responses", "routes", "security", "plainRoutes", "$defs")
	if top == nil {
		return nil
	}
	cfg := &RoutesConfig{}
	if s, ok := top["$schema"]; ok && s.Kind() != '"' {
		p.add("/$schema", "got %s, want a string", kindName(s.Kind()))
	}
	if d, ok := top["$defs"]; ok {
		if m := p.object("/$defs", d); m != nil {
			cfg.Defs = map[string]json.RawMessage{}
			for _, name := range slices.Sorted(maps.Keys(m)) {
				ptr := pointer("$defs", name)
				if p.schema(ptr, m[name]) {
					cfg.Defs[name] = json.RawMessage(m[name])
				}
			}
		}
	}
	if r, ok := top["responses"]; ok {
		cfg.Responses = p.responses("/responses", r)
	}
	if r, ok := top["security"]; ok {
		cfg.Security = p.security("/security", r)
	}
	if r, ok := top["plainRoutes"]; ok {
		cfg.PlainRoutes = p.plainRoutes(r)
	}
	if r, ok := top["routes"]; ok {
		if m := p.object("/routes", r); m != nil {
			cfg.Routes = map[string]*RouteScope{}
			for _, pat := range slices.Sorted(maps.Keys(m)) {
				ptr := pointer("routes", pat)
				if err := checkPattern(pat); err != nil {
					p.add(ptr, "pattern %q: %v", pat, err)
				}
				cfg.Routes[pat] = p.scope(ptr, m[pat])
			}
		}
	}
	if len(p.issues) == 0 {
		p.compile(data, cfg)
	}
	return cfg
}

func (p *configParser) scope(ptr string, v jsontext.Value) *RouteScope {
	m := p.object(ptr, v, "responses", "methods", "security")
	if m == nil {
		return nil
	}
	s := &RouteScope{}
	if r, ok := m["responses"]; ok {
		s.Responses = p.responses(ptr+"/responses", r)
	}
	if r, ok := m["security"]; ok {
		s.Security = p.security(ptr+"/security", r)
	}
	if ms, ok := m["methods"]; ok {
		if mm := p.object(ptr+"/methods", ms); mm != nil {
			s.Methods = map[string]*MethodScope{}
			for _, name := range slices.Sorted(maps.Keys(mm)) {
				mp := ptr + "/methods/" + EscapeToken(name)
				if !slices.Contains(routefile.Methods, name) {
					hint := ""
					if slices.Contains(routefile.Methods, strings.ToLower(name)) {
						hint = fmt.Sprintf(" (write it in lower case: %q)", strings.ToLower(name))
					}
					p.add(mp, "unknown method %q%s; want one of %s", name, hint, strings.Join(routefile.Methods, ", "))
					continue
				}
				if ent := p.object(mp, mm[name], "responses", "security"); ent != nil {
					ms := &MethodScope{}
					if r, ok := ent["responses"]; ok {
						ms.Responses = p.responses(mp+"/responses", r)
					}
					if r, ok := ent["security"]; ok {
						ms.Security = p.security(mp+"/security", r)
					}
					s.Methods[name] = ms
				}
			}
		}
	}
	return s
}

// security reads a list of security requirements: [{"bearer": ["scope"]}].
func (p *configParser) security(ptr string, v jsontext.Value) []SecurityRequirement {
	var out []SecurityRequirement
	if err := jsonv2.Unmarshal(v, &out); err != nil || out == nil {
		p.add(ptr, "want a list of security requirements such as [{\"bearer\": []}] (or [] for none)")
		return nil
	}
	return out
}

// SecurityFor returns the security requirement the configuration gives an
// operation whose contract declares none, and whether it gives one: the
// narrowest matching pattern's method entry, else its own, else a
// broader pattern's, else the app-wide one. method is any case,
// routePattern the route template in client form.
func (c *RoutesConfig) SecurityFor(method, routePattern string) ([]SecurityRequirement, bool) {
	method = strings.ToLower(method)
	sec, ok := c.Security, c.Security != nil
	for _, pat := range slices.SortedFunc(maps.Keys(c.Routes), patternOrder) {
		r := c.Routes[pat]
		if r == nil || !matchPattern(pat, routePattern) {
			continue
		}
		if r.Security != nil {
			sec, ok = r.Security, true
		}
		if ms := r.Methods[method]; ms != nil && ms.Security != nil {
			sec, ok = ms.Security, true
		}
	}
	return sec, ok
}

func (p *configParser) responses(ptr string, v jsontext.Value) map[string]*abi.Response {
	m := p.object(ptr, v)
	if m == nil {
		return nil
	}
	out := map[string]*abi.Response{}
	for _, status := range slices.Sorted(maps.Keys(m)) {
		sp := ptr + "/" + EscapeToken(status)
		if !validStatus(status) {
			p.add(sp, "status %q: want three digits from 100 to 599, such as \"404\"", status)
			continue
		}
		if r := p.response(sp, m[status]); r != nil {
			out[status] = r
		}
	}
	return out
}

// response decodes the contract's response shape (docs/spec.md §3).
func (p *configParser) response(ptr string, v jsontext.Value) *abi.Response {
	m := p.object(ptr, v, "description", "schema", "contentType", "media", "headers")
	if m == nil {
		return nil
	}
	r := &abi.Response{}
	if d, ok := m["description"]; ok {
		if jsonv2.Unmarshal(d, &r.Description) != nil {
			p.add(ptr+"/description", "got %s, want a string", kindName(d.Kind()))
		}
	}
	if s, ok := m["schema"]; ok && p.schema(ptr+"/schema", s) {
		r.Schema = json.RawMessage(s)
	}
	if ct, ok := m["contentType"]; ok {
		if jsonv2.Unmarshal(ct, &r.ContentType) != nil {
			p.add(ptr+"/contentType", "got %s, want a string", kindName(ct.Kind()))
		} else if !mediatype.IsJSON(r.ContentType) {
			p.add(ptr+"/contentType", "got %q, want application/json or application/<name>+json; list other media types in \"media\"", r.ContentType)
		}
	}
	if md, ok := m["media"]; ok {
		if jsonv2.Unmarshal(md, &r.Media) != nil {
			p.add(ptr+"/media", "got %s, want an array of media types, such as [\"image/png\"]", kindName(md.Kind()))
		} else if len(r.Media) == 0 {
			p.add(ptr+"/media", "is empty; want at least one media type, such as [\"image/png\"]")
		}
		seen := map[string]int{}
		for i, t := range r.Media {
			ip := fmt.Sprintf("%s/media/%d", ptr, i)
			canon, wild, err := mediatype.Parse(t)
			switch {
			case err != nil:
				p.add(ip, "%q is not a media type: %v", t, err)
			case wild:
				p.add(ip, "%q is a media range; a response declares the concrete types it sends, such as \"image/png\"", t)
			default:
				if first, dup := seen[canon]; dup {
					p.add(ip, "%q repeats item %d (media types are case-insensitive)", t, first)
				}
				seen[canon] = i
			}
		}
	}
	if _, ok := m["media"]; ok {
		if _, ok := m["contentType"]; ok {
			p.add(ptr, "has both \"media\" and \"contentType\"; a media response lists its types in \"media\" only, a JSON response names its +json type in \"contentType\"")
		}
	}
	if h, ok := m["headers"]; ok {
		if hm := p.object(ptr+"/headers", h); hm != nil {
			r.Headers = map[string]json.RawMessage{}
			for _, name := range slices.Sorted(maps.Keys(hm)) {
				if p.schema(ptr+"/headers/"+EscapeToken(name), hm[name]) {
					r.Headers[name] = json.RawMessage(hm[name])
				}
			}
		}
	}
	return r
}

// schema records the schema at ptr for compiling; it must be an object or a
// boolean.
func (p *configParser) schema(ptr string, v jsontext.Value) bool {
	if k := v.Kind(); k != '{' && k != 't' && k != 'f' {
		p.add(ptr, "got %s, want a JSON Schema (an object or a boolean)", kindName(k))
		return false
	}
	p.schemas = append(p.schemas, ptr)
	return true
}

// compile checks the references and compiles every schema against the
// whole file, so that "#/$defs/Name" resolves as it will for the host.
func (p *configParser) compile(data []byte, cfg *RoutesConfig) {
	for _, ptr := range p.schemas {
		raw, _ := lookupPointer(data, ptr)
		_, _ = rewriteRefs(json.RawMessage(raw), ptr, func(name, rp string) {
			if _, ok := cfg.Defs[name]; !ok {
				p.add(rp, "names %q, which is not an entry of \"$defs\"%s", defsPrefix+EscapeToken(name), defined(cfg.Defs))
			}
		})
	}
	if len(p.issues) > 0 {
		return
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		p.add("", "%v", err)
		return
	}
	const url = "file:///endpoints/routes.config.json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(url, doc); err != nil {
		p.add("", "%v", err)
		return
	}
	for _, ptr := range p.schemas {
		if _, err := c.Compile(url + "#" + ptr); err != nil {
			p.add(ptr, "not a valid JSON Schema 2020-12: %s", strings.ReplaceAll(err.Error(), url, p.file))
		}
	}
}

// defined lists the names of defs for an error message.
func defined(defs map[string]json.RawMessage) string {
	if len(defs) == 0 {
		return " (there is no \"$defs\")"
	}
	return "; defined: " + strings.Join(slices.Sorted(maps.Keys(defs)), ", ")
}

// CheckRoutePattern checks a pattern of route templates, as the routes
// configuration and middleware declarations write them: an exact
// template in client form ("/api/users/:id") or a prefix ending in "/**"
// ("/api/admin/**", "/**"). The error says what to change.
func CheckRoutePattern(pattern string) error { return checkPattern(pattern) }

// MatchRoutePattern reports whether pattern (see [CheckRoutePattern])
// matches a route template in client form.
func MatchRoutePattern(pattern, route string) bool { return matchPattern(pattern, route) }

// checkPattern checks a routes configuration pattern.
func checkPattern(pat string) error {
	if !strings.HasPrefix(pat, "/") {
		return fmt.Errorf("want a route template starting with \"/\", such as \"/api/users/:id\" or \"/api/admin/**\"")
	}
	if pat == "/" || pat == "/**" {
		return nil
	}
	body := strings.TrimSuffix(pat, "/**")
	if strings.HasSuffix(body, "/") {
		return fmt.Errorf("remove the trailing \"/\"")
	}
	for _, seg := range strings.Split(body[1:], "/") {
		switch {
		case seg == "":
			return fmt.Errorf("empty segment (\"//\")")
		case strings.Contains(seg, "*"):
			return fmt.Errorf("\"*\" may only end a pattern as \"/**\"")
		case strings.ContainsAny(seg, "{}"):
			return fmt.Errorf("write parameters in client form, \":name\", not \"{name}\"")
		case strings.ContainsAny(seg, "?#"):
			return fmt.Errorf("a pattern is a path, without query or fragment")
		case seg == ":":
			return fmt.Errorf("parameter without a name")
		}
	}
	return nil
}

// matchPattern reports whether pattern matches the client-form route
// template path.
func matchPattern(pattern, path string) bool {
	if base, ok := strings.CutSuffix(pattern, "/**"); ok {
		return path == base || strings.HasPrefix(path, base+"/") || base == ""
	}
	return pattern == path
}

// patternOrder sorts patterns from the broadest to the narrowest: prefixes
// by length, then exact templates; ties by name.
func patternOrder(a, b string) int {
	ap, bp := strings.HasSuffix(a, "/**"), strings.HasSuffix(b, "/**")
	switch {
	case ap && !bp:
		return -1
	case !ap && bp:
		return 1
	case ap && bp && len(a) != len(b):
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// declared is one response declaration of a routes configuration that
// applies to an operation.
type declared struct {
	status string
	resp   *abi.Response
	// ptr is the JSON pointer of the declaration in the file.
	ptr string
}

// declarations returns the declarations that apply to an operation in
// merge order: app-wide, then the responses of every matching pattern
// (broadest first), then the method entries of every matching pattern
// (broadest first); statuses sorted within each. It calls used for every
// pattern, and every pattern and method, that applies.
func (c *RoutesConfig) declarations(method, path string, used func(pattern, method string)) []declared {
	method = strings.ToLower(method)
	var out []declared
	add := func(ptr string, rs map[string]*abi.Response) {
		for _, st := range slices.Sorted(maps.Keys(rs)) {
			if rs[st] != nil {
				out = append(out, declared{status: st, resp: rs[st], ptr: ptr + "/" + EscapeToken(st)})
			}
		}
	}
	add("/responses", c.Responses)
	var matched []string
	for _, pat := range slices.SortedFunc(maps.Keys(c.Routes), patternOrder) {
		if c.Routes[pat] != nil && matchPattern(pat, path) {
			matched = append(matched, pat)
		}
	}
	for _, pat := range matched {
		if used != nil {
			used(pat, "")
		}
		add(pointer("routes", pat, "responses"), c.Routes[pat].Responses)
	}
	for _, pat := range matched {
		if ms := c.Routes[pat].Methods[method]; ms != nil {
			if used != nil {
				used(pat, method)
			}
			add(pointer("routes", pat, "methods", method, "responses"), ms.Responses)
		}
	}
	return out
}

// ResponsesFor returns the responses the configuration declares for one
// operation, merged, by status: method is the operation's method (any
// case), routePattern its route template in client form
// ("/api/users/:id"). The host treats them as declared by the contract
// when it checks answers; nil when nothing applies.
//
// Declarations of one status are merged in the order of [Build]: app-wide,
// then by pattern from the broadest to the narrowest, then per method. The
// first description wins, headers are united (the first schema of a name
// wins), and bodies combine:
//
//   - two JSON declarations of one content type: the schema becomes
//     {"anyOf": [first, second]}; if one of them has no schema, neither
//     does the result (any body is then accepted);
//   - anything else (media types, or JSON types that differ): a media
//     response listing every type, which the host does not validate.
//
// References "#/$defs/Name" in the returned schemas name entries of
// c.Defs. The returned values are fresh; changing them does not change c.
func (c *RoutesConfig) ResponsesFor(method, routePattern string) map[string]*abi.Response {
	decls := c.declarations(method, routePattern, nil)
	if len(decls) == 0 {
		return nil
	}
	out := map[string]*abi.Response{}
	for _, d := range decls {
		out[d.status] = mergeDeclared(out[d.status], d.resp)
	}
	return out
}

// mergeDeclared merges the later declaration b of a status into a (nil for
// none); see [RoutesConfig.ResponsesFor].
func mergeDeclared(a, b *abi.Response) *abi.Response {
	if a == nil {
		c := *b
		c.Media = slices.Clone(b.Media)
		c.Headers = maps.Clone(b.Headers)
		return &c
	}
	out := *a
	if out.Description == "" {
		out.Description = b.Description
	}
	for name, h := range b.Headers {
		if out.Headers == nil {
			out.Headers = map[string]json.RawMessage{}
		}
		if _, ok := out.Headers[name]; !ok {
			out.Headers[name] = h
		}
	}
	switch {
	case !a.IsMedia() && !b.IsMedia() && mediatype.Same(jsonTypeOf(a), jsonTypeOf(b)):
		if a.Schema == nil || b.Schema == nil {
			out.Schema = nil
		} else {
			out.Schema = anyOf([]json.RawMessage{a.Schema, b.Schema})
		}
	default:
		var media []string
		seen := map[string]bool{}
		for _, r := range []*abi.Response{a, b} {
			types := r.Media
			if !r.IsMedia() {
				types = []string{jsonTypeOf(r)}
			}
			for _, t := range types {
				if k, _, _ := mediatype.Parse(t); !seen[k] {
					seen[k] = true
					media = append(media, t)
				}
			}
		}
		out.Media, out.ContentType, out.Schema = media, "", nil
	}
	return &out
}

// jsonTypeOf is the media type of a JSON (non-media) response.
func jsonTypeOf(r *abi.Response) string {
	if r.ContentType != "" {
		return r.ContentType
	}
	return mediaJSON
}

// validStatus reports whether s is a status key: three digits, 100-599.
func validStatus(s string) bool {
	if len(s) != 3 {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s >= "100" && s <= "599"
}

// lookupPointer returns the value at a JSON pointer in data.
func lookupPointer(data []byte, ptr string) (jsontext.Value, bool) {
	cur := jsontext.Value(data)
	if ptr == "" {
		return cur, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescapeToken(tok)
		switch cur.Kind() {
		case '{':
			var m map[string]jsontext.Value
			if jsonv2.Unmarshal(cur, &m) != nil {
				return nil, false
			}
			next, ok := m[tok]
			if !ok {
				return nil, false
			}
			cur = next
		case '[':
			var a []jsontext.Value
			i, err := strconv.Atoi(tok)
			if jsonv2.Unmarshal(cur, &a) != nil || err != nil || i < 0 || i >= len(a) {
				return nil, false
			}
			cur = a[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// noLoader resolves every reference outside the document to the schema
// true: such references are not followed, only local ones are checked.
type noLoader struct{}

func (noLoader) Load(string) (any, error) { return true, nil }
