package host

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/envelope"
	"github.com/wasmendpoints/endpoints/internal/answer"
	"github.com/wasmendpoints/endpoints/internal/negotiate"
	"github.com/wasmendpoints/endpoints/internal/queryobject"
	"github.com/wasmendpoints/endpoints/internal/querystring"
	"github.com/wasmendpoints/endpoints/internal/validation"
)

// step is one step of the request pipeline of docs/spec.md §4 that an
// endpoint's request walks once it is routed. It runs on the request's
// call and reports whether the request goes on; when it does not, the step
// wrote the answer.
type step struct {
	// n and name are the step's number and name in docs/spec.md §4, its
	// first words in bold (TestPipelineFollowsSpec checks both against
	// the text).
	n    int
	name string
	run  func(h requestSide, w http.ResponseWriter, r *http.Request, c *call) bool
}

// pipeline is the steps of an endpoint's request, in order. Steps 1
// (CORS) and 2 (route match) come first, in Host.serve, for every request
// (plain routes' too) before a call exists. Steps 5 and 6 are in
// bodystep.go, over package requestbody, which handles the request body.
var pipeline = [...]step{
	{3, "Request id", stepAdmit},
	{4, "Accept negotiation", stepNegotiate},
	{5, "Content-Type", stepContentType},
	{6, "Body size", stepBody},
	{7, "Coerce and validate", stepValidate},
	{8, "Idempotency-Key", stepIdempotency},
	{9, "The guest", stepGuest},
	{10, "The answer is checked", stepCheckAnswer},
	{11, "after", stepAfter},
}

// runPipeline runs the steps of an endpoint's request until one answers
// it, then ends what the steps left open.
func runPipeline(h requestSide, w http.ResponseWriter, r *http.Request, c *call) {
	defer endPipeline(h, r, c)
	for i := range pipeline {
		if !pipeline[i].run(h, w, r, c) {
			return
		}
	}
}

// endPipeline ends what the steps left open once the request is answered
// (or its handler panicked): the validation span of a refused request,
// and a claimed Idempotency-Key whose answer was not stored, which is
// freed.
func endPipeline(h requestSide, r *http.Request, c *call) {
	if c.validated != nil {
		endSpan(c.validated, ErrRefused)
		c.validated = nil
	}
	if c.claimed {
		h.idem.Release(r, idemCall{c})
	}
}

// stepAdmit is step 3: the request id, the operation's security, rate
// limits and the middleware before the handler.
func stepAdmit(h requestSide, w http.ResponseWriter, r *http.Request, c *call) bool {
	return h.admit(w, r, c.table, c)
}

// stepNegotiate is step 4: content negotiation, for operations that offer
// several types. Steps 4-7 are one span for a tracer: refused, it ends
// with ErrRefused (endPipeline).
func stepNegotiate(h requestSide, w http.ResponseWriter, r *http.Request, c *call) bool {
	c.validated = c.startSpan(StepValidate, "")
	op := c.op
	if !op.Negotiates() {
		return true
	}
	w.Header().Add("Vary", "Accept")
	accept := strings.Join(r.Header.Values("Accept"), ", ")
	chosen, ok := negotiate.Choose(accept, op.Offers)
	if !ok {
		h.refuse(w, r, c, c.table, &abi.ValidationFailure{Kind: abi.FailureAccept, Status: http.StatusNotAcceptable, Part: abi.PartHeaders.String(), Received: accept, SupportedMediaTypes: op.Offers})
		return false
	}
	c.mediaType = chosen
	return true
}

// stepValidate is step 7: coerce, default and validate every part, and
// refuse the request with every failing part's issues (400). Text that is
// not UTF-8 is refused, not repaired: the guest would read other text than
// the host validated.
func stepValidate(h requestSide, w http.ResponseWriter, r *http.Request, c *call) bool {
	op, issues := c.op, &c.issues
	issues.Params = validatePart(op.Params, c.params, coerceParams(c))
	if op.Query != nil {
		issues.Query = validatePart(op.Query, c.query, coerceQuery(r, c))
	}
	if op.Headers != nil {
		issues.Headers = validatePart(op.Headers, c.headers, coerceHeaders(r, c))
	}
	if !issues.empty() {
		h.refuse(w, r, c, c.table, issues.failure())
		return false
	}
	endSpan(c.validated, nil)
	c.validated = nil
	return true
}

// validatePart returns the issues of one part of the request: those its
// coercion found (bad), if any, else those of its values checked against
// its schema, defaults applied. A part without a schema has none.
func validatePart(schema *validation.Schema, values map[string]any, bad []validation.Issue) []validation.Issue {
	if bad != nil || schema == nil {
		return bad
	}
	schema.ApplyDefaults(values)
	return schema.Validate(values)
}

// coerceParams puts the path parameters, coerced to their schema's types,
// in c.params, and returns the issues of those that are not UTF-8.
func coerceParams(c *call) (bad []validation.Issue) {
	params := c.op.Params
	for i, name := range c.pathNames {
		value := c.pathValues[i]
		switch {
		case !utf8.ValidString(value):
			bad = append(bad, validation.NotUTF8(name, value))
		case params != nil:
			c.params[name] = params.CoerceString(name, value)
		default:
			c.params[name] = value
		}
	}
	return bad
}

// coerceQuery puts the query's parameters, coerced to their schema's
// types, in c.query, and returns the issues of a query that does not
// parse whole (refused whole: the guest reads the raw query, so
// validating what parsed would not do) and of parameters that are not
// UTF-8.
func coerceQuery(r *http.Request, c *call) (bad []validation.Issue) {
	query := c.op.Query
	values, err := querystring.Parse(r.URL.RawQuery, c.set.limits.QueryParams, "limits.queryParams")
	if err != nil {
		bad = append(bad, validation.Issue{Path: []any{}, Message: err.Error()})
	}
	var keep []string
	if c.table.security != nil {
		keep = c.table.security.SecretQuery // API keys sent in the query
	}
	objects, err := c.op.QueryObjects.Gather(values, keep)
	var oerr *queryobject.Error
	if errors.As(err, &oerr) {
		bad = append(bad, validation.Issue{Path: []any{oerr.Param}, Message: oerr.Error()})
	}
	for k, members := range objects {
		if b := notUTF8Members(k, members); b != nil {
			bad = append(bad, *b)
			continue
		}
		c.query[k] = query.CoerceMembers(k, members)
	}
	for k, vs := range values {
		if b := validation.NotUTF8Values(k, vs); b != nil {
			bad = append(bad, *b)
			continue
		}
		c.query[k] = query.CoerceStrings(k, vs)
	}
	return bad
}

// coerceHeaders puts the declared request headers, coerced to their
// schema's types, in c.headers, and returns the issues of those that are
// not UTF-8.
func coerceHeaders(r *http.Request, c *call) (bad []validation.Issue) {
	headers := c.op.Headers
	for _, name := range headers.Properties() {
		if vs := envelope.HeaderValues(r, name); len(vs) > 0 {
			if b := validation.NotUTF8Values(name, vs); b != nil {
				bad = append(bad, *b)
				continue
			}
			c.headers[name] = headers.CoerceStrings(name, splitHeaderValues(vs))
		}
	}
	return bad
}

// stepIdempotency is step 8: the Idempotency-Key claimed, or its stored
// answer replayed. Whatever ends the call without a stored answer frees
// the key (endPipeline).
func stepIdempotency(h requestSide, w http.ResponseWriter, r *http.Request, c *call) bool {
	if c.op.Contract.Idempotency == nil {
		return true
	}
	if !h.idem.Claim(w, r, idemCall{c}) {
		return false
	}
	c.claimed = true
	return true
}

// stepGuest is step 9: the guest runs on a pooled instance.
func stepGuest(h requestSide, w http.ResponseWriter, r *http.Request, c *call) bool {
	return h.callGuest(w, r, c)
}

// stepCheckAnswer is step 10: a buffered answer is checked against the
// declared responses when the settings ask for it (responseValidation);
// one that breaks them becomes a 500. A streamed answer is already out.
func stepCheckAnswer(h requestSide, w http.ResponseWriter, r *http.Request, c *call) bool {
	op := c.op
	if c.wroteHeader || !c.set.checked || op.Responses == nil {
		return true
	}
	status := c.status
	if issues := op.CheckAnswer(status, c.header, c.buf.Bytes()); issues != nil {
		h.logger.Error("answer breaks the contract", "route", c.route.file, "status", status, "issues", fmt.Sprint(issues))
		h.opts.Observer.reportRefusal(r, c, []string{PartResponse}, http.StatusInternalServerError)
		writeError(w, r, http.StatusInternalServerError, MessageResponseContract, ContractErrorData{Status: status, Issues: issues})
		return false
	}
	return true
}

// finishAnswer runs steps 10 and 11 on a buffered answer that did not
// come from step 9: an onValidationError hook's.
func finishAnswer(h requestSide, w http.ResponseWriter, r *http.Request, c *call) {
	if stepCheckAnswer(h, w, r, c) {
		stepAfter(h, w, r, c)
	}
}

// stepAfter is step 11: the after middleware, then the answer is sent
// (and stored for the Idempotency-Key). A streamed answer's middleware
// sees its status only.
func stepAfter(h requestSide, w http.ResponseWriter, r *http.Request, c *call) bool {
	if c.wroteHeader {
		mwRunner{h}.runAfter(r, c, c.chain, c.status, true, nil)
		h.idem.Complete(w, r, idemCall{c}, c.status, c.header, c.idem.Streamed(), true)
		return true
	}
	op, status, body := c.op, c.status, c.buf.Bytes()
	hdr := w.Header()
	for k, vs := range c.header {
		hdr[k] = vs
	}
	mwRunner{h}.runAfter(r, c, c.chain, status, false, hdr)
	ct := "application/json"
	if d := op.Responses[status]; d != nil && d.ContentType != "" {
		ct = d.ContentType
	}
	answer.Describe(hdr, status, ct, body)
	if h.idem.Complete(w, r, idemCall{c}, status, hdr, body, false) {
		answer.Send(w, r, status, body)
	}
	return true
}
