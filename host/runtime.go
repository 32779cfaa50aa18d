package host

import (
	"context"
	"fmt"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/runtimedecl"
)

// documentMaxBytes bounds the document openApi.extend writes back.
const documentMaxBytes = 64 << 20

// Extend hands doc to the runtime declaration's openApi.extend (see
// runtimedecl.Module.Extend) in a call of its own, for a load
// (versionload.Host), and returns the document it wrote.
func (h loadSide) Extend(ctx context.Context, rm *runtimedecl.Module, doc []byte, timeout int64) ([]byte, error) {
	c := &call{parent: ctx, logger: h.logger, route: &route{File: abi.RuntimeModule, Name: abi.RuntimeModule}}
	c.clock.Bound(time.Unix(0, timeout))
	c.resp.Reset(documentMaxBytes, &c.clock, c)
	c.rq.Plain = true
	c.rq.SetEnvelope(doc)
	if err := rm.Extend(ctx, c); err != nil {
		return nil, err
	}
	if len(c.resp.Body()) == 0 {
		return nil, fmt.Errorf("%s: openApi.extend wrote no document: it must write the edited document whole", abi.RuntimeModule)
	}
	return append([]byte(nil), c.resp.Body()...), nil
}
