package host_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/racedetector"
)

// WAT snippets the hostile guests share.
const (
	// wasiPoll and wasiWrite are the WASI functions the guests abuse.
	wasiPoll  = `  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))` + "\n"
	wasiWrite = `  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))` + "\n"
	// sleepFn sleeps $ns nanoseconds with a poll_oneoff clock subscription
	// (WASI preview 1: a 48-byte subscription at 70000, the event at 70100).
	sleepFn = `  (func $sleep (param $ns i64)
    (i64.store (i32.const 70000) (i64.const 0))
    (i32.store8 (i32.const 70008) (i32.const 0))
    (i32.store (i32.const 70016) (i32.const 1))
    (i64.store (i32.const 70024) (local.get $ns))
    (i64.store (i32.const 70032) (i64.const 0))
    (i32.store16 (i32.const 70040) (i32.const 0))
    (drop (call $poll (i32.const 70000) (i32.const 70100) (i32.const 1) (i32.const 70200))))
`
	// growTo16MiB grows the 4-page memory to 260 pages and fills it.
	growTo16MiB    = `(drop (memory.grow (i32.const 256))) (memory.fill (i32.const 65536) (i32.const 65) (i32.const 16777216))`
	streamContract = `{"responses":{"200":{"description":"bytes","media":["application/octet-stream"]}}}`
)

// TestHostileGuests is the fault matrix of the guest side: one hostile
// module per row, written in WAT so the hostility is plain to read, served
// beside a healthy route. Each row runs many times (instances come and go)
// and checks the status the client gets, that every answer comes within the
// deadline (with room for a slow machine: the bugs these rows guard against
// answered after 30 s or never), what the log says, that the healthy route
// keeps answering, and that the process's memory does not grow with the
// repetitions.
func TestHostileGuests(t *testing.T) {
	// Rows that run into the deadline get a short one; the others a long
	// one, so a busy machine does not turn their answers into 500s.
	const short, long = 100 * time.Millisecond, 5 * time.Second
	dataOK, writeOK := watWrite(4096, "ok")
	rows := []struct {
		name     string
		m        watModule
		limits   config.Limits
		status   int           // what the client gets
		cut      bool          // the answer started (200) and is cut off
		log      string        // the host's log says this
		reps     int           // repetitions; 200 unless set
		parallel bool          // send the repetitions on instances-many clients at once
		timeout  time.Duration // long unless set
		// mw, when set, is the before export of a middleware wrapping
		// the hostile route, which is then m, or a healthy one when m is
		// empty: the hostility is the middleware's.
		mw string
	}{
		{name: "trap", m: watModule{handle: `(unreachable)`}, status: 500, log: "the guest trapped"},
		{name: "endless loop", m: watModule{handle: `(loop $l (br $l)) (i32.const 0)`}, status: 500, log: "ran past its 100ms deadline", reps: 40, parallel: true, timeout: short},
		{name: "endless recursion", m: watModule{handle: `(call $a) (i32.const 0)`, extra: "  (func $a (call $b)) (func $b (call $a))\n"},
			status: 500, log: "the guest trapped|ran past its 100ms deadline", reps: 40, parallel: true, timeout: short},
		{name: "memory past the cap", m: watModule{handle: `(if (i32.eq (memory.grow (i32.const 64)) (i32.const -1)) (then (unreachable))) (i32.const 0)`},
			limits: config.Limits{MemoryBytes: 2 << 20}, status: 500, log: "the guest trapped"},
		{name: "memory up to the cap, touched, then a trap", m: watModule{handle: `(drop (memory.grow (i32.const 252))) (memory.fill (i32.const 0) (i32.const 1) (i32.const 16777216)) (unreachable)`},
			limits: config.Limits{MemoryBytes: 16 << 20}, status: 500, log: "the guest trapped"},
		{name: "pointer outside its memory", m: watModule{handle: `(drop (call $write (i32.const 0xFFFFFFF0) (i32.const 100))) (i32.const 0)`}, status: 500, log: "outside its linear memory"},
		{name: "error code", m: watModule{handle: `(i32.const 7)`}, status: 500, log: "returned error code 7"},
		{name: "buffered answer without end", m: watModule{contract: `{"summary":"big"}`, handle: `(loop $l (drop (call $write (i32.const 65536) (i32.const 65536))) (br $l)) (i32.const 0)`},
			limits: config.Limits{ResponseBytes: 1 << 20}, status: 500, log: "wrote an answer of more than 1048576 bytes (limits.responseBytes)"},
		{name: "streamed answer without end", m: watModule{contract: streamContract, handle: `(loop $l (drop (call $write (i32.const 65536) (i32.const 65536))) (br $l)) (i32.const 0)`},
			status: 200, cut: true, log: "ran past its 100ms deadline|client went away", reps: 20, parallel: true, timeout: short},
		{name: "a million headers", m: watModule{handle: `(local.set $n (i32.const 1000000))
    (loop $l (drop (call $add_header (i32.const 8192) (i32.const 5) (i32.const 8200) (i32.const 3)))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (i32.const 0)`, extra: `  (data (i32.const 8192) "X-Bad") (data (i32.const 8200) "yes")` + "\n"},
			status: 500, log: "more response headers than the host allows", reps: 20, parallel: true},
		{name: "a 16 MiB log line", m: watModule{handle: growTo16MiB + ` (call $log (i32.const 1) (i32.const 65536) (i32.const 16777216)) ` + writeOK + ` (i32.const 0)`, extra: dataOK},
			status: 200, log: "truncated: the line has 16777216 bytes"},
		{name: "a 16 MiB line on stdout", m: watModule{imports: wasiWrite, handle: growTo16MiB + ` (i32.store (i32.const 100) (i32.const 65536)) (i32.store (i32.const 104) (i32.const 16777216))
    (drop (call $fd_write (i32.const 1) (i32.const 100) (i32.const 1) (i32.const 108))) ` + writeOK + ` (i32.const 0)`, extra: dataOK},
			status: 200, log: "truncated: the line has 16777216 bytes"},
		{name: "a log flood", m: watModule{handle: `(local.set $n (i32.const 100000))
    (loop $l (call $log (i32.const 1) (i32.const 65536) (i32.const 1024))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1))))) ` + writeOK + ` (i32.const 0)`, extra: dataOK},
			status: 200, log: "further log lines are dropped", reps: 20},
		{name: "random bytes without end", m: watModule{imports: `  (import "wasi_snapshot_preview1" "random_get" (func $random (param i32 i32) (result i32)))` + "\n",
			handle: `(drop (memory.grow (i32.const 512))) (loop $l (drop (call $random (i32.const 65536) (i32.const 33554432))) (br $l)) (i32.const 0)`},
			limits: config.Limits{MemoryBytes: 64 << 20}, status: 500, log: "ran past its 100ms deadline", reps: 8, parallel: true, timeout: short},
		{name: "a 30 s sleep", m: watModule{imports: wasiPoll, handle: `(call $sleep (i64.const 30000000000)) (i32.const 0)`, extra: sleepFn},
			status: 500, log: "ran past its 100ms deadline", reps: 40, parallel: true, timeout: short},
		{name: "sleeps in a loop", m: watModule{imports: wasiPoll, handle: `(loop $l (call $sleep (i64.const 1000000)) (br $l)) (i32.const 0)`, extra: sleepFn},
			status: 500, log: "ran past its 100ms deadline", reps: 40, parallel: true, timeout: short},
		{name: "middleware: request headers without end", mw: mwHeaderFlood, status: 500, log: "more request headers than the host allows", reps: 20, parallel: true},
		{name: "middleware: a 16 MiB request header", mw: growTo16MiB + ` (i32.store (i32.const 8192) (i32.const 0x69622d78)) (i32.store8 (i32.const 8196) (i32.const 0x67)) ;; "x-big"
    (if (call $request_set_header (i32.const 8192) (i32.const 5) (i32.const 65536) (i32.const 16777216)) (then (return (i32.const 7))))
    (i32.const 0)`, status: 500, log: "it returned 7", reps: 20},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			limits := row.limits
			limits.Instances = 4
			timeout := row.timeout
			if timeout == 0 {
				timeout = long
			}
			limits.Timeout = config.Duration(timeout)
			a := newApp(t)
			if row.mw != "" {
				a.middleware("10-hostile", mwModule{decl: `{"routes":["/api/hostile"]}`, before: row.mw})
				if row.m.handle == "" {
					row.m = watModule{handle: plainOK, extra: okData}
				}
			}
			srv, logs := a.
				wat("server/api/hostile.get.wasm", row.m).
				wat("server/routes/ok.get.wasm", watModule{handle: plainOK, extra: okData}).
				serve(host.Options{Mode: host.Development, Limits: limits, Logger: nil})
			reps := row.reps
			if reps == 0 {
				reps = 200
			}
			clients := 1
			if row.parallel {
				clients = limits.Instances
			}
			before := residentBytes(t)
			var wg sync.WaitGroup
			errs := make(chan error, reps)
			for c := 0; c < clients; c++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := c; i < reps; i += clients {
						got := fetch(srv, "/api/hostile")
						switch {
						case got.err != nil:
							errs <- fmt.Errorf("request %d: %v", i, got.err)
						case got.status != row.status:
							errs <- fmt.Errorf("request %d: got %d %s, want %d", i, got.status, got.body, row.status)
						case row.cut != (got.readErr != nil):
							errs <- fmt.Errorf("request %d: answer cut off = %v (%v), want %v", i, got.readErr != nil, got.readErr, row.cut)
						case got.took > timeout+5*time.Second:
							errs <- fmt.Errorf("request %d: answered after %s with a %s deadline", i, got.took, timeout)
						}
						if i%50 == 0 {
							if ok := fetch(srv, "/ok"); ok.status != 200 || ok.body != "ok" {
								errs <- fmt.Errorf("healthy route during request %d: got %d %q, want 200 ok", i, ok.status, ok.body)
							}
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			n := 0
			for err := range errs {
				if n++; n <= 5 {
					t.Error(err)
				}
			}
			if ok := fetch(srv, "/ok"); ok.status != 200 || ok.body != "ok" {
				t.Errorf("healthy route after the hostile one: got %d %q, want 200 ok", ok.status, ok.body)
			}
			said := false
			for _, want := range strings.Split(row.log, "|") {
				said = said || strings.Contains(logs.String(), want)
			}
			if !said {
				t.Errorf("the log does not say %q:\n%.3000s", row.log, logs)
			}
			// Memory: instances grown to their cap and thrown away must not
			// pile up. The bound leaves room for the live instances (at
			// most 4 × 16 MiB) and the runtime's own noise.
			if grew := residentBytes(t) - before; grew > 128<<20 && !racedetector.Enabled {
				t.Errorf("the process grew by %d MiB over %d repetitions", grew>>20, reps)
			}
		})
	}
}

// mwHeaderFlood is a middleware's before export that sets 2000 request
// headers of 1 KiB each, x-h-aaa, x-h-baa..., ignoring what the host
// answers.
const mwHeaderFlood = `(i32.store (i32.const 8192) (i32.const 0x2d682d78)) ;; "x-h-"
    (memory.fill (i32.const 16384) (i32.const 97) (i32.const 1024))
    (local.set $n (i32.const 2000))
    (loop $l
      (i32.store8 (i32.const 8196) (i32.add (i32.const 97) (i32.and (local.get $n) (i32.const 15))))
      (i32.store8 (i32.const 8197) (i32.add (i32.const 97) (i32.and (i32.shr_u (local.get $n) (i32.const 4)) (i32.const 15))))
      (i32.store8 (i32.const 8198) (i32.add (i32.const 97) (i32.and (i32.shr_u (local.get $n) (i32.const 8)) (i32.const 15))))
      (drop (call $request_set_header (i32.const 8192) (i32.const 7) (i32.const 16384) (i32.const 1024)))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (i32.const 0)`

// TestSlowMiddlewareStallsNoOtherRoute: an app-wide middleware whose
// calls for one route hang (held in a kv_get) goes on serving the other
// routes: its instances are shared out per route, each route getting as
// many as its own pool, not one pool for all.
func TestSlowMiddlewareStallsNoOtherRoute(t *testing.T) {
	const instances = 2
	gate := newGateStore(t)
	srv, _ := newApp(t).
		wat("server/api/slow.get.wasm", watModule{handle: plainOK, extra: okData}).
		wat("server/api/other.get.wasm", watModule{handle: plainOK, extra: okData}).
		middleware("10-hold", mwModule{
			data: []string{"x-hold"},
			// A request with X-Hold reads the key it names, which the
			// gate store holds until the test opens it.
			before: `(local.set $n (call $request_header $0 (i32.const 8192) (i32.const 64)))
    (if (i32.gt_s (local.get $n) (i32.const 0))
      (then (drop (call $kv_get (i32.const 8192) (local.get $n) (i32.const 9000) (i32.const 64)))))
    (i32.const 0)`,
		}).
		serve(host.Options{Mode: host.Production, Store: gate, Limits: config.Limits{Instances: instances, Timeout: config.Duration(time.Minute)}})
	get := func(ctx context.Context, path string, header ...string) fetched {
		req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+path, nil)
		if err != nil {
			return fetched{err: err}
		}
		if len(header) == 2 {
			req.Header.Set(header[0], header[1])
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			return fetched{err: err}
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return fetched{status: res.StatusCode, body: string(b), readErr: err}
	}
	held := make(chan fetched, instances)
	for range instances {
		go func() { held <- get(context.Background(), "/api/slow", "X-Hold", "gate") }()
	}
	for range instances {
		select {
		case <-gate.entered:
		case <-time.After(10 * time.Second):
			t.Fatal("the slow requests did not reach the middleware's kv_get within 10 s")
		}
	}
	// Every instance the middleware may run for /api/slow is held now.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if got := get(ctx, "/api/other"); got.status != 200 || got.body != "ok" {
		t.Errorf("GET /api/other while the middleware is held for /api/slow: %d %q (%v), want 200 ok", got.status, got.body, got.err)
	}
	close(gate.open)
	for range instances {
		if got := <-held; got.status != 200 || got.body != "ok" {
			t.Errorf("a held request, once let through: %d %q (%v), want 200 ok", got.status, got.body, got.err)
		}
	}
}

// fetched is what one request got, errors included, with how long the
// answer took to arrive whole.
type fetched struct {
	status  int
	body    string
	err     error // the request failed
	readErr error // the answer came but its body was cut off
	took    time.Duration
}

func fetch(srv *httptest.Server, path string) fetched {
	start := time.Now()
	res, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		return fetched{err: err, took: time.Since(start)}
	}
	defer res.Body.Close()
	var body strings.Builder
	_, err = io.Copy(&body, io.LimitReader(res.Body, 1<<20))
	if err == nil {
		_, err = io.Copy(io.Discard, res.Body)
	}
	return fetched{status: res.StatusCode, body: body.String(), readErr: err, took: time.Since(start)}
}

// residentBytes is the process's resident memory (Linux), after a garbage
// collection that returns what it can to the system.
func residentBytes(t *testing.T) int64 {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reads the resident set size from /proc")
	}
	runtime.GC()
	debug.FreeOSMemory()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// TestClientThatLeavesStopsItsGuest: a guest asleep or in a loop stops
// when its client goes away, long before its deadline.
func TestClientThatLeavesStopsItsGuest(t *testing.T) {
	tests := []struct {
		name   string
		handle string
	}{
		{"asleep", `(call $sleep (i64.const 30000000000)) (i32.const 0)`},
		{"in a loop", `(loop $l (br $l)) (i32.const 0)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, logs := newApp(t).
				wat("server/api/slow.get.wasm", watModule{imports: wasiPoll, extra: sleepFn + `  (data (i32.const 8192) "running")` + "\n",
					handle: `(call $log (i32.const 1) (i32.const 8192) (i32.const 7)) ` + tt.handle}).
				serve(host.Options{Mode: host.Development, Limits: config.Limits{Instances: 1, Timeout: config.Duration(time.Minute)}})
			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/slow", nil)
			done := make(chan error, 1)
			go func() {
				res, err := srv.Client().Do(req)
				if err == nil {
					res.Body.Close()
				}
				done <- err
			}()
			if !waitFor(t, 10*time.Second, func() bool { return strings.Contains(logs.String(), "msg=running") }) {
				t.Fatalf("the guest did not start:\n%s", logs)
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("the leaving client's request ended with %v", err)
			}
			if !waitFor(t, 10*time.Second, func() bool { return strings.Contains(logs.String(), "client went away; guest stopped") }) {
				t.Fatalf("the guest was not stopped when its client left (deadline: 1 minute):\n%s", logs)
			}
		})
	}
}

// TestHostileModulesAtLoad: module code that misbehaves while it is loaded
// (its start function, its exports) fails the load of that module, within
// limits.loadTimeout, with a message saying what happened in words; the
// other modules load.
func TestHostileModulesAtLoad(t *testing.T) {
	t.Parallel()
	const loadTimeout = 200 * time.Millisecond
	wasiExit := `  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))` + "\n"
	rows := []struct {
		name string
		m    watModule
		want string
	}{
		{"endless loop at start", watModule{extra: `  (func (export "_initialize") (loop $l (br $l)))` + "\n", handle: `(i32.const 0)`},
			"_initialize: ran past the 200ms load deadline (limits.loadTimeout) and was stopped: does it loop forever?"},
		{"endless loop in a start section", watModule{extra: `  (func $s (loop $l (br $l))) (start $s)` + "\n", handle: `(i32.const 0)`},
			"its start section: ran past the 200ms load deadline (limits.loadTimeout) and was stopped"},
		{"a 30 s sleep at start", watModule{imports: wasiPoll, extra: sleepFn + `  (func (export "_initialize") (call $sleep (i64.const 30000000000)))` + "\n", handle: `(i32.const 0)`},
			"_initialize: ran past the 200ms load deadline (limits.loadTimeout) and was stopped"},
		{"exit at start", watModule{imports: wasiExit, extra: `  (func (export "_initialize") (call $exit (i32.const 3)))` + "\n", handle: `(i32.const 0)`},
			"_initialize: the guest exited with code 3"},
		{"trap at start", watModule{extra: `  (func (export "_initialize") (unreachable))` + "\n", handle: `(i32.const 0)`},
			"_initialize: the guest trapped"},
		{"endless loop in the contract export", watModule{extra: `  (func (export "endpoints_contract") (result i64) (loop $l (br $l)) (i64.const 0))` + "\n", handle: `(i32.const 0)`},
			"endpoints_contract: ran past the 200ms load deadline (limits.loadTimeout) and was stopped"},
		{"a 2 MiB contract", watModule{extra: `  (func (export "endpoints_contract") (result i64) (drop (memory.grow (i32.const 40))) (i64.const 0x0000040000200000))` + "\n", handle: `(i32.const 0)`},
			"endpoints_contract returned 2097152 bytes; the host accepts at most 1048576 (1024 KiB)"},
		{"a contract outside its memory", watModule{extra: `  (func (export "endpoints_contract") (result i64) (i64.const 0x00040000000000FF))` + "\n", handle: `(i32.const 0)`},
			"endpoints_contract returned memory [262144, 262399) outside the module's memory"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			a := newApp(t).
				wat("server/api/evil.get.wasm", row.m).
				wat("server/routes/ok.get.wasm", watModule{handle: plainOK, extra: okData})
			start := time.Now()
			h, _ := a.host(host.Options{Mode: host.Development, Limits: config.Limits{LoadTimeout: config.Duration(loadTimeout)}})
			if took := time.Since(start); took > 20*time.Second {
				t.Errorf("loading took %s with a %s load deadline", took, loadTimeout)
			}
			problems := fmt.Sprint(h.Problems())
			if !strings.Contains(problems, "server/api/evil.get.wasm") || !strings.Contains(problems, row.want) {
				t.Errorf("problems = %s\nwant the module named and %q", problems, row.want)
			}
			if routes := h.Routes(); len(routes) != 1 || routes[0].Path != "/ok" {
				t.Errorf("routes = %v, want only /ok", routes)
			}
		})
	}
}

// TestAppFilesThatAreNotFiles: an app file that is a FIFO, a device or
// far too large fails the start promptly, with an error naming the file
// and what it is, instead of hanging on the FIFO (and ignoring SIGTERM)
// or reading /dev/zero until memory runs out.
func TestAppFilesThatAreNotFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs and /dev/zero are unix")
	}
	fifo := func(t *testing.T, p string) {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rows := []struct {
		name, file string
		make       func(t *testing.T, p string)
		want       string
	}{
		{"endpoints.json is a FIFO", config.File, fifo, "endpoints.json: not a regular file (a FIFO)"},
		{"routes.config.json is a FIFO", host.RoutesConfigFile, fifo, "server/routes.config.json: not a regular file (a FIFO)"},
		{"the runtime declaration is a FIFO", abi.RuntimeModule, fifo, "server/endpoints/runtime.wasm: not a regular file (a FIFO)"},
		{"the runtime declaration is /dev/zero", abi.RuntimeModule, func(t *testing.T, p string) {
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		}, "server/endpoints/runtime.wasm: not a regular file (a character device)"},
		{"a middleware module of 300 MiB", "server/middleware/10-big.wasm", func(t *testing.T, p string) {
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, 300<<20); err != nil { // sparse: no disk
				t.Fatal(err)
			}
		}, "server/middleware/10-big.wasm: file too large: more than the 268435456 bytes (256 MiB) the host reads of it"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			a := newApp(t).wat("server/api/ok.get.wasm", watModule{handle: plainOK, extra: okData})
			p := filepath.Join(a.dir, filepath.FromSlash(row.file))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			row.make(t, p)
			done := make(chan error, 1)
			go func() {
				h, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, CacheDir: "off", Logger: discardLogger()})
				if err == nil {
					h.Close(context.Background())
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), row.want) {
					t.Errorf("host.New = %v\nwant an error containing %q", err, row.want)
				}
			case <-time.After(20 * time.Second):
				// Let the hung start go: open the FIFO for writing.
				if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
				t.Fatalf("host.New still reading %s after 20 s", row.file)
			}
		})
	}
}

// TestContractsTooLargeToLoadQuickly: a contract of more objects than
// abi.ContractMaxObjects fails its load, naming the bound, instead of
// keeping the host from listening while its schemas compile.
func TestContractsTooLargeToLoadQuickly(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"request":{"body":{"schema":{"type":"object","properties":{`)
	for i := 0; i < abi.ContractMaxObjects; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"p%d":{"type":"string"}`, i)
	}
	b.WriteString(`}}}}}`)
	a := newApp(t).wat("server/api/big.post.wasm", watModule{contract: b.String(), handle: `(i32.const 0)`, pages: 8})
	h, _ := a.host(host.Options{Mode: host.Development})
	want := fmt.Sprintf("server/api/big.post.wasm: its contract holds %d JSON objects (schemas); the host accepts at most %d", abi.ContractMaxObjects+5, abi.ContractMaxObjects)
	if problems := fmt.Sprint(h.Problems()); !strings.Contains(problems, want) {
		t.Errorf("problems = %.300s\nwant %q", problems, want)
	}
}

// TestTamperedCacheEntriesAreNotRun: what the compilation cache holds is
// code the host runs, so an entry changed while no host ran (a module
// put in place of the instrumented one, another module's native code with
// its checksum intact, as a cache restored from elsewhere would hold) is
// compiled again, never run; and a cache directory others may write is
// not used at all. Each row fills the cache with two modules that differ
// only in the status they answer, puts B's entry in place of A's, and
// serves A.
func TestTamperedCacheEntriesAreNotRun(t *testing.T) {
	moduleA := watModule{handle: `(drop (call $set_status (i32.const 201))) ` + plainOK, extra: okData}
	moduleB := watModule{handle: `(drop (call $set_status (i32.const 202))) ` + plainOK, extra: okData}
	const route = "server/api/m.get.wasm"
	appA, appB := newApp(t).wat(route, moduleA), newApp(t).wat(route, moduleB)
	status := func(t *testing.T, a *app, cache string) (int, string) {
		t.Helper()
		logs := &logBuffer{}
		h, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, CacheDir: cache,
			Logger: slog.New(slog.NewTextHandler(logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close(context.Background())
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/m", nil))
		return rec.Code, logs.String()
	}
	// entries lists the files under the cache's subdirectories whose
	// names start with prefix.
	entries := func(t *testing.T, cache, prefix string) map[string]bool {
		t.Helper()
		out := map[string]bool{}
		subs, _ := os.ReadDir(cache)
		for _, s := range subs {
			if !s.IsDir() || !strings.HasPrefix(s.Name(), prefix) {
				continue
			}
			files, _ := os.ReadDir(filepath.Join(cache, s.Name()))
			for _, f := range files {
				if !strings.HasPrefix(f.Name(), ".") && !strings.HasSuffix(f.Name(), ".tmp") {
					out[filepath.Join(cache, s.Name(), f.Name())] = true
				}
			}
		}
		return out
	}
	// fill compiles A, then B, into cache and returns, for the entries of
	// the subdirectories named prefix..., A's and B's.
	fill := func(t *testing.T, cache, prefix string) (a, b string) {
		t.Helper()
		if got, _ := status(t, appA, cache); got != 201 {
			t.Fatalf("module A answers %d, want 201", got)
		}
		before := entries(t, cache, prefix)
		if got, _ := status(t, appB, cache); got != 202 {
			t.Fatalf("module B answers %d, want 202", got)
		}
		after := entries(t, cache, prefix)
		if len(before) != 1 || len(after) != 2 {
			t.Fatalf("cache entries %s*: %d after A, %d after B; want 1 and 2", prefix, len(before), len(after))
		}
		for p := range before {
			a = p
		}
		for p := range after {
			if !before[p] {
				b = p
			}
		}
		return a, b
	}
	replace := func(t *testing.T, dst, src string) {
		t.Helper()
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("an instrumented module replaced by another", func(t *testing.T) {
		cache := t.TempDir()
		a, b := fill(t, cache, "instrumented-")
		replace(t, a, b)
		if got, _ := status(t, appA, cache); got != 201 {
			t.Errorf("module A answers %d with B's instrumented module in its cache entry; want 201, A's own code", got)
		}
	})
	t.Run("a native entry replaced by another module's, checksum intact", func(t *testing.T) {
		cache := t.TempDir()
		a, b := fill(t, cache, "wazero-")
		replace(t, a, b)
		if got, _ := status(t, appA, cache); got != 201 {
			t.Errorf("module A answers %d with B's native code in its cache entry; want 201, A's own code", got)
		}
	})
	t.Run("a cache directory anyone may write", func(t *testing.T) {
		cache := t.TempDir()
		a, b := fill(t, cache, "instrumented-")
		replace(t, a, b)
		if err := os.Chmod(cache, 0o777); err != nil {
			t.Fatal(err)
		}
		got, logs := status(t, appA, cache)
		if got != 201 {
			t.Errorf("module A answers %d from a world-writable cache; want 201, the cache not used", got)
		}
		if !strings.Contains(logs, "compilation cache unavailable") || !strings.Contains(logs, "writable by its group or by anyone") {
			t.Errorf("the log does not say why the cache is not used:\n%s", logs)
		}
	})
	t.Run("a cache directory another user owns", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("only root can give a directory to another user")
		}
		cache := t.TempDir()
		a, b := fill(t, cache, "instrumented-")
		replace(t, a, b)
		if err := os.Chown(cache, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		got, logs := status(t, appA, cache)
		if got != 201 {
			t.Errorf("module A answers %d from a cache owned by another user; want 201, the cache not used", got)
		}
		if !strings.Contains(logs, "owned by user 65534") {
			t.Errorf("the log does not say why the cache is not used:\n%s", logs)
		}
	})
}
