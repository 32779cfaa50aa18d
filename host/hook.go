package host

import (
	"net/http"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/host/internal/guestrequest"
	"github.com/wasmendpoints/endpoints/internal/answer"
	"github.com/wasmendpoints/endpoints/internal/logtext"
)

// defaultBody returns the status message and data of the host's own answer
// to a failure.
func defaultBody(f *abi.ValidationFailure) (string, any) {
	if f.Kind == abi.FailureSchema {
		return MessageValidation, ValidationData{
			Params:  f.Issues[abi.PartParams.String()],
			Query:   f.Issues[abi.PartQuery.String()],
			Headers: f.Issues[abi.PartHeaders.String()],
			Body:    f.Issues[abi.PartBody.String()],
		}
	}
	return http.StatusText(f.Status), MediaTypeData{Received: f.Received, SupportedMediaTypes: f.SupportedMediaTypes}
}

// refuse answers a request that failed validation, negotiation or its
// media type. The endpoint's onValidationError hook, then the app's, may
// replace the default answer; each may decline (docs/spec.md §4).
func (h requestSide) refuse(w http.ResponseWriter, r *http.Request, c *call, t *table, f *abi.ValidationFailure) {
	if o := h.opts.Observer; o != nil && o.ValidationFailure != nil {
		h.opts.Observer.reportRefusal(r, c, guestrequest.FailedParts(f), f.Status)
	}
	h.discardBody(w, r, c)
	c.writeDeadline(w)
	message, data := defaultBody(f)
	endpointHook, appHook := c.op.Contract.OnValidationError, t.Runtime.HasHook()
	if endpointHook || appHook {
		body, err := answer.ErrorBody(f.Status, message, data)
		if err == nil {
			f.Default = body
		}
		c.rq.Failure = f
		if endpointHook && h.runHook(w, r, c, c.route.Module.Instances(), c.route.Module.Index) {
			return
		}
		if appHook && h.runHook(w, r, c, t.Runtime.HookPool(), -1) {
			return
		}
	}
	writeError(w, r, f.Status, message, data)
}

// runHook calls one onValidationError hook and reports whether it answered;
// index is the route's in a bundle, -1 elsewhere.
// A hook that declines, fails or finds no free instance leaves the failure
// to the next in order; a failure is logged and discards the instance.
func (h requestSide) runHook(w http.ResponseWriter, r *http.Request, c *call, p engine.Source, index int) bool {
	c.resp.Restart(c.rq.Failure.Status)
	in, err := p.Get(c)
	if err != nil {
		h.logger.Warn("no instance free for onValidationError before the deadline", "module", p.File(), "route", c.route.Name, "error", err)
		return false
	}
	var code int32 = -1
	res, err := onValidation(in, c, index)
	if err == nil {
		code = int32(res[0])
	}
	ok := err == nil && (code == abi.HookAnswered || code == abi.HookDeclined) && c.resp.Fault() == ""
	p.Put(r.Context(), in, ok)
	switch {
	case ok && code == abi.HookAnswered:
		if !c.resp.Sent() {
			finishAnswer(h, w, r, c)
		}
		return true
	case ok:
		// Declined; an answer that already streamed cannot be taken back.
		return c.resp.Sent()
	}
	reason, gone := h.failureReason(c, r, err, code)
	if gone {
		h.logger.Info("client went away; onValidationError stopped", "module", p.File(), "route", c.route.Name)
		return true
	}
	h.logger.Error("onValidationError failed; answering with the next hook or the default", "module", p.File(), "route", c.route.Name, "method", r.Method, "path", logtext.Cut(r.URL.Path), "reason", reason)
	if c.resp.Sent() {
		panic(http.ErrAbortHandler)
	}
	return false
}

// onValidation calls the hook of an instance: a bundle's
// endpoints_on_validation_error_route with the route's index (index >= 0),
// any other module's endpoints_on_validation_error.
func onValidation(in *engine.Instance, c *call, index int) ([]uint64, error) {
	if index >= 0 {
		return in.OnValidationRoute.Call(c, uint64(index))
	}
	return in.OnValidation.Call(c)
}
