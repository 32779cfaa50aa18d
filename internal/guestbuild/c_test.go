package guestbuild

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmendpoints/endpoints/abi"
)

// cRepoRoot is the repository root, seen from this package's directory.
var cRepoRoot = filepath.Join("..", "..")

// Sources the tests build, relative to cRepoRoot.
var (
	usersSrc   = filepath.Join("examples", "users-c", "server", "api", "users", "[id].get.c")
	healthSrc  = filepath.Join("examples", "users-c", "server", "routes", "health.get.c")
	helpersSrc = filepath.Join("guest-sdk", "c", "testdata", "helpers.c")
	dbSrc      = filepath.Join("guest-sdk", "c", "testdata", "db.c")
	httpGetSrc = filepath.Join("guest-sdk", "c", "testdata", "httptimeout.c")
	helloSrc   = filepath.Join("guest-sdk", "wat", "hello.wat")
)

// needBuildTool skips the test when tool is not installed: the builds under test
// cannot run without it.
func needBuildTool(t testing.TB, tool string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		t.Skipf("%s is not installed: %v", tool, err)
	}
}

// buildC compiles the C source src (relative to cRepoRoot) with C and returns
// the module's path.
func buildC(t testing.TB, src string) string {
	t.Helper()
	needBuildTool(t, clangTool)
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), ".c")+".wasm")
	if err := C(context.Background(), filepath.Join(cRepoRoot, src), out); err != nil {
		t.Fatalf("C(%s): %v", src, err)
	}
	return out
}

// buildWAT assembles the WAT source src (relative to cRepoRoot) with WAT and
// returns the module's path.
func buildWAT(t testing.TB, src string) string {
	t.Helper()
	needBuildTool(t, wat2wasmTool)
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), ".wat")+".wasm")
	if err := WAT(context.Background(), filepath.Join(cRepoRoot, src), out); err != nil {
		t.Fatalf("WAT(%s): %v", src, err)
	}
	return out
}

// abiExchange is one request and its answer as the test host sees them.
type abiExchange struct {
	// values are the JSON encodings of the validated values, by part and
	// name, as request_value hands them out.
	values map[abi.Part]map[string]string
	// headers are the raw request headers by lower-case name.
	headers map[string]string
	// envelope is what request_read returns.
	envelope string

	// db is the database db_query and db_exec reach: it returns the
	// function's result (a size, or a negative errno) and the pending
	// result db_result then writes (for ErrInvalid, only when not
	// empty). nil answers ErrNotFound.
	db func(fn, database, sql, params string) (abi.Errno, string)

	status int32
	header http.Header
	body   bytes.Buffer
	logs   []string
}

// abiHost implements the "endpoints" host module of ABI v1 for one
// request at a time: the exchange in cur. It is a test double of the real
// host, following the buffer convention and error codes of package abi.
type abiHost struct {
	rt  wazero.Runtime
	cur *abiExchange
	// pending is the result of the last db_query or db_exec, for db_result.
	pending *string
	// sent are the request JSONs http_send was given, in order.
	sent []string
}

// newABIHost starts a wazero runtime with WASI and the test host module.
func newABIHost(t testing.TB) *abiHost {
	t.Helper()
	ctx := context.Background()
	h := &abiHost{rt: wazero.NewRuntime(ctx)}
	t.Cleanup(func() { h.rt.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, h.rt)

	i32 := api.ValueTypeI32
	b := h.rt.NewHostModuleBuilder(abi.ImportModule)
	def := func(name string, fn api.GoModuleFunc, params []api.ValueType, results ...api.ValueType) {
		b.NewFunctionBuilder().WithGoModuleFunction(fn, params, results).Export(name)
	}
	def(abi.ImportRequestRead, h.requestRead, []api.ValueType{i32, i32}, i32)
	def(abi.ImportRequestValue, h.requestValue, []api.ValueType{i32, i32, i32, i32, i32}, i32)
	def(abi.ImportRequestHeader, h.requestHeader, []api.ValueType{i32, i32, i32, i32}, i32)
	def(abi.ImportBodyRead, h.bodyRead, []api.ValueType{i32, i32}, i32)
	def(abi.ImportResponseSetStatus, h.setStatus, []api.ValueType{i32}, i32)
	def(abi.ImportResponseSetHeader, h.setHeader, []api.ValueType{i32, i32, i32, i32}, i32)
	def(abi.ImportResponseAddHeader, h.addHeader, []api.ValueType{i32, i32, i32, i32}, i32)
	def(abi.ImportResponseWrite, h.write, []api.ValueType{i32, i32}, i32)
	def(abi.ImportLog, h.log, []api.ValueType{i32, i32, i32})
	// Functions the C examples do not call: here only their signatures
	// matter, so they answer that nothing is there.
	errUnavailable := int32(abi.ErrUnavailable)
	unavailable := func(_ context.Context, _ api.Module, stack []uint64) { stack[0] = uint64(uint32(errUnavailable)) }
	def(abi.ImportFileRead, unavailable, []api.ValueType{i32, i32, i32}, i32)
	def(abi.ImportKVGet, unavailable, []api.ValueType{i32, i32, i32, i32}, i32)
	def(abi.ImportKVSet, unavailable, []api.ValueType{i32, i32, i32, i32, i32}, i32)
	def(abi.ImportKVDelete, unavailable, []api.ValueType{i32, i32}, i32)
	def(abi.ImportKVIncr, unavailable, []api.ValueType{i32, i32, api.ValueTypeI64, i32}, i32)
	def(abi.ImportKVList, unavailable, []api.ValueType{i32, i32, i32, i32, i32, i32}, i32)
	def(abi.ImportHTTPSend, func(_ context.Context, mod api.Module, s []uint64) {
		h.sent = append(h.sent, guestRead(mod, s[0], s[1]))
		s[0] = uint64(uint32(errUnavailable))
	}, []api.ValueType{i32, i32, i32, i32}, i32)
	def(abi.ImportHTTPResponse, unavailable, []api.ValueType{i32, i32, i32}, i32)
	def(abi.ImportHTTPBodyRead, unavailable, []api.ValueType{i32, i32, i32}, i32)
	def(abi.ImportHTTPClose, unavailable, []api.ValueType{i32}, i32)
	def(abi.ImportHTTPError, unavailable, []api.ValueType{i32, i32}, i32)
	dbRun := func(fn string) api.GoModuleFunc {
		return func(_ context.Context, mod api.Module, s []uint64) {
			h.pending = nil
			if h.cur == nil || h.cur.db == nil {
				s[0] = errnoResult(abi.ErrNotFound)
				return
			}
			rc, result := h.cur.db(fn, guestRead(mod, s[0], s[1]), guestRead(mod, s[2], s[3]), guestRead(mod, s[4], s[5]))
			// A refused call's ErrInvalid leaves the host's reason
			// pending; an empty result plays an older host that left
			// none.
			if rc >= 0 || rc == abi.ErrDatabase || rc == abi.ErrInvalid && result != "" {
				h.pending = &result
			}
			if rc >= 0 {
				rc = abi.Errno(len(result))
			}
			s[0] = errnoResult(rc)
		}
	}
	def(abi.ImportDBQuery, dbRun(abi.ImportDBQuery), []api.ValueType{i32, i32, i32, i32, i32, i32}, i32)
	def(abi.ImportDBExec, dbRun(abi.ImportDBExec), []api.ValueType{i32, i32, i32, i32, i32, i32}, i32)
	def(abi.ImportDBResult, func(_ context.Context, mod api.Module, s []uint64) {
		if h.pending == nil {
			s[0] = errnoResult(abi.ErrNotFound)
			return
		}
		s[0] = api.EncodeI32(guestPut(mod, s[0], s[1], *h.pending))
	}, []api.ValueType{i32, i32}, i32)
	def(abi.ImportDBBegin, func(_ context.Context, mod api.Module, s []uint64) {
		// The exchange's database sees db_begin too, without SQL or
		// parameters.
		h.pending = nil
		if h.cur == nil || h.cur.db == nil {
			s[0] = errnoResult(abi.ErrNotFound)
			return
		}
		rc, _ := h.cur.db(abi.ImportDBBegin, guestRead(mod, s[0], s[1]), "", "")
		s[0] = errnoResult(min(rc, 0))
	}, []api.ValueType{i32, i32}, i32)
	def(abi.ImportDBBeginWith, func(_ context.Context, mod api.Module, s []uint64) {
		// The options go to db as its params; the SQL is none.
		h.pending = nil
		if h.cur == nil || h.cur.db == nil {
			s[0] = errnoResult(abi.ErrNotFound)
			return
		}
		rc, result := h.cur.db(abi.ImportDBBeginWith, guestRead(mod, s[0], s[1]), "", guestRead(mod, s[2], s[3]))
		if rc == abi.ErrDatabase || rc == abi.ErrInvalid && result != "" {
			h.pending = &result
		}
		s[0] = errnoResult(min(rc, 0))
	}, []api.ValueType{i32, i32, i32, i32}, i32)
	def(abi.ImportDBCommit, unavailable, []api.ValueType{i32, i32}, i32)
	def(abi.ImportDBRollback, unavailable, []api.ValueType{i32, i32}, i32)
	def(abi.ImportDBTimeout, unavailable, []api.ValueType{i32}, i32)
	if _, err := b.Instantiate(ctx); err != nil {
		t.Fatalf("instantiate test host: %v", err)
	}
	return h
}

// guestRead returns n bytes of guest memory at off; out of range traps.
func guestRead(mod api.Module, off, n uint64) string {
	b, ok := mod.Memory().Read(uint32(off), uint32(n))
	if !ok {
		panic(fmt.Sprintf("memory [%d, %d) is out of range", off, off+n))
	}
	return string(b)
}

// guestPut follows the buffer convention: it writes v into the buffer only when
// it fits and returns its size either way.
func guestPut(mod api.Module, buf, bufLen uint64, v string) int32 {
	if uint64(len(v)) <= uint64(uint32(bufLen)) && !mod.Memory().Write(uint32(buf), []byte(v)) {
		panic(fmt.Sprintf("buffer at %d is out of range", buf))
	}
	return int32(len(v))
}

func errnoResult(e abi.Errno) uint64 { return api.EncodeI32(int32(e)) }

func (h *abiHost) requestRead(_ context.Context, mod api.Module, s []uint64) {
	if h.cur == nil {
		s[0] = errnoResult(abi.ErrState)
		return
	}
	s[0] = api.EncodeI32(guestPut(mod, s[0], s[1], h.cur.envelope))
}

func (h *abiHost) requestValue(_ context.Context, mod api.Module, s []uint64) {
	if h.cur == nil {
		s[0] = errnoResult(abi.ErrState)
		return
	}
	part := abi.Part(api.DecodeI32(s[0]))
	if part < abi.PartParams || part > abi.PartBody {
		s[0] = errnoResult(abi.ErrInvalid)
		return
	}
	values := h.cur.values[part]
	name := guestRead(mod, s[1], s[2])
	v, ok := values[name]
	if name == "" {
		// The whole part: an object of every value, keys sorted.
		keys := make([]string, 0, len(values))
		for k := range values {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q:%s", k, values[k])
		}
		b.WriteByte('}')
		v, ok = b.String(), true
	}
	if !ok {
		s[0] = errnoResult(abi.ErrNotFound)
		return
	}
	s[0] = api.EncodeI32(guestPut(mod, s[3], s[4], v))
}

func (h *abiHost) requestHeader(_ context.Context, mod api.Module, s []uint64) {
	if h.cur == nil {
		s[0] = errnoResult(abi.ErrState)
		return
	}
	v, ok := h.cur.headers[strings.ToLower(guestRead(mod, s[0], s[1]))]
	if !ok {
		s[0] = errnoResult(abi.ErrNotFound)
		return
	}
	s[0] = api.EncodeI32(guestPut(mod, s[2], s[3], v))
}

// bodyRead answers the end of the body at once: the tests send none.
func (h *abiHost) bodyRead(_ context.Context, _ api.Module, s []uint64) {
	if h.cur == nil {
		s[0] = errnoResult(abi.ErrState)
		return
	}
	s[0] = 0
}

func (h *abiHost) setStatus(_ context.Context, _ api.Module, s []uint64) {
	status := api.DecodeI32(s[0])
	switch {
	case h.cur == nil:
		s[0] = errnoResult(abi.ErrState)
	case status < 100 || status > 599:
		s[0] = errnoResult(abi.ErrInvalid)
	default:
		h.cur.status = status
		s[0] = 0
	}
}

func (h *abiHost) setHeader(_ context.Context, mod api.Module, s []uint64) {
	h.header(mod, s, http.Header.Set)
}

func (h *abiHost) addHeader(_ context.Context, mod api.Module, s []uint64) {
	h.header(mod, s, http.Header.Add)
}

func (h *abiHost) header(mod api.Module, s []uint64, op func(http.Header, string, string)) {
	if h.cur == nil {
		s[0] = errnoResult(abi.ErrState)
		return
	}
	name := http.CanonicalHeaderKey(guestRead(mod, s[0], s[1]))
	value := guestRead(mod, s[2], s[3])
	if name == "" || slices.Contains(abi.ForbiddenResponseHeaders, name) || strings.ContainsAny(value, "\r\n\x00") {
		s[0] = errnoResult(abi.ErrInvalid)
		return
	}
	op(h.cur.header, name, value)
	s[0] = 0
}

func (h *abiHost) write(_ context.Context, mod api.Module, s []uint64) {
	if h.cur == nil {
		s[0] = errnoResult(abi.ErrState)
		return
	}
	h.cur.body.WriteString(guestRead(mod, s[0], s[1]))
	s[0] = 0
}

func (h *abiHost) log(_ context.Context, mod api.Module, s []uint64) {
	if h.cur != nil {
		h.cur.logs = append(h.cur.logs, fmt.Sprintf("%d %s", api.DecodeI32(s[0]), guestRead(mod, s[1], s[2])))
	}
}

// abiGuest is one instance of a route module.
type abiGuest struct {
	h      *abiHost
	mod    api.Module
	module wazero.CompiledModule
	// handler is the endpoints_handle export, looked up once: each lookup
	// allocates a call stack.
	handler api.Function
}

// load compiles and instantiates the module at path, running _initialize
// when it exports one, as the host does.
func (h *abiHost) load(t testing.TB, path string) *abiGuest {
	t.Helper()
	ctx := context.Background()
	bin, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := h.rt.CompileModule(ctx, bin)
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	mod, err := h.rt.InstantiateModule(ctx, compiled,
		wazero.NewModuleConfig().WithName("").WithStartFunctions(abi.StartFunction))
	if err != nil {
		t.Fatalf("instantiate %s: %v", path, err)
	}
	handler := mod.ExportedFunction(abi.ExportHandle)
	if handler == nil {
		t.Fatalf("%s exports no %s", path, abi.ExportHandle)
	}
	return &abiGuest{h: h, mod: mod, module: compiled, handler: handler}
}

// contract calls endpoints_contract and returns the bytes it points at.
func (g *abiGuest) contract(t testing.TB) []byte {
	t.Helper()
	fn := g.mod.ExportedFunction(abi.ExportContract)
	if fn == nil {
		t.Fatalf("module exports no %s", abi.ExportContract)
	}
	res, err := fn.Call(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", abi.ExportContract, err)
	}
	packed := res[0]
	return []byte(guestRead(g.mod, packed>>32, packed&0xffffffff))
}

// handle runs endpoints_handle for ex and returns its result; the answer is
// left in ex.
func (g *abiGuest) handle(t testing.TB, ex *abiExchange) int32 {
	t.Helper()
	ex.status = 200
	ex.header = http.Header{}
	g.h.cur = ex
	defer func() { g.h.cur = nil }()
	res, err := g.handler.Call(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", abi.ExportHandle, err)
	}
	return api.DecodeI32(res[0])
}

// checkRouteModule checks what every route module needs: the ABI version export
// and memory, and function imports only from the host and WASI. It logs the
// module's size and fails when it exceeds maxSize.
func checkRouteModule(t *testing.T, path string, g *abiGuest, maxSize int64) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d bytes", filepath.Base(path), fi.Size())
	if fi.Size() > maxSize {
		t.Errorf("module size = %d bytes, want at most %d", fi.Size(), maxSize)
	}
	for _, f := range g.module.ImportedFunctions() {
		mod, name, _ := f.Import()
		if mod != abi.ImportModule && mod != wasi_snapshot_preview1.ModuleName {
			t.Errorf("module imports %s.%s, want only %s and %s functions", mod, name, abi.ImportModule, wasi_snapshot_preview1.ModuleName)
		}
	}
	if m := g.module.ImportedMemories(); len(m) != 0 {
		t.Errorf("module imports %d memories, want none", len(m))
	}
	if g.mod.ExportedMemory(abi.ExportMemory) == nil {
		t.Errorf("module exports no memory %q", abi.ExportMemory)
	}
	res, err := g.mod.ExportedFunction(abi.ExportABIVersion).Call(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", abi.ExportABIVersion, err)
	}
	if got := api.DecodeI32(res[0]); got != abi.Version {
		t.Errorf("%s() = %d, want %d", abi.ExportABIVersion, got, abi.Version)
	}
}

// decodeContractStrict decodes a contract strictly into the abi types.
func decodeContractStrict(t *testing.T, raw []byte) abi.Contract {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var c abi.Contract
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("contract is not a valid contract document: %v\n%s", err, raw)
	}
	return c
}

func TestCHeaderMatchesABI(t *testing.T) {
	consts := []struct {
		name  string
		value int32
	}{
		{"ENDPOINTS_ABI_VERSION", abi.Version},
		{"ENDPOINTS_ERR_NOT_FOUND", int32(abi.ErrNotFound)},
		{"ENDPOINTS_ERR_INVALID", int32(abi.ErrInvalid)},
		{"ENDPOINTS_ERR_HEADERS_SENT", int32(abi.ErrHeadersSent)},
		{"ENDPOINTS_ERR_BODY_TOO_LARGE", int32(abi.ErrBodyTooLarge)},
		{"ENDPOINTS_ERR_IO", int32(abi.ErrIO)},
		{"ENDPOINTS_ERR_STATE", int32(abi.ErrState)},
		{"ENDPOINTS_ERR_UNAVAILABLE", int32(abi.ErrUnavailable)},
		{"ENDPOINTS_ERR_NOT_ALLOWED", int32(abi.ErrNotAllowed)},
		{"ENDPOINTS_ERR_LIMIT", int32(abi.ErrLimit)},
		{"ENDPOINTS_ERR_DATABASE", int32(abi.ErrDatabase)},
		{"ENDPOINTS_KV_MAX_KEY", abi.KVMaxKey},
		{"ENDPOINTS_KV_MAX_VALUE", abi.KVMaxValue},
		{"ENDPOINTS_KV_LIST_LIMIT", abi.KVListLimit},
		{"ENDPOINTS_TIMEOUT_MAX_MS", abi.HTTPTimeoutMax},
		{"ENDPOINTS_TIMEOUT_MAX_MS", abi.DBTimeoutMax},
		{"ENDPOINTS_HOOK_ANSWERED", abi.HookAnswered},
		{"ENDPOINTS_HOOK_DECLINED", abi.HookDeclined},
		{"ENDPOINTS_PART_PARAMS", int32(abi.PartParams)},
		{"ENDPOINTS_PART_QUERY", int32(abi.PartQuery)},
		{"ENDPOINTS_PART_HEADERS", int32(abi.PartHeaders)},
		{"ENDPOINTS_PART_BODY", int32(abi.PartBody)},
		{"ENDPOINTS_LOG_DEBUG", int32(abi.LogDebug)},
		{"ENDPOINTS_LOG_INFO", int32(abi.LogInfo)},
		{"ENDPOINTS_LOG_WARN", int32(abi.LogWarn)},
		{"ENDPOINTS_LOG_ERROR", int32(abi.LogError)},
	}
	imports := []string{
		abi.ImportRequestRead, abi.ImportRequestValue, abi.ImportRequestHeader,
		abi.ImportBodyRead, abi.ImportResponseSetStatus, abi.ImportResponseSetHeader,
		abi.ImportResponseAddHeader, abi.ImportResponseWrite, abi.ImportLog,
		abi.ImportFileRead, abi.ImportKVGet, abi.ImportKVSet, abi.ImportKVDelete,
		abi.ImportKVIncr, abi.ImportKVList,
		abi.ImportHTTPSend, abi.ImportHTTPResponse, abi.ImportHTTPBodyRead, abi.ImportHTTPClose, abi.ImportHTTPError,
		abi.ImportDBQuery, abi.ImportDBExec, abi.ImportDBResult,
		abi.ImportDBBegin, abi.ImportDBBeginWith, abi.ImportDBCommit, abi.ImportDBRollback, abi.ImportDBTimeout,
	}

	// A module that asserts every constant, takes the address of every
	// host function (so each is imported) and defines every export.
	var src strings.Builder
	src.WriteString("#include \"endpoints.h\"\n")
	for _, c := range consts {
		fmt.Fprintf(&src, "_Static_assert(%s == %d, \"%s is not %d\");\n", c.name, c.value, c.name, c.value)
	}
	src.WriteString("ENDPOINTS_CONTRACT(\"{}\");\ntypedef void (*fn)(void);\nstatic const fn all[] = {\n")
	for _, name := range imports {
		fmt.Fprintf(&src, "\t(fn)endpoints_%s,\n", name)
	}
	src.WriteString("};\nstatic volatile int pick;\n" +
		"int32_t endpoints_handle(void) { return (int32_t)(uintptr_t)all[pick]; }\n" +
		"int32_t endpoints_on_validation_error(void) { return 0; }\n")
	dir := t.TempDir()
	path := filepath.Join(dir, "abi.c")
	if err := os.WriteFile(path, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	needBuildTool(t, clangTool)
	out := filepath.Join(dir, "abi.wasm")
	if err := C(context.Background(), path, out); err != nil {
		t.Fatalf("endpoints.h disagrees with package abi: %v", err)
	}

	// Instantiating against the test host checks each signature.
	g := newABIHost(t).load(t, out)
	checkRouteModule(t, out, g, 4096)

	t.Run("imports every host function", func(t *testing.T) {
		var got []string
		for _, f := range g.module.ImportedFunctions() {
			if mod, name, _ := f.Import(); mod == abi.ImportModule {
				got = append(got, name)
			}
		}
		sort.Strings(got)
		want := slices.Sorted(slices.Values(imports))
		if !slices.Equal(got, want) {
			t.Errorf("imports = %v, want %v", got, want)
		}
	})
	t.Run("exports", func(t *testing.T) {
		exports := g.module.ExportedFunctions()
		for _, name := range []string{abi.ExportABIVersion, abi.ExportContract, abi.ExportHandle, abi.ExportOnValidationError, abi.StartFunction} {
			if _, ok := exports[name]; !ok {
				t.Errorf("module does not export %s", name)
			}
		}
	})
	t.Run("contract", func(t *testing.T) {
		if got, want := string(g.contract(t)), "{}"; got != want {
			t.Errorf("contract = %q, want %q", got, want)
		}
	})
}

func TestCUsers(t *testing.T) {
	path := buildC(t, usersSrc)
	g := newABIHost(t).load(t, path)
	// The database helpers of endpoints.h keep results in memory they
	// malloc: wasi-libc's allocator is most of the module.
	checkRouteModule(t, path, g, 24<<10)

	t.Run("contract", func(t *testing.T) {
		c := decodeContractStrict(t, g.contract(t))
		if got, want := c.Summary, "Get a user"; got != want {
			t.Errorf("summary = %q, want %q", got, want)
		}
		if got, want := c.Tags, []string{"users"}; !slices.Equal(got, want) {
			t.Errorf("tags = %q, want %q", got, want)
		}
		for status, ref := range map[string]string{"200": "#/$defs/User", "404": "#/$defs/NotFound"} {
			r := c.Responses[status]
			if r == nil {
				t.Errorf("responses has no %s", status)
				continue
			}
			var schema struct {
				Ref string `json:"$ref"`
			}
			if err := json.Unmarshal(r.Schema, &schema); err != nil || schema.Ref != ref {
				t.Errorf("responses.%s.schema = %s, want {\"$ref\":%q}", status, r.Schema, ref)
			}
		}
		for _, name := range []string{"User", "NotFound"} {
			if _, ok := c.Defs[name]; !ok {
				t.Errorf("$defs has no %s", name)
			}
		}
		var params struct {
			Properties map[string]struct {
				Type    string `json:"type"`
				Minimum int    `json:"minimum"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(c.Request.Params, &params); err != nil {
			t.Fatalf("request.params: %v", err)
		}
		if id := params.Properties["id"]; id.Type != "integer" || id.Minimum != 1 || !slices.Equal(params.Required, []string{"id"}) {
			t.Errorf("request.params = %s, want a required integer id of minimum 1", c.Request.Params)
		}
	})

	// users is the database the example reads: the seed users of its
	// migration, by the parameters of its one query.
	users := func(fn, database, sql, params string) (abi.Errno, string) {
		const query = "SELECT id, name, email FROM users WHERE id = $1"
		if fn != abi.ImportDBQuery || database != "main" || sql != query {
			t.Errorf("%s(%q, %q), want %s(\"main\", %q)", fn, database, sql, abi.ImportDBQuery, query)
		}
		rows := map[string]string{
			"[1]": `[1,"Ada Lovelace","ada@example.com"]`,
			"[2]": `[2,"Grace Hopper","grace@example.com"]`,
			"[3]": `[3,"Alan \"The\" Turing","alan@example.com"]`,
		}[params]
		return 0, `{"columns":["id","name","email"],"rows":[` + rows + `]}`
	}
	failing := func(code string) func(fn, database, sql, params string) (abi.Errno, string) {
		return func(string, string, string, string) (abi.Errno, string) {
			return abi.ErrDatabase, `{"error":{"code":"` + code + `","message":"connection refused"}}`
		}
	}
	tests := []struct {
		name       string
		id         string // the JSON encoding the host hands out
		db         func(fn, database, sql, params string) (abi.Errno, string)
		wantRC     int32
		wantStatus int32
		wantBody   string
		wantLog    string
	}{
		{"unknown user", "9", users, 0, 404, `{"message":"user 9 not found"}`, ""},
		{"first user", "1", users, 0, 200, `{"id":1,"name":"Ada Lovelace","email":"ada@example.com"}`, ""},
		{"second user", "2", users, 0, 200, `{"id":2,"name":"Grace Hopper","email":"grace@example.com"}`, ""},
		{"a name holding escapes, copied as the JSON it is", "3", users, 0, 200, `{"id":3,"name":"Alan \"The\" Turing","email":"alan@example.com"}`, ""},
		{"unknown user with a longer id", "123456", users, 0, 404, `{"message":"user 123456 not found"}`, ""},
		{"unknown user after a longer id", "7", users, 0, 404, `{"message":"user 7 not found"}`, ""},
		{"id beyond int64", "99999999999999999999", users, 0, 404, `{"message":"user 99999999999999999999 not found"}`, ""},
		{"id too long to echo", strings.Repeat("9", 65), users, 1, 200, "", "3 users: cannot read the id parameter"},
		{"database down", "1", failing("unavailable"), 0, 503, `{"statusCode":503,"statusMessage":"Service Unavailable"}`, "3 users: the users store failed: connection refused"},
		{"database failing", "1", failing("other"), 0, 500, `{"statusCode":500,"statusMessage":"Internal Server Error"}`, "3 users: the users store failed: connection refused"},
		{"no database", "1", nil, 0, 500, `{"statusCode":500,"statusMessage":"Internal Server Error"}`, "3 users: the users store failed: the host refused the query"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := &abiExchange{values: map[abi.Part]map[string]string{abi.PartParams: {"id": tt.id}}, db: tt.db}
			if got := g.handle(t, ex); got != tt.wantRC {
				t.Errorf("%s() = %d, want %d", abi.ExportHandle, got, tt.wantRC)
			}
			if ex.status != tt.wantStatus {
				t.Errorf("status = %d, want %d", ex.status, tt.wantStatus)
			}
			if got := ex.body.String(); got != tt.wantBody {
				t.Errorf("body = %q, want %q", got, tt.wantBody)
			}
			if len(ex.header) != 0 {
				t.Errorf("headers = %v, want none (the host defaults Content-Type)", ex.header)
			}
			if got := strings.Join(ex.logs, "\n"); got != tt.wantLog {
				t.Errorf("log = %q, want %q", got, tt.wantLog)
			}
		})
	}
}

func TestCHealth(t *testing.T) {
	path := buildC(t, healthSrc)
	g := newABIHost(t).load(t, path)
	checkRouteModule(t, path, g, 1024)

	if _, ok := g.module.ExportedFunctions()[abi.ExportContract]; ok {
		t.Errorf("plain route exports %s, want none", abi.ExportContract)
	}
	ex := &abiExchange{}
	if got := g.handle(t, ex); got != 0 {
		t.Errorf("%s() = %d, want 0", abi.ExportHandle, got)
	}
	if ex.status != 200 {
		t.Errorf("status = %d, want 200", ex.status)
	}
	if got, want := ex.header.Get("Content-Type"), "text/plain; charset=utf-8"; got != want {
		t.Errorf("Content-Type = %q, want %q", got, want)
	}
	if got, want := ex.body.String(), "ok"; got != want {
		t.Errorf("body = %q, want %q", got, want)
	}
}

func TestCHelpers(t *testing.T) {
	path := buildC(t, helpersSrc)
	g := newABIHost(t).load(t, path)

	const envelope = `{"kind":"plain","method":"GET","route":"/helpers","path":"/helpers"}`
	tests := []struct {
		name     string
		op       string
		cap      int
		n        string // params value "n", absent when empty
		header   string // request header X-Test, absent when empty
		wantBody string
	}{
		{"value fits", "value", 16, `"Ada"`, "", `5 "Ada"`},
		{"value fits with its NUL exactly", "value", 6, `"Ada"`, "", `5 "Ada"`},
		{"value without room for its NUL", "value", 5, `"Ada"`, "", `5 unwritten`},
		{"value into no buffer", "value", 0, `"Ada"`, "", `5 unwritten`},
		{"value absent", "value", 16, "", "", `-1 unwritten`},
		{"header joined values", "header", 16, "", "a, b", `4 a, b`},
		{"header too long", "header", 4, "", "a, b", `4 unwritten`},
		{"header absent", "header", 16, "", "", `-1 unwritten`},
		{"request envelope", "request", 512, "", "", fmt.Sprintf("%d %s", len(envelope), envelope)},
		{"request envelope too long", "request", 10, "", "", fmt.Sprintf("%d unwritten", len(envelope))},
		{"int", "int", 0, "7", "", "0 7"},
		{"int negative zero", "int", 0, "-0", "", "0 0"},
		{"int minimum", "int", 0, "-9223372036854775808", "", "0 -9223372036854775808"},
		{"int maximum", "int", 0, "9223372036854775807", "", "0 9223372036854775807"},
		{"int overflow", "int", 0, "9223372036854775808", "", "-2 42"},
		{"int negative overflow", "int", 0, "-9223372036854775809", "", "-2 42"},
		{"int twenty digits", "int", 0, "10000000000000000000", "", "-2 42"},
		{"int too long for its buffer", "int", 0, strings.Repeat("1", 30), "", "-2 42"},
		{"int fraction", "int", 0, "1.5", "", "-2 42"},
		{"int string", "int", 0, `"7"`, "", "-2 42"},
		{"int sign only", "int", 0, "-", "", "-2 42"},
		{"int absent", "int", 0, "", "", "-1 42"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := &abiExchange{
				values: map[abi.Part]map[string]string{
					abi.PartQuery:  {"op": fmt.Sprintf("%q", tt.op), "cap": fmt.Sprint(tt.cap)},
					abi.PartParams: {},
				},
				headers:  map[string]string{},
				envelope: envelope,
			}
			if tt.n != "" {
				ex.values[abi.PartParams]["n"] = tt.n
			}
			if tt.header != "" {
				ex.headers["x-test"] = tt.header
			}
			if got := g.handle(t, ex); got != 0 {
				t.Fatalf("%s() = %d, want 0", abi.ExportHandle, got)
			}
			if got := ex.body.String(); got != tt.wantBody {
				t.Errorf("body = %q, want %q", got, tt.wantBody)
			}
		})
	}

	t.Run("respond", func(t *testing.T) {
		ex := &abiExchange{values: map[abi.Part]map[string]string{abi.PartQuery: {"op": `"respond"`}}}
		if got := g.handle(t, ex); got != 0 {
			t.Fatalf("%s() = %d, want 0", abi.ExportHandle, got)
		}
		if ex.status != 201 {
			t.Errorf("status = %d, want 201", ex.status)
		}
		if got, want := ex.header.Values("X-A"), []string{"1", "2"}; !slices.Equal(got, want) {
			t.Errorf("X-A = %q, want %q", got, want)
		}
		if got, want := ex.body.String(), "0 0 0 done"; got != want {
			t.Errorf("body = %q, want %q", got, want)
		}
		if got, want := ex.logs, []string{fmt.Sprintf("%d respond called", abi.LogWarn)}; !slices.Equal(got, want) {
			t.Errorf("log = %q, want %q", got, want)
		}
	})

	// endpoints_write_json_str: what a handler writes a column's text or a
	// database's message into a JSON answer with. The body must decode as
	// JSON to the texts written.
	t.Run("json strings", func(t *testing.T) {
		ex := &abiExchange{values: map[abi.Part]map[string]string{abi.PartQuery: {"op": `"jsonstr"`}}}
		if got := g.handle(t, ex); got != 0 {
			t.Fatalf("%s() = %d, want 0", abi.ExportHandle, got)
		}
		var got []*string
		if err := json.Unmarshal(ex.body.Bytes(), &got); err != nil {
			t.Fatalf("the body is not JSON: %v\n%s", err, ex.body.String())
		}
		long := strings.Repeat("a\"\\\x01", 175)[:699]
		want := []string{"", "Ada \"A\" \\ / é😀\n\t\x1f <&>", "<null>", "a\x00b", long}
		if len(got) != len(want) {
			t.Fatalf("got %d strings, want %d: %s", len(got), len(want), ex.body.String())
		}
		for i, w := range want {
			g := "<null>"
			if got[i] != nil {
				g = *got[i]
			}
			if g != w {
				t.Errorf("string %d = %q, want %q", i, g, w)
			}
		}
	})
}

// TestCDatabaseHelpers runs the database helpers of endpoints.h
// (testdata/db.c) against a test host whose database answers what each
// case needs: the parameters builder's encoding and overflow, the row
// cursor's readers on every kind of value (escapes, surrogate pairs, space
// the host does not send but JSON allows, blobs, booleans as true/false or
// 1/0), a stale cursor, exec's
// result and the error accessors.
func TestCDatabaseHelpers(t *testing.T) {
	path := buildC(t, dbSrc)
	g := newABIHost(t).load(t, path)

	const rows = `{"columns":["id","name","score","data","raw"],"rows":[` +
		`[9223372036854775807,"Ada \"A\" \\ \/ \u00e9\ud83d\ude00\n",1.5,"AAEC",{"a":[1,"]"]}],` +
		` [ -1 , "" , null , "AA==" , true ] ,` +
		`[0,"\u0041",-2e-3,"not base64!",[]],` +
		`[1,"x",1e400,"AAECAwQFBgcI",false]]}`
	const rowsBody = "5 id name score data raw | name at 1, nope -1 |\n" +
		` i:9223372036854775807 t:19:Ada "A" \ / é` + "\U0001F600\n" + ` d:1.5 t:4:AAEC b:000102 json:{"a":[1,"]"]} bool0:-2:-1 bool4:-2:-1 past:-1` + "\n" +
		` i:-1 t:0: b: null t:4:AA== b:00 json:true bool0:-2:-1 bool4:0:1 past:-1` + "\n" +
		` i:0 t:1:A d:-0.002 t:11:not base64! json:[] bool0:0:0 bool4:-2:-1 past:-1` + "\n" +
		` i:1 t:1:x d:inf t:12:AAECAwQFBgcI b:9-unwritten json:false bool0:0:1 bool4:0:0 past:-1` + "\n" +
		"end 0\nrc 0 [||]"
	tests := []struct {
		name       string
		op         string
		rc         abi.Errno // what the database answers
		result     string
		wantParams string // what the database received ("-" for no call)
		wantBody   string
	}{
		{"parameters of every kind", "params", 0, `{"rowsAffected":0}`,
			`[-9223372036854775808,9223372036854775807,0,0.10000000000000001,null,3.0,-0.0,1e+21,"q\"b\\s\u000a\u0001 é",null,null,{"$blob":""},{"$blob":"/w=="},{"$blob":"AAE="},{"$blob":"++++"},"Zoë \"q\"", 9007199254740993 ,null,"{\"n\":[1,\"\\\"\"]}","[]","-9223372036854775809","9223372036854775808",1.5e3]`,
			"rc 0 [||]"},
		{"parameters past their buffer", "overflow", abi.ErrInvalid, "", "[", "rc -2 [host|the parameters are not a JSON array of values, or did not fit their buffer (endpoints_params)|]"},
		{"a parameter that is not one JSON value", "badvalue", abi.ErrInvalid, "", "[", "rc -2 [host|the parameters are not a JSON array of values, or did not fit their buffer (endpoints_params)|]"},
		// The host says which parameter it refused and why; the SDK's
		// own message above is for an older host that left no reason.
		{"parameters the host refuses, with its reason", "overflow", abi.ErrInvalid,
			`{"error":{"code":"other","message":"db_exec: parameters must be a JSON array of null, true, false, numbers, strings and {\"$blob\": \"<base64>\"} objects: parameter 2 is an array"}}`, "[",
			`rc -2 [host|db_exec: parameters must be a JSON array of null, true, false, numbers, strings and {"$blob": "<base64>"} objects: parameter 2 is an array|]`},
		{"a query's parameters the host refuses", "rows", abi.ErrInvalid, `{"error":{"code":"other","message":"db_query: parameters must be a JSON array: more than 65535 parameters"}}`, "",
			"rc -2 [host|db_query: parameters must be a JSON array: more than 65535 parameters|]"},
		{"a refusal whose reason is empty", "rows", abi.ErrInvalid, `{"error":{"code":"other","message":""}}`, "",
			"rc -2 [host|the parameters are not a JSON array of values, or did not fit their buffer (endpoints_params)|]"},
		{"rows of every kind", "rows", 0, rows, "",
			rowsBody},
		// A result with blobs lists their positions (abi/README.md
		// §4.5), which the helpers, with their explicit readers, skip.
		{"rows with their blobs' positions", "rows", 0, strings.Replace(rows, `,"rows":`, `,"blobs":[[0,3],[1,3],[3,3]],"rows":`, 1), "",
			rowsBody},
		{"rows of a replaced result", "stale", 0, rows, "", "first 0 second 1\nrc 0 [||]"},
		{"a malformed result", "rows", 0, `{"columns":["a"],"rows":[[1,2]]}`, "", "1 a | name at -1, nope -1 |\nend 0\nrc 0 [other|a row of the host's result does not have one value per column|]"},
		{"a result without rows", "rows", 0, `{"columns":["a"]}`, "", "rc -8 [other|the host's result has no columns or rows|]"},
		{"a database error", "rows", abi.ErrDatabase, `{"error":{"code":"constraint","constraint":"users_email_key","message":"duplicate key \"x\""}}`, "",
			`rc -8 [constraint|duplicate key "x"|users_email_key]`},
		{"a database error of a kind", "rows", abi.ErrDatabase, `{"error":{"code":"constraint","kind":"foreign_key","message":"FOREIGN KEY constraint failed"}}`, "",
			`rc -8 [constraint|FOREIGN KEY constraint failed|] kind:foreign_key`},
		// Options db_begin_with refuses read as parameters db_query
		// refuses do: code "host", the host's reason as the message, as
		// the Rust and AssemblyScript SDKs read them.
		{"transaction options the host refuses", "beginwith", abi.ErrInvalid,
			`{"error":{"code":"other","message":"db_begin_with: transaction options: isolation \"snapshot\" is not a level"}}`, `{"isolation":"snapshot"}`,
			`rc -2 [host|db_begin_with: transaction options: isolation "snapshot" is not a level|]`},
		{"a database the app does not declare", "rows", abi.ErrNotFound, "", "", `rc -1 [host|the app declares no such database (endpoints.json's "databases"; "main" when it declares none)|]`},
		{"exec with a last insert id", "exec", 0, `{"rowsAffected":2,"lastInsertId":7}`, "", "2 7 1\nrc 0 [||]"},
		{"exec without one (PostgreSQL)", "exec", 0, `{"rowsAffected":3}`, "", "3 0 0\nrc 0 [||]"},
		// endpoints_rows_write_object: each row as an object named by
		// its columns (escaped), its values as the host sent them; then
		// -1 past the last row and for a stale cursor.
		{"rows as objects", "objects", 0, `{"columns":["id","na\"me","blob","n"],"blobs":[[0,2]],"rows":[[9007199254740993,"Zoë \"q\"","AAE=",null],[-1,"",null,1.5]]}`, "-",
			`[{"id":9007199254740993,"na\"me":"Zoë \"q\"","blob":"AAE=","n":null},{"id":-1,"na\"me":"","blob":null,"n":1.5}]` + "\npast -1 stale -1\nrc 0 [||]"},
		{"no rows as objects", "objects", 0, `{"columns":["id"],"rows":[]}`, "-", "[]\npast -1\nrc 0 [||]"},
		// PostgreSQL's numeric (sum() of a bigint column, avg()) arrives
		// as its exact decimal's text: the number readers read text that
		// holds one JSON number whole, and refuse other text.
		{"numbers given as text", "numbers", 0, `{"columns":["sum","avg","neg","exp","big","over","json","hex","dot","sp","inf","nan","empty","sign","esc"],"rows":[[` +
			`"9007199254740993","12.50","-0","-5e-1","1e400","9223372036854775808",7,"0x10","12.","7 ","inf","NaN","","-","\u0037"]]}`, "-",
			"sum i:0:9007199254740993 d:0:9007199254740992\n" +
				"avg i:-2:42 d:0:12.5\n" +
				"neg i:0:0 d:0:-0\n" +
				"exp i:-2:42 d:0:-0.5\n" +
				"big i:-2:42 d:0:inf\n" +
				"over i:-2:42 d:0:9.2233720368547758e+18\n" +
				"json i:0:7 d:0:7\n" +
				"hex i:-2:42 d:-2:42\n" +
				"dot i:-2:42 d:-2:42\n" +
				"sp i:-2:42 d:-2:42\n" +
				"inf i:-2:42 d:-2:42\n" +
				"nan i:-2:42 d:-2:42\n" +
				"empty i:-2:42 d:-2:42\n" +
				"sign i:-2:42 d:-2:42\n" +
				"esc i:0:7 d:0:7\nrc 0 [||]"},
		// endpoints_base64_decode, what a handler binds a request's
		// base64 value as a blob with: the size either way, the bytes
		// only when they fit (Zm9vYg== is 4 bytes, AAH//g== too), -2 for
		// text that is not padded base64.
		{"base64 decoded", "base64", 0, "", "-", ":0:eeeeeeee Zg==:1:66eeeeee Zm8=:2:666feeee Zm9v:3:666f6fee AAH//g==:4:0001fffe " +
			"Zm9vYg==:4:666f6f62 Zg=:-2:eeeeeeee Z===:-2:eeeeeeee Zg=a:-2:eeeeeeee Zm9v!A==:-2:eeeeeeee =Zg=:-2:eeeeeeee\nrc 0 [||]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotParams := "-"
			ex := &abiExchange{
				values: map[abi.Part]map[string]string{abi.PartQuery: {"op": fmt.Sprintf("%q", tt.op)}},
				db: func(fn, database, sql, params string) (abi.Errno, string) {
					if sql == "params" || sql == "overflow" || fn == abi.ImportDBBeginWith {
						gotParams = params
					}
					return tt.rc, tt.result
				},
			}
			if got := g.handle(t, ex); got != 0 {
				t.Fatalf("%s() = %d, want 0", abi.ExportHandle, got)
			}
			if got := ex.body.String(); got != tt.wantBody {
				t.Errorf("body =\n%s\nwant\n%s", got, tt.wantBody)
			}
			if tt.wantParams != "" && gotParams != tt.wantParams {
				t.Errorf("params = %s\nwant %s", gotParams, tt.wantParams)
			}
		})
	}
}

func TestWATHello(t *testing.T) {
	path := buildWAT(t, helloSrc)
	g := newABIHost(t).load(t, path)
	checkRouteModule(t, path, g, 1024)

	for _, f := range g.module.ImportedFunctions() {
		if mod, name, _ := f.Import(); mod != abi.ImportModule {
			t.Errorf("module imports %s.%s, want no WASI", mod, name)
		}
	}
	t.Run("contract", func(t *testing.T) {
		c := decodeContractStrict(t, g.contract(t))
		if got, want := c.Summary, "Say hello"; got != want {
			t.Errorf("summary = %q, want %q", got, want)
		}
		if c.Request == nil || len(c.Request.Query) == 0 {
			t.Errorf("contract declares no query schema")
		}
	})

	tests := []struct {
		name     string
		value    string // the JSON encoding of query value "name"
		wantRC   int32
		wantBody string
	}{
		{"name", `"Ada"`, 0, `{"hello":"Ada"}`},
		{"default", `"world"`, 0, `{"hello":"world"}`},
		{"escaped name", `"A\"b\\c"`, 0, `{"hello":"A\"b\\c"}`},
		{"value too long for the buffer", `"` + strings.Repeat("x", 1023) + `"`, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := &abiExchange{values: map[abi.Part]map[string]string{abi.PartQuery: {"name": tt.value}}}
			if got := g.handle(t, ex); got != tt.wantRC {
				t.Errorf("%s() = %d, want %d", abi.ExportHandle, got, tt.wantRC)
			}
			if got := ex.body.String(); got != tt.wantBody {
				t.Errorf("body = %q, want %q", got, tt.wantBody)
			}
			if tt.wantRC == 0 {
				if ex.status != 200 {
					t.Errorf("status = %d, want 200", ex.status)
				}
				if !json.Valid(ex.body.Bytes()) {
					t.Errorf("body %q is not valid JSON", ex.body.String())
				}
			}
		})
	}
}

func TestBuildErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	syntax := write("syntax.c", "#include \"endpoints.h\"\nENDPOINTS_ROUTE();\nint32_t endpoints_handle(void) { return 0 }\n")
	misspelt := write("misspelt.c", "#include \"endpoints.h\"\nENDPOINTS_ROUTE();\nint32_t endpoints_handle(void) { return endpoints_write_sting(\"x\"); }\n")
	badWAT := write("bad.wat", "(module (func (export \"endpoints_handle\") (result i32) (i32.const)))\n")

	tests := []struct {
		name  string
		tool  string
		build func(context.Context, string, string) error
		src   string
		want  []string // substrings of the error
	}{
		{"C syntax error", clangTool, C, syntax, []string{"compile C route " + syntax, "syntax.c:3", "expected ';'"}},
		{"C implicit declaration", clangTool, C, misspelt, []string{"misspelt.c:3", "implicit declaration of function 'endpoints_write_sting'"}},
		{"C source missing", clangTool, C, filepath.Join(dir, "nope.c"), []string{"compile C route " + filepath.Join(dir, "nope.c"), "no such file"}},
		{"WAT syntax error", wat2wasmTool, WAT, badWAT, []string{"assemble WAT route " + badWAT, "bad.wat:1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			needBuildTool(t, tt.tool)
			out := filepath.Join(t.TempDir(), "route.wasm")
			if err := os.WriteFile(out, []byte("previous"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := tt.build(context.Background(), tt.src, out)
			if err == nil {
				t.Fatalf("build %s: got no error, want one", tt.src)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error = %q, want it to contain %q", err, want)
				}
			}
			if got, _ := os.ReadFile(out); string(got) != "previous" {
				t.Errorf("out = %q after a failed build, want the previous module kept", got)
			}
			if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
				t.Errorf("output directory holds %d entries after a failed build, want 1 (no temporary files)", len(entries))
			}
		})
	}
}

func TestBuildMissingTools(t *testing.T) {
	tests := []struct {
		name  string
		build func(context.Context, string, string) error
		src   string
		want  string
	}{
		{"clang", C, healthSrc, "apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32"},
		{"wat2wasm", WAT, helloSrc, "apt-get install wabt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PATH", t.TempDir())
			src := filepath.Join(cRepoRoot, tt.src)
			err := tt.build(context.Background(), src, filepath.Join(t.TempDir(), "route.wasm"))
			if !errors.Is(err, exec.ErrNotFound) {
				t.Errorf("error = %v, want one wrapping exec.ErrNotFound", err)
			}
			if err == nil || !strings.Contains(err.Error(), src) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want it to name %s and say %q", err, src, tt.want)
			}
		})
	}
}

func TestBuildCreatesOutputDirectoryAndReadableModule(t *testing.T) {
	needBuildTool(t, wat2wasmTool)
	out := filepath.Join(t.TempDir(), "server", "api", "hello.get.wasm")
	if err := WAT(context.Background(), filepath.Join(cRepoRoot, helloSrc), out); err != nil {
		t.Fatalf("WAT: %v", err)
	}
	if bin, err := os.ReadFile(out); err != nil || !bytes.HasPrefix(bin, []byte("\x00asm")) {
		t.Errorf("out = %q, %v; want a wasm module", bin, err)
	}
	if fi, err := os.Stat(out); err != nil {
		t.Error(err)
	} else if got := fi.Mode().Perm(); got != 0o644 {
		t.Errorf("out mode = %v, want -rw-r--r--", got)
	}
}

// TestCREADMERoutesBuild builds every whole module of the C SDK's README, as
// a developer copies it: each block that includes endpoints.h and declares
// its module (ENDPOINTS_ROUTE, ENDPOINTS_CONTRACT, ENDPOINTS_MIDDLEWARE),
// the database handlers of "Data" among them. A block that is part of a
// route (a contract alone, a handler's body) has no include.
func TestCREADMERoutesBuild(t *testing.T) {
	whole := readmeModules(t, "c", "c", func(src string) bool {
		declares := strings.Contains(src, "ENDPOINTS_ROUTE(") || strings.Contains(src, "ENDPOINTS_CONTRACT(") || strings.Contains(src, "ENDPOINTS_MIDDLEWARE(")
		return declares && strings.Contains(src, `#include "endpoints.h"`)
	})
	// A plain route, the square endpoint, the middleware, the query and
	// the insert of "Data".
	if len(whole) != 5 {
		t.Fatalf("found %d whole modules in the README, want 5", len(whole))
	}
	needBuildTool(t, clangTool)
	dir := t.TempDir()
	for i, src := range whole {
		in := filepath.Join(dir, fmt.Sprintf("block%d.c", i+1))
		if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := C(context.Background(), in, strings.TrimSuffix(in, ".c")+".wasm"); err != nil {
			t.Errorf("the README's module %d does not build: %v\n%s", i+1, err, src)
		}
	}
}

// BenchmarkCUsersHandle measures one GET /api/users/2 through the C module
// against the test host: the guest's share of a request.
func BenchmarkCUsersHandle(b *testing.B) {
	g := newABIHost(b).load(b, buildC(b, usersSrc))
	ex := &abiExchange{values: map[abi.Part]map[string]string{abi.PartParams: {"id": "2"}}}
	for b.Loop() {
		ex.body.Reset()
		g.handle(b, ex)
	}
}

// TestCHTTPGetTimeout: endpoints_http_get_timeout writes the request's
// "timeout" member, none for 0, and refuses a timeout out of range
// without sending it.
func TestCHTTPGetTimeout(t *testing.T) {
	path := buildC(t, httpGetSrc)
	h := newABIHost(t)
	g := h.load(t, path)
	ex := &abiExchange{}
	if got := g.handle(t, ex); got != 0 {
		t.Fatalf("%s() = %d, want 0", abi.ExportHandle, got)
	}
	want := []string{
		`{"url":"https://a.example/plain"}`,
		`{"url":"https://a.example/timed","timeout":300}`,
		`{"url":"https://a.example/most","timeout":3600000}`,
		// Past an hour, longer than any call runs, clamped to it as the
		// Go, Rust and AssemblyScript SDKs clamp it.
		`{"url":"https://a.example/past","timeout":3600000}`,
		`{"url":"https://a.example/longest","timeout":3600000}`,
	}
	if !slices.Equal(h.sent, want) {
		t.Errorf("sent %q, want %q", h.sent, want)
	}
	if got, want := ex.body.String(), "-7\n-7\n-7\n-2\n-7\n-7\n"; got != want {
		t.Errorf("results %q, want %q", got, want)
	}
}
