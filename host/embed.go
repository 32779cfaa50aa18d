package host

import (
	"context"
	"fmt"
	"strconv"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
)

// EmbedContract returns wasm, the route module at file (its path in the
// app, such as "server/api/users/[id].get.wasm"), with what it declares
// copied into custom sections, so tools read it without running code: its
// contract into abi.SectionContract (endpoints only) and its ABI version
// into abi.SectionABIVersion. It loads the module as the host does, in the
// same sandbox and with opts' limits, and reads its exports; a module that
// would fail its load fails here with the same error. `endpoints build`
// calls it for every route module it builds. With opts.ServeWhileCompiling
// a module the compilation cache lacks runs in wazero's interpreter,
// which reads the exports in a fraction of the compiler's time; without
// it the module is compiled, and with opts.CacheDir shared the compilation
// warms the cache a later start reads.
//
//	out, err := host.EmbedContract(ctx, "server/api/hello.get.wasm", wasm, host.Options{})
func EmbedContract(ctx context.Context, file string, wasm []byte, opts Options) ([]byte, error) {
	rf, err := routefile.Parse(file)
	if err != nil {
		return nil, err
	}
	e, err := newEngine(ctx, &opts, opts.logger())
	if err != nil {
		return nil, err
	}
	defer e.shutdown(ctx)
	m, err := e.loadModule(ctx, wasm, rf, 1, false)
	if err != nil {
		return nil, err
	}
	defer m.pool.retire(ctx)
	out, err := wasmbin.WithCustom(wasm, abi.SectionABIVersion, []byte(strconv.Itoa(abi.Version)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if m.contractJSON != nil {
		if out, err = wasmbin.WithCustom(out, abi.SectionContract, m.contractJSON); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	return out, nil
}
