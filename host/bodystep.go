package host

import (
	"fmt"
	"net/http"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/requestbody"
	"github.com/wasmendpoints/endpoints/internal/jsonvalue"
)

// stepContentType is step 5: the media type of a body against those the
// operation declares (415).
func stepContentType(h requestSide, w http.ResponseWriter, r *http.Request, c *call) bool {
	op := c.op
	if op.Body == nil || !requestbody.Has(r) {
		return true
	}
	ct := r.Header.Get("Content-Type")
	if !c.rq.Body.Choose(op.Body, ct) {
		h.refuse(w, r, c, c.table, &abi.ValidationFailure{Kind: abi.FailureMediaType, Status: http.StatusUnsupportedMediaType, Part: abi.PartBody.String(), Received: ct, SupportedMediaTypes: op.Body.Supported()})
		return false
	}
	return true
}

// stepBody is step 6: the body's size (413), then its parsing, whose
// issues step 7 reports with the other parts'.
func stepBody(h requestSide, w http.ResponseWriter, r *http.Request, c *call) bool {
	op := c.op
	limit := op.Body.Limit(c.set.Limits.BodyBytes)
	outcome := c.rq.Body.Take(r, op.Body, requestbody.Options{
		Limit:      limit,
		JSON:       jsonvalue.Limits{MaxDepth: c.set.Limits.JSONDepth, MaxValues: c.set.Limits.JSONValues},
		Idempotent: op.Contract.Idempotency != nil,
		Logger:     h.logger,
		Route:      c.route.Name,
	}, &c.rq.Issues.Body)
	return !h.answerBody(w, r, c, outcome, limit)
}

// answerBody answers a request whose body the host could not take and
// reports whether it did: 413 over the limit, 408 too slow, 400 broken off,
// 500 when an upload could not be stored.
func (h requestSide) answerBody(w http.ResponseWriter, r *http.Request, c *call, outcome requestbody.Outcome, limit int64) bool {
	if outcome != requestbody.Read {
		c.writeDeadline(w)
	}
	switch outcome {
	case requestbody.TooLarge:
		h.discardBody(w, r, c)
		writeError(w, r, http.StatusRequestEntityTooLarge, "", map[string]int64{"limit": limit})
	case requestbody.TimedOut:
		w.Header().Set("Connection", "close")
		writeError(w, r, http.StatusRequestTimeout, "", map[string]string{"error": fmt.Sprintf("the request body did not arrive within %s (server.readTimeout)", time.Duration(c.set.Server.ReadTimeout))})
	case requestbody.Failed:
		// The validation body of every other 400, the body's issue in
		// it: one shape for a client (and the document) to read.
		writeError(w, r, http.StatusBadRequest, MessageValidation, ValidationData{Body: []abi.Issue{{Path: []any{}, Message: brokenBodyMessage}}})
	case requestbody.Unstored:
		writeError(w, r, http.StatusInternalServerError, "", nil)
	default:
		return false
	}
	return true
}

// brokenBodyMessage is the issue of a request body that broke off before
// its end: fewer bytes than its Content-Length, a chunked body cut before
// its last chunk or malformed.
const brokenBodyMessage = "the request body broke off before its end (shorter than its Content-Length, or its chunks cut or malformed)"

// discardBody reads what is left of the body of a request the host
// refuses (requestbody.Body.Discard), within server.readTimeout.
func (h requestSide) discardBody(w http.ResponseWriter, r *http.Request, c *call) {
	c.rq.Body.Discard(w, r, time.Duration(c.set.Server.ReadTimeout))
}
