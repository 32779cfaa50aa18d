//go:build !wasip1

package endpoints_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/cputime"
	"github.com/wasmendpoints/endpoints/internal/interrupt"
)

// The tests in this file build the guests under testdata/ for wasip1 and
// run them in wazero against testHost, a minimal host written here from the
// ABI. They prove the WebAssembly glue (exports, imports, buffers) of the
// SDK, independently of the real host.

var (
	guestMu    sync.Mutex
	guestBytes = map[string][]byte{} // built guests by name, for the whole run
	// compiled modules are shared by every runtime of the run.
	compilationCache = wazero.NewCompilationCache()
)

// buildGuest builds testdata/<name>/main.go as a reactor module, once per
// test run, and returns the module's bytes.
func buildGuest(t testing.TB, name string) []byte {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a WebAssembly guest; skipped in -short mode")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("building a WebAssembly guest needs the go command: %v", err)
	}
	guestMu.Lock()
	defer guestMu.Unlock()
	if b, ok := guestBytes[name]; ok {
		return b
	}
	out := filepath.Join(t.TempDir(), name+".wasm")
	cmd := exec.Command(goTool, "build", "-buildmode=c-shared", "-o", out, "./testdata/"+name+"/main.go")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building testdata/%s: %v\n%s", name, err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	guestBytes[name] = b
	return b
}

// testHost implements the "endpoints" host functions for one request at a
// time.
type testHost struct {
	inRequest bool
	envelope  []byte
	headers   map[string]string // raw request headers, lower-case names
	body      []byte            // rest of the raw body
	files     [][]byte          // rest of each file, by index

	status  int32
	header  [][2]string // set/add calls in order: {"set Location", "/x"}
	written bytes.Buffer
	writes  []timedWrite // each response_write, for streams
	logs    []string
	polls   int // calls of WASI poll_oneoff (sleeps)

	kv     map[string][]byte // the key-value store of the kv_* functions
	kvTTL  map[string]int32  // the ttl_seconds each key was last set with
	kvDown bool              // the kv_* functions answer ErrUnavailable

	calls []string // the middleware functions called, with their arguments

	// query answers db_query and db_exec: the result (or, with
	// abi.ErrDatabase, the error) JSON. Nil answers ErrNotFound, a
	// database the app does not declare.
	query    func(db, sql, params string, exec bool) ([]byte, abi.Errno)
	dbResult []byte // the pending result, for db_result
	dbCalls  []string

	handle   api.Function // endpoints_handle of handleOf, for serve
	handleOf api.Module

	// listener, when set before instantiate, listens to the guest's
	// functions (BenchmarkWasmGuestDBCalls counts them); hostCalls counts
	// the calls of the "endpoints" functions.
	listener  experimental.FunctionListenerFactory
	hostCalls int

	// ctx, when set, is the context of serve's calls (a Budget for an
	// instrumented guest); else context.Background().
	ctx context.Context
	// fuelChecks, when set before instantiate, replaces the interrupt
	// check import by one that counts its calls there and refills one unit
	// of fuel: a guest instrumented with period 1 counts its checks.
	fuelChecks *int
}

// timedWrite is one response_write call and when it happened.
type timedWrite struct {
	data string
	at   time.Time
}

// instantiate runs a guest in a new runtime whose "endpoints" module is h.
func (h *testHost) instantiate(t testing.TB, wasm []byte) api.Module {
	t.Helper()
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(compilationCache))
	t.Cleanup(func() { r.Close(ctx) })
	// Count poll_oneoff calls: a sleeping guest makes one per sleep; a
	// guest whose sleeps do not sleep spins on it.
	wasi_snapshot_preview1.MustInstantiate(experimental.WithFunctionListenerFactory(ctx,
		experimental.FunctionListenerFactoryFunc(func(def api.FunctionDefinition) experimental.FunctionListener {
			if def.Name() != "poll_oneoff" {
				return nil
			}
			return experimental.FunctionListenerFunc(func(context.Context, api.Module, api.FunctionDefinition, []uint64, experimental.StackIterator) {
				h.polls++
			})
		})), r)
	// The check import of guests rewritten by internal/interrupt
	// (BenchmarkWasmGuestDBRewrite); other guests do not import it.
	if h.fuelChecks != nil {
		_, err := r.NewHostModuleBuilder(interrupt.ImportModule).NewFunctionBuilder().
			WithGoFunction(api.GoFunc(func(_ context.Context, s []uint64) {
				*h.fuelChecks++
				s[0] = 1
			}), nil, []api.ValueType{api.ValueTypeI32}).
			Export(interrupt.ImportName).Instantiate(ctx)
		if err != nil {
			t.Fatal(err)
		}
	} else if err := interrupt.NewHostModule(ctx, r, interrupt.DefaultPeriod); err != nil {
		t.Fatal(err)
	}

	i32 := api.ValueTypeI32
	read := func(m api.Module, off, n uint64) []byte {
		b, ok := m.Memory().Read(uint32(off), uint32(n))
		if !ok {
			panic(fmt.Sprintf("guest memory [%d, %d) out of range", off, off+n))
		}
		return b
	}
	// whole writes value to the guest buffer when it fits; returns its size.
	whole := func(m api.Module, buf, bufLen uint64, value []byte) uint64 {
		if len(value) <= int(uint32(bufLen)) {
			m.Memory().Write(uint32(buf), value)
		}
		return uint64(len(value))
	}
	errno := func(e abi.Errno) uint64 { return uint64(uint32(int32(e))) }
	b := r.NewHostModuleBuilder(abi.ImportModule)
	fn := func(name string, params, results []api.ValueType, f func(m api.Module, s []uint64)) {
		b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, m api.Module, s []uint64) {
			h.hostCalls++
			f(m, s)
		}), params, results).Export(name)
	}
	fn(abi.ImportRequestRead, []api.ValueType{i32, i32}, []api.ValueType{i32}, func(m api.Module, s []uint64) {
		if !h.inRequest {
			s[0] = errno(abi.ErrState)
			return
		}
		s[0] = whole(m, s[0], s[1], h.envelope)
	})
	fn(abi.ImportRequestHeader, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, func(m api.Module, s []uint64) {
		v, ok := h.headers[strings.ToLower(string(read(m, s[0], s[1])))]
		if !ok {
			s[0] = errno(abi.ErrNotFound)
			return
		}
		s[0] = whole(m, s[2], s[3], []byte(v))
	})
	fn(abi.ImportBodyRead, []api.ValueType{i32, i32}, []api.ValueType{i32}, func(m api.Module, s []uint64) {
		// Hand out at most 3 bytes a call, to exercise chunked reads.
		n := min(len(h.body), int(uint32(s[1])), 3)
		m.Memory().Write(uint32(s[0]), h.body[:n])
		h.body = h.body[n:]
		s[0] = uint64(n)
	})
	fn(abi.ImportFileRead, []api.ValueType{i32, i32, i32}, []api.ValueType{i32}, func(m api.Module, s []uint64) {
		index := int32(uint32(s[0]))
		if index < 0 || int(index) >= len(h.files) {
			s[0] = errno(abi.ErrNotFound)
			return
		}
		// At most 4 bytes a call, to exercise chunked reads.
		n := min(len(h.files[index]), int(uint32(s[2])), 4)
		m.Memory().Write(uint32(s[1]), h.files[index][:n])
		h.files[index] = h.files[index][n:]
		s[0] = uint64(n)
	})
	fn(abi.ImportResponseSetStatus, []api.ValueType{i32}, []api.ValueType{i32}, func(m api.Module, s []uint64) {
		status := int32(uint32(s[0]))
		if status < 100 || status > 599 {
			s[0] = errno(abi.ErrInvalid)
			return
		}
		h.status, s[0] = status, 0
	})
	for _, op := range []string{abi.ImportResponseSetHeader, abi.ImportResponseAddHeader} {
		fn(op, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, func(m api.Module, s []uint64) {
			verb := map[string]string{abi.ImportResponseSetHeader: "set", abi.ImportResponseAddHeader: "add"}[op]
			h.header = append(h.header, [2]string{verb + " " + string(read(m, s[0], s[1])), string(read(m, s[2], s[3]))})
			s[0] = 0
		})
	}
	fn(abi.ImportResponseWrite, []api.ValueType{i32, i32}, []api.ValueType{i32}, func(m api.Module, s []uint64) {
		data := read(m, s[0], s[1])
		h.written.Write(data)
		h.writes = append(h.writes, timedWrite{string(data), time.Now()})
		s[0] = 0
	})
	fn(abi.ImportLog, []api.ValueType{i32, i32, i32}, nil, func(m api.Module, s []uint64) {
		h.logs = append(h.logs, fmt.Sprintf("%d %s", int32(uint32(s[0])), read(m, s[1], s[2])))
	})
	// The middleware functions, recorded in h.calls.
	for _, name := range []string{abi.ImportRequestSetHeader, abi.ImportContextSet} {
		fn(name, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, func(m api.Module, s []uint64) {
			h.calls = append(h.calls, fmt.Sprintf("%s %s=%s", name, read(m, s[0], s[1]), read(m, s[2], s[3])))
			s[0] = 0
		})
	}
	fn(abi.ImportPrincipalSet, []api.ValueType{i32, i32}, []api.ValueType{i32}, func(m api.Module, s []uint64) {
		h.calls = append(h.calls, fmt.Sprintf("%s %s", abi.ImportPrincipalSet, read(m, s[0], s[1])))
		s[0] = 0
	})
	// The kv_* functions, over h.kv: no expiry; ErrState outside a
	// request, ErrUnavailable while h.kvDown.
	kvRefused := func(s []uint64) bool {
		switch {
		case !h.inRequest:
			s[0] = errno(abi.ErrState)
		case h.kvDown:
			s[0] = errno(abi.ErrUnavailable)
		default:
			return false
		}
		return true
	}
	if h.kv == nil {
		h.kv, h.kvTTL = map[string][]byte{}, map[string]int32{}
	}
	i64 := api.ValueTypeI64
	fn(abi.ImportKVGet, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, func(m api.Module, s []uint64) {
		if kvRefused(s) {
			return
		}
		v, ok := h.kv[string(read(m, s[0], s[1]))]
		if !ok {
			s[0] = errno(abi.ErrNotFound)
			return
		}
		s[0] = whole(m, s[2], s[3], v)
	})
	fn(abi.ImportKVSet, []api.ValueType{i32, i32, i32, i32, i32}, []api.ValueType{i32}, func(m api.Module, s []uint64) {
		key, value, ttl := string(read(m, s[0], s[1])), bytes.Clone(read(m, s[2], s[3])), int32(uint32(s[4]))
		if kvRefused(s) {
			return
		}
		h.kv[key], h.kvTTL[key], s[0] = value, ttl, 0
	})
	fn(abi.ImportKVDelete, []api.ValueType{i32, i32}, []api.ValueType{i32}, func(m api.Module, s []uint64) {
		if kvRefused(s) {
			return
		}
		key := string(read(m, s[0], s[1]))
		if _, ok := h.kv[key]; !ok {
			s[0] = errno(abi.ErrNotFound)
			return
		}
		delete(h.kv, key)
		s[0] = 0
	})
	fn(abi.ImportKVIncr, []api.ValueType{i32, i32, i64, i32}, []api.ValueType{i32}, func(m api.Module, s []uint64) {
		key, delta, out := string(read(m, s[0], s[1])), int64(s[2]), uint32(s[3])
		if kvRefused(s) {
			return
		}
		var n int64
		if v, ok := h.kv[key]; ok {
			var err error
			if n, err = strconv.ParseInt(string(v), 10, 64); err != nil {
				s[0] = errno(abi.ErrInvalid)
				return
			}
		}
		n += delta
		h.kv[key] = strconv.AppendInt(nil, n, 10)
		if !m.Memory().WriteUint64Le(out, uint64(n)) {
			panic(fmt.Sprintf("kv_incr: out %d is outside guest memory", out))
		}
		s[0] = 0
	})
	fn(abi.ImportKVList, []api.ValueType{i32, i32, i32, i32, i32, i32}, []api.ValueType{i32}, func(m api.Module, s []uint64) {
		if kvRefused(s) {
			return
		}
		prefix, after := string(read(m, s[0], s[1])), string(read(m, s[2], s[3]))
		keys := []string{}
		for key := range h.kv {
			if strings.HasPrefix(key, prefix) && key > after {
				keys = append(keys, key)
			}
		}
		slices.Sort(keys)
		page, err := json.Marshal(keys[:min(len(keys), abi.KVListLimit)])
		if err != nil {
			panic(err)
		}
		s[0] = whole(m, s[4], s[5], page)
	})
	// The db_* functions, over h.query.
	for _, op := range []string{abi.ImportDBQuery, abi.ImportDBExec} {
		fn(op, []api.ValueType{i32, i32, i32, i32, i32, i32}, []api.ValueType{i32}, func(m api.Module, s []uint64) {
			db, sql, params := string(read(m, s[0], s[1])), string(read(m, s[2], s[3])), string(read(m, s[4], s[5]))
			h.dbCalls = append(h.dbCalls, op+" "+db+" "+sql+" "+params)
			if h.query == nil {
				s[0] = errno(abi.ErrNotFound)
				return
			}
			res, e := h.query(db, sql, params, op == abi.ImportDBExec)
			h.dbResult = res
			if e != 0 {
				s[0] = errno(e)
				return
			}
			s[0] = uint64(len(res))
		})
	}
	fn(abi.ImportDBResult, []api.ValueType{i32, i32}, []api.ValueType{i32}, func(m api.Module, s []uint64) {
		if h.dbResult == nil {
			s[0] = errno(abi.ErrNotFound)
			return
		}
		s[0] = whole(m, s[0], s[1], h.dbResult)
	})
	fn(abi.ImportDBTimeout, []api.ValueType{i32}, []api.ValueType{i32}, func(m api.Module, s []uint64) {
		h.dbCalls = append(h.dbCalls, abi.ImportDBTimeout+" "+strconv.Itoa(int(int32(s[0]))))
		s[0] = 0
	})
	for _, op := range []string{abi.ImportDBBegin, abi.ImportDBCommit, abi.ImportDBRollback} {
		fn(op, []api.ValueType{i32, i32}, []api.ValueType{i32}, func(m api.Module, s []uint64) {
			h.dbCalls = append(h.dbCalls, op+" "+string(read(m, s[0], s[1])))
			s[0] = 0
		})
	}
	if _, err := b.Instantiate(ctx); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	// Real clocks, as the host gives: time.Sleep is poll_oneoff on a
	// clock, which wazero only waits for with WithSysNanosleep (without
	// it, the Go runtime spins on poll_oneoff until the time has come).
	if h.listener != nil {
		ctx = experimental.WithFunctionListenerFactory(ctx, h.listener)
	}
	mod, err := r.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().
		WithStartFunctions(abi.StartFunction).WithStderr(&stderr).
		WithSysWalltime().WithSysNanotime().WithSysNanosleep())
	if err != nil {
		t.Fatalf("instantiating the guest: %v\nstderr: %s", err, stderr.String())
	}
	return mod
}

// call calls an export without arguments and returns its one result.
func call(t testing.TB, mod api.Module, name string) uint64 {
	t.Helper()
	f := mod.ExportedFunction(name)
	if f == nil {
		t.Fatalf("the guest does not export %s", name)
	}
	res, err := f.Call(context.Background())
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	return res[0]
}

// serve runs one request through endpoints_handle.
func (h *testHost) serve(t testing.TB, mod api.Module, envelope string) uint32 {
	t.Helper()
	h.envelope, h.status, h.header, h.writes, h.logs, h.polls, h.dbCalls = []byte(envelope), 200, nil, nil, nil, 0, nil
	h.written.Reset()
	h.inRequest = true
	defer func() { h.inRequest = false }()
	// The export is looked up once per module, as the host does: each
	// lookup makes a call engine with a stack of its own.
	if h.handleOf != mod {
		h.handle, h.handleOf = mod.ExportedFunction(abi.ExportHandle), mod
		if h.handle == nil {
			t.Fatalf("the guest does not export %s", abi.ExportHandle)
		}
	}
	ctx := h.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := h.handle.Call(ctx)
	if err != nil {
		t.Fatalf("calling %s: %v", abi.ExportHandle, err)
	}
	return uint32(res[0])
}

func TestWasmGuestImportsAndExports(t *testing.T) {
	imports := []string{
		abi.ImportRequestRead, abi.ImportRequestValue, abi.ImportRequestHeader, abi.ImportBodyRead,
		abi.ImportFileRead, abi.ImportResponseSetStatus, abi.ImportResponseSetHeader, abi.ImportResponseAddHeader,
		abi.ImportResponseWrite, abi.ImportLog,
		abi.ImportKVGet, abi.ImportKVSet, abi.ImportKVDelete, abi.ImportKVIncr, abi.ImportKVList,
		abi.ImportRequestSetHeader, abi.ImportContextSet, abi.ImportPrincipalSet,
	}
	for _, name := range []string{"echo", "plain", "stream", "upload", "kv"} {
		t.Run(name, func(t *testing.T) {
			r := wazero.NewRuntimeWithConfig(context.Background(), wazero.NewRuntimeConfig().WithCompilationCache(compilationCache))
			defer r.Close(context.Background())
			cm, err := r.CompileModule(context.Background(), buildGuest(t, name))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range cm.ImportedFunctions() {
				module, fn, _ := f.Import()
				if module == wasi_snapshot_preview1.ModuleName {
					continue
				}
				if module != abi.ImportModule || !slices.Contains(imports, fn) {
					t.Errorf("the guest imports %s.%s, which ABI v%d does not define", module, fn, abi.Version)
				}
			}
			exports := cm.ExportedFunctions()
			for _, want := range []string{abi.ExportABIVersion, abi.ExportContract, abi.ExportHandle, abi.ExportOnValidationError, abi.ExportHandleRoute, abi.ExportOnValidationErrorRoute, abi.ExportBeforeRoute, abi.ExportAfterRoute, abi.ExportVerifyRoute, abi.StartFunction} {
				if _, ok := exports[want]; !ok {
					t.Errorf("the guest does not export %s", want)
				}
			}
			if _, ok := cm.ExportedMemories()[abi.ExportMemory]; !ok {
				t.Errorf("the guest does not export its memory as %q", abi.ExportMemory)
			}
		})
	}
}

func TestWasmGuestEndpoint(t *testing.T) {
	h := &testHost{headers: map[string]string{"user-agent": "curl/8.5"}}
	mod := h.instantiate(t, buildGuest(t, "echo"))

	if got := int32(uint32(call(t, mod, abi.ExportABIVersion))); got != abi.Version {
		t.Errorf("%s() = %d, want %d", abi.ExportABIVersion, got, abi.Version)
	}
	packed := call(t, mod, abi.ExportContract)
	contract, ok := mod.Memory().Read(uint32(packed>>32), uint32(packed))
	if !ok || packed == 0 {
		t.Fatalf("%s() = %#x: not a buffer in guest memory", abi.ExportContract, packed)
	}
	wantContract := `{"summary":"Echo the request",` +
		`"request":{"params":{"type":"object","properties":{"id":{"type":"integer","description":"What to echo.","minimum":1,"maximum":9223372036854775807}},"required":["id"]},` +
		`"query":{"type":"object","properties":{"limit":{"type":"integer","default":10,"minimum":1,"maximum":100}}},` +
		`"headers":{"type":"object","properties":{"x-tenant":{"type":"string"}}},` +
		`"body":{"schema":{"$ref":"#/$defs/note"},"required":false}},` +
		`"responses":{"201":{"description":"The echo","schema":{"$ref":"#/$defs/Echo"}},"404":{"description":"Asked for","schema":{"$ref":"#/$defs/Problem"}}},` +
		`"$defs":{"Echo":{"type":"object","properties":{"id":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},"limit":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},"tenant":{"type":"string"},"text":{"type":"string"},"agent":{"type":"string"}},"required":["id","limit","tenant","agent"],"additionalProperties":false},` +
		`"Problem":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"],"additionalProperties":false},` +
		`"note":{"type":"object","properties":{"text":{"type":"string","minLength":1}},"required":["text"],"additionalProperties":false}}}`
	if string(contract) != wantContract {
		t.Errorf("contract:\n got %s\nwant %s", contract, wantContract)
	}
	var parsed abi.Contract
	if err := json.Unmarshal(contract, &parsed); err != nil {
		t.Errorf("the contract is not an abi.Contract: %v", err)
	}

	// The envelope is larger than the SDK's first 4 KiB buffer, so the
	// guest must grow it and read again.
	long := strings.Repeat("x", 5000)
	for _, tc := range []struct {
		name       string
		envelope   string
		wantStatus int32
		wantHeader [][2]string
		wantBody   string
		wantLogs   []string
	}{
		{
			name:       "answer with status, header and body",
			envelope:   `{"kind":"endpoint","method":"POST","route":"/api/echo/:id","path":"/api/echo/7","params":{"id":7},"query":{"limit":10},"headers":{"x-tenant":"acme"},"body":{"text":"hi"}}`,
			wantStatus: 201,
			wantHeader: [][2]string{{"add Location", "/api/echo/7"}},
			wantBody:   `{"id":7,"limit":10,"tenant":"acme","text":"hi","agent":"curl/8.5"}`,
			wantLogs:   []string{"1 msg=echo id=7"},
		},
		{
			name:       "envelope larger than the first buffer",
			envelope:   `{"kind":"endpoint","method":"POST","route":"/api/echo/:id","path":"/api/echo/8","params":{"id":8},"query":{"limit":3},"headers":{"x-tenant":"` + long + `"}}`,
			wantStatus: 201,
			wantHeader: [][2]string{{"add Location", "/api/echo/8"}},
			wantBody:   `{"id":8,"limit":3,"tenant":"` + long + `","agent":"curl/8.5"}`,
			wantLogs:   []string{"1 msg=echo id=8"},
		},
		{
			name:       "integral number written with a fraction",
			envelope:   `{"kind":"endpoint","method":"POST","route":"/api/echo/:id","path":"/api/echo/2","params":{"id":2.0},"query":{"limit":1e1},"headers":{"x-tenant":"acme"}}`,
			wantStatus: 201,
			wantHeader: [][2]string{{"add Location", "/api/echo/2"}},
			wantBody:   `{"id":2,"limit":10,"tenant":"acme","agent":"curl/8.5"}`,
			wantLogs:   []string{"1 msg=echo id=2"},
		},
		{
			// The host validated 2.5 against a schema wider than the Go
			// type (an older host): the guest answers the host's 400 and
			// keeps the instance (0), instead of failing the call.
			name:       "fraction the int cannot hold",
			envelope:   `{"kind":"endpoint","method":"POST","route":"/api/echo/:id","path":"/api/echo/2.5","params":{"id":2.5},"query":{"limit":10},"headers":{}}`,
			wantStatus: 400,
			wantBody:   `{"statusCode":400,"statusMessage":"Validation Error","data":{"params":[{"path":["id"],"message":"expected integer, received number"}]}}`,
			wantLogs: []string{"2 endpoints: answered 400: the request's params.id: expected integer, received number; " +
				"the host validated the value, but the input's Go type cannot hold it: make the schema of Operation.Request fit the type, or update the host"},
		},
		{
			name:       "integer past int64",
			envelope:   `{"kind":"endpoint","method":"POST","route":"/api/echo/:id","path":"/api/echo/1","params":{"id":1},"query":{"limit":9223372036854775808},"headers":{}}`,
			wantStatus: 400,
			wantBody:   `{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"path":["limit"],"message":"must be less than or equal to 9223372036854775807"}]}}`,
			wantLogs: []string{"2 endpoints: answered 400: the request's query.limit: must be less than or equal to 9223372036854775807; " +
				"the host validated the value, but the input's Go type cannot hold it: make the schema of Operation.Request fit the type, or update the host"},
		},
		{
			name:       "declared error status",
			envelope:   `{"kind":"endpoint","method":"POST","route":"/api/echo/:id","path":"/api/echo/404","params":{"id":404},"query":{"limit":10},"headers":{}}`,
			wantStatus: 404,
			wantBody:   `{"message":"no such echo"}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if rc := h.serve(t, mod, tc.envelope); rc != 0 {
				t.Fatalf("%s() = %d, want 0; logs: %q", abi.ExportHandle, rc, h.logs)
			}
			if h.status != tc.wantStatus {
				t.Errorf("status = %d, want %d", h.status, tc.wantStatus)
			}
			if !slices.Equal(h.header, tc.wantHeader) {
				t.Errorf("headers = %q, want %q", h.header, tc.wantHeader)
			}
			if got := h.written.String(); got != tc.wantBody {
				t.Errorf("body = %s, want %s", got, tc.wantBody)
			}
			if !slices.Equal(h.logs, tc.wantLogs) {
				t.Errorf("logs = %q, want %q", h.logs, tc.wantLogs)
			}
		})
	}

	t.Run("a broken envelope is a guest failure, logged", func(t *testing.T) {
		if rc := h.serve(t, mod, `{"params":{"id":7}`); rc == 0 {
			t.Errorf("%s() = 0, want a failure", abi.ExportHandle)
		}
		if len(h.logs) != 1 || !strings.Contains(h.logs[0], "decoding the request envelope") {
			t.Errorf("logs = %q, want one line about decoding the envelope", h.logs)
		}
	})
}

func TestWasmGuestPlainRoute(t *testing.T) {
	h := &testHost{}
	mod := h.instantiate(t, buildGuest(t, "plain"))
	if got := call(t, mod, abi.ExportContract); got != 0 {
		t.Errorf("%s() = %#x, want 0 (plain route: no contract)", abi.ExportContract, got)
	}
	h.body = []byte("hello, wasm")
	rc := h.serve(t, mod, `{"kind":"plain","method":"PUT","route":"/files/:name","path":"/files/a.txt","rawQuery":"v=1",`+
		`"params":{"name":"a.txt"},"headers":{"x-tenant":["acme"],"accept":["*/*"]}}`)
	if rc != 0 {
		t.Fatalf("%s() = %d, want 0; logs: %q", abi.ExportHandle, rc, h.logs)
	}
	if h.status != 202 {
		t.Errorf("status = %d, want 202", h.status)
	}
	wantHeader := [][2]string{{"set content-type", "text/plain"}, {"set x-name", "a.txt"}}
	if !slices.Equal(h.header, wantHeader) {
		t.Errorf("headers = %q, want %q", h.header, wantHeader)
	}
	if got, want := h.written.String(), "PUT /files/a.txt?v=1 acme\nHELLO, WASM"; got != want {
		t.Errorf("body = %q, want %q", got, want)
	}
}

func TestWasmGuestStream(t *testing.T) {
	h := &testHost{}
	mod := h.instantiate(t, buildGuest(t, "stream"))

	packed := call(t, mod, abi.ExportContract)
	contract, ok := mod.Memory().Read(uint32(packed>>32), uint32(packed))
	if !ok || packed == 0 {
		t.Fatalf("%s() = %#x: not a buffer in guest memory", abi.ExportContract, packed)
	}
	wantContract := `{"methods":{` +
		`"get":{"summary":"Three ticks","responses":{"200":{"description":"A tick every 50 ms","schema":{"$ref":"#/$defs/Tick"},"media":["text/event-stream"]}}},` +
		`"post":{"summary":"A picture","request":{"query":{"type":"object","properties":{"fail":{"type":"boolean"}}}},` +
		`"responses":{"200":{"description":"The picture","media":["image/svg+xml","image/png"]},` +
		`"400":{"description":"Bad input","schema":{"$ref":"#/$defs/problem"},"contentType":"application/problem+json"}}}},` +
		`"$defs":{"Tick":{"type":"object","properties":{"n":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}},"required":["n"],"additionalProperties":false},` +
		`"problem":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"],"additionalProperties":false}}}`
	if string(contract) != wantContract {
		t.Errorf("contract:\n got %s\nwant %s", contract, wantContract)
	}

	t.Run("events are written as they are sent, time.Sleep between them", func(t *testing.T) {
		start := time.Now()
		if rc := h.serve(t, mod, `{"kind":"endpoint","method":"GET","route":"/api/ticks","path":"/api/ticks","params":{},"query":{},"headers":{}}`); rc != 0 {
			t.Fatalf("%s() = %d, want 0; logs: %q", abi.ExportHandle, rc, h.logs)
		}
		end := time.Now()
		wantHeader := [][2]string{{"set Content-Type", "text/event-stream"}, {"set Cache-Control", "no-cache"}}
		if h.status != 200 || !slices.Equal(h.header, wantHeader) {
			t.Errorf("status %d, headers %q; want 200, %q", h.status, h.header, wantHeader)
		}
		var got []string
		for _, w := range h.writes {
			got = append(got, w.data)
		}
		want := []string{
			"id: 0\nevent: tick\ndata: {\"n\":0}\n\n",
			"id: 1\nevent: tick\ndata: {\"n\":1}\n\n",
			"id: 2\nevent: tick\ndata: {\"n\":2}\n\n",
		}
		if !slices.Equal(got, want) {
			t.Fatalf("writes = %q, want one per event: %q", got, want)
		}
		// Each event left when it was sent: 50 ms apart, and the first
		// long before the handler returned.
		for i := 1; i < len(h.writes); i++ {
			if gap := h.writes[i].at.Sub(h.writes[i-1].at); gap < 40*time.Millisecond {
				t.Errorf("event %d came %s after event %d, want about 50ms (time.Sleep did not sleep)", i, gap, i-1)
			}
		}
		if first, total := h.writes[0].at.Sub(start), end.Sub(start); total-first < 80*time.Millisecond {
			t.Errorf("first event at %s of %s: it waited for the handler to end", first, total)
		}
		t.Logf("poll_oneoff calls: %d", h.polls)
		// Two sleeps; the Go runtime may wake early and poll again, but
		// not hundreds of times.
		if h.polls < 2 || h.polls > 20 {
			t.Errorf("poll_oneoff was called %d times for two sleeps, want 2 to 20 (the guest slept by spinning)", h.polls)
		}
	})

	for _, tc := range []struct {
		name       string
		envelope   string
		wantRC     uint32
		wantHeader [][2]string
		wantWrites []string
		wantLog    string
	}{
		{
			name:       "the negotiated type is the Content-Type, one write per Write",
			envelope:   `{"kind":"endpoint","method":"POST","route":"/api/ticks","path":"/api/ticks","query":{"fail":false},"headers":{},"mediaType":"image/svg+xml"}`,
			wantHeader: [][2]string{{"set Content-Type", "image/svg+xml"}},
			wantWrites: []string{"<image/svg+xml>", "</image/svg+xml>"},
		},
		{
			name:       "an error after the first byte fails the call",
			envelope:   `{"kind":"endpoint","method":"POST","route":"/api/ticks","path":"/api/ticks","query":{"fail":true},"headers":{},"mediaType":"image/png"}`,
			wantRC:     1,
			wantHeader: [][2]string{{"set Content-Type", "image/png"}},
			wantWrites: []string{"<image/png>"},
			wantLog:    "3 endpoints: the 200 stream failed after 11 bytes were sent (the client sees the response cut short): the renderer gave up",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if rc := h.serve(t, mod, tc.envelope); rc != tc.wantRC {
				t.Errorf("%s() = %d, want %d; logs: %q", abi.ExportHandle, rc, tc.wantRC, h.logs)
			}
			if !slices.Equal(h.header, tc.wantHeader) {
				t.Errorf("headers = %q, want %q", h.header, tc.wantHeader)
			}
			var got []string
			for _, w := range h.writes {
				got = append(got, w.data)
			}
			if !slices.Equal(got, tc.wantWrites) {
				t.Errorf("writes = %q, want %q", got, tc.wantWrites)
			}
			var wantLogs []string
			if tc.wantLog != "" {
				wantLogs = []string{tc.wantLog}
			}
			if !slices.Equal(h.logs, wantLogs) {
				t.Errorf("logs = %q, want %q", h.logs, wantLogs)
			}
		})
	}
}

// hook runs one failed request through endpoints_on_validation_error.
func (h *testHost) hook(t testing.TB, mod api.Module, envelope string, status int32) uint32 {
	t.Helper()
	h.envelope, h.status, h.header, h.writes, h.logs = []byte(envelope), status, nil, nil, nil
	h.written.Reset()
	h.inRequest = true
	defer func() { h.inRequest = false }()
	return uint32(call(t, mod, abi.ExportOnValidationError))
}

func TestWasmGuestUpload(t *testing.T) {
	h := &testHost{}
	mod := h.instantiate(t, buildGuest(t, "upload"))

	packed := call(t, mod, abi.ExportContract)
	contract, ok := mod.Memory().Read(uint32(packed>>32), uint32(packed))
	if !ok || packed == 0 {
		t.Fatalf("%s() = %#x: not a buffer in guest memory", abi.ExportContract, packed)
	}
	wantContract := `{"methods":{` +
		`"post":{"summary":"Upload an avatar","request":{"body":{"content":{"multipart/form-data":{` +
		`"schema":{"type":"object","properties":{"title":{"type":"string","minLength":1},` +
		`"avatar":{"type":"string","contentMediaType":"image/png"},` +
		`"extras":{"type":"array","items":{"type":"string","contentMediaType":"application/octet-stream"}}},` +
		`"required":["title","avatar"],"additionalProperties":false},` +
		`"encoding":{"avatar":{"contentType":"image/png"}}}},"maxBytes":65536}},"onValidationError":true},` +
		`"put":{"summary":"Import rows","request":{"body":{"content":{"text/csv":{"schema":{"type":"string"}}}}},` +
		`"responses":{"200":{"schema":{"$ref":"#/$defs/Imported"}}},"responsesInferred":true,"onValidationError":true}},` +
		`"$defs":{"Imported":{"type":"object","properties":{"lines":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}},"required":["lines"],"additionalProperties":false}}}`
	if string(contract) != wantContract {
		t.Errorf("contract:\n got %s\nwant %s", contract, wantContract)
	}

	t.Run("multipart files are read through file_read", func(t *testing.T) {
		h.files = [][]byte{[]byte("PNG-avatar"), []byte("first extra"), []byte("second")}
		rc := h.serve(t, mod, `{"kind":"endpoint","method":"POST","route":"/api/avatar","path":"/api/avatar",`+
			`"body":{"title":"Me","avatar":"me.png","extras":["a.txt","b.bin"]},"contentType":"multipart/form-data",`+
			`"files":[{"name":"avatar","filename":"me.png","contentType":"image/png","size":10},`+
			`{"name":"extras","filename":"a.txt","contentType":"text/plain","size":11},`+
			`{"name":"extras","filename":"b.bin","contentType":"application/octet-stream","size":6}]}`)
		if rc != 0 {
			t.Fatalf("%s() = %d, want 0; logs: %q", abi.ExportHandle, rc, h.logs)
		}
		want := `{"title":"Me","contentType":"multipart/form-data","files":["avatar:me.png:image/png:PNG-avatar",` +
			`"extras:a.txt:text/plain:first extra","extras:b.bin:application/octet-stream:second"]}`
		if h.status != 201 || h.written.String() != want {
			t.Errorf("answer = %d %s\nwant 201 %s", h.status, h.written.String(), want)
		}
	})

	t.Run("a raw body is streamed through body_read", func(t *testing.T) {
		h.body = []byte("a,b\n1,2\n3,4\n")
		rc := h.serve(t, mod, `{"kind":"endpoint","method":"PUT","route":"/api/avatar","path":"/api/avatar","contentType":"text/csv"}`)
		if rc != 0 {
			t.Fatalf("%s() = %d, want 0; logs: %q", abi.ExportHandle, rc, h.logs)
		}
		if got, want := h.written.String(), `{"lines":3}`; h.status != 200 || got != want {
			t.Errorf("answer = %d %s, want 200 %s", h.status, got, want)
		}
	})

	for _, tc := range []struct {
		name       string
		failure    string
		status     int32
		wantRC     uint32
		wantStatus int32
		wantHeader [][2]string
		wantBody   string
	}{
		{
			name:       "the hook answers a schema failure",
			failure:    `{"kind":"schema","status":400,"part":"body","issues":{"body":[{"path":["title"],"message":"required"}]},"default":{"statusCode":400}}`,
			status:     400,
			wantRC:     abi.HookAnswered,
			wantStatus: 422,
			wantHeader: [][2]string{{"add Content-Type", "application/problem+json"}},
			wantBody:   `{"title":"Invalid body","status":422}`,
		},
		{
			name:       "the hook declines a media-type failure",
			failure:    `{"kind":"media-type","status":415,"part":"body","received":"text/plain","supportedMediaTypes":["multipart/form-data"]}`,
			status:     415,
			wantRC:     abi.HookDeclined,
			wantStatus: 415,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := h.hook(t, mod, `{"kind":"endpoint","method":"POST","route":"/api/avatar","path":"/api/avatar","error":`+tc.failure+`}`, tc.status)
			if rc != tc.wantRC {
				t.Fatalf("%s() = %d, want %d; logs: %q", abi.ExportOnValidationError, rc, tc.wantRC, h.logs)
			}
			if h.status != tc.wantStatus || !slices.Equal(h.header, tc.wantHeader) || h.written.String() != tc.wantBody {
				t.Errorf("answer = %d %q %s, want %d %q %s", h.status, h.header, h.written.String(), tc.wantStatus, tc.wantHeader, tc.wantBody)
			}
		})
	}
}

func TestWasmGuestKV(t *testing.T) {
	h := &testHost{}
	mod := h.instantiate(t, buildGuest(t, "kv"))

	big := strings.Repeat("b", 5000) // larger than the SDK's first buffer
	var keys []string
	for i := range abi.KVListLimit*2 + 500 {
		keys = append(keys, fmt.Sprintf("k:%04d", i))
	}
	allKeys, err := json.Marshal(map[string][]string{"keys": keys})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		query      string // the envelope's query member
		setup      func()
		wantStatus int32
		wantBody   string
		check      func(t *testing.T)
	}{
		{
			name:       "outside a request, KV answers ErrState",
			query:      `{"op":"init"}`,
			wantStatus: 200,
			wantBody:   `{"found":true,"value":"endpoints: KV.Get \"boot\": host function kv_get: not available outside a request (-6)"}`,
		},
		{
			name:       "set with a TTL in whole seconds",
			query:      `{"op":"set","key":"a","value":"hello","ttl":1500}`,
			wantStatus: 200,
			wantBody:   `{}`,
			check: func(t *testing.T) {
				if v, ttl := string(h.kv["a"]), h.kvTTL["a"]; v != "hello" || ttl != 2 {
					t.Errorf("stored %q with ttl %d, want %q with ttl 2", v, ttl, "hello")
				}
			},
		},
		{
			name:       "get",
			query:      `{"op":"get","key":"a"}`,
			wantStatus: 200,
			wantBody:   `{"found":true,"value":"hello"}`,
		},
		{
			name:       "get a value larger than the first buffer",
			query:      `{"op":"get","key":"big"}`,
			setup:      func() { h.kv["big"] = []byte(big) },
			wantStatus: 200,
			wantBody:   `{"found":true,"value":"` + big + `"}`,
		},
		{
			name:       "incr passes an i64 and reads the result at out",
			query:      `{"op":"incr","key":"n","delta":1099511627776}`,
			wantStatus: 200,
			wantBody:   `{"n":1099511627776}`,
		},
		{
			name:       "incr with a negative delta",
			query:      `{"op":"incr","key":"n","delta":-1099511627779}`,
			wantStatus: 200,
			wantBody:   `{"n":-3}`,
		},
		{
			name:       "delete",
			query:      `{"op":"delete","key":"a"}`,
			wantStatus: 200,
			wantBody:   `{"found":true}`,
			check: func(t *testing.T) {
				if _, ok := h.kv["a"]; ok {
					t.Error("the key is still stored")
				}
			},
		},
		{
			name:       "get after delete",
			query:      `{"op":"get","key":"a"}`,
			wantStatus: 200,
			wantBody:   `{}`,
		},
		{
			name:  "keys over three pages",
			query: `{"op":"keys","key":"k:"}`,
			setup: func() {
				for _, k := range keys {
					h.kv[k] = []byte("1")
				}
			},
			wantStatus: 200,
			wantBody:   string(allKeys),
		},
		{
			name:       "store down: HandleFunc answers 503",
			query:      `{"op":"get","key":"a"}`,
			setup:      func() { h.kvDown = true },
			wantStatus: 503,
			wantBody:   `{"statusCode":503,"statusMessage":"Service Unavailable"}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.kvDown = false
			if tc.setup != nil {
				tc.setup()
			}
			envelope := `{"kind":"endpoint","method":"GET","route":"/api/kv","path":"/api/kv","query":` + tc.query + `}`
			if rc := h.serve(t, mod, envelope); rc != 0 {
				t.Fatalf("%s() = %d, want 0; logs: %q", abi.ExportHandle, rc, h.logs)
			}
			if got := h.written.String(); h.status != tc.wantStatus || got != tc.wantBody {
				t.Errorf("answer = %d %.200s\nwant %d %.200s", h.status, got, tc.wantStatus, tc.wantBody)
			}
			if tc.check != nil {
				tc.check(t)
			}
		})
	}
}

// BenchmarkWasmGuest measures one request through the echo guest in
// wazero: the envelope read, decoding, the handler (which also reads a raw
// header and logs), encoding and the host calls. Compare with
// BenchmarkHandle, the same SDK code run natively.
func BenchmarkWasmGuest(b *testing.B) {
	h := &testHost{headers: map[string]string{"user-agent": "curl/8.5"}}
	mod := h.instantiate(b, buildGuest(b, "echo"))
	envelope := `{"kind":"endpoint","method":"POST","route":"/api/echo/:id","path":"/api/echo/7","params":{"id":7},"query":{"limit":10},"headers":{"x-tenant":"acme"},"body":{"text":"hi"}}`
	b.ReportAllocs()
	for b.Loop() {
		if rc := h.serve(b, mod, envelope); rc != 0 {
			b.Fatalf("%s() = %d; logs %q", abi.ExportHandle, rc, h.logs)
		}
	}
}

// userEnvelope is GET /api/users/{id} of the db guest.
func userEnvelope(id string) string {
	return `{"kind":"endpoint","method":"GET","route":"/api/users/:id","path":"/api/users/` + id + `","params":{"id":` + id + `},"query":{},"headers":{}}`
}

// TestWasmGuestDB runs the db guest's QueryRowAs through the db_*
// functions: the statement and arguments it sends, and what it answers
// for a row, no row and a database error.
func TestWasmGuestDB(t *testing.T) {
	h := &testHost{}
	mod := h.instantiate(t, buildGuest(t, "db"))
	const sql = "SELECT id, name, email FROM users WHERE id = $1"
	for _, tc := range []struct {
		name       string
		id         string
		result     string
		errno      abi.Errno
		wantStatus int32
		wantBody   string
	}{
		{"a row", "2", `{"columns":["id","name","email"],"rows":[[2,"Grace Hopper","grace@example.com"]]}`, 0, 200, `{"id":2,"name":"Grace Hopper","email":"grace@example.com"}`},
		{"escapes and the largest id", "9223372036854775807", `{"columns":["id","name","email"],"rows":[[9223372036854775807,"Gr\u00e2ce \"G\"","g\\h@example.com"]]}`, 0, 200, `{"id":9223372036854775807,"name":"Grâce \"G\"","email":"g\\h@example.com"}`},
		{"no row", "7", `{"columns":["id","name","email"],"rows":[]}`, 0, 404, `{"message":"user 7 not found"}`},
		{"a blob into a string", "2", `{"columns":["id","name","email"],"blobs":[[0,1]],"rows":[[2,"R3JhY2U=","dGVzdA=="]]}`, 0, 200, `{"id":2,"name":"Grace","email":"dGVzdA=="}`},
		{"a NULL", "3", `{"columns":["id","name","email"],"rows":[[3,"Alan",null]]}`, 0, 503, `{"message":"endpoints: ScanAll: row 1, column \"email\" into main.user: NULL cannot go into *string: scan into a pointer (**string) to accept NULL"}`},
		{"a database error", "2", `{"error":{"code":"unavailable","message":"database is locked"}}`, abi.ErrDatabase, 503, `{"message":"endpoints: database \"main\": unavailable: database is locked"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.dbCalls = nil
			h.query = func(db, gotSQL, params string, exec bool) ([]byte, abi.Errno) {
				if db != "main" || gotSQL != sql || params != "["+tc.id+"]" || exec {
					t.Errorf("db_query(%q, %q, %q, exec %v), want (main, %q, [%s], false)", db, gotSQL, params, exec, sql, tc.id)
				}
				return []byte(tc.result), tc.errno
			}
			if rc := h.serve(t, mod, userEnvelope(tc.id)); rc != 0 {
				t.Fatalf("%s() = %d; logs %q", abi.ExportHandle, rc, h.logs)
			}
			if h.status != tc.wantStatus || h.written.String() != tc.wantBody {
				t.Errorf("answered %d %s, want %d %s", h.status, h.written.String(), tc.wantStatus, tc.wantBody)
			}
			if len(h.dbCalls) != 1 {
				t.Errorf("db calls %q, want one db_query", h.dbCalls)
			}
		})
	}
}

// BenchmarkWasmGuestDB measures GET /api/users/2 through the db guest in
// wazero, the host's db_query answering a fixed result: the guest's own
// cost of a database read (sending the statement, scanning the row into
// the struct, encoding it), which the host's side of
// BenchmarkUsersGetDatabase adds SQLite to.
func BenchmarkWasmGuestDB(b *testing.B) {
	result := []byte(`{"columns":["id","name","email"],"rows":[[2,"Grace Hopper","grace@example.com"]]}`)
	h := &testHost{query: func(string, string, string, bool) ([]byte, abi.Errno) { return result, 0 }}
	mod := h.instantiate(b, buildGuest(b, "db"))
	envelope := userEnvelope("2")
	b.ReportAllocs()
	defer cputime.Report(b)()
	for b.Loop() {
		if rc := h.serve(b, mod, envelope); rc != 0 || h.status != 200 {
			b.Fatalf("%s() = %d, status %d; logs %q", abi.ExportHandle, rc, h.status, h.logs)
		}
	}
}

// BenchmarkWasmGuestDBScan measures GET /api/users/2 read three ways
// (testdata/dbscan): QueryRowAs, QueryRow(...).Scan, and a JSON text
// scanned into a json.RawMessage; each with its host calls answered from
// memory, so the numbers are the guest's. mallocs/op counts the guest's
// heap allocations in a pass of their own with a function listener;
// WHO=scan (or as, json) prints each allocation's callers as it counts.
//
//	go test ./guest-sdk/go -run '^$' -bench WasmGuestDBScan -benchtime 5000x
func BenchmarkWasmGuestDBScan(b *testing.B) {
	results := map[string][]byte{
		"as":   []byte(`{"columns":["id","name","email"],"rows":[[2,"Grace Hopper","grace@example.com"]]}`),
		"scan": []byte(`{"columns":["id","name","email"],"rows":[[2,"Grace Hopper","grace@example.com"]]}`),
		"json": []byte(`{"columns":["json_object('id', id, 'name', name, 'email', email)"],"rows":[["{\"id\":2,\"name\":\"Grace Hopper\",\"email\":\"grace@example.com\"}"]]}`),
	}
	const want = `{"id":2,"name":"Grace Hopper","email":"grace@example.com"}`
	hows := []string{"as", "scan", "json"}
	envelope := func(how string) string {
		return `{"kind":"endpoint","method":"GET","route":"/api/users/:id","path":"/api/users/2","params":{"id":2},"query":{"how":"` + how + `"},"headers":{}}`
	}
	var how string
	query := func(string, string, string, bool) ([]byte, abi.Errno) { return results[how], 0 }
	wasm := buildGuest(b, "dbscan")
	// The allocations, counted by a listener on a module of their own.
	mallocs := map[string]int{}
	counted := &testHost{query: query}
	counted.listener = experimental.FunctionListenerFactoryFunc(func(def api.FunctionDefinition) experimental.FunctionListener {
		if def.Name() != "runtime.mallocgc" {
			return nil
		}
		return experimental.FunctionListenerFunc(func(_ context.Context, _ api.Module, _ api.FunctionDefinition, _ []uint64, si experimental.StackIterator) {
			mallocs[how]++
			if os.Getenv("WHO") != "" && how == os.Getenv("WHO") {
				var names []string
				for si.Next() {
					names = append(names, si.Function().Definition().Name())
				}
				if len(names) > 4 {
					names = names[:4]
				}
				fmt.Fprintln(os.Stderr, "MALLOC", strings.Join(names, " < "))
			}
		})
	})
	mod := counted.instantiate(b, wasm)
	const n = 100
	for _, how = range hows {
		for range 10 { // plans made, caches filled
			if rc := counted.serve(b, mod, envelope(how)); rc != 0 || counted.status != 200 || counted.written.String() != want {
				b.Fatalf("%s: %s() = %d, answered %d %s; logs %q", how, abi.ExportHandle, rc, counted.status, counted.written.String(), counted.logs)
			}
		}
		mallocs[how] = 0
		for range n {
			counted.serve(b, mod, envelope(how))
		}
	}
	plain := &testHost{query: query}
	mod = plain.instantiate(b, wasm)
	for _, how = range hows {
		env := envelope(how)
		b.Run(how, func(b *testing.B) {
			defer cputime.Report(b)()
			for b.Loop() {
				if rc := plain.serve(b, mod, env); rc != 0 || plain.status != 200 {
					b.Fatalf("%s() = %d, status %d; logs %q", abi.ExportHandle, rc, plain.status, plain.logs)
				}
			}
			b.ReportMetric(float64(mallocs[how])/n, "mallocs/op")
		})
	}
}

// BenchmarkWasmGuestDBCalls counts what BenchmarkWasmGuestDB's request
// does inside the guest (guestCounts.report): its calls of wasm and host
// functions, its allocations and the collections the Go runtime starts.
// With -v it lists the functions called most.
func BenchmarkWasmGuestDBCalls(b *testing.B) {
	result := []byte(`{"columns":["id","name","email"],"rows":[[2,"Grace Hopper","grace@example.com"]]}`)
	h := &testHost{query: func(string, string, string, bool) ([]byte, abi.Errno) { return result, 0 }}
	counts := countGuest(h)
	mod := h.instantiate(b, buildGuest(b, "db"))
	envelope := userEnvelope("2")
	// The first requests make the plans and fill the caches.
	for range 10 {
		h.serve(b, mod, envelope)
	}
	counts.reset()
	for b.Loop() {
		if rc := h.serve(b, mod, envelope); rc != 0 || h.status != 200 {
			b.Fatalf("%s() = %d, status %d; logs %q", abi.ExportHandle, rc, h.status, h.logs)
		}
	}
	counts.report(b)
}

// healthEnvelope is GET /health of a plain route as curl sends it, the
// headers as the host lists them: lower case, sorted.
const healthEnvelope = `{"kind":"plain","method":"GET","route":"/health","path":"/health",` +
	`"headers":{"accept":["*/*"],"host":["localhost:8080"],"user-agent":["curl/8.5.0"]}}`

// serveHealth serves GET /health through the health guest and checks its
// answer.
func serveHealth(b *testing.B, h *testHost, mod api.Module) {
	if rc := h.serve(b, mod, healthEnvelope); rc != 0 || h.status != 200 || h.written.String() != "ok" {
		b.Fatalf("%s() = %d, answer %d %q; logs %q", abi.ExportHandle, rc, h.status, h.written.String(), h.logs)
	}
}

// BenchmarkWasmGuestRaw measures GET /health through the health guest
// in wazero: a plain route (HandleRaw) as examples/users' handlers/health
// serves it, the envelope decoded into a RawRequest and the answer
// written through ResponseWriter.
func BenchmarkWasmGuestRaw(b *testing.B) {
	h := &testHost{}
	mod := h.instantiate(b, buildGuest(b, "health"))
	b.ReportAllocs()
	defer cputime.Report(b)()
	for b.Loop() {
		serveHealth(b, h, mod)
	}
}

// BenchmarkWasmGuestRawCalls counts what BenchmarkWasmGuestRaw's request
// does inside the guest, as BenchmarkWasmGuestDBCalls does.
func BenchmarkWasmGuestRawCalls(b *testing.B) {
	h := &testHost{}
	counts := countGuest(h)
	mod := h.instantiate(b, buildGuest(b, "health"))
	for range 10 {
		serveHealth(b, h, mod)
	}
	counts.reset()
	for b.Loop() {
		serveHealth(b, h, mod)
	}
	counts.report(b)
}
