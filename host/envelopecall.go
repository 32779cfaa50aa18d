package host

import (
	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/guestrequest"
)

// envelopeJSON encodes the request envelope on first use
// (guestrequest.Request.Envelope), with what it says of the call: its
// kind, route, negotiated media type, and a middleware call's phase.
func (c *call) envelopeJSON() []byte {
	kind := abi.KindEndpoint
	switch {
	case c.mw != nil:
		kind = abi.KindMiddleware
	case c.op == nil:
		kind = abi.KindPlain
	}
	return c.rq.Envelope(&guestrequest.Call{
		Kind:        kind,
		Route:       c.route.Pattern,
		MediaType:   c.resp.MediaType(),
		Phase:       c.phase,
		Verify:      c.verify,
		AfterStatus: c.afterStatus,
		Sent:        c.resp.Sent(),
	})
}
