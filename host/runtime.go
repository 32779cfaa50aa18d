package host

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/runtimedecl"
)

// documentMaxBytes bounds the document openApi.extend writes back.
const documentMaxBytes = 64 << 20

// runExtend hands doc to the runtime declaration's openApi.extend (see
// runtimedecl.Module.Extend) in a call of its own, and returns the
// document it wrote.
func runExtend(ctx context.Context, rm *runtimedecl.Module, logger *slog.Logger, doc []byte, timeout int64) ([]byte, error) {
	c := &call{parent: ctx, logger: logger, route: &route{File: abi.RuntimeModule}, answerPart: answerPart{status: 200, maxBuffer: documentMaxBytes}}
	c.clock.Bound(time.Unix(0, timeout))
	c.envelope = doc
	if err := rm.Extend(ctx, c); err != nil {
		return nil, err
	}
	if c.buf.Len() == 0 {
		return nil, fmt.Errorf("%s: openApi.extend wrote no document: it must write the edited document whole", abi.RuntimeModule)
	}
	return append([]byte(nil), c.buf.Bytes()...), nil
}
