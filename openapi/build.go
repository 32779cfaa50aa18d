package openapi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/mediatype"
)

// Route is what [Build] is handed for one method of one route module: an
// endpoint with its contract, or a plain route ([Route.Plain]). Build
// turns each into an [Operation] of the document.
type Route struct {
	// Method is the upper-case HTTP method: "GET".
	Method string
	// Path is the route template in OpenAPI form: "/api/users/{id}".
	Path string
	// File is the module file, for errors:
	// "server/api/users/[id].get.wasm".
	File string
	// Contract is this method's contract; for a module with "methods", the
	// per-method one. Build does not change it.
	Contract *abi.Contract
	// Defs are the $defs of the whole contract: per-method contracts refer
	// to the root's $defs. Build lifts them, with Contract.Defs, into
	// components/schemas.
	Defs map[string]json.RawMessage
	// Negotiates says the operation offers more than one media type across
	// its 2xx responses, so 406 Not Acceptable is reachable (docs/spec.md §4
	// step 4).
	Negotiates bool
	// Plain says the module is a plain route: it exports no contract
	// (Contract is nil) and is documented from the routes configuration's
	// "plainRoutes" (docs/spec.md §9). Its Method is "" when its file name
	// carries none; Serves then lists the upper-case methods it serves,
	// those no other module of its path claims.
	Plain bool
	// Serves lists the upper-case methods a plain route without a method
	// in its file name serves; nil for any other operation.
	Serves []string
	// Database says the operation's code can use a database (its module,
	// or a middleware that wraps it, imports the host's db_ functions):
	// while the database is down or waits for its migrations, the host
	// answers it 503 with Retry-After, which the document then lists. A
	// bundle's routes share their module's imports: each route of a
	// bundle that imports them gets it.
	Database bool
	// BodyLimit is the largest request body, in bytes, the host takes
	// for the operation (the contract's maxBytes, else limits.bodyBytes):
	// the limit its 413 names, which the 413's example then shows. 0 when
	// not known: the example is the schema's generic one.
	BodyLimit int64
	// Accepts are the request media types the operation accepts, as the
	// host's 415 lists them; Offers those it answers with, as the host's
	// 406 lists them. The examples of the 415 and 406 show them; nil
	// when not known.
	Accepts, Offers []string
}

// Defaults of [Options].
const (
	// DefaultTitle is the default of [Options.Title], info.title.
	DefaultTitle = "Endpoints API"
	// DefaultVersion is the default of [Options.Version], info.version.
	DefaultVersion = "0.1.0"
)

// Options configure [Build]. The zero value builds an OpenAPI 3.1 document
// titled [DefaultTitle], version [DefaultVersion], without a routes
// configuration.
type Options struct {
	// Title is info.title. If empty, [DefaultTitle].
	Title string
	// Version is info.version, the version of the API. If empty,
	// [DefaultVersion].
	Version string
	// Routes is the parsed server/routes.config.json; nil when the app has
	// none.
	Routes *RoutesConfig
	// SpecVersion is the OpenAPI version of the document: [Version31]
	// ("3.1.0", the default) or [Version32] ("3.2.0"). It decides where
	// the schema of one item of a sequential media type goes: see
	// [Build].
	SpecVersion string
	// Unmatched, when not nil, receives each entry of the routes
	// configuration that applies to no operation (a pattern, a method under
	// a pattern, or a "plainRoutes" entry, as an error that wraps
	// [ErrUnmatchedPattern] and names the file and the JSON pointer) instead of
	// the build failing on it. `endpoints dev` warns about such an entry,
	// typically left behind by a deleted route, and serves on. If nil, an
	// unmatched entry fails the build.
	Unmatched func(error)
}

// Errors of [Build] that callers may branch on; the errors returned wrap
// them with the files involved.
var (
	// ErrDuplicateOperation: two modules declare the same method and path.
	ErrDuplicateOperation = errors.New("two modules declare the same operation")
	// ErrDuplicateOperationID: two operations derive the same operationId.
	ErrDuplicateOperationID = errors.New("two operations have the same operationId")
	// ErrSchemaConflict: one schema name with two different definitions.
	ErrSchemaConflict = errors.New("one schema name has two definitions")
	// ErrUnmatchedPattern: a routes configuration pattern, or a method under
	// it, applies to no operation. The host's errors for a pattern of
	// endpoints.json's rateLimits that matches no route wrap it too.
	ErrUnmatchedPattern = errors.New("a routes configuration pattern matches no operation")
)

// Media types the builder writes.
const (
	mediaJSON = "application/json"
)

// Schemas the builder writes where a declaration has none.
var (
	// binarySchema is an opaque payload: OpenAPI 3.1 describes binary
	// content with contentEncoding
	// (https://spec.openapis.org/oas/v3.1.0#considerations-for-file-uploads).
	binarySchema = json.RawMessage(`{"contentEncoding":"binary","type":"string"}`)
	// anySchema admits every JSON value.
	anySchema = json.RawMessage(`{}`)
	// objectSchema is a form body: fields by name.
	objectSchema = json.RawMessage(`{"type":"object"}`)
	// stringSchema is an undeclared path parameter.
	stringSchema = json.RawMessage(`{"type":"string"}`)
)

// Build builds the OpenAPI 3.1 document of an app from its endpoint
// operations and its routes configuration (docs/spec.md §7). The result depends
// only on the set of operations, not on their order.
//
//	doc, err := openapi.Build(ops, openapi.Options{Title: "Users API", Version: "1.0.0"})
//
// What each operation gets:
//
//   - operationId from [OperationID]; two operations with one id fail,
//     naming both files (https://spec.openapis.org/oas/v3.1.0#operation-object:
//     "The id MUST be unique among all operations").
//   - Summary, description, tags and deprecated from the contract.
//   - A parameter for each property of request params (in "path", always
//     required; a template parameter the schema lacks gets {"type":
//     "string"}), query ("query") and headers ("header"), required as the
//     part schema's "required" says, with "description" and "deprecated"
//     lifted from the property schema. Order: path parameters in path
//     order, then query, then headers, each by name. A part schema that is
//     a "$ref" to a def is followed to find its properties. Header
//     parameters named Accept, Content-Type or Authorization are never
//     written: OpenAPI ignores them
//     (https://spec.openapis.org/oas/v3.1.0#parameter-object, "name").
//   - requestBody from request.body: {"schema": S} is application/json;
//     "content" gives one entry per media type, where a type without a
//     schema gets {} (JSON types), {"type": "object"} (forms) or an opaque
//     {"type": "string", "contentEncoding": "binary"} (anything else).
//     required is body.required, which defaults to true.
//   - A response per declared status: the declared description or the
//     status's reason phrase; content keyed by contentType (a +json type)
//     or application/json for a JSON response with a schema, one entry per
//     type of a media response (its schema, or an opaque binary string); no
//     content for a response with neither schema nor media. Declared
//     headers become Header objects; a Content-Type header is dropped, as
//     OpenAPI ignores it. Inferred responses (responsesInferred) are
//     documented like declared ones.
//   - The responses of the routes configuration that apply (app-wide, then
//     scoped by pattern, then per method), and the framework responses
//     the operation can reach: 400 Validation Error when a request part is
//     declared, 413 and 415 Unsupported Media Type when a body is, 406 Not
//     Acceptable when it negotiates, 503 with Retry-After when its code
//     can use a database ([Route.Database]). Their schemas are the
//     components named by the Schema... constants, added only when used;
//     the examples of the 413, 415 and 406 are the operation's own
//     answers when the Route says what the host knows of it (BodyLimit,
//     Accepts, Offers).
//   - The host's answers of every operation, a plain route's too: 500
//     ([ResponseInternalServerError]) and 503 with Retry-After
//     ([ResponseServiceUnavailable]), a $ref to the entry of
//     components/responses of that name where the operation has no other
//     answer of the status, else the host's body beside the others, its
//     reason added to the description. [Document.OwnResponse] makes a
//     reference the operation's own copy.
//   - A status declared twice with one media type gets {"anyOf": [first,
//     later]} (identical schemas are written once): anyOf, not oneOf, as
//     the variants may overlap (an open object accepts both) and the
//     document must never reject a body the host sends. Other media types add
//     content entries. The contract comes first, then the routes
//     configuration, then the framework: the first description given wins,
//     and a status nobody describes gets its reason phrase.
//
// A plain route (an Operation with Plain set) is documented without a
// contract (docs/spec.md §9): its path parameters as
// strings, "security": [] (the host checks no credentials on it), the
// extension [PlainExtension], a summary naming its file, and responses
// "default" (nothing is checked) plus those of its entry in the routes
// configuration's "plainRoutes" ([PlainRoute]), whose summary,
// description, tags and deprecated replace the defaults. A module
// without a method suffix is documented with the methods its entry
// lists, else GET when it serves GET, else each method it serves but
// HEAD and OPTIONS. An entry that names no plain route, or a method the
// route does not serve, fails the build.
//
// Every $defs entry of the contracts and of the routes configuration is
// lifted into components/schemas, and every "$ref": "#/$defs/X..." in any
// schema becomes "#/components/schemas/X...". One name with two different
// definitions fails, naming both files; equal definitions are shared.
//
// A request or response media type gets an "example" when its schema's
// contract states one, where OpenAPI tools (mock servers, reference pages,
// linters) look: the schema's first "examples" entry (of several, the one
// whose "status" or "statusCode" is the response's), its "example",
// "const", "default" or first "enum" value, or, for an object, its
// properties' examples put together (for an array, one example item).
// None is invented: a media type whose schema states none has none. The
// framework schemas carry a description and an example of the body the
// host writes.
//
// # Notes
//
//   - An operation whose contract declares no responses gets {"default":
//     {"description": "Responses are not declared"}} besides any
//     configured or framework response: OpenAPI requires at least one
//     response, and "default" says that the successful answers are not
//     documented.
//   - A params property that is not a parameter of the path fails the build:
//     OpenAPI requires every path parameter to appear in the template.
//   - A "$ref" to a def that neither $defs has fails the build.
//   - Routes configuration patterns are matched against the client form of
//     Path ({id} becomes :id). A pattern, or a method under a pattern, that
//     applies to no operation fails the build, naming the file and the
//     pattern, unless [Options.Unmatched] takes it.
//   - A $defs entry named like one of the framework schemas (Schema...
//     constants) must be that very schema.
//   - Build returns every error it finds, joined.
func Build(ops []Route, opts Options) (*Document, error) {
	spec := cmp.Or(opts.SpecVersion, Version31)
	if spec != Version31 && spec != Version32 {
		return nil, fmt.Errorf("OpenAPI version %q: want %q or %q", opts.SpecVersion, Version31, Version32)
	}
	b := &builder{
		spec: spec,
		doc: &Document{
			OpenAPI: spec,
			Info:    Info{Title: cmp.Or(opts.Title, DefaultTitle), Version: cmp.Or(opts.Version, DefaultVersion)},
			Paths:   map[string]*PathItem{},
		},
		schemas:         map[string]*namedSchema{},
		opIDs:           map[string]string{},
		opFiles:         map[string]string{},
		tags:            map[string]bool{},
		framework:       map[string]bool{},
		sharedResponses: map[string]bool{},
		used:            map[string]bool{},
		plainServes:     map[string][]string{},
	}
	var cfg *RoutesConfig
	var cfgSrc *source
	if opts.Routes != nil {
		var err error
		if cfg, err = recheck(opts.Routes); err != nil {
			return nil, err
		}
		cfgSrc = &source{file: cfg.File, defs: cfg.Defs}
		b.liftDefs(cfgSrc, "/$defs", cfg.Defs)
		b.unmatchedTo = opts.Unmatched
	}

	sorted := make([]*Route, len(ops))
	for i := range ops {
		sorted[i] = &ops[i]
	}
	slices.SortStableFunc(sorted, func(a, b *Route) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), methodRank(a.Method)-methodRank(b.Method),
			strings.Compare(a.Method, b.Method), strings.Compare(a.File, b.File))
	})
	for _, op := range sorted {
		if op.Plain {
			b.plainOperation(op, cfg, cfgSrc)
			continue
		}
		b.operation(op, cfg, cfgSrc)
	}

	if cfg != nil {
		b.checkPlainRoutes(cfg)
		for _, pat := range slices.SortedFunc(maps.Keys(cfg.Routes), patternOrder) {
			if !b.used[pat] {
				b.unmatched("%s: %s: pattern %q: %w", cfg.File, pointer("routes", pat), pat, ErrUnmatchedPattern)
				continue
			}
			for _, m := range slices.Sorted(maps.Keys(cfg.Routes[pat].Methods)) {
				if !b.used[pat+" "+m] {
					b.unmatched("%s: %s: pattern %q has no %s operation: %w", cfg.File, pointer("routes", pat, "methods", m), pat, strings.ToUpper(m), ErrUnmatchedPattern)
				}
			}
		}
	}
	if len(b.errs) > 0 {
		return nil, errors.Join(b.errs...)
	}
	b.finish()
	return b.doc, nil
}

// recheck checks a RoutesConfig that may have been filled in by Go code the
// way ParseRoutesConfig checks a file.
func recheck(c *RoutesConfig) (*RoutesConfig, error) {
	file := cmp.Or(c.File, "routes configuration")
	data, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return ParseRoutesConfig(file, data)
}

// methodRank orders methods as OpenAPI lists them.
func methodRank(m string) int {
	if i := slices.Index(methodOrder, strings.ToLower(m)); i >= 0 {
		return i
	}
	return len(methodOrder)
}

var methodOrder = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// builder is the state of one Build call.
type builder struct {
	// spec is the OpenAPI version written: Version or Version32.
	spec    string
	doc     *Document
	schemas map[string]*namedSchema
	// opIDs maps an operationId to its operation, as an error names it
	// (opName).
	opIDs map[string]string
	// opFiles maps "METHOD path" to the file of its operation.
	opFiles   map[string]string
	tags      map[string]bool
	framework map[string]bool
	// sharedResponses names the components/responses the operations
	// refer to (hostWideResponses).
	sharedResponses map[string]bool
	// used holds the routes configuration patterns ("pattern") and pattern
	// methods ("pattern method") that applied to an operation, and the
	// plainRoutes entries ("plain route") and their methods ("plain route
	// method") that did.
	used map[string]bool
	// plainServes lists, by plainRoutes entry with methods, the plain
	// modules of the route and the methods each serves, for errors.
	plainServes map[string][]string
	// unmatchedTo is Options.Unmatched: nil makes an unmatched entry of
	// the routes configuration an error.
	unmatchedTo func(error)
	errs        []error
	// conflicts holds the schema name and the two files of each schema
	// conflict reported, so that a clash between two modules is reported
	// once, not once per operation of theirs.
	conflicts map[[3]string]bool
}

func (b *builder) errorf(format string, args ...any) {
	b.errs = append(b.errs, fmt.Errorf(format, args...))
}

// unmatched reports an entry of the routes configuration that applies to
// no operation: to Options.Unmatched when set, else as an error.
func (b *builder) unmatched(format string, args ...any) {
	if b.unmatchedTo != nil {
		b.unmatchedTo(fmt.Errorf(format, args...))
		return
	}
	b.errorf(format, args...)
}

// namedSchema is a schema of components/schemas and the file that first
// defined it.
type namedSchema struct {
	value json.RawMessage
	file  string
	op    string // of file's, the operation that defined it; may be empty
	// raw is the text of the definition, to recognise a repeat without
	// comparing canonical forms.
	raw string
	// canon is the canonical form of value, computed when first needed.
	canon string
}

// canonical returns the canonical form of the schema, to compare
// definitions of one name.
func (n *namedSchema) canonical() string {
	if n.canon == "" {
		n.canon = canonicalOrRaw(n.value)
	}
	return n.canon
}

// source is where schemas come from: a contract or the routes
// configuration, whose "#/$defs/..." references name defs.
type source struct {
	file string
	// op is the operation ("GET /api/users/{id}") the defs come with;
	// empty for the routes configuration's.
	op   string
	defs map[string]json.RawMessage
	// more are further defs (a per-method contract's own).
	more map[string]json.RawMessage
}

// where names the source in errors: its file, and its operation when a
// bundle's file holds several ("server/bundles/go.wasm (GET /api/users/{id})").
func (s *source) where() string { return whereOf(s.file, s.op) }

// where names the source that defined the schema, as source.where.
func (n *namedSchema) where() string { return whereOf(n.file, n.op) }

// whereOf is file, followed by op in parentheses unless file names it
// already (a bundle route's file in the host's form,
// "server/bundles/go.wasm (GET /api/users/:id)") or op is empty.
func whereOf(file, op string) string {
	if op == "" || strings.HasSuffix(file, ")") {
		return file
	}
	return file + " (" + op + ")"
}

func (s *source) def(name string) (json.RawMessage, bool) {
	if d, ok := s.more[name]; ok {
		return d, true
	}
	d, ok := s.defs[name]
	return d, ok
}

// schema returns raw with its references rewritten for the document,
// reporting references to defs the source lacks; ptr locates raw in the
// source for errors.
func (b *builder) schema(src *source, ptr string, raw json.RawMessage) json.RawMessage {
	out, err := rewriteRefs(json.RawMessage(raw), ptr, func(name, rp string) {
		if _, ok := src.def(name); !ok {
			b.errorf("%s: %s: %q names no entry of \"$defs\"", src.file, rp, defsPrefix+EscapeToken(name))
		}
	})
	if err != nil {
		b.errorf("%s: %w", src.file, err)
		return nil
	}
	if len(out) > 0 && len(raw) > 0 && &out[0] == &raw[0] {
		out = slices.Clone(out) // the document never shares memory with a contract
	}
	return boundIntegerFormats(out)
}

// liftDefs adds defs to components/schemas.
func (b *builder) liftDefs(src *source, ptr string, defs map[string]json.RawMessage) {
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		raw := string(defs[name])
		prev, seen := b.schemas[name]
		if seen && prev.raw == raw {
			continue // the very same text: shared
		}
		dp := ptr + "/" + EscapeToken(name)
		v := b.schema(src, dp, defs[name])
		if v == nil {
			continue
		}
		next := &namedSchema{value: v, file: src.file, op: src.op, raw: raw}
		if fw, ok := frameworkCanonical[name]; ok && next.canonical() != fw {
			b.errorf("%s: %s: the name %q is the framework's own error schema; rename the def: %w",
				src.file, dp, name, ErrSchemaConflict)
			continue
		}
		if seen {
			key := [3]string{name, prev.file, src.file}
			if prev.canonical() != next.canonical() && !b.conflicts[key] {
				if b.conflicts == nil {
					b.conflicts = map[[3]string]bool{}
				}
				b.conflicts[key] = true
				b.errorf("schema %q is defined differently by %s and %s; rename one (in Go, one of the two types named %s: each route names its schemas after its Go types) or make them equal: %w",
					name, prev.where(), src.where(), name, ErrSchemaConflict)
			}
			continue
		}
		b.schemas[name] = next
	}
}

// operation adds one operation to the document.
func (b *builder) operation(op *Route, cfg *RoutesConfig, cfgSrc *source) {
	nerr := len(b.errs)
	if op.Contract == nil {
		b.errorf("%s: %s %s: no contract", op.File, op.Method, op.Path)
		return
	}
	if len(op.Contract.Methods) > 0 {
		b.errorf("%s: %s %s: the contract declares \"methods\"; pass one Route per method, with that method's contract", op.File, op.Method, op.Path)
		return
	}
	if !strings.HasPrefix(op.Path, "/") {
		b.errorf("%s: path %q: want an OpenAPI path template starting with \"/\"", op.File, op.Path)
		return
	}
	item := b.doc.Paths[op.Path]
	if item == nil {
		item = &PathItem{}
	}
	var slot **Operation
	for _, m := range item.methods() {
		if m.name == strings.ToLower(op.Method) {
			slot = m.op
		}
	}
	if slot == nil {
		b.errorf("%s: method %q: want one of %s", op.File, op.Method, strings.ToUpper(strings.Join(methodOrder, ", ")))
		return
	}
	key := strings.ToUpper(op.Method) + " " + op.Path
	if prev, ok := b.opFiles[key]; ok {
		b.errorf("%s is declared by both %s and %s: %w", key, prev, op.File, ErrDuplicateOperation)
		return
	}
	b.opFiles[key] = op.File

	c := op.Contract
	src := &source{file: op.File, op: strings.ToUpper(op.Method) + " " + op.Path, defs: op.Defs, more: c.Defs}
	b.liftDefs(src, "/$defs", op.Defs)
	if len(c.Defs) > 0 && !sameDefs(c.Defs, op.Defs) {
		b.liftDefs(src, "/$defs", c.Defs)
	}

	out := &Operation{
		OperationID: OperationID(op.Method, op.Path),
		Summary:     c.Summary,
		Description: c.Description,
		Tags:        slices.Clone(c.Tags),
		Deprecated:  c.Deprecated,
	}
	if prev, ok := b.opIDs[out.OperationID]; ok {
		b.errorf("operationId %q of %s is also the operationId of %s; rename a route: %w",
			out.OperationID, opName(op.Method, op.Path, op.File), prev, ErrDuplicateOperationID)
	} else {
		b.opIDs[out.OperationID] = opName(op.Method, op.Path, op.File)
	}
	for _, t := range c.Tags {
		b.tags[t] = true
	}
	for ext, d := range map[string]string{TimeoutExtension: c.Timeout, IdleTimeoutExtension: c.IdleTimeout} {
		if d != "" {
			if out.Extra == nil {
				out.Extra = map[string]json.RawMessage{}
			}
			out.Extra[ext], _ = json.Marshal(d)
		}
	}
	out.Parameters = b.parameters(op, src)
	if c.Request != nil && c.Request.Body != nil {
		out.RequestBody = b.requestBody(c.Request.Body, src)
	}

	rs := newResponseSet()
	for _, st := range slices.Sorted(maps.Keys(c.Responses)) {
		if r := c.Responses[st]; r != nil {
			b.addDeclared(rs, src, pointer("responses", st), st, r)
		}
	}
	if cfg != nil {
		client := ClientPath(op.Path)
		for _, d := range cfg.declarations(op.Method, client, func(pat, m string) {
			if m == "" {
				b.used[pat] = true
			} else {
				b.used[pat+" "+m] = true
			}
		}) {
			b.addDeclared(rs, cfgSrc, d.ptr, d.status, d.resp)
		}
	}
	// The headers the host adds to the guest's answers: a replayed answer
	// says so, a negotiated one varies by Accept.
	for status := range rs.byStatus {
		if c.Idempotency != nil && strings.HasPrefix(status, "2") {
			rs.add(status, "", replayedHeader, "", nil)
		}
	}
	// The statuses the app declares: the host's headers beside them are
	// not required, as the app's own answers need not carry them.
	declared := map[string]bool{}
	for status := range rs.byStatus {
		declared[status] = true
	}
	for _, fr := range frameworkResponses {
		if fr.reaches(op) {
			// A body of the host's beside the status's other bodies is
			// one more reason for it: the description says so. (A status
			// declared without a body describes the host's answer.)
			status := fmt.Sprint(fr.status)
			hadBody := rs.byStatus[status] != nil && len(rs.byStatus[status].content) > 0
			headers := fr.headers
			if declared[status] {
				headers = optionalHeaders(headers)
			}
			if rs.add(status, fr.description, headers, fr.mediaType, json.RawMessage(`{"$ref":"`+componentPrefix+fr.schema+`"}`)) && hadBody {
				rs.byStatus[status].description = joinDescription(statusSummary(status), rs.byStatus[status].description, fr.description)
			}
			for _, u := range fr.uses {
				b.framework[u] = true
			}
		}
	}
	refer := b.addHostWide(rs, declared)
	if op.Negotiates {
		for status := range rs.byStatus {
			rs.add(status, "", varyAccept, "", nil)
		}
	}
	out.Responses = rs.responses(b.spec)
	b.referHostWide(out.Responses, refer)
	if r := out.Responses["400"]; r != nil && declaresRequestPart(op) {
		if mt := r.Content[mediaJSON]; mt != nil && string(mt.Schema) == `{"$ref":"`+componentPrefix+SchemaValidationError+`"}` {
			mt.Example = validationExample(op)
		}
	}
	// The host's body made for op, where it is the status's only JSON
	// body (beside another, the example of either would do).
	for _, fr := range frameworkResponses {
		if fr.example == nil || !fr.reaches(op) {
			continue
		}
		if r := out.Responses[fmt.Sprint(fr.status)]; r != nil {
			if mt := r.Content[fr.mediaType]; mt != nil && string(mt.Schema) == `{"$ref":"`+componentPrefix+fr.schema+`"}` {
				if ex := fr.example(op); ex != nil {
					mt.Example = ex
				}
			}
		}
	}
	switch {
	case c.Security != nil:
		out.Security = make([]SecurityRequirement, len(c.Security))
		for i, r := range c.Security {
			out.Security[i] = SecurityRequirement(r)
		}
	case cfg != nil:
		if sec, ok := cfg.SecurityFor(op.Method, ClientPath(op.Path)); ok {
			out.Security = slices.Clone(sec)
		}
	}
	if len(c.Responses) == 0 {
		out.Responses["default"] = &Response{Description: "Responses are not declared"}
	}

	if len(b.errs) > nerr {
		return
	}
	*slot = out
	b.doc.Paths[op.Path] = item
}

// sameDefs reports whether a and b are the same map (a per-method contract
// of a module without methods shares the root's defs).
func sameDefs(a, b map[string]json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || string(v) != string(w) {
			return false
		}
	}
	return true
}

// ClientPath turns an OpenAPI path template into the client form routes
// are written in: /api/users/{id} → /api/users/:id.
func ClientPath(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			segs[i] = ":" + s[1:len(s)-1]
		}
	}
	return strings.Join(segs, "/")
}

// templateParams returns the names of the {name} parameters of an OpenAPI
// path template, in order.
func templateParams(path string) []string {
	var names []string
	for {
		i := strings.IndexByte(path, '{')
		if i < 0 {
			return names
		}
		j := strings.IndexByte(path[i:], '}')
		if j < 0 {
			return names
		}
		names = append(names, path[i+1:i+j])
		path = path[i+j+1:]
	}
}

// ignoredHeaders are header parameters OpenAPI ignores
// (https://spec.openapis.org/oas/v3.1.0#parameter-object, "name").
var ignoredHeaders = []string{"accept", "content-type", "authorization"}

// part is the schema of params, query or headers: its properties and the
// required ones.
type part struct {
	props    map[string]json.RawMessage
	required map[string]bool
}

// partSchema is what Build reads of a part schema.
type partSchema struct {
	Ref        string                     `json:"$ref"`
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
}

// readPart decodes a part schema, following a "$ref" to a def.
func (b *builder) readPart(src *source, ptr string, raw json.RawMessage) part {
	var ps partSchema
	if len(raw) == 0 || jsonv2.Unmarshal(raw, &ps) != nil {
		return part{}
	}
	for range 16 {
		name, ok := strings.CutPrefix(ps.Ref, defsPrefix)
		if !ok || strings.Contains(name, "/") {
			break
		}
		def, ok := src.def(unescapeToken(name))
		if !ok {
			b.errorf("%s: %s/$ref: %q names no entry of \"$defs\"", src.file, ptr, ps.Ref)
			break
		}
		ps = partSchema{}
		if jsonv2.Unmarshal(def, &ps) != nil {
			break
		}
	}
	p := part{props: ps.Properties, required: map[string]bool{}}
	for _, n := range ps.Required {
		p.required[n] = true
	}
	return p
}

// parameters builds the parameters of an operation.
func (b *builder) parameters(op *Route, src *source) []*Parameter {
	req := op.Contract.Request
	if req == nil {
		req = &abi.Request{}
	}
	var out []*Parameter
	names := templateParams(op.Path)
	params := b.readPart(src, "/request/params", req.Params)
	for _, name := range slices.Sorted(maps.Keys(params.props)) {
		if !slices.Contains(names, name) {
			b.errorf("%s: /request/params/properties/%s: %q is not a parameter of %s; the path has %s",
				op.File, EscapeToken(name), name, op.Path, listOrNone(names))
		}
	}
	for _, name := range names {
		p := &Parameter{Name: name, In: "path", Required: true, Schema: slices.Clone(stringSchema)}
		if s, ok := params.props[name]; ok {
			p.Schema = b.schema(src, pointer("request", "params", "properties", name), json.RawMessage(s))
			lift(p, s)
		}
		out = append(out, p)
	}
	for _, pp := range []struct {
		in, name string
		raw      json.RawMessage
	}{{"query", "query", req.Query}, {"header", "headers", req.Headers}} {
		part := b.readPart(src, pointer("request", pp.name), pp.raw)
		for _, name := range slices.Sorted(maps.Keys(part.props)) {
			if pp.in == "header" && slices.Contains(ignoredHeaders, strings.ToLower(name)) {
				continue
			}
			s := part.props[name]
			p := &Parameter{Name: name, In: pp.in, Required: part.required[name],
				Schema: b.schema(src, pointer("request", pp.name, "properties", name), json.RawMessage(s))}
			lift(p, s)
			if st := req.QueryStyles[name]; pp.in == "query" && st != nil {
				styleParameter(p, st)
			}
			out = append(out, p)
		}
	}
	if idem := op.Contract.Idempotency; idem != nil && !slices.ContainsFunc(out, func(p *Parameter) bool {
		return p.In == "header" && strings.EqualFold(p.Name, IdempotencyHeader)
	}) {
		out = append(out, &Parameter{
			Name: IdempotencyHeader, In: "header", Required: idem.Required,
			Description: "A key the client makes unique per operation it means once (draft-ietf-httpapi-idempotency-key-header): a retry with the same key and request replays the first answer instead of running again.",
			Schema:      slices.Clone(idempotencyKeySchema),
		})
	}
	return out
}

// styleParameter writes a contract's queryStyles entry as the parameter's
// style and explode. Form with explode is OpenAPI's default for a query
// parameter and stays implicit; deepObject states explode true, the only
// value OpenAPI defines for it.
func styleParameter(p *Parameter, st *abi.QueryStyle) {
	explode := st.Explode == nil || *st.Explode
	if st.Style == "deepObject" {
		explode = true
	}
	if st.Style == "form" && explode {
		return
	}
	p.Style, p.Explode = st.Style, &explode
}

// annotations are the members of a schema lifted to its parameter or
// header.
type annotations struct {
	Description string `json:"description"`
	Deprecated  bool   `json:"deprecated"`
}

// annotationsOf reads the annotations of a schema; a member of another type
// is ignored.
func annotationsOf(schema json.RawMessage) annotations {
	var a annotations
	if jsontext.Value(schema).Kind() == '{' && (bytes.Contains(schema, []byte("description")) || bytes.Contains(schema, []byte("deprecated")) || bytes.Contains(schema, []byte(`\u`))) {
		m := objectMembers(schema)
		_ = jsonv2.Unmarshal(m["description"], &a.Description)
		_ = jsonv2.Unmarshal(m["deprecated"], &a.Deprecated)
	}
	return a
}

// lift copies "description" and "deprecated" of a property schema to its
// parameter.
func lift(p *Parameter, schema json.RawMessage) {
	a := annotationsOf(schema)
	p.Description, p.Deprecated = a.Description, a.Deprecated
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "no parameters"
	}
	return strings.Join(names, ", ")
}

// idempotencyKeySchema is the schema of the Idempotency-Key header.
var idempotencyKeySchema = func() json.RawMessage {
	p, _ := jsontext.AppendQuote(nil, IdempotencyKeyPattern)
	return json.RawMessage(`{"type":"string","minLength":1,"maxLength":512,"pattern":` + string(p) + `}`)
}()

// requestBody builds the request body of an operation.
func (b *builder) requestBody(body *abi.Body, src *source) *RequestBody {
	rb := &RequestBody{Description: body.Description, Required: body.IsRequired(), Content: map[string]*MediaType{}}
	if body.Schema != nil {
		rb.Content[mediaJSON] = &MediaType{Schema: b.schema(src, "/request/body/schema", body.Schema)}
	}
	for _, mt := range slices.Sorted(maps.Keys(body.Content)) {
		var s json.RawMessage
		if m := body.Content[mt]; m != nil && m.Schema != nil {
			s = b.schema(src, pointer("request", "body", "content", mt, "schema"), m.Schema)
		} else {
			s = defaultBodySchema(mt)
		}
		out := &MediaType{Schema: s}
		if sequential(mt) {
			var declared json.RawMessage
			if m := body.Content[mt]; m != nil && m.Schema != nil {
				declared = s
			}
			out = b.sequentialMedia(mt, declared)
		}
		if m := body.Content[mt]; m != nil {
			for _, field := range slices.Sorted(maps.Keys(m.Encoding)) {
				if e := m.Encoding[field]; e != nil {
					if out.Encoding == nil {
						out.Encoding = map[string]json.RawMessage{}
					}
					enc, _ := jsontext.AppendQuote(nil, e.ContentType)
					out.Encoding[field] = json.RawMessage(`{"contentType":` + string(enc) + `}`)
				}
			}
		}
		rb.Content[mt] = out
	}
	return rb
}

// defaultBodySchema is the schema of a request media type declared without
// one.
func defaultBodySchema(mt string) json.RawMessage {
	base, _, err := mime.ParseMediaType(mt)
	if err != nil {
		base = strings.ToLower(mt)
	}
	switch {
	case mediatype.IsJSON(base):
		return slices.Clone(anySchema)
	case base == "application/x-www-form-urlencoded" || base == "multipart/form-data":
		return slices.Clone(objectSchema)
	case strings.HasPrefix(base, "text/"):
		return slices.Clone(stringSchema)
	}
	return slices.Clone(binarySchema)
}

// addDeclared adds a declared response (contract or routes configuration).
func (b *builder) addDeclared(rs *responseSet, src *source, ptr, status string, r *abi.Response) {
	var headers map[string]*Header
	for _, name := range slices.Sorted(maps.Keys(r.Headers)) {
		if strings.EqualFold(name, "content-type") {
			continue
		}
		s := b.schema(src, ptr+"/headers/"+EscapeToken(name), r.Headers[name])
		h := &Header{Schema: s, Description: annotationsOf(s).Description}
		if headers == nil {
			headers = map[string]*Header{}
		}
		headers[name] = h
	}
	desc := r.Description
	switch {
	case r.IsMedia():
		var s json.RawMessage
		if r.Schema != nil {
			s = b.schema(src, ptr+"/schema", r.Schema)
		}
		for _, mt := range r.Media {
			if sequential(mt) {
				rs.add(status, desc, headers, mt, itemSchema(mt, s))
				continue
			}
			rs.add(status, desc, headers, mt, orBinary(s))
		}
	case r.Schema != nil:
		rs.add(status, desc, headers, cmp.Or(r.ContentType, mediaJSON), b.schema(src, ptr+"/schema", r.Schema))
	case r.ContentType != "":
		rs.add(status, desc, headers, r.ContentType, slices.Clone(anySchema))
	default:
		rs.add(status, desc, headers, "", nil)
	}
}

// orBinary is s, or the opaque binary schema when s is nil.
func orBinary(s json.RawMessage) json.RawMessage {
	if s == nil {
		return slices.Clone(binarySchema)
	}
	return s
}

// responseSet gathers the responses of one operation from every source.
type responseSet struct {
	byStatus map[string]*responseParts
}

type responseParts struct {
	description string
	headers     map[string]*Header
	// content by canonical media type.
	content map[string]*contentParts
}

type contentParts struct {
	mediaType string
	schemas   []json.RawMessage
	// canons are the canonical forms of schemas, computed once a second
	// schema arrives.
	canons []string
}

func newResponseSet() *responseSet { return &responseSet{byStatus: map[string]*responseParts{}} }

// add adds one declaration: mediaType "" declares the status without a
// body. The first description wins; a header of a name the status has
// already is merged (mergeHeaders). It
// reports whether the declaration added a body (a media type or a schema
// the status did not have).
func (rs *responseSet) add(status, description string, headers map[string]*Header, mediaType string, schema json.RawMessage) bool {
	p := rs.byStatus[status]
	if p == nil {
		p = &responseParts{content: map[string]*contentParts{}}
		rs.byStatus[status] = p
	}
	if p.description == "" {
		p.description = description
	}
	p.headers = mergeHeaders(p.headers, headers)
	if mediaType == "" {
		return false
	}
	key, _, err := mediatype.Parse(mediaType)
	if err != nil {
		key = strings.ToLower(mediaType)
	}
	c := p.content[key]
	if c == nil {
		c = &contentParts{mediaType: mediaType}
		p.content[key] = c
	}
	if len(c.schemas) == 0 {
		c.schemas = append(c.schemas, schema)
		return true
	}
	// A second schema for one media type: compare canonical forms, so that
	// an identical declaration is written once.
	if c.canons == nil {
		c.canons = []string{canonicalOrRaw(c.schemas[0])}
	}
	canon := canonicalOrRaw(schema)
	if slices.Contains(c.canons, canon) {
		return false
	}
	c.schemas = append(c.schemas, schema)
	c.canons = append(c.canons, canon)
	return true
}

// joinDescription is the description of a status answered with a body
// described by have and with a body of the host's described by add:
// summary, a line of its own, then each reason as an item of a Markdown
// list in the order they were joined (the declared one first), unless
// have says add already (compared ignoring case: "No such user, or the
// Idempotency-Key was used for a different request" names the host's
// 422). A description joined before is added to, not nested.
//
//	joinDescription(statusSummary("409"), "Already exists", "A request with this Idempotency-Key is still running")
//	// "Conflict, for one of these reasons:\n\n- Already exists\n- A request with this Idempotency-Key is still running"
func joinDescription(summary, have, add string) string {
	switch {
	case add == "" || strings.Contains(strings.ToLower(have), strings.ToLower(add)):
		return have
	case have == "":
		return add
	}
	if strings.HasPrefix(have, summary+"\n\n- ") {
		return have + "\n" + reasonItem(add)
	}
	return summary + "\n\n" + reasonItem(have) + "\n" + reasonItem(add)
}

// statusSummary is the first line of the description of a response whose
// status the host answers for several reasons (joinDescription).
func statusSummary(status string) string {
	return reasonPhrase(status) + ", for one of these reasons:"
}

// headerSummary is the first line of the description of a header the
// host sends with several answers of a status, meaning something for
// each (joinDescription).
const headerSummary = "Depending on the answer:"

// reasonItem is description as an item of joinDescription's list: its
// final period dropped, and any further line indented under the item.
func reasonItem(description string) string {
	d := strings.TrimSpace(description)
	if !strings.HasSuffix(d, "..") {
		d = strings.TrimSuffix(d, ".")
	}
	return "- " + strings.ReplaceAll(d, "\n", "\n  ")
}

// mergeHeaders returns have with the headers of add: a header have lacks
// is added as it is; one have has already, with another description,
// becomes a copy (a header may be shared by several responses) whose
// description is both (joinDescription: a Retry-After the host sends for
// the Idempotency-Key records' 429 and for a rate limit's says what it
// counts for each) and which is required only when both require it. The
// rest of have's header stays.
func mergeHeaders(have, add map[string]*Header) map[string]*Header {
	for name, h := range add {
		if have == nil {
			have = map[string]*Header{}
		}
		old, ok := have[name]
		switch {
		case !ok:
			have[name] = h
		case old == nil || h == nil || old.Ref != "" || h.Ref != "":
			// A reference is the author's to describe.
		default:
			desc := joinDescription(headerSummary, old.Description, h.Description)
			required := old.Required && h.Required
			if desc != old.Description || required != old.Required {
				merged := *old
				merged.Description, merged.Required = desc, required
				have[name] = &merged
			}
		}
	}
	return have
}

func canonicalOrRaw(s json.RawMessage) string {
	c, err := canonical(s)
	if err != nil {
		return string(s)
	}
	return c
}

// responses returns the Responses of the set, for a document of OpenAPI
// version spec.
func (rs *responseSet) responses(spec string) map[string]*Response {
	out := make(map[string]*Response, len(rs.byStatus)+1)
	for status, p := range rs.byStatus {
		r := &Response{Description: p.description, Headers: p.headers}
		if r.Description == "" {
			r.Description = reasonPhrase(status)
		}
		for _, c := range p.content {
			if r.Content == nil {
				r.Content = map[string]*MediaType{}
			}
			s := c.schemas[0]
			if len(c.schemas) > 1 {
				s = anyOf(c.schemas)
			}
			if sequential(c.mediaType) {
				r.Content[c.mediaType] = itemMedia(spec, s)
				continue
			}
			r.Content[c.mediaType] = &MediaType{Schema: s}
		}
		out[status] = r
	}
	return out
}

// reasonPhrase is the description of a status declared without one.
func reasonPhrase(status string) string {
	var code int
	if _, err := fmt.Sscan(status, &code); err == nil {
		if t := http.StatusText(code); t != "" {
			return t
		}
	}
	return "Status " + status
}

// anyOf combines schemas.
func anyOf(schemas []json.RawMessage) json.RawMessage {
	v, _ := jsonv2.Marshal(map[string][]json.RawMessage{"anyOf": schemas})
	return v
}

// finish adds the shared parts of the document once every operation is in.
func (b *builder) finish() {
	for name := range b.sharedResponses {
		if b.doc.Components == nil {
			b.doc.Components = &Components{}
		}
		if b.doc.Components.Responses == nil {
			b.doc.Components.Responses = map[string]*Response{}
		}
		b.doc.Components.Responses[name] = hostWideComponent(name)
	}
	for name := range b.framework {
		if _, ok := b.schemas[name]; !ok {
			b.schemas[name] = &namedSchema{value: json.RawMessage(frameworkCanonical[name]), canon: frameworkCanonical[name]}
		}
	}
	if len(b.schemas) > 0 {
		if b.doc.Components == nil {
			b.doc.Components = &Components{}
		}
		b.doc.Components.Schemas = map[string]json.RawMessage{}
		for name, s := range b.schemas {
			b.doc.Components.Schemas[name] = s.value
		}
	}
	for _, t := range slices.Sorted(maps.Keys(b.tags)) {
		b.doc.Tags = append(b.doc.Tags, &Tag{Name: t})
	}
	b.doc.fillExamples()
}

// opName is how an error names an operation: its method, path and module
// ("GET /api/users/{id} (server/api/users/[id].get.wasm)"). The module
// alone does not say which route of a bundle it is.
func opName(method, path, file string) string {
	return method + " " + path + " (" + file + ")"
}

// OperationID derives the operationId of an operation from its method and
// OpenAPI path template (docs/spec.md §7): the lower-case method, then each
// path segment in camel case, a "{param}" as "By" and its capitalised
// name. Characters other than letters and digits split a segment into
// words, each capitalised; the rest of each word keeps its case.
//
//	OperationID("GET", "/api/users/{id}")       // getApiUsersById
//	OperationID("GET", "/api/users/{id}/posts") // getApiUsersByIdPosts
//	OperationID("GET", "/openapi.json")         // getOpenapiJson
//	OperationID("POST", "/api/user-groups")     // postApiUserGroups
//	OperationID("GET", "/")                     // get
//
// # Notes
//
//   - Different paths can give one id (/api/user-groups and
//     /api/user_groups); [Build] then fails, naming both files.
func OperationID(method, path string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	words := func(s string) {
		for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			r, n := utf8.DecodeRuneInString(w)
			b.WriteRune(unicode.ToUpper(r))
			b.WriteString(w[n:])
		}
	}
	for seg := range strings.SplitSeq(path, "/") {
		for seg != "" {
			i := strings.IndexByte(seg, '{')
			j := strings.IndexByte(seg, '}')
			if i < 0 || j < i {
				words(seg)
				break
			}
			words(seg[:i])
			b.WriteString("By")
			words(seg[i+1 : j])
			seg = seg[j+1:]
		}
	}
	return b.String()
}
