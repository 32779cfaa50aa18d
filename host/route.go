package host

import (
	stdjson "encoding/json"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/querystyles"
	"github.com/wasmendpoints/endpoints/host/internal/requestbody"
	"github.com/wasmendpoints/endpoints/internal/mediatype"
	"github.com/wasmendpoints/endpoints/internal/queryobject"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/router"
	"github.com/wasmendpoints/endpoints/internal/validation"
	"github.com/wasmendpoints/endpoints/openapi"
)

// route is one loaded module at its place in the route table.
type route struct {
	file string
	// pattern is the route's template (/api/users/:id), made once: for
	// observers, the envelope, rate limits and Idempotency-Keys, which
	// would otherwise build it again for every request.
	pattern string
	rf      routefile.Route
	mod     *module
	plain   bool
	// ops holds an endpoint's operations by upper-case method.
	ops   map[string]*operation
	allow []string // methods an endpoint serves, for 405 and OPTIONS
}

// operation is one method of an endpoint with everything compiled from its
// contract that the pipeline needs per request.
type operation struct {
	method   string
	contract *abi.Contract
	params   *validation.Schema
	query    *validation.Schema
	// queryObjects are the object query parameters, read by their
	// OpenAPI style before the query is coerced.
	queryObjects queryobject.Set
	headers      *validation.Schema
	// body is the declared request body, nil for none.
	body *requestbody.Decl
	// responses is nil when answers are not checked (none declared, or
	// inferred by an SDK).
	responses map[int]*declaredResponse
	statuses  string // "200, 404", for error messages
	// validationError is the framework's 400 body schema when answers are
	// checked and the operation declares a request part: see
	// checkAnswer.
	validationError *validation.Schema
	// media maps each status declared as a media response to its first
	// type: answers with these statuses stream.
	media map[int]string
	// timeout and idleTimeout are the contract's "timeout" and
	// "idleTimeout"; zero for none (limits.timeout applies).
	timeout, idleTimeout time.Duration
	// offers are the media types of the 2xx responses in declaration
	// order (status, then the order of "media"); more than one means the
	// operation negotiates (docs/spec.md §4 step 4).
	offers []string
}

// negotiates reports whether the operation chooses among media types.
func (op *operation) negotiates() bool { return len(op.offers) > 1 }

// declaredResponse is one status of the contract.
type declaredResponse struct {
	schema      *validation.Schema // nil for media or bodiless responses
	contentType string             // sent when the guest sets none
	// headers are the schemas of the declared response headers, by
	// canonical name: a value the answer sends is checked against its.
	headers map[string]*validation.Schema
}

func newRoute(rf routefile.Route, mod *module) (*route, error) {
	r := &route{file: mod.file, pattern: rf.Pattern(), rf: rf, mod: mod, plain: mod.contract == nil}
	if r.plain {
		return r, nil
	}
	if rf.Dynamic() {
		return nil, fmt.Errorf("%s: an endpoint cannot sit on a catch-all or optional segment (%s); use [param] segments, or export no contract to make it a plain route", rf.File, rf.Pattern())
	}
	c := mod.contract
	comp, err := validation.NewContract(rf.File, mod.contractJSON)
	if err != nil {
		return nil, err
	}
	r.ops = map[string]*operation{}
	switch {
	case rf.Method != "":
		op, err := compileOperation(comp, rf, rf.Method, c, "")
		if err != nil {
			return nil, err
		}
		r.ops[rf.Method] = op
	case len(c.Methods) > 0:
		for m, mc := range c.Methods {
			method := strings.ToUpper(m)
			op, err := compileOperation(comp, rf, method, mc, "/methods/"+m)
			if err != nil {
				return nil, err
			}
			r.ops[method] = op
		}
	case mod.index >= 0:
		return nil, fmt.Errorf("%s: contract: /: a route of every method (*) must declare its operations in \"methods\" ({\"get\": {...}, \"post\": {...}}), or the route must name its method (e.g. GET %s)", rf.File, rf.Pattern())
	default:
		return nil, fmt.Errorf("%s: contract: /: a module without a method suffix must declare its operations in \"methods\" ({\"get\": {...}, \"post\": {...}}), or the file name must carry a method (e.g. %s)", rf.File, strings.TrimSuffix(rf.File, ".wasm")+".get.wasm")
	}
	for _, op := range r.ops {
		if op.contract.OnValidationError && !mod.hookExported {
			hook := abi.ExportOnValidationError
			if mod.index >= 0 {
				hook = abi.ExportOnValidationErrorRoute // a bundle's
			}
			return nil, fmt.Errorf("%s: contract: /onValidationError: true, but the module does not export %q; export the hook (Go SDK: endpoints.OnValidationError) or drop the flag", rf.File, hook)
		}
	}
	set := map[string]bool{"OPTIONS": true}
	for m := range r.ops {
		set[m] = true
		if m == "GET" {
			set["HEAD"] = true
		}
	}
	for m := range set {
		r.allow = append(r.allow, m)
	}
	slices.Sort(r.allow)
	return r, nil
}

// checkTimeouts refuses a route whose operations ask for a timeout or an
// idle timeout over max (limits.maxTimeout).
func (r *route) checkTimeouts(limit time.Duration) error {
	for _, m := range slices.Sorted(maps.Keys(r.ops)) {
		op := r.ops[m]
		base := ""
		if r.rf.Method == "" {
			base = "/methods/" + strings.ToLower(m)
		}
		for _, d := range []struct {
			name  string
			value time.Duration
		}{{"timeout", op.timeout}, {"idleTimeout", op.idleTimeout}} {
			if d.value > limit {
				return fmt.Errorf("%s: contract: %s/%s: %s is over limits.maxTimeout (%s); shorten it, or raise limits.maxTimeout in %s", r.file, base, d.name, d.value, limit, config.File)
			}
		}
	}
	return nil
}

// register adds the route to rt. A module without a method suffix that
// declares its methods (an endpoint) claims each of them, so a module with
// a suffix claiming one of them at the same path fails the load, naming
// both; a plain route without a suffix serves the methods no other module
// of its path claims.
func (r *route) register(rt *router.Router[*route]) error {
	if r.rf.Method != "" || r.plain {
		return rt.Add(r.rf, r)
	}
	methods := make([]string, 0, len(r.ops))
	for m := range r.ops {
		methods = append(methods, m)
	}
	slices.Sort(methods)
	return rt.AddMethods(r.rf, methods, r)
}

func compileOperation(comp *validation.Contract, rf routefile.Route, method string, c *abi.Contract, base string) (*operation, error) {
	op := &operation{method: method, contract: c}
	var err error
	if c.Request != nil {
		if op.params, err = comp.Compile(base + "/request/params"); err != nil {
			return nil, err
		}
		if op.query, err = comp.Compile(base + "/request/query"); err != nil {
			return nil, err
		}
		if op.queryObjects, err = querystyles.Compile(rf.File, base, op.query, c.Request.QueryStyles); err != nil {
			return nil, err
		}
		if op.headers, err = comp.Compile(base + "/request/headers"); err != nil {
			return nil, err
		}
		if b := c.Request.Body; b != nil {
			if op.body, err = requestbody.Compile(comp, rf.File, b, base); err != nil {
				return nil, err
			}
		}
	}
	if op.params != nil {
		names := rf.ParamNames()
		for _, p := range op.params.Properties() {
			if !slices.Contains(names, p) {
				return nil, fmt.Errorf("%s: contract: %s/request/params/properties/%s: the route %s has no parameter %q (it has %s)", rf.File, base, p, rf.Pattern(), p, quoteList(names))
			}
		}
	}
	for _, d := range []struct {
		value, name string
		to          *time.Duration
	}{{c.Timeout, "timeout", &op.timeout}, {c.IdleTimeout, "idleTimeout", &op.idleTimeout}} {
		if d.value == "" {
			continue
		}
		if *d.to, err = time.ParseDuration(d.value); err != nil || *d.to <= 0 {
			return nil, fmt.Errorf("%s: contract: %s/%s: %q is not a positive duration such as \"30s\"", rf.File, base, d.name, d.value)
		}
	}
	op.media, op.offers = mediaOf(c.Responses)
	// "responses": {} declares nothing, as leaving it out does: the
	// document says "default" for it, and nothing is checked.
	if len(c.Responses) > 0 && !c.ResponsesInferred {
		op.responses = map[int]*declaredResponse{}
		for key, resp := range c.Responses {
			if err := op.declare(comp, key, resp, base+"/responses/"+key+"/schema"); err != nil {
				return nil, err
			}
		}
		op.listStatuses()
		if declaresRequestPart(c) {
			if op.validationError, err = validationErrorSchema(); err != nil {
				return nil, err
			}
		}
	}
	return op, nil
}

// declaresRequestPart reports whether the operation validates a request
// part, so that the framework's 400 is one of its answers: the OpenAPI
// document lists it then (openapi.Build).
func declaresRequestPart(c *abi.Contract) bool {
	r := c.Request
	return r != nil && (len(r.Params) > 0 || len(r.Query) > 0 || len(r.Headers) > 0 || r.Body != nil)
}

// validationErrorSchema compiles the schema of the framework's 400 body
// once.
var validationErrorSchema = sync.OnceValues(func() (*validation.Schema, error) {
	raw, _ := openapi.FrameworkSchema(openapi.SchemaValidationError)
	comp, err := validation.NewContract("framework "+openapi.SchemaValidationError, raw)
	if err != nil {
		return nil, err
	}
	return comp.Compile("")
})

func quoteList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// addConfigResponses makes the statuses the routes configuration declares
// for an operation count as declared when answers are checked: a 401 that
// server/routes.config.json documents is an answer the contract allows.
// The contract's own declaration of a status wins.
func (op *operation) addConfigResponses(rc *openapi.RoutesConfig, pattern string) error {
	if rc == nil || op.responses == nil {
		return nil
	}
	extra := rc.ResponsesFor(op.method, pattern)
	if len(extra) == 0 {
		return nil
	}
	root := map[string]any{"responses": extra}
	if rc.Defs != nil {
		root["$defs"] = rc.Defs // a configuration without "$defs" has none: not null
	}
	doc, err := stdjson.Marshal(root)
	if err != nil {
		return err
	}
	comp, err := validation.NewContract(RoutesConfigFile, doc)
	if err != nil {
		return err
	}
	for key, resp := range extra {
		status, _ := strconv.Atoi(key)
		if _, ok := op.responses[status]; ok {
			continue
		}
		if err := op.declare(comp, key, resp, "/responses/"+key+"/schema"); err != nil {
			return err
		}
	}
	op.listStatuses()
	return nil
}

// addConfigResponses applies the routes configuration to every operation.
func (r *route) addConfigResponses(rc *openapi.RoutesConfig) error {
	for _, op := range r.ops {
		if err := op.addConfigResponses(rc, r.rf.Pattern()); err != nil {
			return fmt.Errorf("%s: %w", r.file, err)
		}
	}
	return nil
}

// declare adds one declared status, compiling its schema at pointer of
// comp when the answer is validated JSON.
func (op *operation) declare(comp *validation.Contract, key string, resp *abi.Response, pointer string) error {
	status, _ := strconv.Atoi(key)
	d := &declaredResponse{}
	if !resp.IsMedia() && resp.Schema != nil {
		var err error
		if d.schema, err = comp.Compile(pointer); err != nil {
			return err
		}
		d.contentType = "application/json"
		if resp.ContentType != "" {
			d.contentType = resp.ContentType
		}
	}
	base := strings.TrimSuffix(pointer, "/schema")
	for name := range resp.Headers {
		s, err := comp.Compile(base + "/headers/" + openapi.EscapeToken(name))
		if err != nil {
			return err
		}
		if s == nil {
			continue
		}
		if d.headers == nil {
			d.headers = map[string]*validation.Schema{}
		}
		d.headers[http.CanonicalHeaderKey(name)] = s
	}
	op.responses[status] = d
	return nil
}

// listStatuses writes the declared statuses in order, for error messages.
func (op *operation) listStatuses() {
	statuses := make([]int, 0, len(op.responses))
	for st := range op.responses {
		statuses = append(statuses, st)
	}
	slices.Sort(statuses)
	s := make([]string, len(statuses))
	for i, st := range statuses {
		s[i] = strconv.Itoa(st)
	}
	op.statuses = strings.Join(s, ", ")
}

// mediaOf reads which statuses stream and what the 2xx responses offer.
func mediaOf(responses map[string]*abi.Response) (map[int]string, []string) {
	keys := make([]string, 0, len(responses))
	for k := range responses {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	media := map[int]string{}
	var offers []string
	offer := func(t string) {
		if !slices.ContainsFunc(offers, func(o string) bool { return mediatype.Same(o, t) }) {
			offers = append(offers, t)
		}
	}
	for _, k := range keys {
		status, _ := strconv.Atoi(k)
		r := responses[k]
		if r.IsMedia() {
			media[status] = r.Media[0]
		}
		if status < 200 || status > 299 {
			continue
		}
		switch {
		case r.IsMedia():
			for _, t := range r.Media {
				offer(t)
			}
		case r.ContentType != "":
			offer(r.ContentType)
		case r.Schema != nil:
			offer("application/json")
		}
	}
	return media, offers
}

// checkHeaders returns what is wrong with the headers of an answer with
// the declared status: a Content-Type other than the declared JSON type
// (the document gives the body under that type only), and a declared
// header whose value its schema refuses. The path of an issue is
// ["headers", name].
func (d *declaredResponse) checkHeaders(status int, header http.Header) []validation.Issue {
	var issues []validation.Issue
	if ct := header.Get("Content-Type"); ct != "" && d.contentType != "" && !sameEssence(ct, d.contentType) {
		issues = append(issues, validation.Issue{Path: []any{"headers", "Content-Type"},
			Message: fmt.Sprintf("is %q, but the contract declares %s for status %d", ct, d.contentType, status)})
	}
	for _, name := range slices.Sorted(maps.Keys(d.headers)) {
		vs := header.Values(name)
		if len(vs) == 0 {
			continue
		}
		s := d.headers[name]
		for _, is := range s.Validate(s.CoerceValue(vs[0])) {
			is.Path = append([]any{"headers", name}, is.Path...)
			issues = append(issues, is)
		}
	}
	return issues
}

// sameEssence reports whether two media types are the same type and
// subtype, whatever their parameters ("application/json; charset=utf-8"
// is application/json).
func sameEssence(a, b string) bool {
	ma, _, errA := mime.ParseMediaType(a)
	mb, _, errB := mime.ParseMediaType(b)
	return errA == nil && errB == nil && ma == mb
}
