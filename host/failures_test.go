package host_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// TestGuestFailures runs one guest per failure mode next to a healthy route
// and checks that the failure answers 500 in the framework shape, is logged
// with its reason, and that the host keeps serving — also after the failing
// route failed more times than its pool has instances.
func TestGuestFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handle  string
		extra   string
		limits  config.Limits
		wantLog string // a "|" separates outcomes that are all correct
	}{
		{
			name:    "trap",
			handle:  `(unreachable)`,
			wantLog: "the guest trapped",
		},
		{
			name:    "infinite loop past the deadline",
			handle:  `(loop $forever (br $forever)) (i32.const 0)`,
			limits:  config.Limits{Timeout: config.Duration(100 * time.Millisecond)},
			wantLog: "ran past its 100ms deadline",
		},
		{
			name:   "infinite recursion without loops",
			handle: `(call $again) (i32.const 0)`,
			extra:  `  (func $again (call $again2)) (func $again2 (call $again))` + "\n",
			limits: config.Limits{Timeout: config.Duration(100 * time.Millisecond)},
			// Whichever comes first stops it: the call stack's limit or the deadline.
			wantLog: "the guest trapped|ran past its 100ms deadline",
		},
		{
			name: "memory bomb past the cap",
			// 4 pages to start; growing by 64 pages (4 MiB) passes a 2 MiB cap.
			handle:  `(if (i32.eq (memory.grow (i32.const 64)) (i32.const -1)) (then (unreachable))) (i32.const 0)`,
			limits:  config.Limits{MemoryBytes: 2 << 20},
			wantLog: "the guest trapped",
		},
		{
			name:    "out-of-bounds pointer passed to a host function",
			handle:  `(drop (call $write (i32.const 0xFFFFFFF0) (i32.const 100))) (i32.const 0)`,
			wantLog: "outside its linear memory",
		},
		{
			name:    "out-of-bounds buffer for the envelope",
			handle:  `(drop (call $request_read (i32.const 0x7FFFFFF0) (i32.const 4096))) (i32.const 0)`,
			wantLog: "outside its linear memory",
		},
		{
			name:    "handler returns an error code",
			handle:  `(i32.const 7)`,
			wantLog: "returned error code 7",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limits := tt.limits
			limits.Instances = 2
			srv, logs := newApp(t).
				wat("server/api/fail.get.wasm", watModule{contract: `{"summary":"fails"}`, handle: tt.handle, extra: tt.extra}).
				wat("server/routes/ok.get.wasm", watModule{handle: plainOK, extra: okData}).
				serve(host.Options{Mode: host.Development, Limits: limits})

			for i := 0; i < 5; i++ { // more failures than instances
				res := do(t, srv, "GET", "/api/fail", "")
				if res.status != 500 || !strings.Contains(res.body, `"statusMessage":"Internal Server Error"`) {
					t.Fatalf("request %d: got %d %s, want 500 Internal Server Error", i, res.status, res.body)
				}
			}
			said := false
			for _, want := range strings.Split(tt.wantLog, "|") {
				said = said || strings.Contains(logs.String(), want)
			}
			if !said {
				t.Errorf("log does not say %q:\n%s", tt.wantLog, logs)
			}
			if res := do(t, srv, "GET", "/ok", ""); res.status != 200 || res.body != "ok" {
				t.Errorf("healthy route after failures: got %d %q, want 200 ok", res.status, res.body)
			}
		})
	}
}

func TestMemoryWithinTheCapIsServed(t *testing.T) {
	srv, _ := newApp(t).
		wat("server/api/grow.get.wasm", watModule{contract: `{"summary":"grows"}`,
			handle: `(if (i32.eq (memory.grow (i32.const 16)) (i32.const -1)) (then (unreachable))) (i32.const 0)`}).
		serve(host.Options{Limits: config.Limits{MemoryBytes: 4 << 20}})
	if res := do(t, srv, "GET", "/api/grow", ""); res.status != 200 {
		t.Fatalf("growing to 1.25 MiB under a 4 MiB cap: got %d %s, want 200", res.status, res.body)
	}
}

func TestModuleNeedingMoreMemoryThanTheCapSaysSo(t *testing.T) {
	a := newApp(t).watSource("server/api/big.get.wasm", `(module (memory (export "memory") 64)
		(func (export "endpoints_abi_version") (result i32) (i32.const 1))
		(func (export "endpoints_handle") (result i32) (i32.const 0)))`)
	_, err := host.New(context.Background(), a.dir, host.Options{CacheDir: testCacheDir(t), Limits: config.Limits{MemoryBytes: 2 << 20}})
	want := "server/api/big.get.wasm: its memory does not fit limits.memoryBytes (2097152 bytes)"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "raise limits.memoryBytes in endpoints.json") {
		t.Errorf("New error = %v, want one containing %q and the fix", err, want)
	}
}

// TestProductionHidesFailureDetails: a development 500 says why the guest
// failed, which module, and what it logged as a warning or error before;
// a production 500 says nothing of it.
func TestProductionHidesFailureDetails(t *testing.T) {
	failing := watModule{contract: `{"summary":"fails"}`,
		handle: `(call $log (i32.const 1) (i32.const 3000) (i32.const 13))
    (call $log (i32.const 3) (i32.const 3020) (i32.const 20))
    (unreachable)`,
		extra: "  (data (i32.const 3000) \"just info here\")\n  (data (i32.const 3020) \"kaboom: state broken\")\n"}
	srv, _ := newApp(t).wat("server/api/fail.get.wasm", failing).serve(host.Options{Mode: host.Production})
	res := do(t, srv, "GET", "/api/fail", "")
	if want := `{"statusCode":500,"statusMessage":"Internal Server Error"}`; res.status != 500 || res.body != want {
		t.Fatalf("got %d %s, want 500 %s", res.status, res.body, want)
	}
	srvDev, _ := newApp(t).wat("server/api/fail.get.wasm", failing).serve(host.Options{Mode: host.Development})
	res = do(t, srvDev, "GET", "/api/fail", "")
	for _, want := range []string{`"data":{"error":"the guest trapped`, `"route":"server/api/fail.get.wasm"`, `"output":["kaboom: state broken"]`} {
		if !strings.Contains(res.body, want) {
			t.Errorf("a development 500 should say %s, got %s", want, res.body)
		}
	}
}

// TestGoPanic builds a real Go guest that panics on demand.
func TestGoPanic(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "panic.get.wasm")
	if err := guestbuild.Go(context.Background(), "testdata/guests/panic.get", out); err != nil {
		t.Fatal(err)
	}
	srv, logs := newApp(t).copyModule("server/api/panic.get.wasm", out).
		serve(host.Options{Mode: host.Development, Limits: config.Limits{Instances: 1}})
	for i := 0; i < 3; i++ {
		if res := do(t, srv, "GET", "/api/panic?boom=true", ""); res.status != 500 {
			t.Fatalf("panicking request %d: got %d %s, want 500", i, res.status, res.body)
		}
		if res := do(t, srv, "GET", "/api/panic", ""); res.status != 200 || res.body != `{"fine":true}` {
			t.Fatalf("request after panic %d: got %d %s, want 200 {\"fine\":true}", i, res.status, res.body)
		}
	}
	for _, want := range []string{"assignment to entry in nil map", "main.go:25", "returned error code 1"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log does not say %q:\n%s", want, logs)
		}
	}
	// The development 500 shows the panic and where it happened.
	res := do(t, srv, "GET", "/api/panic?boom=true", "")
	for _, want := range []string{"assignment to entry in nil map", "main.go:25"} {
		if !strings.Contains(res.body, want) {
			t.Errorf("the development 500 does not say %q: %s", want, res.body)
		}
	}
}

// TestGoGuestRefusesWhatItsTypeCannotHold builds a real Go guest whose
// hand-written query schema is wider than its input type: the SDK answers
// the host's 400 for a value its int8 cannot hold, the development check
// takes it as declared, and the call does not fail, so the one instance
// serves every request.
func TestGoGuestRefusesWhatItsTypeCannotHold(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "narrow.get.wasm")
	if err := guestbuild.Go(context.Background(), "testdata/guests/narrow.get", out); err != nil {
		t.Fatal(err)
	}
	srv, logs := newApp(t).copyModule("server/api/narrow.get.wasm", out).
		serve(host.Options{Mode: host.Development, Limits: config.Limits{Instances: 1}})
	const refused = `{"statusCode":400,"statusMessage":"Validation Error","data":{"query":[{"path":["n"],"message":"must be less than or equal to 127"}]}}`
	for i := range 3 {
		if res := do(t, srv, "GET", "/api/narrow?n=1e3", ""); res.status != 400 || res.body != refused {
			t.Fatalf("request %d for n=1e3: got %d %s, want 400 %s", i, res.status, res.body, refused)
		}
		if res := do(t, srv, "GET", "/api/narrow?n=-128", ""); res.status != 200 || res.body != `{"n":-128}` {
			t.Fatalf("request %d for n=-128: got %d %s, want 200 {\"n\":-128}", i, res.status, res.body)
		}
	}
	for _, bad := range []string{"guest failed", "answer breaks the contract"} {
		if strings.Contains(logs.String(), bad) {
			t.Errorf("the log says %q:\n%s", bad, logs)
		}
	}
	if !strings.Contains(logs.String(), "answered 400: the request's query.n: must be less than or equal to 127") {
		t.Errorf("the log does not carry the guest's warning:\n%s", logs)
	}
}

// TestHostSurvivesConcurrentFailures sends failing and healthy requests at
// once: every healthy one must succeed.
func TestHostSurvivesConcurrentFailures(t *testing.T) {
	srv, _ := newApp(t).
		wat("server/api/fail.get.wasm", watModule{contract: `{"summary":"fails"}`, handle: `(unreachable)`}).
		wat("server/api/loop.get.wasm", watModule{contract: `{"summary":"loops"}`, handle: `(loop $l (br $l)) (i32.const 0)`}).
		wat("server/routes/ok.get.wasm", watModule{handle: plainOK, extra: okData}).
		serve(host.Options{Limits: config.Limits{Timeout: config.Duration(50 * time.Millisecond), Instances: 3}})
	var wg sync.WaitGroup
	errs := make(chan error, 300)
	start := make(chan struct{})
	for i := 0; i < 30; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for j := 0; j < 5; j++ {
				path := []string{"/api/fail", "/api/loop", "/ok"}[(i+j)%3]
				res, err := srv.Client().Get(srv.URL + path)
				if err != nil {
					errs <- err
					continue
				}
				res.Body.Close()
				// A failing route answers 500, or 503 when its request spent
				// its deadline waiting for one of the busy instances.
				switch ok := res.StatusCode == 500 || res.StatusCode == 503; {
				case path == "/ok" && res.StatusCode != 200:
					errs <- fmt.Errorf("%s: got %d, want 200", path, res.StatusCode)
				case path != "/ok" && !ok:
					errs <- fmt.Errorf("%s: got %d, want 500 or 503", path, res.StatusCode)
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestLoadErrors checks that every bad module is reported with its file
// and reason: all of them at once in production, and the rest served in
// development.
func TestLoadErrors(t *testing.T) {
	a := newApp(t).
		wat("server/routes/ok.get.wasm", watModule{handle: plainOK, extra: okData}).
		file("server/api/corrupt.get.wasm", []byte("\x00asm\x01\x00\x00\x00garbage")).
		file("server/api/text.get.wasm", []byte("not wasm at all")).
		wat("server/api/users/[id].get.wasm", watModule{contract: `{"summary":"a"}`, handle: `(i32.const 0)`}).
		wat("server/api/users/[uid].get.wasm", watModule{contract: `{"summary":"b"}`, handle: `(i32.const 0)`}).
		wat("server/api/future.get.wasm", watModule{contract: `{"summary":"v2"}`, handle: `(i32.const 0)`, version: 2}).
		wat("server/api/badcontract.get.wasm", watModule{contract: `{"summary":"x","respones":{}}`, handle: `(i32.const 0)`}).
		wat("server/api/badschema.get.wasm", watModule{contract: `{"request":{"query":{"type":"object","properties":{"limit":{"minimum":"1"}}}}}`, handle: `(i32.const 0)`}).
		wat("server/routes/files/[...path].get.wasm", watModule{contract: `{"summary":"catch-all"}`, handle: `(i32.const 0)`}).
		wat("server/api/params.get.wasm", watModule{contract: `{"request":{"params":{"type":"object","properties":{"id":{"type":"integer"}}}}}`, handle: `(i32.const 0)`}).
		wat("server/api/nosuffix.wasm", watModule{contract: `{"summary":"which method?"}`, handle: `(i32.const 0)`}).
		wat("server/api/both.wasm", watModule{contract: `{"methods":{"get":{},"put":{}}}`, handle: `(i32.const 0)`}).
		wat("server/api/both.put.wasm", watModule{contract: `{"summary":"put"}`, handle: `(i32.const 0)`}).
		watSource("server/api/noexports.get.wasm", `(module (memory (export "memory") 1))`)

	wantProblems := []string{
		"server/api/corrupt.get.wasm: not a valid WebAssembly module",
		"server/api/text.get.wasm: not a valid WebAssembly module",
		"server/api/users/[id].get.wasm and server/api/users/[uid].get.wasm both claim GET /api/users/:uid",
		"server/api/future.get.wasm: built for ABI v2, this host speaks ABI v1",
		`server/api/badcontract.get.wasm: contract: /respones: additionalProperties: unknown key "respones"`,
		"server/api/badschema.get.wasm: contract: /request/query/properties/limit/minimum",
		"server/routes/files/[...path].get.wasm: an endpoint cannot sit on a catch-all",
		`server/api/params.get.wasm: contract: /request/params/properties/id: the route /api/params has no parameter "id"`,
		"server/api/nosuffix.wasm: contract: /: a module without a method suffix must declare its operations",
		"server/api/both.put.wasm and server/api/both.wasm both claim PUT /api/both",
		`server/api/noexports.get.wasm: not an Endpoints route module: missing export "endpoints_abi_version"`,
	}

	t.Run("production fails listing every problem", func(t *testing.T) {
		_, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, CacheDir: testCacheDir(t)})
		var le *host.LoadError
		if !errors.As(err, &le) {
			t.Fatalf("New error = %v, want *host.LoadError", err)
		}
		for _, want := range wantProblems {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("load error does not contain %q:\n%v", want, err)
			}
		}
		if len(le.Problems) != len(wantProblems) {
			t.Errorf("got %d problems, want %d:\n%v", len(le.Problems), len(wantProblems), err)
		}
	})
	t.Run("development serves the rest", func(t *testing.T) {
		h, logs := a.host(host.Options{Mode: host.Development})
		if got := len(h.Problems()); got != len(wantProblems) {
			t.Errorf("Problems() has %d entries, want %d", got, len(wantProblems))
		}
		if !strings.Contains(logs.String(), "route module not served") {
			t.Errorf("problems were not logged:\n%s", logs)
		}
		rec := newRecorder()
		h.ServeHTTP(rec, mustRequest(t, "GET", "/ok"))
		if rec.Code != 200 {
			t.Errorf("GET /ok = %d, want 200", rec.Code)
		}
	})
}

// outFn writes n bytes at p to stderr in one fd_write (wasiWrite; its
// iovec at 4096).
const outFn = `  (func $out (param $p i32) (param $n i32)
    (i32.store (i32.const 4096) (local.get $p))
    (i32.store (i32.const 4100) (local.get $n))
    (drop (call $fd_write (i32.const 2) (i32.const 4096) (i32.const 1) (i32.const 4104))))
`

// TestGuestOutputInPieces: a line the guest writes in pieces (Go's
// runtime writes a panic's message a word at a time) is one line of its
// output, in the log and in a development 500, and a last line without
// its newline is kept too; a start function that fails quotes what it
// wrote before a Go traceback, since the trap alone (a stack of numbered
// functions) does not say why.
func TestGuestOutputInPieces(t *testing.T) {
	t.Parallel()
	const pieces = `  (data (i32.const 3000) "panic: ")
  (data (i32.const 3010) "bad tag\n")
  (data (i32.const 3020) "\ngoroutine 1 [running]:\nmain.init()\n")
  (data (i32.const 3060) "no newline")
`
	say := `(call $out (i32.const 3000) (i32.const 7)) (call $out (i32.const 3010) (i32.const 8)) (call $out (i32.const 3020) (i32.const 36))`
	t.Run("a request", func(t *testing.T) {
		failing := watModule{contract: `{"summary":"fails"}`, imports: wasiWrite, extra: outFn + pieces,
			handle: say + ` (call $out (i32.const 3060) (i32.const 10)) (i32.const 1)`}
		srv, logs := newApp(t).wat("server/api/fail.get.wasm", failing).serve(host.Options{Mode: host.Development})
		res := do(t, srv, "GET", "/api/fail", "")
		if want := `"output":["panic: bad tag","goroutine 1 [running]:","main.init()","no newline"]`; !strings.Contains(res.body, want) {
			t.Errorf("a development 500 = %s, want %s", res.body, want)
		}
		if want := `msg="panic: bad tag"`; !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %s:\n%s", want, logs)
		}
	})
	t.Run("the start function", func(t *testing.T) {
		m := watModule{imports: wasiWrite, extra: outFn + pieces + `  (func (export "_initialize") ` + say + ` (unreachable))` + "\n", handle: `(i32.const 0)`}
		h, logs := newApp(t).wat("server/api/evil.get.wasm", m).host(host.Options{Mode: host.Development})
		if problems, want := fmt.Sprint(h.Problems()), "server/api/evil.get.wasm: _initialize: panic: bad tag; then the guest trapped"; !strings.Contains(problems, want) {
			t.Errorf("problems = %s\nwant %q", problems, want)
		}
		if want := `msg="panic: bad tag" route=server/api/evil.get.wasm stream="guest output"`; !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %s:\n%s", want, logs)
		}
	})
}
