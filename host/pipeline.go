package host

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/answer"
	"github.com/wasmendpoints/endpoints/internal/negotiate"
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
	c.resp.SetMediaType(chosen)
	return true
}

// stepValidate is step 7: coerce, default and validate every part, and
// refuse the request with every failing part's issues (400). Text that is
// not UTF-8 is refused, not repaired: the guest would read other text than
// the host validated.
func stepValidate(h requestSide, w http.ResponseWriter, r *http.Request, c *call) bool {
	op, issues := c.op, &c.rq.Issues
	issues.Params = op.ValidateParams(c.pathNames, c.pathValues, c.rq.Params)
	if op.Query != nil {
		var keep []string
		if c.table.Security != nil {
			keep = c.table.Security.SecretQuery // API keys sent in the query
		}
		issues.Query = op.ValidateQuery(r.URL.RawQuery, c.set.Limits.QueryParams, keep, c.rq.Query)
	}
	issues.Headers = op.ValidateHeaders(r, c.rq.Headers)
	if !issues.Empty() {
		h.refuse(w, r, c, c.table, issues.Failure())
		return false
	}
	endSpan(c.validated, nil)
	c.validated = nil
	return true
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
// one that breaks them becomes a 500. A streamed answer is already out;
// a 503 after the call's database failed unavailable or busy is the
// database's, not checked, as the host's own 503 for it is not
// (call.databaseDown).
func stepCheckAnswer(h requestSide, w http.ResponseWriter, r *http.Request, c *call) bool {
	op := c.op
	if c.resp.Sent() || !c.set.Checked || op.Responses == nil {
		return true
	}
	status := c.resp.Status()
	if status == http.StatusServiceUnavailable && c.databaseDown() {
		return true
	}
	if issues := op.CheckAnswer(status, c.resp.Header(), c.resp.Body()); issues != nil {
		h.logger.Error("answer breaks the contract", "route", c.route.Name, "status", status, "issues", fmt.Sprint(issues))
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
	if c.resp.Sent() {
		mwRunner{h}.runAfter(r, c, c.chain, c.resp.Status(), true, nil)
		h.idem.Complete(w, r, idemCall{c}, c.resp.Status(), c.resp.Header(), c.rq.Idem.Streamed(), true)
		return true
	}
	op, status, body := c.op, c.resp.Status(), c.resp.Body()
	hdr := w.Header()
	for k, vs := range c.resp.Header() {
		hdr[k] = vs
	}
	mwRunner{h}.runAfter(r, c, c.chain, status, false, hdr)
	c.FinishHeader(status, hdr)
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
