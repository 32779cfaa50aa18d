// Package routes compiles the contract of an endpoint module into its
// operations, once per load: for each method, the schemas its request
// parts are validated against, its object query parameters, its request
// body, its timeouts, the media types it offers and streams, and the
// responses its answers are checked against (docs/spec.md §4).
//
// What it provides is [Compile] (a module's contract to an [Endpoint]) and
// the [Operation] values the host reads per request, which coerce and
// validate the request's parts ([Operation.ValidateParams],
// [Operation.ValidateQuery], [Operation.ValidateHeaders]) and check a
// buffered answer against the declared responses ([Operation.CheckAnswer]);
// the route table that holds them, and the modules behind them, stay with
// the host.
package routes

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/querystyles"
	"github.com/wasmendpoints/endpoints/host/internal/requestbody"
	"github.com/wasmendpoints/endpoints/internal/mediatype"
	"github.com/wasmendpoints/endpoints/internal/queryobject"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/validation"
	"github.com/wasmendpoints/endpoints/openapi"
)

// Operation is one method of an endpoint with everything compiled from its
// contract that the pipeline needs per request. It is read, never written,
// once its endpoint is compiled (and the routes configuration applied:
// [Endpoint.AddConfigResponses]).
type Operation struct {
	// Method is the upper-case method (GET).
	Method string
	// Contract is the operation's part of the contract.
	Contract *abi.Contract
	// Params, Query and Headers are the schemas of the request parts,
	// nil for a part the contract does not declare.
	Params, Query, Headers *validation.Schema
	// QueryObjects are the object query parameters, read by their
	// OpenAPI style before the query is coerced.
	QueryObjects queryobject.Set
	// Body is the declared request body, nil for none.
	Body *requestbody.Decl
	// Responses is nil when answers are not checked (none declared, or
	// inferred by an SDK); otherwise the declared responses by status.
	Responses map[int]*Response
	// Statuses lists the declared statuses ("200, 404"), for error
	// messages.
	Statuses string
	// ValidationError is the framework's 400 body schema when answers
	// are checked and the operation declares a request part: a 400 the
	// guest writes in that shape is the framework's own answer.
	ValidationError *validation.Schema
	// Media maps each status declared as a media response to its first
	// type: answers with these statuses stream.
	Media map[int]string
	// Timeout and IdleTimeout are the contract's "timeout" and
	// "idleTimeout"; zero for none (limits.timeout applies).
	Timeout, IdleTimeout time.Duration
	// Offers are the media types of the 2xx responses in declaration
	// order (status, then the order of "media"); more than one means the
	// operation negotiates (docs/spec.md §4 step 4).
	Offers []string
	// pointer is where the operation sits in its module's contract ("" or
	// "/methods/get"), for errors.
	pointer string
}

// Negotiates reports whether the operation chooses among media types.
func (op *Operation) Negotiates() bool { return len(op.Offers) > 1 }

// compileOperation compiles the operation of method, whose contract c sits
// at the JSON pointer base of the module's contract (comp): "" for a module
// of one method, "/methods/get" for one of an endpoint's methods.
func compileOperation(comp *validation.Contract, rf routefile.Route, method string, c *abi.Contract, base string) (*Operation, error) {
	op := &Operation{Method: method, Contract: c, pointer: base}
	var err error
	if c.Request != nil {
		if op.Params, err = comp.Compile(base + "/request/params"); err != nil {
			return nil, err
		}
		if op.Query, err = comp.Compile(base + "/request/query"); err != nil {
			return nil, err
		}
		if op.QueryObjects, err = querystyles.Compile(rf.File, base, op.Query, c.Request.QueryStyles); err != nil {
			return nil, err
		}
		if op.Headers, err = comp.Compile(base + "/request/headers"); err != nil {
			return nil, err
		}
		if b := c.Request.Body; b != nil {
			if op.Body, err = requestbody.Compile(comp, rf.File, b, base); err != nil {
				return nil, err
			}
		}
	}
	if op.Params != nil {
		names := rf.ParamNames()
		for _, p := range op.Params.Properties() {
			if !slices.Contains(names, p) {
				return nil, fmt.Errorf("%s: contract: %s/request/params/properties/%s: the route %s has no parameter %q (it has %s)", rf.File, base, p, rf.Pattern(), p, quoteList(names))
			}
		}
	}
	for _, d := range []struct {
		value, name string
		to          *time.Duration
	}{{c.Timeout, "timeout", &op.Timeout}, {c.IdleTimeout, "idleTimeout", &op.IdleTimeout}} {
		if d.value == "" {
			continue
		}
		if *d.to, err = time.ParseDuration(d.value); err != nil || *d.to <= 0 {
			return nil, fmt.Errorf("%s: contract: %s/%s: %q is not a positive duration such as \"30s\"", rf.File, base, d.name, d.value)
		}
	}
	op.Media, op.Offers = mediaOf(c.Responses)
	// "responses": {} declares nothing, as leaving it out does: the
	// document says "default" for it, and nothing is checked.
	if len(c.Responses) > 0 && !c.ResponsesInferred {
		op.Responses = map[int]*Response{}
		for key, resp := range c.Responses {
			if err := op.declare(comp, key, resp, base+"/responses/"+key+"/schema"); err != nil {
				return nil, err
			}
		}
		op.listStatuses()
		if declaresRequestPart(c) {
			if op.ValidationError, err = validationErrorSchema(); err != nil {
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

// listStatuses writes the declared statuses in order, for error messages.
func (op *Operation) listStatuses() {
	statuses := make([]int, 0, len(op.Responses))
	for st := range op.Responses {
		statuses = append(statuses, st)
	}
	slices.Sort(statuses)
	s := make([]string, len(statuses))
	for i, st := range statuses {
		s[i] = strconv.Itoa(st)
	}
	op.Statuses = strings.Join(s, ", ")
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
