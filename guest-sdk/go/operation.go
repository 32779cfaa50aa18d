package endpoints

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/hooks"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/jsonenc"
)

// Operation describes an endpoint: its documentation, its responses and,
// for a module that serves several methods, the method it handles. Every
// field is optional.
//
//	endpoints.Operation{
//		Summary: "Get a user",
//		Tags:    []string{"users"},
//		Responses: endpoints.Responses{
//			200: endpoints.JSON[User]("The user"),
//			404: endpoints.JSON[NotFound]("No such user"),
//		},
//	}
type Operation struct {
	// Method is the HTTP method the handler serves ("GET", "put", ...).
	// Leave it empty in a module whose file name has a method suffix
	// ([id].get.wasm). A module without suffix registers one handler per
	// method, each with its Method; its contract lists them under
	// "methods" (docs/spec.md §3).
	Method string

	// Summary is a one-line description of the operation.
	Summary string
	// Description is a longer description; CommonMark is allowed.
	Description string
	// Tags group operations in the OpenAPI document.
	Tags []string
	// Deprecated marks the operation as deprecated.
	Deprecated bool

	// Responses declares every status the handler answers with. When nil,
	// nothing is checked; [HandleFunc] then infers the success response
	// from its handler's result type.
	Responses Responses

	// Status is the success status of a [HandleFunc] handler. Defaults to
	// 200. 204, 205 and 304 send no body. [Handle] handlers choose their
	// status per reply and must leave it zero.
	Status int

	// Request replaces derived request schemas with hand-written ones.
	Request RequestSchemas

	// Defs are named JSON Schemas that the schemas of Request and of
	// [RawJSON] responses reference as {"$ref": "#/$defs/Name"}. They join
	// the $defs of the contract; a name must not be the name of a Go type
	// the module uses.
	Defs map[string]json.RawMessage

	// Idempotency declares Idempotency-Key handling for an unsafe method
	// (docs/spec.md §6). Nil leaves it off.
	Idempotency *abi.Idempotency

	// Security lists the operation's security requirements, which the
	// host enforces before the handler runs (401 without a good
	// credential, 403 without a scope): alternatives, each naming schemes
	// of the document's components.securitySchemes and the scopes each
	// needs. Nil leaves security to the routes configuration and the
	// runtime declaration; an empty, non-nil list opts the operation out.
	//
	//	Security: []abi.SecurityRequirement{{"bearer": {"users:write"}}},
	Security []abi.SecurityRequirement

	// Timeout is the deadline of one call of the operation, in place of
	// the app's limits.timeout (10 s by default); at most the app's
	// limits.maxTimeout (5 min by default), or the module fails its load.
	// Zero keeps limits.timeout.
	//
	//	Timeout: 2 * time.Minute,
	Timeout time.Duration

	// IdleTimeout is, for an operation that streams its answer (a
	// [Media] or [MediaOf] response, an [EventStream]), the longest the
	// handler may go without writing: each write restarts it, and a
	// handler silent longer is stopped, ending the stream. Zero: none
	// beyond Timeout.
	IdleTimeout time.Duration
}

// RequestSchemas are hand-written JSON Schemas (draft 2020-12) for the
// parts of a request. A non-nil member replaces the schema derived from the
// input struct for that part; the input struct is still filled from the
// validated values by name. Params, Query and Headers are object schemas
// whose properties are the parameters (header names in lower case).
//
//	Request: endpoints.RequestSchemas{
//		Body: json.RawMessage(`{"type":"object","properties":{"tags":{"type":"array"}}}`),
//	},
type RequestSchemas struct {
	// Params is the schema of the path parameters.
	Params json.RawMessage
	// Query is the schema of the query parameters.
	Query json.RawMessage
	// Headers is the schema of the declared request headers.
	Headers json.RawMessage
	// Body is the schema of the request body, under every media type the
	// Body field's content tag lists (for a raw type it only documents).
	// The body is required unless the input's Body field says otherwise.
	Body json.RawMessage
}

// Responses maps a status code to what the operation answers with it.
type Responses map[int]Response

// Response declares one status of an operation. Build it with [JSON],
// [JSONAs], [RawJSON], [NoContent], [Media] or [MediaOf].
type Response struct {
	description string
	typ         reflect.Type               // JSON, JSONAs, MediaOf: the Go type of the body or of one chunk
	schema      json.RawMessage            // RawJSON: the schema as written
	contentType string                     // JSONAs: the +json profile
	media       []string                   // Media, MediaOf: the types it sends
	isMedia     bool                       // Media, MediaOf: even when media is empty (an error)
	headers     map[string]json.RawMessage // DeclareHeader: schemas by name
}

// DeclareHeader declares a header the response carries, for the document
// (the host does not check it): a string described by description.
//
//	201: endpoints.JSON[User]("The new user").DeclareHeader("Location", "Where the new user is"),
func (r Response) DeclareHeader(name, description string) Response {
	d, _ := json.Marshal(description)
	r.headers = maps.Clone(r.headers)
	if r.headers == nil {
		r.headers = map[string]json.RawMessage{}
	}
	r.headers[name] = json.RawMessage(`{"type":"string","description":` + string(d) + `}`)
	return r
}

// JSON declares a JSON response whose schema is derived from T, the type
// of the value passed to [Respond].
//
//	404: endpoints.JSON[NotFound]("No such user"),
func JSON[T any](description string) Response {
	return Response{description: description, typ: reflect.TypeFor[T]()}
}

// RawJSON declares a JSON response with a hand-written JSON Schema; it may
// reference [Operation.Defs].
//
//	200: endpoints.RawJSON("The tags", `{"type":"array","items":{"type":"string"}}`),
func RawJSON(description string, schema string) Response {
	return Response{description: description, schema: json.RawMessage(schema)}
}

// NoContent declares a response without a body (204, 304 or a redirect).
func NoContent(description string) Response {
	return Response{description: description}
}

// Handle registers the handler of an endpoint. Call it from an init
// function. The handler receives a new In filled with the validated request
// and returns a [Reply].
//
// In is a struct whose fields are tagged with where they come from:
//
//	type getUser struct {
//		ID     int    `path:"id" minimum:"1" doc:"The user's id."`
//		Expand string `query:"expand" enum:"team,manager"`
//		Tenant string `header:"x-tenant" required:"true"`
//		Body   Patch  // the JSON body, if any
//	}
//
// The request schemas of the contract are derived from In; see the package
// documentation for the tags. The host validates every request against them
// before the handler runs, so the handler sees only valid values.
//
// # Notes
//
//   - Handle panics when In or a response type cannot be described (a bad
//     tag value, a channel field, an untagged field): the module then fails
//     to load, with the message naming type, field and tag. In a bundle,
//     a route describes its types when the bundle is declared (at load
//     and at build) or at its first request, not when it registers, so
//     that a fresh instance pays only for the routes it serves: the
//     declaration declares that route failed alone (see [BundleInit]).
//   - A module registers one handler, or one per method with
//     [Operation.Method] set; it cannot mix Handle with [HandleRaw].
//   - A value the host passed that In cannot hold (a schema of
//     [Operation.Request] wider than the field's type) does not run the
//     handler: it is answered 400 with the host's Validation Error body,
//     or by the [OnValidationError] hook, and logged as a warning.
func Handle[In any](op Operation, h func(in *In) Reply) {
	if h == nil {
		reg.fail(op, fmt.Errorf("Handle: the handler is nil"))
	}
	if op.Status != 0 {
		reg.fail(op, fmt.Errorf("Operation.Status applies to HandleFunc; a Handle handler chooses the status of each Reply"))
	}
	reg.register(op, reflect.TypeFor[In](), false, func(plan *inputPlan) serveFunc {
		return func(envelope []byte) (Reply, error) {
			in := new(In)
			if err := plan.fill(envelope, unsafe.Pointer(in)); err != nil {
				return refuseInput(err)
			}
			return h(in), nil
		}
	})
}

// HandleFunc registers a handler that returns a value or an error. The
// value is answered with [Operation.Status] (200 by default); an error made
// by [Error] answers its status and body; an error wrapping
// [ErrStorageUnavailable] (a [KV] call the host could not serve) answers
// 503 with {"statusCode":503,"statusMessage":"Service Unavailable"}; any
// other error answers 500 with
// {"statusCode":500,"statusMessage":"Internal Server Error"}. Both are
// logged.
//
//	endpoints.HandleFunc(endpoints.Operation{Summary: "List users"},
//		func(in *listUsers) ([]User, error) { return store.List(in.Limit) })
//
// When [Operation.Responses] is nil, the contract declares the success
// status with the schema of Out and says "responsesInferred": the host uses
// it for documentation and clients but does not check answers against it
// (the statuses of errors are not known).
//
// # Notes
//
//   - When Responses is set, the host checks answers in development: an
//     undeclared 500 or 503 is reported as a contract error there. Declare
//     them to document them.
func HandleFunc[In, Out any](op Operation, h func(in *In) (Out, error)) {
	if h == nil {
		reg.fail(op, fmt.Errorf("HandleFunc: the handler is nil"))
	}
	if reflect.TypeFor[Out]() == reflect.TypeFor[Reply]() {
		reg.fail(op, fmt.Errorf("HandleFunc: the handler returns a Reply: register it with Handle"))
	}
	status := op.Status
	if status == 0 {
		status = 200
	}
	if status < abi.ResponseStatusMin || status > abi.ResponseStatusMax {
		reg.fail(op, fmt.Errorf("Operation.Status %d is not a status an answer may have (%d-%d; a 1xx is informational, never the answer)", op.Status, abi.ResponseStatusMin, abi.ResponseStatusMax))
	}
	bodiless := status == 204 || status == 205 || status == 304
	infer := op.Responses == nil
	if infer {
		resp := Response{typ: reflect.TypeFor[Out]()}
		if bodiless {
			resp = NoContent("")
		}
		op.Responses = Responses{status: resp}
	}
	reg.register(op, reflect.TypeFor[In](), infer, func(plan *inputPlan) serveFunc {
		return func(envelope []byte) (Reply, error) {
			in := new(In)
			if err := plan.fill(envelope, unsafe.Pointer(in)); err != nil {
				return refuseInput(err)
			}
			v, err := h(in)
			if err != nil {
				return ErrorReply(err), nil
			}
			if bodiless {
				return Respond(status, nil), nil
			}
			return Respond(status, v), nil
		}
	})
}

// HandleRaw registers the handler of a plain route: it gets the raw
// request and writes what it likes, like a net/http handler. The module
// exports no contract; the host neither validates nor documents it.
//
//	func init() {
//		endpoints.HandleRaw(func(w endpoints.ResponseWriter, r *endpoints.RawRequest) {
//			w.Header().Set("Content-Type", "text/plain")
//			w.Write([]byte("ok\n"))
//		})
//	}
//
// # Notes
//
//   - A module has one raw handler and no typed ones.
//   - Bytes written go to the client as they are written.
func HandleRaw(h func(w ResponseWriter, r *RawRequest)) {
	reg.routeOnly(Operation{}, "HandleRaw")
	if h == nil {
		reg.fail(Operation{}, fmt.Errorf("HandleRaw: the handler is nil"))
	}
	if reg.raw != nil {
		reg.fail(Operation{}, fmt.Errorf("HandleRaw called twice: a plain route has one handler"))
	}
	if len(reg.ops) > 0 {
		reg.fail(Operation{}, fmt.Errorf("HandleRaw called in a module that registered an endpoint with Handle or HandleFunc: a module is either an endpoint or a plain route"))
	}
	if reg.hook != nil {
		reg.fail(Operation{}, fmt.Errorf("HandleRaw called in a module that registered OnValidationError: the host validates only endpoints"))
	}
	reg.raw = h
}

// ContractJSON returns the contract the module exports, as UTF-8 JSON: the
// bytes the host reads through the endpoints_contract export. It returns
// nil for a plain route (no handler registered with [Handle] or
// [HandleFunc]). The contract is built on the first call and kept; the
// result is a copy.
//
// Call it from a native test of a route to check its contract, or look at
// the examples of this package.
func ContractJSON() []byte {
	return bytes.Clone(reg.contractJSON())
}

func init() { hooks.Reset, hooks.SetVariable, hooks.SetRequest = reset, setVariable, beginRequest }

// reset forgets every handler registered with [Handle], [HandleFunc] and
// [HandleRaw], the hook of [OnValidationError], the contract built from
// them and the middleware of [DeclareMiddleware]; in a native build it also
// empties the in-memory stand-in of [KV]. A route module never needs it;
// this package's tests and examples, which register several modules' worth
// of handlers in one process, call it (as Reset, in export_test.go)
// between them, and endpointstest.Reset calls it through hooks.Reset.
func reset() {
	reg = newRegistry()
	bundle, bundleJSON = nil, nil
	middleware.m, middleware.json = nil, nil
	bundleMW.list, bundleMW.pending = nil, ""
	resetKV()
}

// serveFunc decodes a request envelope and runs the handler.
type serveFunc func(envelope []byte) (Reply, error)

// operation is one registered endpoint operation.
type operation struct {
	method   string // upper case; empty in a module with a method suffix
	contract *abi.Contract
	refs     map[string]bool // derived $defs its schemas reference
	rawDefs  map[string]json.RawMessage
	serve    serveFunc
	// build, until registry.ready runs it, makes refs, rawDefs, serve and
	// the contract's schemas: a bundle's route builds them on first use
	// (registry.lazy). site is the stack of its registration (the
	// program counters above register), for the error of a build that
	// fails: it names the line of the route's source that registered it.
	build func()
	site  []uintptr
}

// registry holds what the module registered. It is written by init
// functions and read by exports, which the host calls one at a time on one
// instance: no locking is needed (WebAssembly instances run one thread).
type registry struct {
	b        *builder
	ops      []*operation
	raw      func(ResponseWriter, *RawRequest)
	hook     func(*ValidationFailure) (Reply, bool) // OnValidationError
	contract []byte                                 // built on first use; the bytes stay valid for the host
	// middleware names the bundle's middleware whose package is being
	// initialised (BundleMiddleware): no route serves what it would
	// register, which routeOnly refuses. "" elsewhere.
	middleware string
	// lazy defers what register derives from types (input plans, schemas)
	// to the operation's first use (registry.ready): set for a bundle's
	// route, whose every fresh instance would otherwise derive them for
	// every route of the bundle at its start, though it serves a few.
	lazy bool
}

// reg is the module's registry.
var reg = newRegistry()

func newRegistry() *registry { return &registry{b: newBuilder()} }

// methods a module without method suffix may declare, in upper case.
var methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

// fail reports a registration error: it panics, so the module fails to
// load. The host logs what a module prints on stderr, the panic included,
// and quotes the panic in the load's error.
func (r *registry) fail(op Operation, err error) {
	var names []string
	for _, b := range bundle {
		if b.reg == r {
			// In a bundle every route package is named "route": its
			// route says which one this is.
			names = append(names, b.route)
			break
		}
	}
	if r.middleware != "" {
		names = append(names, "middleware "+r.middleware)
	}
	if op.Method != "" {
		names = append(names, "Method "+op.Method)
	}
	if op.Summary != "" {
		names = append(names, "Summary "+strconv.Quote(op.Summary))
	}
	where := "endpoints"
	if len(names) > 0 {
		where += " (" + strings.Join(names, ", ") + ")"
	}
	panic(where + ": " + err.Error())
}

// shortDuration writes d as time.Duration.String does, without its zero
// minutes and seconds: "5m" rather than "5m0s", "1h" rather than "1h0m0s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// routeOnly fails the registration of what ("Handle", "HandleRaw"...)
// made from the package of a bundle's middleware: it would have served
// the route whose package was initialised before (or, with a method of
// its own, been added to it), which is no route's code.
func (r *registry) routeOnly(op Operation, what string) {
	if r.middleware != "" {
		r.fail(op, fmt.Errorf("%s called from a middleware's package: a middleware registers no handler; move it to a route's package (//endpoints:route)", what))
	}
}

// register records an operation. inferred says HandleFunc derived its
// Responses from the handler's result type.
func (r *registry) register(op Operation, in reflect.Type, inferred bool, serve func(*inputPlan) serveFunc) {
	r.routeOnly(op, "Handle")
	method := strings.ToUpper(op.Method)
	if method != "" && !slices.Contains(methods, method) {
		r.fail(op, fmt.Errorf("Operation.Method %q is not one of %s", op.Method, strings.Join(methods, ", ")))
	}
	switch {
	case r.raw != nil:
		r.fail(op, fmt.Errorf("Handle called in a module that registered HandleRaw: a module is either an endpoint or a plain route"))
	case len(r.ops) > 0 && (method == "" || r.ops[0].method == ""):
		r.fail(op, fmt.Errorf("Handle called twice without Operation.Method: a module without method suffix registers one handler per method, each with Operation.Method set"))
	}
	for _, o := range r.ops {
		if o.method == method {
			r.fail(op, fmt.Errorf("a handler for method %s is already registered", method))
		}
	}

	c := &abi.Contract{
		Summary:     op.Summary,
		Description: op.Description,
		Tags:        op.Tags,
		Deprecated:  op.Deprecated,
		Idempotency: op.Idempotency,
		Security:    op.Security,
	}
	for _, d := range []struct {
		name  string
		value time.Duration
		to    *string
	}{{"Timeout", op.Timeout, &c.Timeout}, {"IdleTimeout", op.IdleTimeout, &c.IdleTimeout}} {
		switch {
		case d.value < 0:
			r.fail(op, fmt.Errorf("Operation.%s %s is negative; use 0 for the app's default", d.name, d.value))
		case d.value > 0:
			*d.to = shortDuration(d.value)
		}
	}
	o := &operation{method: method, contract: c}
	if !r.lazy {
		r.build(o, op, in, inferred, serve)
		r.ops = append(r.ops, o)
		r.contract = nil
		return
	}
	// A bundle's route: its plans and schemas wait for the route's first
	// request or the declaration (see registry.ready), what Operation
	// holds by reference copied as it is now.
	op.Defs, op.Responses = maps.Clone(op.Defs), maps.Clone(op.Responses)
	site := make([]uintptr, 32)
	site = site[:runtime.Callers(2, site)]
	o.build = func() { r.build(o, op, in, inferred, serve) }
	o.site = site
	r.ops = append(r.ops, o)
	r.contract = nil
}

// build makes what serves and declares operation o, registered with op:
// its input plan, the schemas of its request and responses, the $defs of
// op.Defs. It fails as register does (registry.fail) when a type cannot
// be described.
func (r *registry) build(o *operation, op Operation, in reflect.Type, inferred bool, serve func(*inputPlan) serveFunc) {
	c := o.contract
	o.rawDefs = map[string]json.RawMessage{}
	for _, name := range slices.Sorted(maps.Keys(op.Defs)) {
		s, err := pick(nil, op.Defs[name], "Defs["+strconv.Quote(name)+"]")
		if err != nil {
			r.fail(op, fmt.Errorf("Operation.Defs[%q]: not valid JSON", name))
		}
		if prev, ok := r.b.raw[name]; ok && !bytes.Equal(prev, s) || r.b.defs[name] != nil {
			r.fail(op, fmt.Errorf("Operation.Defs[%q]: the name is already used by another schema of the module", name))
		}
		r.b.raw[name] = s
		o.rawDefs[name] = s
	}

	stop := r.b.collect()
	plan, req, err := r.b.planInput(in, op.Request)
	if err != nil {
		stop()
		r.fail(op, err)
	}
	c.Request = req
	if op.Responses != nil {
		c.Responses = map[string]*abi.Response{}
		c.ResponsesInferred = inferred
	}
	for _, status := range slices.Sorted(maps.Keys(op.Responses)) {
		ar, err := r.b.response(status, op.Responses[status], false)
		if err != nil {
			stop()
			r.fail(op, err)
		}
		c.Responses[strconv.Itoa(status)] = ar
	}
	o.refs = stop()
	o.serve = serve(plan)
}

// ready builds the operations of r whose building register left for
// later (a bundle's route's), in the order they were registered, so that
// the builder names their schemas as it would have at registration. The
// route's first request calls it, and its declaration; a type that cannot
// be described fails there (registry.fail), and the bundle's declaration
// declares the route failed (bundleRoute.ready).
func (r *registry) ready() {
	for _, o := range r.ops {
		if build := o.build; build != nil {
			o.build = nil
			build()
		}
	}
}

// response converts the declaration of one status to the contract's form,
// its errors naming Responses[status]. inline writes the schema of a [JSON]
// response whole, without "$ref" to the $defs, for a declaration that has
// none (a middleware's).
func (b *builder) response(status int, resp Response, inline bool) (*abi.Response, error) {
	if status < 100 || status > 599 {
		return nil, fmt.Errorf("Responses[%d]: not an HTTP status (100-599)", status)
	}
	if err := resp.check(); err != nil {
		return nil, fmt.Errorf("Responses[%d]: %w", status, err)
	}
	ar := &abi.Response{Description: resp.description, Headers: maps.Clone(resp.headers),
		ContentType: resp.contentType, Media: slices.Clone(resp.media)}
	var err error
	switch {
	case resp.typ != nil:
		s, err := b.schemaOf(resp.typ)
		if err == nil && inline {
			s, err = b.inline(s, nil)
		}
		if err != nil {
			return nil, fmt.Errorf("Responses[%d]: %w", status, err)
		}
		if ar.Schema, err = s.json(); err != nil {
			return nil, err
		}
	case resp.schema != nil:
		if ar.Schema, err = pick(nil, resp.schema, "body"); err != nil {
			return nil, fmt.Errorf("Responses[%d]: RawJSON schema is not valid JSON", status)
		}
	}
	return ar, nil
}

// contractJSON builds the contract on first use and keeps it.
//
// The $defs sit at the root of the contract, also in a "methods" contract:
// a "#/$defs/Name" reference resolves against the contract document, and
// the host compiles every schema against the whole document. Only the
// $defs that some schema references, transitively, are written.
func (r *registry) contractJSON() []byte {
	if r.contract != nil || len(r.ops) == 0 {
		return r.contract
	}
	r.ready()
	for _, o := range r.ops {
		// OnValidationError may be called before or after the handlers.
		o.contract.OnValidationError = r.hook != nil
	}
	var c abi.Contract
	if len(r.ops) == 1 && r.ops[0].method == "" {
		c = *r.ops[0].contract
	} else {
		c.Methods = map[string]*abi.Contract{}
		for _, o := range r.ops {
			c.Methods[strings.ToLower(o.method)] = o.contract
		}
	}
	refs := map[string]bool{}
	defs := map[string]json.RawMessage{}
	for _, o := range r.ops {
		maps.Copy(refs, o.refs)
		maps.Copy(defs, o.rawDefs)
	}
	for name := range r.b.closure(refs) {
		s, err := r.b.defs[name].json()
		if err != nil {
			panic("endpoints: encoding $defs/" + name + ": " + err.Error())
		}
		defs[name] = s
	}
	b, err := appendContract(nil, &c) // c.Defs is nil: appendDefs writes them
	if err != nil {
		// Every schema was marshalled once already at registration.
		panic("endpoints: encoding the contract: " + err.Error())
	}
	r.contract = appendDefs(b, defs)
	return r.contract
}

// appendDefs adds defs as the "$defs" member of the contract object b,
// where json.Marshal puts it (abi.Contract's last field, its keys sorted),
// but with each schema written as it is: json.Marshal would compact every
// one again (a json.RawMessage, though compact already), scanning each
// byte, and a contract's $defs are most of its bytes. In the interpreter
// that runs a saved module's new version until the compiler is done,
// that scan cost the host tens of milliseconds per reload.
func appendDefs(b []byte, defs map[string]json.RawMessage) []byte {
	if len(defs) == 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16+len(defs)*64)
	out = append(out, b[:len(b)-1]...) // without the closing brace
	if len(b) > 2 {
		out = append(out, ',')
	}
	out = append(out, `"$defs":{`...)
	for i, name := range slices.Sorted(maps.Keys(defs)) {
		if i > 0 {
			out = append(out, ',')
		}
		out = jsonenc.AppendStringNoHTML(out, name)
		out = append(out, ':')
		out = append(out, defs[name]...)
	}
	return append(out, "}}"...)
}
