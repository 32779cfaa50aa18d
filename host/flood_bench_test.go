package host_test

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// floodRequests are what a hostile client sends the example app: integers
// a Go guest's int cannot take as written (2.0, 1e1) or at all (2^63,
// 1e400), text that is not UTF-8, JSON nested 5000 deep, duplicate names.
// Before the host canonicalised values and the SDK bounded its integers,
// each of the first kind crashed the guest's decoding: a 500 and a fresh
// Go instance (milliseconds of CPU) per request.
var floodRequests = []struct {
	method, path, body string
	want               int
}{
	{"GET", "/api/users/2.0", "", 200},
	{"GET", "/api/users/1e0", "", 200},
	{"GET", "/api/users/9223372036854775808", "", 400},
	{"GET", "/api/users/1e400", "", 400},
	{"GET", "/api/users/%FF", "", 400},
	{"POST", "/api/users", `{"name":"x","name":"y","email":"a@b.c"}`, 400},
	{"POST", "/api/users", `{"name":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`, 400},
}

// BenchmarkFailureFlood measures what a flood of hostile requests does to
// good ones: the p99 latency of GET /api/users/2 (the Go example,
// production mode, over loopback HTTP) alone, while two clients send
// floodRequests at 500 requests per second each, and while two send good
// requests at the same rate (the control). Phases alternate in rounds so
// that machine noise hits them alike. The goal is a flooded p99 within 3x
// of the quiet one; it is reported, not asserted.
// Every flood answer must be the expected 200 or 400, never a 500.
func BenchmarkFailureFlood(b *testing.B) {
	h, err := host.New(b.Context(), builtExample(b, "users"), host.Options{Mode: host.Production, CacheDir: testCacheDir(b), Logger: discardLogger()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close(b.Context()) })
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	// Writes need a bearer token since the example enforces its security:
	// the flood must reach validation, not stop at the 401.
	token := usersToken(b, "flood", time.Hour, "users:write")
	send := func(method, path, body string) (int, error) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, _ := http.NewRequest(method, srv.URL+path, rd)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, nil
	}
	for _, f := range floodRequests {
		if got, err := send(f.method, f.path, f.body); err != nil || got != f.want {
			b.Fatalf("%s %s: got %d %v, want %d", f.method, f.path, got, err, f.want)
		}
	}
	good := func(n int) []time.Duration {
		lat := make([]time.Duration, 0, n)
		for i := 0; i < n; i++ {
			start := time.Now()
			if got, err := send("GET", "/api/users/2", ""); err != nil || got != 200 {
				b.Fatalf("good request: %d %v", got, err)
			}
			lat = append(lat, time.Since(start))
		}
		return lat
	}
	// While the good client measures, floodClients others send requests
	// at floodRate each: hostile ones, or (the control) good ones to
	// another user. The rate is fixed, not as fast as possible: on two
	// cores any flood at full speed takes the CPU from the good client,
	// whatever it sends. What the benchmark shows is what one hostile
	// request costs: before the host canonicalised values, each 2.0 cost
	// a fresh Go instance (milliseconds), and this rate took the server
	// down.
	const rounds, floodClients, floodRate = 5, 2, 500 // requests per second per client
	benign := []struct {
		method, path, body string
		want               int
	}{{"GET", "/api/users/3", "", 200}}
	during := func(reqs []struct {
		method, path, body string
		want               int
	}, n int, count *atomic.Int64) []time.Duration {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := 0; w < floodClients; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tick := time.NewTicker(time.Second / floodRate)
				defer tick.Stop()
				for i := w; ; i++ {
					select {
					case <-stop:
						return
					case <-tick.C:
					}
					f := reqs[i%len(reqs)]
					if got, err := send(f.method, f.path, f.body); err != nil || got != f.want {
						b.Errorf("flood %s %s: got %d %v, want %d", f.method, f.path, got, err, f.want)
						return
					}
					count.Add(1)
				}
			}()
		}
		lat := good(n)
		close(stop)
		wg.Wait()
		return lat
	}
	perRound := max(b.N/rounds, 50)
	var quiet, hostile, control []time.Duration
	var hostileN, controlN atomic.Int64
	b.ResetTimer()
	for r := 0; r < rounds; r++ {
		quiet = append(quiet, good(perRound)...)
		hostile = append(hostile, during(floodRequests, perRound, &hostileN)...)
		control = append(control, during(benign, perRound, &controlN)...)
	}
	b.StopTimer()
	q, f, c := p99(quiet), p99(hostile), p99(control)
	b.ReportMetric(float64(q.Microseconds()), "quiet-p99-µs")
	b.ReportMetric(float64(f.Microseconds()), "hostile-p99-µs")
	b.ReportMetric(float64(c.Microseconds()), "benign-p99-µs")
	b.ReportMetric(float64(f)/float64(q), "hostile/quiet")
	b.ReportMetric(float64(f)/float64(c), "hostile/benign")
	b.Logf("p99 of GET /api/users/2: %s alone; %s under %d hostile requests (%.2fx); %s under %d good ones (%.2fx)",
		q, f, hostileN.Load(), float64(f)/float64(q), c, controlN.Load(), float64(c)/float64(q))
}

func p99(lat []time.Duration) time.Duration {
	s := slices.Clone(lat)
	slices.Sort(s)
	return s[len(s)*99/100]
}

// The settings of BenchmarkJunkKeyFlood, flags of the test binary:
//
//	go test ./host -run '^$' -bench JunkKeyFlood -benchtime 1x -junkflood.duration 60s
var (
	junkFloodDuration = flag.Duration("junkflood.duration", 5*time.Second,
		"how long BenchmarkJunkKeyFlood floods; the quiet and control phases last as long, up to 20s each")
	junkFloodConns = flag.Int("junkflood.conns", 2,
		"BenchmarkJunkKeyFlood's flood connections per source address (two addresses)")
	junkFloodDepth = flag.Int("junkflood.depth", 1,
		"BenchmarkJunkKeyFlood's requests in flight on each flood connection (HTTP/1.1 pipelining past 1)")
	junkFloodPipelining = flag.String("junkflood.pipelining", "",
		"the server's server.pipelining in BenchmarkJunkKeyFlood (the default, close, unless set)")
	junkFloodRefusalPause = flag.String("junkflood.refusalpause", "",
		"the server's server.refusalPause in BenchmarkJunkKeyFlood (the default, 100ms, unless set; 0 turns it off)")
	junkFloodProfile = flag.String("junkflood.profile", "",
		"a directory where BenchmarkJunkKeyFlood writes the server's CPU profile of each phase (quiet.pprof, flood.pprof, control.pprof)")
)

// BenchmarkJunkKeyFlood measures what a flood of rate-limit keys and
// Idempotency-Keys from outside does to good requests (issue 23, item 3),
// on the memory store, as the wire benchmark models load: the server in
// a process of its own (the test binary run again as
// TestJunkFloodServer) bound to one CPU with GOMAXPROCS=1, serving
// junkFloodApp with the host's own http.Server (Host.HTTPServer, so
// server.maxHeaderBytes is in effect) over loopback TCP; the flood (the
// test binary run as TestJunkFloodClient) and the good client (this
// process) bound to another CPU. Where processes cannot be bound to two
// CPUs, it is skipped.
//
// The flood runs at full speed for -junkflood.duration (5 s unless set;
// issue 23 asks for 60 s): on each of its connections the next request
// as soon as the server answered the previous one, -junkflood.conns (2)
// connections from each of two addresses (127.0.0.2 and 127.0.0.3). Two
// per address so that the server always has a junk request to serve
// while another connection's answer travels and its next request is
// written; each more adds a request that waits its turn, not a faster
// flood. With -junkflood.depth N (1 unless set) each connection
// pipelines, N requests written ahead of their answers: served in turn
// (server.pipelining "serve", -junkflood.pipelining serve), a connection
// whose next request is already there never waits for the network, the
// Go scheduler then looks for the good clients' readable connections
// only every 10 ms, and their median went from about 2 ms to 75-90 ms; by
// default (server.pipelining "close") the server closes such a
// connection after the answer to the pipelined request, and the flood
// dials again (what it counts: connections closed, requests dropped).
// The flood itself never slows down: each connection writes its next
// request as soon as it has the previous answer. Once the host refuses a
// connection's request for abuse (429 past its address's share or from
// the rate limit), server.refusalPause (100 ms by default) holds that
// connection's next read back; the 429 comes at once, so what the flood
// can make the server read is a request per pause per connection, and
// its junk requests a second show it (-junkflood.refusalpause 0 turns
// the pause off, to compare).
// Each request is an idempotent POST /api/orders with a new
// Idempotency-Key and an X-Client value, the rate limit's key, as long as
// the default server.maxHeaderBytes allows (the header block is exactly
// config.DefaultMaxHeaderBytes, so the value is about 16 KB): a new
// rate-limit bucket and a new idempotency record each. Its requests are
// built once and counters rewritten in place, so the flood costs its CPU
// little.
//
// Meanwhile good requests come at a steady goodRate a second, each from
// one of goodClients addresses in turn (127.0.1.1 ...) with an X-Client
// of its own and a fresh Idempotency-Key, each sent when its time comes
// whether the previous one was answered or not, and measured. The app's
// settings are the defaults but for its rate limit (600 a minute per
// X-Client): a 60 s run's good records fit the default budgets and each
// address's default share (IdempotencyClientBytes), none raised.
//
// The phases, one after the other: quiet (no flood) for half the quiet
// time, the flood, the control (the same header bytes at full speed as
// one X-Client value per connection, so flood/control is what the new
// keys cost), then quiet again, which shows the limits and the records
// still serve after the flood. Reported: the good requests' p99 in each
// (quiet is both quiet halves), as ratios; the junk requests a second;
// the server's CPU per junk request, from /proc/PID/stat of its process,
// less what its good requests cost at the quiet phase's rate; the heap
// bytes it allocated per junk request and its collector's CPU; and, per
// phase, the share of the time the server's threads waited for their CPU
// while other processes had it (/proc/PID/task/*/schedstat), which says
// how much of a p99 is the machine's. With -junkflood.profile DIR the
// server writes a CPU profile of each phase. The goal
// is a flood p99 within 2x of the quiet one; it is reported, not
// asserted (speed claims come from benchmarks, not timed tests).
//
// Every good request must answer 201, during the flood and after; every
// junk request 201, or 429 IDEMPOTENCY_CLIENT_QUOTA past its address's
// share, or (in the control, whose one key per connection is sent
// thousands of times) 429 from the rate limit; each kind is counted.
// Before keys were hashed and budgets split, about 1,150 such requests
// filled the store for good: every rate-limited request then answered
// 500 and every idempotent POST 503. Before each client had a share of
// the records, the junk clients' records (kept 24 h, never evicted early)
// filled the records' budget and the good clients' POSTs answered 503.
//
// # Notes
//
//   - The benchmark ignores b.N: it runs its phases once. Run it with
//     -benchtime 1x (with Nx for N > 1 the testing package runs it twice,
//     once with b.N = 1).
//   - The good client shares its CPU with the flood's process, whose
//     writes of 16 KB a request take some of it; the good requests'
//     latency includes that wait, as a real client's on a busy machine
//     would.
func BenchmarkJunkKeyFlood(b *testing.B) {
	serverCPU, clientCPU, err := twoCPUs()
	if err != nil {
		b.Skipf("the server and its clients need a CPU each: %v", err)
	}
	pinProcess(b, clientCPU)
	server, addr := startJunkFloodServer(b, serverCPU, *junkFloodPipelining, *junkFloodRefusalPause)
	const goodClients, goodRate = 32, 200 // a second
	var goods [goodClients]*http.Client
	for i := range goods {
		goods[i] = fromAddress(b, fmt.Sprintf("127.0.1.%d", i+1))
	}
	var goodN atomic.Int64
	// good sends good requests at goodRate until stop closes and returns
	// their latencies, once all are answered.
	good := func(stop <-chan struct{}) []time.Duration {
		var (
			mu   sync.Mutex
			lat  []time.Duration
			errs []string
			wg   sync.WaitGroup
		)
		tick := time.NewTicker(time.Second / goodRate)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				wg.Wait()
				if len(errs) > 0 {
					b.Fatalf("%d good requests failed; the first: %s", len(errs), errs[0])
				}
				return lat
			case <-tick.C:
			}
			n := goodN.Add(1)
			wg.Go(func() {
				req, _ := http.NewRequest("POST", "http://"+addr+"/api/orders", strings.NewReader(floodBody))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Client", fmt.Sprintf("good-%d", n%goodClients))
				req.Header.Set("Idempotency-Key", "good-"+strconv.FormatInt(n, 10))
				start := time.Now()
				res, err := goods[n%goodClients].Do(req)
				var body []byte
				if err == nil {
					body, err = io.ReadAll(res.Body)
					res.Body.Close()
				}
				took := time.Since(start)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					errs = append(errs, err.Error())
				case res.StatusCode != 201:
					errs = append(errs, fmt.Sprintf("%d %.300s, want 201", res.StatusCode, body))
				default:
					lat = append(lat, took)
				}
			})
		}
	}
	flood := startFloodProcess(b, junkFlood{addr: addr, sources: []string{"127.0.0.2", "127.0.0.3"}, conns: *junkFloodConns, depth: *junkFloodDepth, headerBytes: config.DefaultMaxHeaderBytes}, clientCPU)
	type phase struct {
		name   string
		lat    []time.Duration
		junk   floodReport
		took   time.Duration
		cpu    time.Duration // the server's
		wait   time.Duration // the server's threads waited for a CPU (other processes had it)
		flood  time.Duration // the flood process's CPU
		allocs uint64        // heap bytes the server allocated
		gcs    uint64
		gcCPU  float64 // seconds
		live   uint64  // the server's live heap bytes at the phase's end
	}
	measure := func(p *phase, d time.Duration, cmd string) {
		if *junkFloodProfile != "" {
			if reply := server.command(b, "profile "+filepath.Join(*junkFloodProfile, p.name+".pprof")); reply != "profiling" {
				b.Fatalf("the server: %q, want profiling", reply)
			}
		}
		s0, u0, f0, start := server.stats(b), usageOf(b, server), usageOf(b, flood), time.Now()
		if cmd != "" {
			if reply := flood.command(b, cmd); reply != "flooding" {
				b.Fatalf("the flood client: %q, want flooding", reply)
			}
		}
		stop := make(chan struct{})
		time.AfterFunc(d, func() { close(stop) })
		p.lat = append(p.lat, good(stop)...)
		if cmd != "" {
			rep := flood.stop(b)
			if rep.Error != "" {
				b.Fatalf("junk request: %s", rep.Error)
			}
			p.junk.add(rep)
		}
		p.took += time.Since(start)
		s1 := server.stats(b)
		u1, f1 := usageOf(b, server), usageOf(b, flood)
		p.cpu += u1.cpu - u0.cpu
		p.wait += u1.wait - u0.wait
		p.flood += f1.cpu - f0.cpu
		p.allocs += s1.Allocs - s0.Allocs
		p.gcs += s1.GCs - s0.GCs
		p.gcCPU += s1.GCCPU - s0.GCCPU
		p.live = s1.Live
		if *junkFloodProfile != "" {
			if reply := server.command(b, "profile-stop"); reply != "profiled" {
				b.Fatalf("the server: %q, want profiled", reply)
			}
		}
	}
	floodFor := *junkFloodDuration
	quietFor := min(floodFor, 20*time.Second)
	quiet, flooded, control := phase{name: "quiet"}, phase{name: "flood"}, phase{name: "control"}
	b.ResetTimer()
	measure(&quiet, quietFor/2, "")
	measure(&flooded, floodFor, "new")
	measure(&control, quietFor, "one")
	after := phase{name: "after"}
	measure(&after, quietFor/2, "")
	b.StopTimer()
	quiet.lat = append(quiet.lat, after.lat...)
	quiet.took += after.took
	quiet.cpu += after.cpu
	quiet.wait += after.wait
	quiet.flood += after.flood
	quiet.allocs += after.allocs
	quiet.gcs += after.gcs
	quiet.gcCPU += after.gcCPU
	quiet.live = after.live

	q, f, c := p99(quiet.lat), p99(flooded.lat), p99(control.lat)
	b.ReportMetric(float64(q.Microseconds()), "quiet-p99-µs")
	b.ReportMetric(float64(f.Microseconds()), "flood-p99-µs")
	b.ReportMetric(float64(c.Microseconds()), "control-p99-µs")
	b.ReportMetric(float64(f)/float64(q), "flood/quiet")
	b.ReportMetric(float64(c)/float64(q), "control/quiet")
	b.ReportMetric(float64(flooded.junk.Sent)/flooded.took.Seconds(), "junk-req/s")
	// The server's CPU and heap bytes per junk request: the phase's less
	// what its good requests cost at the quiet phase's rate.
	perGood := float64(quiet.cpu) / float64(len(quiet.lat))
	perJunk := func(p phase) float64 {
		return (float64(p.cpu) - perGood*float64(len(p.lat))) / float64(max(p.junk.Sent, 1)) / 1e3
	}
	allocGood := float64(quiet.allocs) / float64(len(quiet.lat))
	allocJunk := func(p phase) float64 {
		return (float64(p.allocs) - allocGood*float64(len(p.lat))) / float64(max(p.junk.Sent, 1)) / 1024
	}
	b.ReportMetric(perJunk(flooded), "server-CPU-µs/junk")
	b.ReportMetric(allocJunk(flooded), "server-KiB/junk")
	b.Logf("p99 of an idempotent, rate-limited POST at %d/s: %s quiet; %s under junk keys of %d KB at full speed (%.2fx); %s under one such key per connection (%.2fx)",
		goodRate, q, f, config.DefaultMaxHeaderBytes>>10, float64(f)/float64(q), c, float64(c)/float64(q))
	for _, p := range []phase{quiet, flooded, control} {
		perRequest := ""
		if p.junk.Sent > 0 {
			perRequest = fmt.Sprintf("; %d junk (%.0f/s: %d created, %d refused past their share, %d rate limited; %d connections closed, %d requests dropped with them), each %.0f µs of server CPU, %.0f KiB allocated",
				p.junk.Sent, float64(p.junk.Sent)/p.took.Seconds(), p.junk.Created, p.junk.Refused, p.junk.Limited, p.junk.Closed, p.junk.Dropped, perJunk(p), allocJunk(p))
		}
		slow := func(d time.Duration) int {
			n := 0
			for _, l := range p.lat {
				if l >= d {
					n++
				}
			}
			return n
		}
		b.Logf("%-7s %d good over 10 ms, %d over 100 ms, %d over 1 s; max %s", p.name, slow(10*time.Millisecond), slow(100*time.Millisecond), slow(time.Second), slices.Max(p.lat))
		b.Logf("%-7s %5.1f s, %5d good (p50 %s, p99 %s)%s; server CPU %.0f%% (waited for it %.0f%%), %d GCs (GC CPU %.0f ms, live heap %.1f MiB at the end); flood process CPU %.0f%%",
			p.name, p.took.Seconds(), len(p.lat), p50(p.lat), p99(p.lat), perRequest, 100*p.cpu.Seconds()/p.took.Seconds(), 100*p.wait.Seconds()/p.took.Seconds(),
			p.gcs, p.gcCPU*1e3, float64(p.live)/(1<<20), 100*p.flood.Seconds()/p.took.Seconds())
	}
}

// usage is what a process of the benchmark has used so far: CPU time,
// and time its threads waited for a CPU while runnable.
type usage struct{ cpu, wait time.Duration }

func usageOf(tb testing.TB, p *floodProcess) usage {
	tb.Helper()
	cpu, err1 := processCPU(p.cmd.Process.Pid)
	wait, err2 := processWait(p.cmd.Process.Pid)
	if err := errors.Join(err1, err2); err != nil {
		tb.Fatalf("%s's CPU time: %v", p.name, err)
	}
	return usage{cpu, wait}
}

func p50(lat []time.Duration) time.Duration {
	s := slices.Clone(lat)
	slices.Sort(s)
	return s[len(s)/2]
}

// gcCounts are the garbage collector's counts so far, from
// runtime/metrics.
type gcCounts struct {
	allocs uint64 // bytes
	cycles uint64
	cpu    float64 // seconds, but for marking on idle processors
	live   uint64  // heap bytes live after the last cycle
}

func gcMetrics() gcCounts {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/cpu/classes/gc/total:cpu-seconds"},
		{Name: "/gc/heap/allocs:bytes"}, {Name: "/cpu/classes/gc/mark/idle:cpu-seconds"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	// Marking on otherwise idle processors takes no time from requests.
	return gcCounts{cycles: s[0].Value.Uint64(), cpu: s[1].Value.Float64() - s[3].Value.Float64(), allocs: s[2].Value.Uint64(), live: s[4].Value.Uint64()}
}
