package host_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// The server of BenchmarkJunkKeyFlood runs in a process of its own, bound
// to one CPU with GOMAXPROCS=1, as a server the flood comes to from
// outside: the test binary run again with floodServerEnv set, as
// TestJunkFloodServer. It serves junkFloodApp with the host's own
// http.Server (Host.HTTPServer, so server.maxHeaderBytes is in effect) on
// a loopback TCP port, and says where in its first line:
//
//	serving 127.0.0.1:PORT
//
// Then it reads commands from stdin, one a line, and answers on stdout in
// lines that begin with floodReplyPrefix:
//
//	stats             its garbage collector's counts so far (serverStats as JSON)
//	profile PATH      start a CPU profile written to PATH; answers "profiling"
//	profile-stop      stop it; answers "profiled"
//
// It exits when stdin closes.
const (
	floodServerEnv = "ENDPOINTS_FLOOD_SERVER" // "1" in the server's process
	// floodPipeliningEnv, when set, is the server's server.pipelining.
	floodPipeliningEnv = "ENDPOINTS_FLOOD_SERVER_PIPELINING"
	// floodRefusalPauseEnv, when set, is the server's server.refusalPause.
	floodRefusalPauseEnv = "ENDPOINTS_FLOOD_SERVER_REFUSAL_PAUSE"
)

// junkFloodConfig is the app's endpoints.json: the storage, idempotency
// and server settings are the defaults; one rate limit keyed by a header a
// client chooses, X-Client, as many APIs key theirs by an account or API
// key id the client sends, at a rate a real client of an orders API
// stays under (600 a minute).
const junkFloodConfig = `{"rateLimits": {"orders": {"routes": ["/api/orders"], "limit": 600, "window": "1m", "key": "header:X-Client"}}}`

// junkFloodApp is the app the junk flood comes to: an idempotent,
// rate-limited POST /api/orders that answers 201.
func junkFloodApp(tb testing.TB) *app {
	return newApp(tb).
		file("endpoints.json", []byte(junkFloodConfig)).
		wat("server/api/orders.post.wasm", countingModulo())
}

// serverStats is what the server process says of its garbage collector.
type serverStats struct {
	Allocs uint64  // heap bytes allocated
	GCs    uint64  // cycles completed
	GCCPU  float64 // seconds of the collector's CPU, but for marking on idle processors
	Live   uint64  // heap bytes live after the last cycle
}

// serveJunkFlood serves h on a loopback TCP port and speaks the server's
// protocol above on in and out, until in closes.
func serveJunkFlood(h *host.Host, in io.Reader, out io.Writer) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := h.HTTPServer()
	go srv.Serve(ln)
	defer srv.Close()
	fmt.Fprintln(out, floodReplyPrefix+"serving "+ln.Addr().String())
	sc := bufio.NewScanner(in)
	var profile *os.File
	defer func() {
		if profile != nil {
			pprof.StopCPUProfile()
			profile.Close()
		}
	}()
	for sc.Scan() {
		cmd, arg, _ := strings.Cut(sc.Text(), " ")
		switch cmd {
		case "stats":
			gc := gcMetrics()
			b, _ := json.Marshal(serverStats{Allocs: gc.allocs, GCs: gc.cycles, GCCPU: gc.cpu, Live: gc.live})
			fmt.Fprintln(out, floodReplyPrefix+string(b))
		case "profile":
			if profile != nil {
				return fmt.Errorf("profile %s: a profile is already being written", arg)
			}
			if profile, err = os.Create(arg); err != nil {
				return err
			}
			if err := pprof.StartCPUProfile(profile); err != nil {
				return err
			}
			fmt.Fprintln(out, floodReplyPrefix+"profiling")
		case "profile-stop":
			if profile == nil {
				return fmt.Errorf("profile-stop: no profile is being written")
			}
			pprof.StopCPUProfile()
			if err := profile.Close(); err != nil {
				return err
			}
			profile = nil
			fmt.Fprintln(out, floodReplyPrefix+"profiled")
		default:
			return fmt.Errorf("unknown command %q", sc.Text())
		}
	}
	return sc.Err()
}

// startJunkFloodServer runs the server in a process of its own bound to
// CPU cpu with GOMAXPROCS=1, with server.pipelining set to pipelining
// and server.refusalPause to refusalPause unless they are empty, and
// returns it and its address.
func startJunkFloodServer(tb testing.TB, cpu int, pipelining, refusalPause string) (*floodProcess, string) {
	tb.Helper()
	p := startTestProcess(tb, "the server", "TestJunkFloodServer", cpu, floodServerEnv+"=1", "GOMAXPROCS=1",
		floodPipeliningEnv+"="+pipelining, floodRefusalPauseEnv+"="+refusalPause)
	if !p.out.Scan() {
		tb.Fatalf("the server ended before it served: %v", p.out.Err())
	}
	addr, ok := strings.CutPrefix(p.out.Text(), floodReplyPrefix+"serving ")
	if !ok {
		tb.Fatalf("the server's first line: %q, want %q and its address", p.out.Text(), floodReplyPrefix+"serving")
	}
	return p, addr
}

// stats asks the server for its serverStats.
func (p *floodProcess) stats(tb testing.TB) serverStats {
	tb.Helper()
	var s serverStats
	if reply := p.command(tb, "stats"); json.Unmarshal([]byte(reply), &s) != nil {
		tb.Fatalf("%s's stats: %q is not JSON", p.name, reply)
	}
	return s
}

// TestJunkFloodServer checks the server of BenchmarkJunkKeyFlood: it says
// its address, answers an idempotent POST there 201, and its commands.
// Run by the benchmark with floodServerEnv set, it is that server.
func TestJunkFloodServer(t *testing.T) {
	if os.Getenv(floodServerEnv) != "" {
		opts := host.Options{Mode: host.Production, Logger: discardLogger()}
		if p := os.Getenv(floodPipeliningEnv); p != "" {
			opts.ConfigOverrides = append(opts.ConfigOverrides, config.Override{Pointer: "/server/pipelining", Value: p, Source: floodPipeliningEnv})
		}
		if p := os.Getenv(floodRefusalPauseEnv); p != "" {
			opts.ConfigOverrides = append(opts.ConfigOverrides, config.Override{Pointer: "/server/refusalPause", Value: p, Source: floodRefusalPauseEnv})
		}
		h, _ := junkFloodApp(t).host(opts)
		if err := serveJunkFlood(h, os.Stdin, os.Stdout); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Parallel()
	h, _ := junkFloodApp(t).host(host.Options{Mode: host.Production, Logger: discardLogger()})
	in, commands := io.Pipe()
	replies, out := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serveJunkFlood(h, in, out)
		out.Close()
	}()
	sc := bufio.NewScanner(replies)
	next := func(after string) string {
		t.Helper()
		if !sc.Scan() {
			t.Fatalf("no reply after %s: %v", after, <-done)
		}
		return sc.Text()
	}
	first := next("start")
	addr, ok := strings.CutPrefix(first, floodReplyPrefix+"serving ")
	if !ok {
		t.Fatalf("first line %q, want %q and the address", first, floodReplyPrefix+"serving")
	}
	for i, want := range []string{"", "true"} {
		req, _ := http.NewRequest("POST", "http://"+addr+"/api/orders", strings.NewReader(floodBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "k1")
		req.Header.Set("X-Client", "alice")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 201 || res.Header.Get("Idempotent-Replayed") != want || res.Header.Get("RateLimit-Policy") == "" {
			t.Errorf("POST %d: %d, Idempotent-Replayed %q, RateLimit-Policy %q; want 201, %q and the policy",
				i+1, res.StatusCode, res.Header.Get("Idempotent-Replayed"), res.Header.Get("RateLimit-Policy"), want)
		}
	}
	fmt.Fprintln(commands, "stats")
	var stats serverStats
	if reply := next("stats"); json.Unmarshal([]byte(strings.TrimPrefix(reply, floodReplyPrefix)), &stats) != nil || stats.Allocs == 0 {
		t.Errorf("stats: %q, want serverStats as JSON, some bytes allocated", reply)
	}
	for _, c := range []struct{ cmd, want string }{{"profile " + t.TempDir() + "/cpu.pprof", "profiling"}, {"profile-stop", "profiled"}} {
		fmt.Fprintln(commands, c.cmd)
		if reply := next(c.cmd); reply != floodReplyPrefix+c.want {
			t.Errorf("%s: %q, want %q", c.cmd, reply, floodReplyPrefix+c.want)
		}
	}
	commands.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
