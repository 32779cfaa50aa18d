package openapi

import (
	"bytes"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// DocumentError lists every problem [Document.Validate] found, each with the
// JSON pointer of the member at fault:
//
//	openapi: /paths/~1api~1users~1{id}/get/parameters: the path parameter "id" is not declared; ...
type DocumentError struct {
	// Issues are the problems, sorted by pointer.
	Issues []Issue
}

// Error lists the issues, one a line.
func (e *DocumentError) Error() string {
	var b strings.Builder
	for i, is := range e.Issues {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("openapi: ")
		if is.Pointer != "" {
			b.WriteString(is.Pointer + ": ")
		}
		b.WriteString(is.Message)
	}
	return b.String()
}

// Validate checks the rules of OpenAPI 3.1 that a generated or merged
// document can break, and returns a [*DocumentError] listing every problem,
// or nil:
//
//   - "openapi" is a 3.1 or 3.2 version, info has a title and a version
//     (https://spec.openapis.org/oas/v3.1.0#openapi-object), and
//     "itemSchema" appears only in a 3.2 document;
//   - every path starts with "/" (#paths-object);
//   - every "{name}" of a path template has a required path parameter of
//     that name, on the operation or its path item, and every path
//     parameter appears in the template (#parameter-object, "name" and
//     "required");
//   - parameters are unique by name and location (#operation-object);
//   - every operation has at least one response, every response a
//     description (#responses-object, #response-object);
//   - operationIds are unique (#operation-object);
//   - every "$ref" to a location in the document ("#/...") resolves;
//   - every schema compiles as JSON Schema 2020-12, its references
//     resolved in the document (#schema-object).
//
// For example:
//
//	if err := doc.Validate(); err != nil {
//		log.Fatal(err)
//	}
//
// # Notes
//
//   - References to other documents are not followed.
//   - Validate is no substitute for a linter (Spectral, Redocly): it checks
//     what makes a document wrong, not what makes it poor.
func (d *Document) Validate() error {
	v := &validator{}
	v.document(d)
	raw, err := jsonv2.Marshal(d, jsonv2.Deterministic(true))
	if err != nil {
		v.add("", "does not encode: %v", err)
	} else {
		v.refsAndSchemas(raw)
	}
	if len(v.issues) == 0 {
		return nil
	}
	slices.SortStableFunc(v.issues, func(a, b Issue) int { return strings.Compare(a.Pointer, b.Pointer) })
	return &DocumentError{Issues: v.issues}
}

type validator struct {
	issues []Issue
	// schemas are the pointers of every schema of the document.
	schemas []string
	opIDs   map[string]string
	doc     *Document
}

func (v *validator) add(ptr, format string, args ...any) {
	v.issues = append(v.issues, Issue{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

func (v *validator) document(d *Document) {
	v.doc, v.opIDs = d, map[string]string{}
	if !strings.HasPrefix(d.OpenAPI, "3.1.") && !strings.HasPrefix(d.OpenAPI, "3.2.") {
		v.add("/openapi", "got %q, want an OpenAPI 3.1 or 3.2 version such as %q or %q", d.OpenAPI, Version31, Version32)
	}
	if d.Info.Title == "" {
		v.add("/info/title", "is required")
	}
	if d.Info.Version == "" {
		v.add("/info/version", "is required")
	}
	if d.Paths == nil && d.Components == nil && d.Webhooks == nil {
		v.add("", "a document needs paths, components or webhooks")
	}
	for _, p := range slices.Sorted(maps.Keys(d.Paths)) {
		ptr := pointer("paths", p)
		if !strings.HasPrefix(p, "/") {
			v.add(ptr, "a path must start with \"/\"")
		}
		v.pathItem(ptr, p, d.Paths[p])
	}
	for _, n := range slices.Sorted(maps.Keys(d.Webhooks)) {
		v.pathItem(pointer("webhooks", n), "", d.Webhooks[n])
	}
	if c := d.Components; c != nil {
		for _, n := range slices.Sorted(maps.Keys(c.Schemas)) {
			v.schemas = append(v.schemas, pointer("components", "schemas", n))
		}
		for _, n := range slices.Sorted(maps.Keys(c.Parameters)) {
			v.parameter(pointer("components", "parameters", n), c.Parameters[n])
		}
		for _, n := range slices.Sorted(maps.Keys(c.Headers)) {
			v.header(pointer("components", "headers", n), c.Headers[n])
		}
		for _, n := range slices.Sorted(maps.Keys(c.Responses)) {
			v.response(pointer("components", "responses", n), c.Responses[n])
		}
		for _, n := range slices.Sorted(maps.Keys(c.RequestBodies)) {
			if rb := c.RequestBodies[n]; rb != nil {
				v.content(pointer("components", "requestBodies", n, "content"), rb.Content)
			}
		}
		for _, n := range slices.Sorted(maps.Keys(c.PathItems)) {
			v.pathItem(pointer("components", "pathItems", n), "", c.PathItems[n])
		}
	}
}

// pathItem checks a path item; template is its path ("" for webhooks and
// components, which have no template).
func (v *validator) pathItem(ptr, template string, item *PathItem) {
	if item == nil {
		return
	}
	for i, p := range item.Parameters {
		v.parameter(fmt.Sprintf("%s/parameters/%d", ptr, i), p)
	}
	names := templateParams(template)
	for _, m := range item.methods() {
		op := *m.op
		if op == nil {
			continue
		}
		optr := ptr + "/" + m.name
		if op.OperationID != "" {
			if prev, ok := v.opIDs[op.OperationID]; ok {
				v.add(optr+"/operationId", "%q is also the operationId of %s; operationIds must be unique", op.OperationID, prev)
			} else {
				v.opIDs[op.OperationID] = optr
			}
		}
		seen := map[string]bool{}
		pathParams := map[string]bool{}
		for i, p := range op.Parameters {
			pp := fmt.Sprintf("%s/parameters/%d", optr, i)
			v.parameter(pp, p)
			r := v.resolveParameter(p)
			if r == nil {
				continue
			}
			key := r.In + " " + r.Name
			if seen[key] {
				v.add(pp, "%s parameter %q is declared twice", r.In, r.Name)
			}
			seen[key] = true
			if r.In == "path" {
				pathParams[r.Name] = true
			}
		}
		for _, p := range item.Parameters {
			if r := v.resolveParameter(p); r != nil && r.In == "path" && !seen[r.In+" "+r.Name] {
				pathParams[r.Name] = true
			}
		}
		if template != "" {
			for _, n := range names {
				if !pathParams[n] {
					v.add(optr+"/parameters", "the path parameter %q of %s is not declared; want {\"name\": %q, \"in\": \"path\", \"required\": true}", n, template, n)
				}
			}
			for _, n := range slices.Sorted(maps.Keys(pathParams)) {
				if !slices.Contains(names, n) {
					v.add(optr+"/parameters", "path parameter %q is not in the template %s", n, template)
				}
			}
		}
		if op.RequestBody != nil {
			v.content(optr+"/requestBody/content", op.RequestBody.Content)
		}
		if len(op.Responses) == 0 {
			v.add(optr+"/responses", "an operation needs at least one response")
		}
		for _, st := range slices.Sorted(maps.Keys(op.Responses)) {
			v.response(optr+"/responses/"+EscapeToken(st), op.Responses[st])
		}
	}
}

// resolveParameter follows a reference to components/parameters; nil when
// it does not resolve (reported with the other references).
func (v *validator) resolveParameter(p *Parameter) *Parameter {
	for range 16 {
		if p == nil || p.Ref == "" {
			return p
		}
		name, ok := strings.CutPrefix(p.Ref, "#/components/parameters/")
		if !ok || v.doc.Components == nil {
			return nil
		}
		p = v.doc.Components.Parameters[unescapeToken(name)]
	}
	return nil
}

func (v *validator) parameter(ptr string, p *Parameter) {
	if p == nil || p.Ref != "" {
		return
	}
	if p.Name == "" {
		v.add(ptr+"/name", "is required")
	}
	switch p.In {
	case "path":
		if !p.Required {
			v.add(ptr+"/required", "a path parameter must be required")
		}
	case "query", "header", "cookie":
	default:
		v.add(ptr+"/in", "got %q, want path, query, header or cookie", p.In)
	}
	if p.Schema != nil {
		v.schemas = append(v.schemas, ptr+"/schema")
	}
	v.content(ptr+"/content", p.Content)
}

func (v *validator) header(ptr string, h *Header) {
	if h == nil || h.Ref != "" {
		return
	}
	if h.Schema != nil {
		v.schemas = append(v.schemas, ptr+"/schema")
	}
	v.content(ptr+"/content", h.Content)
}

func (v *validator) response(ptr string, r *Response) {
	if r == nil || r.Ref != "" {
		return
	}
	if r.Description == "" {
		v.add(ptr+"/description", "is required")
	}
	for _, n := range slices.Sorted(maps.Keys(r.Headers)) {
		v.header(ptr+"/headers/"+EscapeToken(n), r.Headers[n])
	}
	v.content(ptr+"/content", r.Content)
}

func (v *validator) content(ptr string, c map[string]*MediaType) {
	for _, mt := range slices.Sorted(maps.Keys(c)) {
		m := c[mt]
		if m == nil {
			continue
		}
		if m.Schema != nil {
			v.schemas = append(v.schemas, ptr+"/"+EscapeToken(mt)+"/schema")
		}
		if m.ItemSchema != nil {
			if !strings.HasPrefix(v.doc.OpenAPI, "3.2.") {
				v.add(ptr+"/"+EscapeToken(mt)+"/itemSchema", "is OpenAPI 3.2; a %s document carries the item schema in %q", v.doc.OpenAPI, ItemSchemaExtension)
			}
			v.schemas = append(v.schemas, ptr+"/"+EscapeToken(mt)+"/itemSchema")
		}
		if _, ok := m.Extra[ItemSchemaExtension]; ok {
			v.schemas = append(v.schemas, ptr+"/"+EscapeToken(mt)+"/"+EscapeToken(ItemSchemaExtension))
		}
	}
}

// refsAndSchemas checks the local references of the encoded document and
// compiles its schemas.
func (v *validator) refsAndSchemas(raw []byte) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		v.add("", "does not decode: %v", err)
		return
	}
	before := len(v.issues)
	v.refs("", doc, doc)
	if len(v.issues) > before {
		return // a dangling reference would fail every schema that uses it
	}
	v.compile(doc)
}

// compile compiles every schema of doc as JSON Schema 2020-12.
//
// The compiler resolves a location that is not a known subschema of its
// resource by copying the resource's index, which makes compiling every
// schema of a large document where it stands quadratic. So the schemas are
// moved into one synthetic schema, under $defs, with their references
// redirected: components/schemas to "#/$defs/c/$defs/Name", other local
// locations (whose existence refs checked) to a schema that accepts
// anything.
func (v *validator) compile(doc any) {
	const docURL = "file:///endpoints/openapi.json"
	const compPrefix = "#/$defs/c/$defs/"
	components := map[string]any{}
	inline := map[string]any{}
	for i, ptr := range v.schemas {
		s, _ := lookupAny(doc, ptr)
		if name, ok := strings.CutPrefix(ptr, "/components/schemas/"); ok {
			components[unescapeToken(name)] = s
		} else {
			inline[strconv.Itoa(i)] = s
		}
	}
	var redirect func(node any)
	redirect = func(node any) {
		switch n := node.(type) {
		case map[string]any:
			if _, ok := n["$id"]; ok {
				return // a resource of its own: "#" is that schema
			}
			if ref, ok := n["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
				if rest, ok := strings.CutPrefix(ref, componentPrefix); ok {
					n["$ref"] = compPrefix + rest
				} else {
					n["$ref"] = "#/$defs/any"
				}
			}
			for _, e := range n {
				redirect(e)
			}
		case []any:
			for _, e := range n {
				redirect(e)
			}
		}
	}
	root := map[string]any{"$defs": map[string]any{
		"c":   map[string]any{"$defs": components},
		"i":   map[string]any{"$defs": inline},
		"any": true,
	}}
	redirect(root)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(docURL, root); err != nil {
		v.add("", "%v", err)
		return
	}
	for i, ptr := range v.schemas {
		loc := "#/$defs/i/$defs/" + strconv.Itoa(i)
		if name, ok := strings.CutPrefix(ptr, "/components/schemas/"); ok {
			loc = compPrefix + fragment("/" + name)[1:]
		}
		if _, err := c.Compile(docURL + loc); err != nil {
			msg := strings.ReplaceAll(err.Error(), docURL+loc, "document#"+ptr)
			msg = strings.ReplaceAll(msg, docURL+compPrefix, "document#/components/schemas/")
			v.add(ptr, "not a valid JSON Schema 2020-12: %s", msg)
		}
	}
}

// lookupAny resolves a JSON pointer in a decoded document.
func lookupAny(root any, ptr string) (any, bool) {
	cur := root
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok = unescapeToken(tok)
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// refs checks every "$ref": "#..." under node at ptr. A subschema with
// "$id" starts a resource of its own and is skipped.
func (v *validator) refs(ptr string, node, root any) {
	switch n := node.(type) {
	case map[string]any:
		if _, ok := n["$id"]; ok && ptr != "" {
			return
		}
		if ref, ok := n["$ref"].(string); ok && strings.HasPrefix(ref, "#/") {
			frag, err := url.PathUnescape(ref[1:])
			if err != nil || !resolves(root, frag) {
				v.add(ptr+"/$ref", "%q does not resolve in the document", ref)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(n)) {
			v.refs(ptr+"/"+EscapeToken(k), n[k], root)
		}
	case []any:
		for i, e := range n {
			v.refs(ptr+"/"+strconv.Itoa(i), e, root)
		}
	}
}

// resolves reports whether the JSON pointer ptr names a value in root.
func resolves(root any, ptr string) bool {
	_, ok := lookupAny(root, ptr)
	return ok
}

// fragment percent-encodes a JSON pointer for use as a URI fragment.
func fragment(ptr string) string {
	toks := strings.Split(ptr, "/")
	for i, t := range toks {
		toks[i] = url.PathEscape(t)
	}
	return strings.Join(toks, "/")
}
