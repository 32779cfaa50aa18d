package openapi

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// PlainRoute is the meta of the plain routes at one route template (the
// route modules that export no contract): what the document says of
// them, since no contract does (docs/spec.md §9). It is
// an entry of the "plainRoutes" member of the routes configuration, keyed
// by the exact route template in client form:
//
//	"plainRoutes": {
//	  "/feed.xml": {
//	    "summary": "The blog's RSS feed", "tags": ["blog"],
//	    "responses": {"200": {"description": "The feed", "media": ["application/rss+xml"]}}
//	  },
//	  "/hooks/:source": {"methods": {"post": {"summary": "A webhook"}}}
//	}
//
// # Notes
//
//   - Nothing here is checked at run time: the module still gets the raw
//     request and answers as it likes. The responses document; the
//     document keeps "default" beside them.
//   - Methods chooses the methods a module without a method suffix is
//     documented with. Each must be served by a plain module of the
//     route: a module with a suffix serves only that method.
type PlainRoute struct {
	// Summary replaces the default summary ("Plain route FILE").
	Summary string `json:"summary,omitempty"`
	// Description is the operations' CommonMark description; none when
	// empty.
	Description string `json:"description,omitempty"`
	// Tags are the operations' tags; none when empty.
	Tags []string `json:"tags,omitempty"`
	// Deprecated marks the operations deprecated.
	Deprecated bool `json:"deprecated,omitempty"`
	// Responses are documented by status, in the contract's response
	// shape (docs/spec.md §3).
	Responses map[string]*abi.Response `json:"responses,omitempty"`
	// Methods maps a lower-case method to its own meta, whose members win
	// over the route's (responses merge, the method's winning by status).
	Methods map[string]*PlainMethod `json:"methods,omitempty"`
}

// PlainMethod is the meta of one method of a plain route, in
// [PlainRoute.Methods]. Its members are those of PlainRoute; a set one
// wins over the route's, and Responses merge with the route's, this
// method's winning by status.
type PlainMethod struct {
	// Summary replaces the route's summary.
	Summary string `json:"summary,omitempty"`
	// Description replaces the route's description.
	Description string `json:"description,omitempty"`
	// Tags replace the route's tags.
	Tags []string `json:"tags,omitempty"`
	// Deprecated marks this method's operation deprecated.
	Deprecated bool `json:"deprecated,omitempty"`
	// Responses are documented by status, as [PlainRoute.Responses].
	Responses map[string]*abi.Response `json:"responses,omitempty"`
}

// PlainExtension marks an operation of a plain route: "x-endpoints-plain":
// true. The host validates nothing of its requests and checks none of its
// answers; generated clients leave it out.
const PlainExtension = "x-endpoints-plain"

// plainResponse is the "default" response of every plain operation.
const plainResponse = "Not checked: the module answers the raw request as it likes"

// plainRoutes reads the "plainRoutes" member of a routes configuration.
func (p *configParser) plainRoutes(v jsontext.Value) map[string]*PlainRoute {
	m := p.object("/plainRoutes", v)
	if m == nil {
		return nil
	}
	out := map[string]*PlainRoute{}
	for _, pat := range slices.Sorted(maps.Keys(m)) {
		ptr := pointer("plainRoutes", pat)
		switch err := checkPattern(pat); {
		case err != nil:
			p.add(ptr, "route %q: %v", pat, err)
		case strings.HasSuffix(pat, "**"):
			p.add(ptr, "route %q: a plain route's meta names one route template, such as \"/feed.xml\" or \"/hooks/:source\"; \"/**\" patterns are for \"routes\"", pat)
		}
		ent := p.object(ptr, m[pat], "summary", "description", "tags", "deprecated", "responses", "methods")
		if ent == nil {
			continue
		}
		r := &PlainRoute{}
		p.meta(ptr, ent, &r.Summary, &r.Description, &r.Tags, &r.Deprecated, &r.Responses)
		if ms, ok := ent["methods"]; ok {
			if mm := p.object(ptr+"/methods", ms); mm != nil {
				r.Methods = map[string]*PlainMethod{}
				for _, name := range slices.Sorted(maps.Keys(mm)) {
					mp := ptr + "/methods/" + EscapeToken(name)
					if !slices.Contains(routefile.Methods, name) {
						p.add(mp, "unknown method %q; want one of %s, in lower case", name, strings.Join(routefile.Methods, ", "))
						continue
					}
					if me := p.object(mp, mm[name], "summary", "description", "tags", "deprecated", "responses"); me != nil {
						pm := &PlainMethod{}
						p.meta(mp, me, &pm.Summary, &pm.Description, &pm.Tags, &pm.Deprecated, &pm.Responses)
						r.Methods[name] = pm
					}
				}
			}
		}
		out[pat] = r
	}
	return out
}

// meta reads the members a plain route and its methods share.
func (p *configParser) meta(ptr string, m map[string]jsontext.Value, summary, description *string, tags *[]string, deprecated *bool, responses *map[string]*abi.Response) {
	for _, f := range []struct {
		name string
		into *string
	}{{"summary", summary}, {"description", description}} {
		if v, ok := m[f.name]; ok && jsonv2.Unmarshal(v, f.into) != nil {
			p.add(ptr+"/"+f.name, "got %s, want a string", kindName(v.Kind()))
		}
	}
	if v, ok := m["tags"]; ok && jsonv2.Unmarshal(v, tags) != nil {
		p.add(ptr+"/tags", "got %s, want an array of strings, such as [\"blog\"]", kindName(v.Kind()))
	}
	if v, ok := m["deprecated"]; ok && jsonv2.Unmarshal(v, deprecated) != nil {
		p.add(ptr+"/deprecated", "got %s, want true or false", kindName(v.Kind()))
	}
	if v, ok := m["responses"]; ok {
		*responses = p.responses(ptr+"/responses", v)
	}
}

// plainMethods lists the lower-case methods a plain operation is
// documented with: those its meta names, else its own method, else GET
// when it serves GET, else every method it serves but HEAD and OPTIONS.
func (b *builder) plainMethods(op *Route, meta *PlainRoute) []string {
	serves := []string{strings.ToLower(op.Method)}
	if op.Method == "" {
		serves = serves[:0]
		for _, m := range slices.SortedFunc(slices.Values(op.Serves), func(a, b string) int { return methodRank(a) - methodRank(b) }) {
			if m = strings.ToLower(m); !slices.Contains(serves, m) {
				serves = append(serves, m)
			}
		}
	}
	if meta != nil && len(meta.Methods) > 0 {
		// A method this module does not serve may be another plain
		// module's at the same route; checkPlainRoutes reports one that no
		// module serves.
		client := ClientPath(op.Path)
		var out []string
		for _, m := range slices.Sorted(maps.Keys(meta.Methods)) {
			if slices.Contains(serves, m) {
				out = append(out, m)
				b.used["plain "+client+" "+m] = true
			}
		}
		b.plainServes[client] = append(b.plainServes[client], op.File+" ("+strings.ToUpper(strings.Join(serves, ", "))+")")
		return out
	}
	if op.Method != "" || slices.Contains(serves, "get") {
		return serves[:1:1]
	}
	return slices.DeleteFunc(serves, func(m string) bool { return m == "head" || m == "options" })
}

// plainOperation adds the operations of one plain route.
func (b *builder) plainOperation(op *Route, cfg *RoutesConfig, cfgSrc *source) {
	if !strings.HasPrefix(op.Path, "/") {
		b.errorf("%s: path %q: want an OpenAPI path template starting with \"/\"", op.File, op.Path)
		return
	}
	if op.Method == "" && len(op.Serves) == 0 {
		return // every method is another module's
	}
	var meta *PlainRoute
	client := ClientPath(op.Path)
	if cfg != nil {
		if meta = cfg.PlainRoutes[client]; meta != nil {
			b.used["plain "+client] = true
		}
	}
	for _, m := range b.plainMethods(op, meta) {
		b.plainMethod(op, strings.ToUpper(m), meta, cfgSrc)
	}
}

// plainMethod adds one method of a plain route.
func (b *builder) plainMethod(op *Route, method string, meta *PlainRoute, cfgSrc *source) {
	item := b.doc.Paths[op.Path]
	if item == nil {
		item = &PathItem{}
	}
	var slot **Operation
	for _, m := range item.methods() {
		if m.name == strings.ToLower(method) {
			slot = m.op
		}
	}
	if slot == nil {
		b.errorf("%s: method %q: want one of %s", op.File, method, strings.ToUpper(strings.Join(methodOrder, ", ")))
		return
	}
	key := method + " " + op.Path
	if prev, ok := b.opFiles[key]; ok {
		b.errorf("%s is declared by both %s and %s: %w", key, prev, op.File, ErrDuplicateOperation)
		return
	}
	b.opFiles[key] = op.File
	out := &Operation{
		OperationID: OperationID(method, op.Path),
		Summary:     "Plain route " + op.File,
		Security:    []SecurityRequirement{},
		Extra:       map[string]json.RawMessage{PlainExtension: json.RawMessage("true")},
	}
	if prev, ok := b.opIDs[out.OperationID]; ok {
		b.errorf("operationId %q of %s is also the operationId of %s; rename a route: %w",
			out.OperationID, opName(method, op.Path, op.File), prev, ErrDuplicateOperationID)
		return
	}
	b.opIDs[out.OperationID] = opName(method, op.Path, op.File)
	for _, name := range templateParams(op.Path) {
		out.Parameters = append(out.Parameters, &Parameter{Name: name, In: "path", Required: true, Schema: slices.Clone(stringSchema)})
	}
	rs := newResponseSet()
	if meta != nil {
		responses := maps.Clone(meta.Responses)
		out.Summary = cmp.Or(meta.Summary, out.Summary)
		out.Description, out.Tags, out.Deprecated = meta.Description, slices.Clone(meta.Tags), meta.Deprecated
		ptr := map[string]string{}
		for st := range meta.Responses {
			ptr[st] = pointer("plainRoutes", ClientPath(op.Path), "responses", st)
		}
		if pm := meta.Methods[strings.ToLower(method)]; pm != nil {
			out.Summary = cmp.Or(pm.Summary, out.Summary)
			out.Description = cmp.Or(pm.Description, out.Description)
			if pm.Tags != nil {
				out.Tags = slices.Clone(pm.Tags)
			}
			out.Deprecated = out.Deprecated || pm.Deprecated
			if responses == nil && pm.Responses != nil {
				responses = map[string]*abi.Response{}
			}
			for st, r := range pm.Responses {
				responses[st] = r
				ptr[st] = pointer("plainRoutes", ClientPath(op.Path), "methods", strings.ToLower(method), "responses", st)
			}
		}
		for _, st := range slices.Sorted(maps.Keys(responses)) {
			if r := responses[st]; r != nil {
				b.addDeclared(rs, cfgSrc, ptr[st], st, r)
			}
		}
	}
	for _, t := range out.Tags {
		b.tags[t] = true
	}
	declared := map[string]bool{}
	for status := range rs.byStatus {
		declared[status] = true
	}
	refer := b.addHostWide(rs, declared)
	out.Responses = rs.responses(b.spec)
	b.referHostWide(out.Responses, refer)
	out.Responses["default"] = &Response{Description: plainResponse}
	*slot = out
	b.doc.Paths[op.Path] = item
}

// checkPlainRoutes reports the entries of "plainRoutes" that name no plain
// route of the document.
func (b *builder) checkPlainRoutes(cfg *RoutesConfig) {
	for _, pat := range slices.Sorted(maps.Keys(cfg.PlainRoutes)) {
		if !b.used["plain "+pat] {
			b.unmatched("%s: %s: %q is not a plain route in the document (a route with a contract declares its meta there; a catch-all route is not documented): %w",
				cfg.File, pointer("plainRoutes", pat), pat, ErrUnmatchedPattern)
			continue
		}
		for _, m := range slices.Sorted(maps.Keys(cfg.PlainRoutes[pat].Methods)) {
			if !b.used["plain "+pat+" "+m] {
				servers := slices.Sorted(slices.Values(b.plainServes[pat]))
				b.unmatched("%s: %s: no plain module of %s serves %s; %s: %s: %w", cfg.File, pointer("plainRoutes", pat, "methods", m),
					pat, strings.ToUpper(m), plural(len(servers)), strings.Join(servers, ", "), ErrUnmatchedPattern)
			}
		}
	}
}

// plural names the modules of a route in an error.
func plural(n int) string {
	if n == 1 {
		return "its module is"
	}
	return "its modules are"
}
