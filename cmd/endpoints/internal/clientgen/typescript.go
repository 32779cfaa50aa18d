package clientgen

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/wasmendpoints/endpoints/openapi"
)

// TSOptions configure [TypeScript].
type TSOptions struct {
	// Vue adds useEndpoint, a Vue 3 composable, to the client; the module
	// then imports "vue". Defaults to false: the module imports nothing.
	Vue bool
}

// TypeScript generates a typed client of the app as one TypeScript module
// (ES2022, clean under tsc --strict; it needs the DOM library's fetch
// types, or Node's). Without TSOptions.Vue it imports nothing. The module
// exports a type per named schema and createClient:
//
//	import { createClient } from "./client";
//	const api = createClient({ baseUrl: "http://127.0.0.1:3000" });
//	const res = await api.$endpoint("/api/users/:id", { params: { id: 1 } });
//	if (res.status === 200) console.log(res.body.name); // body: User
//	else if (res.status === 404) console.log(res.body.message); // body: NotFound
//
// $endpoint(path, options) takes a route in its client form (:param) and
// options typed for that route's operation: method (GET when left out,
// or the path's only method), params (each typed from its schema,
// encoded with encodeURIComponent), query (required when a parameter is;
// an array repeats its key), headers (declared ones typed; any other
// allowed),
// body (the JSON body's type; for a form, that object or URLSearchParams;
// for multipart/form-data, that object with Blob for file fields or
// FormData; for other media types string, Blob or bytes; body?: never
// when the operation takes none), contentType (to choose among several
// body media types; the JSON one is the default), accept (when the 2xx
// answers come in several media types), idempotencyKey and signal. It
// returns an EndpointRequest: awaiting it gives a union of
// EndpointResponse, one member per declared status and media type (the
// framework's 400/406/415 and the Idempotency-Key answers included), so
// checking status narrows body: JSON is parsed, text/event-stream is an
// AsyncIterable of each event's data (JSON), other media are a
// ReadableStream<Uint8Array>, and an answer without content is undefined.
//
// # Notes
//
//   - A declared status is a result, whatever it is (a 404 too); a
//     transport failure rejects with fetch's error, and an undeclared
//     status or media type rejects with an EndpointUnexpectedResponse
//     that carries the status, headers and body. A union member for
//     "any other status" would stop status checks from narrowing.
//   - The request is sent when it is first awaited or when raw() is
//     called; raw() gives the native Response, and a request is read only
//     one way (the other rejects).
//   - An endpoint that requires an Idempotency-Key gets one from
//     crypto.randomUUID(), made once per request object; retry() gives a
//     new request with the same options and key. idempotencyKey: a string
//     sends that key, true makes one for an endpoint where it is optional,
//     false sends none; an Idempotency-Key in headers wins.
//   - Schemas become types as this package's typescript_schema.go says:
//     required properties stay required, enum and const become literal
//     unions, oneOf/anyOf unions, allOf intersections, ["T", "null"]
//     T | null, prefixItems tuples, $ref the named type, formats string.
//     additionalProperties false and absent both give the declared
//     properties only (TypeScript's object types are open; excess
//     property checks still catch typos in literals); a schema gives an
//     index signature.
//   - Type names are the schema names, made identifiers; a schema named
//     like a type the module declares or uses (Response, EndpointRequest,
//     an operation's XOptions or XResult...) gets "Schema" appended.
//   - With TSOptions.Vue, the client also has useEndpoint(path, options):
//     options as $endpoint's, where params, query, headers and body (and
//     each value of params and query) may be refs or getters; it returns
//     { data, error, pending, refresh } and sends again when one changes.
//   - The output depends only on the model: same model, same bytes.
func TypeScript(m *Model, opts TSOptions) ([]byte, error) {
	g, err := newTSGen(m, opts)
	if err != nil {
		return nil, err
	}
	if err := g.generate(); err != nil {
		return nil, err
	}
	return []byte(g.b.String()), nil
}

// tsGen writes one module.
type tsGen struct {
	m    *Model
	opts TSOptions
	s    tsSchemas
	// ops are the operations with their type names.
	ops []tsOperation
	// methods counts the operations of each path.
	methods map[string]int
	b       strings.Builder
}

// tsOperation is an operation and the names of its types.
type tsOperation struct {
	*Operation
	name string // GetApiUsersById: GetApiUsersByIdOptions, GetApiUsersByIdResult
}

// tsReserved are TypeScript's keywords and predefined type names: no
// schema type may take one.
var tsReserved = []string{
	"any", "as", "asserts", "async", "await", "bigint", "boolean", "break", "case", "catch", "class", "const",
	"continue", "debugger", "declare", "default", "delete", "do", "else", "enum", "export", "extends", "false",
	"finally", "for", "from", "function", "get", "if", "implements", "import", "in", "infer", "instanceof",
	"interface", "is", "keyof", "let", "module", "namespace", "never", "new", "null", "number", "object", "of",
	"package", "private", "protected", "public", "readonly", "require", "return", "satisfies", "set", "static",
	"string", "super", "switch", "symbol", "this", "throw", "true", "try", "type", "typeof", "undefined",
	"unique", "unknown", "var", "void", "while", "with", "yield",
}

func newTSGen(m *Model, opts TSOptions) (*tsGen, error) {
	g := &tsGen{m: m, opts: opts, methods: map[string]int{}}
	taken := map[string]string{}
	for _, n := range tsReserved {
		taken[n] = "a TypeScript keyword"
	}
	for _, n := range tsRuntimeNames {
		taken[n] = "a name the module uses"
	}
	for i := range m.Operations {
		op := &m.Operations[i]
		name := tsPascalIdentifier(op.OperationID)
		if name == "" {
			name = tsPascalIdentifier(strings.ToLower(op.Method) + " " + op.Path)
		}
		for _, suffix := range []string{"Options", "Result"} {
			if other, ok := taken[name+suffix]; ok {
				return nil, fmt.Errorf("clientgen: %s %s: its type %s%s is already %s; give it another operationId", op.Method, op.Path, name, suffix, other)
			}
			taken[name+suffix] = "a type of " + op.Method + " " + op.Path
		}
		g.ops = append(g.ops, tsOperation{Operation: op, name: name})
		g.methods[op.Path]++
	}
	g.s = tsSchemas{names: map[string]string{}, schemas: map[string]any{}}
	for _, name := range slices.Sorted(maps.Keys(m.Schemas)) {
		id := tsIdentifier(name)
		for taken[id] != "" {
			id += "Schema"
		}
		taken[id] = "the type of schema " + name
		g.s.names[name] = id
		s, err := tsDecodeSchema(m.Schemas[name])
		if err != nil {
			return nil, fmt.Errorf("clientgen: components/schemas/%s: %w", name, err)
		}
		g.s.schemas[name] = s
	}
	return g, nil
}

// tsIdentifier makes a schema name an identifier: characters an identifier
// cannot hold become "_", and a leading digit gets one before it.
func tsIdentifier(name string) string {
	var b strings.Builder
	for i, r := range name {
		switch {
		case r == '_' || r == '$' || r < unicode.MaxASCII && unicode.IsLetter(r):
			b.WriteRune(r)
		case r < unicode.MaxASCII && unicode.IsDigit(r):
			if i == 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// tsPascalIdentifier makes words an identifier in PascalCase: getApiUsers →
// GetApiUsers, "get /api/users/:id" → GetApiUsersId.
func tsPascalIdentifier(words string) string {
	var b strings.Builder
	upper := true
	for _, r := range words {
		if r >= unicode.MaxASCII || !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			upper = true
			continue
		}
		if b.Len() == 0 && unicode.IsDigit(r) {
			b.WriteByte('_')
		}
		if upper {
			r = unicode.ToUpper(r)
			upper = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (g *tsGen) p(format string, args ...any) {
	fmt.Fprintf(&g.b, format, args...)
}

func (g *tsGen) generate() error {
	g.header()
	g.p("%s\n", tsPublicTypes)
	if g.opts.Vue {
		g.p("%s\n", tsVuePublicTypes)
	}
	if err := g.schemas(); err != nil {
		return err
	}
	for _, op := range g.ops {
		if err := g.operation(op); err != nil {
			return fmt.Errorf("clientgen: %s %s: %w", op.Method, op.Path, err)
		}
	}
	g.client()
	g.table()
	g.p("%s", tsRuntime)
	if g.opts.Vue {
		g.p("\n%s", tsVueRuntime)
	}
	return nil
}

func (g *tsGen) header() {
	title := strings.TrimSpace(g.m.Title + " " + g.m.Version)
	if title == "" {
		title = "The app"
	}
	g.p("// Code generated by endpoints client --lang ts; DO NOT EDIT.\n")
	g.p("//\n")
	g.p("// %s: a typed client of every endpoint, from the contracts the host\n", tsOneLine(title))
	g.p("// validates and documents. Checking status narrows body:\n")
	g.p("//\n")
	g.p("//   const api = createClient({ baseUrl: \"http://127.0.0.1:3000\" });\n")
	if len(g.ops) > 0 {
		op := g.ops[0]
		g.p("//   const res = await api.$endpoint(%s%s);\n", tsJsString(op.Path), tsExampleOptions(op, g.methods[op.Path]))
		g.p("//   if (res.ok) console.log(res.status, res.body);\n")
	}
	g.p("//\n")
	g.p("// A request is sent when awaited, or by raw() for the native Response.\n")
	g.p("// An undeclared status rejects with EndpointUnexpectedResponse.\n\n")
	if g.opts.Vue {
		g.p("import { getCurrentScope, onScopeDispose, ref, shallowRef, toValue, watch } from \"vue\";\n")
		g.p("import type { MaybeRefOrGetter, Ref, ShallowRef } from \"vue\";\n\n")
	}
}

// tsExampleOptions are the options of a call to op in the header's example.
func tsExampleOptions(op tsOperation, methods int) string {
	var parts []string
	if methods > 1 && op.Method != "GET" {
		parts = append(parts, "method: "+tsJsString(op.Method))
	}
	if len(op.Params) > 0 {
		var ps []string
		for _, p := range op.Params {
			ps = append(ps, tsPropertyKey(p.Name)+": 1")
		}
		parts = append(parts, "params: { "+strings.Join(ps, ", ")+" }")
	}
	if len(parts) == 0 {
		return ""
	}
	return ", { " + strings.Join(parts, ", ") + " }"
}

func tsOneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// tsListItem is a description as the text of an item of a doc comment's
// list: one line, or, for a description that is a line and a list of its
// own (a status the host answers for several reasons), that line and its
// items nested under the item.
func tsListItem(s string) string {
	head, list, ok := strings.Cut(strings.TrimSpace(s), "\n\n- ")
	if !ok || strings.Contains(list, "\n\n") {
		return tsOneLine(s)
	}
	out := tsOneLine(head)
	for _, item := range strings.Split(list, "\n- ") {
		out += "\n  - " + tsOneLine(item)
	}
	return out
}

func (g *tsGen) schemas() error {
	for _, name := range slices.Sorted(maps.Keys(g.s.schemas)) {
		s := g.s.schemas[name]
		t, err := g.s.typeOf(s, "#/components/schemas/"+openapi.EscapeToken(name), 0)
		if err != nil {
			return fmt.Errorf("clientgen: %w", err)
		}
		var b strings.Builder
		tsWriteDoc(&b, "", tsSchemaDoc(s))
		g.p("%sexport type %s = %s;\n\n", b.String(), g.s.names[name], t.text)
	}
	return nil
}

// operation writes the Options and Result types of op.
func (g *tsGen) operation(op tsOperation) error {
	var doc strings.Builder
	doc.WriteString("Options of " + op.Method + " " + op.Path)
	if op.Summary != "" {
		doc.WriteString(": " + tsOneLine(op.Summary))
	}
	doc.WriteString(".")
	if op.Description != "" {
		doc.WriteString("\n\n" + strings.TrimSpace(op.Description))
	}
	if op.Deprecated {
		doc.WriteString("\n\n@deprecated")
	}
	var b strings.Builder
	tsWriteDoc(&b, "", doc.String())
	g.p("%s", b.String())

	fields, variants, err := g.optionFields(op)
	if err != nil {
		return err
	}
	g.p("export type %sOptions = {\n", op.name)
	for _, f := range fields {
		g.p("  %s;\n", f)
	}
	g.p("}")
	if len(variants) > 0 {
		g.p(" & (\n")
		for _, v := range variants {
			g.p("  | { %s }\n", v)
		}
		g.p(")")
	}
	g.p(";\n\n")

	doc.Reset()
	doc.WriteString("What " + op.Method + " " + op.Path + " answers; check status to narrow body:\n")
	for _, r := range op.Responses {
		desc := tsListItem(r.Description)
		if desc == "" {
			desc = "(no description)"
		}
		fmt.Fprintf(&doc, "\n- %d: %s", r.Status, desc)
	}
	b.Reset()
	tsWriteDoc(&b, "", doc.String())
	g.p("%s", b.String())
	g.p("export type %sResult =", op.name)
	members, err := g.resultMembers(op)
	if err != nil {
		return err
	}
	if len(members) == 0 {
		g.p(" never;\n\n")
		return nil
	}
	for _, m := range members {
		g.p("\n  | %s", m)
	}
	g.p(";\n\n")
	return nil
}

// optionFields are the fields of op's options; variants, when the body
// has several media types, one "contentType; body" pair per type.
func (g *tsGen) optionFields(op tsOperation) (fields, variants []string, err error) {
	fields = append(fields, "method"+tsOptional(g.defaultMethod(op))+": "+tsJsString(op.Method))

	if len(op.Params) == 0 {
		fields = append(fields, "params?: never")
	} else {
		t, err := g.paramsType(op.Params, "params", true)
		if err != nil {
			return nil, nil, err
		}
		fields = append(fields, "params: "+t)
	}

	if len(op.Query) == 0 {
		fields = append(fields, "query?: never")
	} else {
		t, err := g.paramsType(op.Query, "query", false)
		if err != nil {
			return nil, nil, err
		}
		fields = append(fields, tsField("query", !tsAnyRequired(op.Query), t))
	}

	if len(op.Headers) == 0 {
		fields = append(fields, tsField("headers", true, "EndpointHeaders"))
	} else {
		t, err := g.paramsType(op.Headers, "headers", false)
		if err != nil {
			return nil, nil, err
		}
		fields = append(fields, tsField("headers", !tsAnyRequired(op.Headers), t))
	}

	switch {
	case op.Body == nil || len(op.Body.Content) == 0:
		fields = append(fields, "body?: never")
	case len(op.Body.Content) == 1:
		t, err := g.bodyType(op.Body.Content[0])
		if err != nil {
			return nil, nil, err
		}
		fields = append(fields, tsField("body", !op.Body.Required, t))
	default:
		for i, c := range tsBodyOrder(op.Body) {
			t, err := g.bodyType(c)
			if err != nil {
				return nil, nil, err
			}
			variants = append(variants, tsField("contentType", i == 0, tsJsString(c.MediaType))+"; "+tsField("body", !op.Body.Required, t))
		}
	}

	if accept := tsAcceptTypes(op.Operation); len(accept) > 1 {
		var quoted []string
		for _, a := range accept {
			quoted = append(quoted, tsJsString(a))
		}
		fields = append(fields, tsField("accept", true, strings.Join(quoted, " | ")))
	}
	switch {
	case op.IdempotencyRequired:
		fields = append(fields, tsField("idempotencyKey", true, "string | true"))
	case op.Idempotency:
		fields = append(fields, tsField("idempotencyKey", true, "string | boolean"))
	}
	fields = append(fields, tsField("signal", true, "AbortSignal"))
	return fields, variants, nil
}

// tsField is an option's field. An optional one also takes undefined,
// which the runtime treats as absent, so that callers compiled with
// exactOptionalPropertyTypes may pass a value that may be undefined.
func tsField(name string, optional bool, typ string) string {
	if optional {
		return name + "?: " + typ + " | undefined"
	}
	return name + ": " + typ
}

func tsOptional(b bool) string {
	if b {
		return "?"
	}
	return ""
}

func tsAnyRequired(ps []Param) bool {
	return slices.ContainsFunc(ps, func(p Param) bool { return p.Required })
}

// paramsType is the object type of path, query or header parameters. A
// parameter whose schema is not a scalar or an array of scalars is typed
// by what can be sent: EndpointHeaderValue.
func (g *tsGen) paramsType(ps []Param, part string, required bool) (string, error) {
	var b strings.Builder
	b.WriteString("{\n")
	for _, p := range ps {
		s, err := tsDecodeSchema(p.Schema)
		if err != nil {
			return "", fmt.Errorf("%s %s: %w", part, p.Name, err)
		}
		t := tsType{text: "EndpointHeaderValue"}
		if tsScalarish(s) {
			if t, err = g.s.typeOf(s, part+"/"+openapi.EscapeToken(p.Name), 2); err != nil {
				return "", err
			}
		}
		doc := p.Doc
		if doc == "" {
			doc = tsSchemaDoc(s)
		}
		tsWriteDoc(&b, "    ", doc)
		fmt.Fprintf(&b, "    %s;\n", tsField(tsPropertyKey(p.Name), !required && !p.Required, t.text))
	}
	if part == "headers" {
		b.WriteString("    [name: string]: EndpointHeaderValue | undefined;\n")
	}
	b.WriteString("  }")
	return b.String(), nil
}

// tsScalarish reports whether a parameter schema describes a value that can
// be sent in a URL or header as it is: string, number, integer, boolean
// (also as enum or const), or an array of those.
func tsScalarish(s any) bool {
	m, ok := s.(map[string]any)
	if !ok {
		return false
	}
	if _, ok := m["$ref"]; ok {
		return false
	}
	for _, kw := range []string{"allOf", "oneOf", "anyOf"} {
		if _, ok := m[kw]; ok {
			return false
		}
	}
	scalar := func(v any) bool {
		switch v.(type) {
		case string, bool, interface{ Int64() (int64, error) }:
			return true
		}
		return false
	}
	if v, ok := m["const"]; ok {
		return scalar(v)
	}
	if v, ok := m["enum"].([]any); ok {
		return !slices.ContainsFunc(v, func(e any) bool { return !scalar(e) })
	}
	types, err := tsSchemaTypes(m, "")
	if err != nil || len(types) == 0 {
		return false
	}
	for _, t := range types {
		switch t {
		case "string", "integer", "number", "boolean":
		case "array":
			if items, ok := m["items"]; !ok || !tsScalarish(items) || m["prefixItems"] != nil {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// tsBodyOrder puts the default media type of a body first.
func tsBodyOrder(b *Body) []Content {
	out := slices.Clone(b.Content)
	if i := tsDefaultBody(b); i > 0 {
		c := out[i]
		out = slices.Delete(out, i, i+1)
		out = slices.Insert(out, 0, c)
	}
	return out
}

// tsDefaultBody is the index of the media type sent when the caller does
// not choose one: the first JSON one, else the first.
func tsDefaultBody(b *Body) int {
	for i, c := range b.Content {
		if c.Kind() == KindJSON {
			return i
		}
	}
	return 0
}

// bodyType is the type of a request body of one media type.
func (g *tsGen) bodyType(c Content) (string, error) {
	s, err := tsDecodeSchema(c.Schema)
	if err != nil {
		return "", fmt.Errorf("body %s: %w", c.MediaType, err)
	}
	ptr := "requestBody/" + openapi.EscapeToken(c.MediaType)
	switch c.Kind() {
	case KindJSON:
		t, err := g.s.typeOf(s, ptr, 1)
		return t.text, err
	case KindForm:
		t, err := g.s.typeOf(s, ptr, 1)
		return tsUnion([]tsType{t, {text: "URLSearchParams", prec: tsPrecPrimary}}).text, err
	case KindMulti:
		t, err := g.multipartType(s, ptr)
		return tsUnion([]tsType{t, {text: "FormData", prec: tsPrecPrimary}}).text, err
	}
	return "EndpointBytes", nil
}

// multipartType is the object type of a multipart/form-data body: its
// binary string fields (contentMediaType, or contentEncoding binary) and
// arrays of them are Blob.
func (g *tsGen) multipartType(s any, ptr string) (tsType, error) {
	m, ok := s.(map[string]any)
	if ref, isRef := m["$ref"].(string); ok && isRef && len(m) == 1 {
		if name, found := strings.CutPrefix(ref, SchemaRefPrefix); found && g.s.schemas[name] != nil {
			m, ok = g.s.schemas[name].(map[string]any)
		}
	}
	if !ok {
		return g.s.typeOf(s, ptr, 1)
	}
	types, err := tsSchemaTypes(m, ptr)
	if err != nil || !slices.Equal(types, []string{"object"}) {
		return g.s.typeOf(s, ptr, 1)
	}
	blob := tsType{text: "Blob", prec: tsPrecPrimary}
	return g.s.objectType(m, ptr, 1, func(_ string, schema any) (tsType, bool) {
		switch {
		case tsBinaryString(schema):
			return blob, true
		case tsIsArrayOf(schema, tsBinaryString):
			return tsType{text: "Blob[]", prec: tsPrecPrimary}, true
		}
		return tsType{}, false
	})
}

// tsBinaryString reports whether a schema is a string of bytes: a file.
func tsBinaryString(s any) bool {
	m, ok := s.(map[string]any)
	if !ok || m["type"] != "string" {
		return false
	}
	_, media := m["contentMediaType"]
	return media || m["contentEncoding"] == "binary"
}

func tsIsArrayOf(s any, item func(any) bool) bool {
	m, ok := s.(map[string]any)
	return ok && m["type"] == "array" && item(m["items"])
}

// tsAcceptTypes are the distinct media types of op's 2xx answers.
func tsAcceptTypes(op *Operation) []string {
	var types []string
	for _, r := range op.Responses {
		if r.Status < 200 || r.Status > 299 {
			continue
		}
		for _, c := range r.Content {
			if !slices.Contains(types, c.MediaType) {
				types = append(types, c.MediaType)
			}
		}
	}
	return types
}

// resultMembers are the EndpointResponse members of op's result.
func (g *tsGen) resultMembers(op tsOperation) ([]string, error) {
	var members []string
	for _, r := range op.Responses {
		ok := strconv.FormatBool(r.Status >= 200 && r.Status <= 299)
		if len(r.Content) == 0 {
			members = append(members, fmt.Sprintf("EndpointResponse<%d, %s, undefined, undefined>", r.Status, ok))
			continue
		}
		for _, c := range r.Content {
			s, err := tsDecodeSchema(c.Schema)
			if err != nil {
				return nil, fmt.Errorf("response %d %s: %w", r.Status, c.MediaType, err)
			}
			ptr := fmt.Sprintf("responses/%d/%s", r.Status, openapi.EscapeToken(c.MediaType))
			var body string
			switch c.Kind() {
			case KindJSON:
				t, err := g.s.typeOf(s, ptr, 1)
				if err != nil {
					return nil, err
				}
				body = t.text
			case KindEvents:
				if tsTextEvents(s) {
					body = "AsyncIterable<string>"
					break
				}
				t, err := g.s.typeOf(s, ptr, 1)
				if err != nil {
					return nil, err
				}
				body = "AsyncIterable<" + t.text + ">"
			default:
				body = "ReadableStream<Uint8Array>"
			}
			members = append(members, fmt.Sprintf("EndpointResponse<%d, %s, %s, %s>", r.Status, ok, tsJsString(c.MediaType), body))
		}
	}
	return members, nil
}

// tsTextEvents reports whether the events of a stream are text, not JSON:
// when the schema of one event's data is missing or a string.
func tsTextEvents(s any) bool {
	if s == nil {
		return true
	}
	m, ok := s.(map[string]any)
	return ok && m["type"] == "string"
}

// tsRuntimeKind is how the runtime encodes or reads content.
func tsRuntimeKind(c Content, s any) string {
	switch k := c.Kind(); k {
	case KindEvents:
		if tsTextEvents(s) {
			return "text-events"
		}
		return k
	default:
		return k
	}
}

// client writes EndpointOperations, the types that read it,
// EndpointClient and createClient.
func (g *tsGen) client() {
	g.p("/**\n * The operations of the app by path and method: the options $endpoint\n * takes for each and the result it gives.\n */\n")
	g.p("export interface EndpointOperations {\n")
	var bare []string
	for i, op := range g.ops {
		if i == 0 || g.ops[i-1].Path != op.Path {
			g.p("  %s: {\n", tsJsString(op.Path))
		}
		var b strings.Builder
		tsWriteDoc(&b, "    ", tsOperationDoc(op))
		g.p("%s    %s: { options: %sOptions; result: %sResult };\n", b.String(), op.Method, op.name, op.name)
		if i == len(g.ops)-1 || g.ops[i+1].Path != op.Path {
			g.p("  };\n")
		}
		if g.optionalOptions(op) && !slices.Contains(bare, tsJsString(op.Path)) {
			bare = append(bare, tsJsString(op.Path))
		}
	}
	g.p("}\n\n")
	g.p("/** The routes whose default operation can be called without options. */\n")
	if len(bare) == 0 {
		g.p("export type EndpointPathWithoutOptions = never;\n\n")
	} else {
		g.p("export type EndpointPathWithoutOptions =\n  | %s;\n\n", strings.Join(bare, "\n  | "))
	}
	g.p("%s", tsClientTypes)
	if g.opts.Vue {
		g.p("%s", tsClientVueMembers)
	}
	g.p("}\n\n")

	g.p("/**\n")
	g.p(" * Makes a client of the app.\n")
	g.p(" *\n")
	g.p(" *   const api = createClient({ baseUrl: \"http://127.0.0.1:3000\" });\n")
	g.p(" */\n")
	g.p("export function createClient(options: EndpointClientOptions = {}): EndpointClient {\n")
	g.p("  const $endpoint = endpointFunction(options);\n")
	if g.opts.Vue {
		g.p("  return { $endpoint, useEndpoint: endpointComposable($endpoint) } as EndpointClient;\n")
	} else {
		g.p("  return { $endpoint } as EndpointClient;\n")
	}
	g.p("}\n\n")
}

// defaultMethod reports whether op's method may be left out: GET, as
// fetch's default, and the only method of a path.
func (g *tsGen) defaultMethod(op tsOperation) bool {
	return op.Method == "GET" || g.methods[op.Path] == 1
}

// optionalOptions reports whether op can be called without options.
func (g *tsGen) optionalOptions(op tsOperation) bool {
	return g.defaultMethod(op) && len(op.Params) == 0 && !tsAnyRequired(op.Query) && !tsAnyRequired(op.Headers) &&
		(op.Body == nil || !op.Body.Required || len(op.Body.Content) == 0)
}

func tsOperationDoc(op tsOperation) string {
	doc := op.Method + " " + op.Path
	if op.Summary != "" {
		doc += ": " + tsOneLine(op.Summary)
	}
	doc += "."
	if op.Description != "" {
		doc += "\n\n" + strings.TrimSpace(op.Description)
	}
	if op.Deprecated {
		doc += "\n\n@deprecated"
	}
	return doc
}

// table writes endpointOperations, what the runtime knows of each
// operation.
func (g *tsGen) table() {
	g.p("/** Each operation's Idempotency-Key, body media types and declared answers. */\n")
	g.p("const endpointOperations: { readonly [operation: string]: EndpointOperation } = {\n")
	for _, op := range g.ops {
		g.p("  %s: {\n", tsJsString(op.Method+" "+op.Path))
		switch {
		case op.IdempotencyRequired:
			g.p("    idempotency: \"required\",\n")
		case op.Idempotency:
			g.p("    idempotency: \"optional\",\n")
		}
		if op.Body != nil && len(op.Body.Content) > 0 {
			var kinds []string
			for _, c := range tsBodyOrder(op.Body) {
				kinds = append(kinds, tsJsString(c.MediaType)+": "+tsJsString(c.Kind()))
			}
			g.p("    body: { %s },\n", strings.Join(kinds, ", "))
		}
		g.p("    responses: {\n")
		for _, r := range op.Responses {
			var kinds []string
			for _, c := range r.Content {
				s, _ := tsDecodeSchema(c.Schema) // decoded before, in resultMembers
				kinds = append(kinds, tsJsString(c.MediaType)+": "+tsJsString(tsRuntimeKind(c, s)))
			}
			if len(kinds) == 0 {
				g.p("      %d: {},\n", r.Status)
			} else {
				g.p("      %d: { %s },\n", r.Status, strings.Join(kinds, ", "))
			}
		}
		g.p("    },\n")
		g.p("  },\n")
	}
	g.p("};\n\n")
}
