package host_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/syncbuf"
)

// The junk-key flood of BenchmarkJunkKeyFlood comes from a process of its
// own, as an attack does: the test binary run again with floodClientEnv
// set to the server's address, as TestJunkFloodClient. Its requests are
// built once and a counter rewritten in place, so the flood itself
// allocates nothing per request; what the benchmark's process pays for
// is the server's work alone.
//
// The child reads commands from stdin, one a line, and answers on stdout
// in lines that begin with floodReplyPrefix:
//
//	new    flood with a new rate-limit key (X-Client) per request; answers "flooding"
//	one    flood with one X-Client value per connection; answers "flooding"
//	stop   stop the flood; answers the floodReport as JSON
//
// It exits when stdin closes.
const (
	floodClientEnv   = "ENDPOINTS_FLOOD_CLIENT" // the server's address
	floodReplyPrefix = "flood: "
	// The flood's settings, the fields of junkFlood.
	floodSourcesEnv     = "ENDPOINTS_FLOOD_SOURCES" // comma-separated
	floodConnsEnv       = "ENDPOINTS_FLOOD_CONNS"   // per source
	floodDepthEnv       = "ENDPOINTS_FLOOD_DEPTH"   // requests in flight per connection
	floodHeaderBytesEnv = "ENDPOINTS_FLOOD_HEADER_BYTES"
)

// floodReport is what a flood sent and what the server answered.
type floodReport struct {
	Sent    int64  // requests sent and answered
	Created int64  // answered 201
	Refused int64  // answered 429 IDEMPOTENCY_CLIENT_QUOTA: past the address's share
	Limited int64  // answered 429 by the rate limit: its X-Client's bucket was empty
	Closed  int64  // connections the server closed after an answer (Connection: close), then dialled again
	Dropped int64  // requests written on a connection the server closed before answering them
	Error   string // the first unexpected answer or connection error, which ends the flood
}

func (r *floodReport) add(o floodReport) {
	r.Sent += o.Sent
	r.Created += o.Created
	r.Refused += o.Refused
	r.Limited += o.Limited
	r.Closed += o.Closed
	r.Dropped += o.Dropped
	if r.Error == "" {
		r.Error = o.Error
	}
}

// junkFlood sends junk requests to POST /api/orders at full speed on
// conns connections (1 when zero) per local address of sources: on each,
// depth requests (1 when zero) written ahead of their answers (HTTP/1.1
// pipelining), the next as soon as the first is answered. Each request
// has an Idempotency-Key of its own, and an X-Client header as long as
// server.maxHeaderBytes allows (the whole header block is headerBytes).
type junkFlood struct {
	addr        string
	sources     []string
	conns       int
	depth       int
	headerBytes int
}

// junkRequest is one connection's request: its bytes, and where the
// counters of its X-Client value and its Idempotency-Key sit in them.
type junkRequest struct {
	raw             []byte
	clientAt, keyAt int // each is the offset of 16 hex digits
}

// floodBody is what each junk request sends: a valid order.
const floodBody = `{"item":"pen"}`

// newJunkRequest builds the request of the connection from source: its
// request line and headers take exactly headerBytes, the final CRLF
// included, the X-Client value filling what the others leave.
func newJunkRequest(addr, source string, headerBytes int) (junkRequest, error) {
	head := func(client string) string {
		return "POST /api/orders HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
			"Content-Length: " + strconv.Itoa(len(floodBody)) + "\r\n" +
			"Idempotency-Key: junk-" + source + "-0000000000000000\r\n" +
			"X-Client: " + client + "\r\n\r\n"
	}
	prefix := source + "-"
	fill := headerBytes - len(head(prefix+"0000000000000000"))
	if fill < 0 {
		return junkRequest{}, fmt.Errorf("a header block of %d bytes leaves no room for the X-Client value", headerBytes)
	}
	h := head(prefix + "0000000000000000" + strings.Repeat("x", fill))
	keyAt := strings.Index(h, "Idempotency-Key: junk-"+source+"-") + len("Idempotency-Key: junk-"+source+"-")
	clientAt := strings.Index(h, "X-Client: ") + len("X-Client: ") + len(prefix)
	return junkRequest{raw: []byte(h + floodBody), clientAt: clientAt, keyAt: keyAt}, nil
}

// putHex writes n as hex digits into b, right-aligned.
func putHex(b []byte, n uint64) {
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = "0123456789abcdef"[n&15]
		n >>= 4
	}
}

// flooder is a running flood: its connections stay open between floods.
type flooder struct {
	f     junkFlood
	conns []*floodConn
}

// floodConn is one keep-alive connection of the flood and its request,
// whose counter goes on across floods, so no key is sent twice.
type floodConn struct {
	dial func() (net.Conn, error) // another connection from the same address
	conn net.Conn
	r    *bufio.Reader
	req  junkRequest
	n    uint64
}

func newFlooder(f junkFlood) (*flooder, error) {
	fl := &flooder{f: f}
	for i := range len(f.sources) * max(f.conns, 1) {
		src := f.sources[i%len(f.sources)]
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
		c, err := d.Dial("tcp", f.addr)
		if err != nil {
			fl.close()
			return nil, fmt.Errorf("dialling %s from %s: %w", f.addr, src, err)
		}
		// Each connection's keys are its own: its local address and
		// port name it.
		local := c.LocalAddr().(*net.TCPAddr)
		req, err := newJunkRequest(f.addr, fmt.Sprintf("%s-%d", local.IP, local.Port), f.headerBytes)
		if err != nil {
			c.Close()
			fl.close()
			return nil, err
		}
		dial := func() (net.Conn, error) { return d.Dial("tcp", f.addr) }
		fl.conns = append(fl.conns, &floodConn{dial: dial, conn: c, r: bufio.NewReader(c), req: req})
	}
	return fl, nil
}

func (fl *flooder) close() {
	for _, c := range fl.conns {
		c.conn.Close()
	}
}

// flood sends requests on every connection at the flood's rate until stop
// closes; newKeys says each request has an X-Client value of its own.
func (fl *flooder) flood(newKeys bool, stop <-chan struct{}) floodReport {
	var (
		mu  sync.Mutex
		rep floodReport
		wg  sync.WaitGroup
	)
	for _, c := range fl.conns {
		wg.Go(func() {
			r, err := c.send(newKeys, fl.f.depth, stop)
			if err != nil {
				r.Error = err.Error()
			}
			mu.Lock()
			defer mu.Unlock()
			rep.add(r)
		})
	}
	wg.Wait()
	return rep
}

// send is one connection's share of a flood, until stop closes: up to
// depth requests written ahead of their answers (HTTP/1.1 pipelining;
// with depth 1, the next request once the previous one is answered).
// When the server closes the connection after an answer (Connection:
// close), it dials again from the same address and goes on; the requests
// written after that answer are dropped, and counted.
func (c *floodConn) send(newKeys bool, depth int, stop <-chan struct{}) (floodReport, error) {
	var rep floodReport
	if !newKeys {
		putHex(c.req.raw[c.req.clientAt:c.req.clientAt+16], 0)
	}
	for {
		closed, err := c.session(newKeys, depth, stop, &rep)
		if err != nil || !closed {
			return rep, err
		}
		rep.Closed++
		conn, err := c.dial()
		if err != nil {
			return rep, fmt.Errorf("dialling again after the server closed: %w", err)
		}
		c.conn, c.r = conn, bufio.NewReader(conn)
	}
}

// session floods on c's connection until stop closes (closed false) or
// the server closes it after an answer (closed true).
func (c *floodConn) session(newKeys bool, depth int, stop <-chan struct{}, rep *floodReport) (closed bool, err error) {
	// The writer takes a slot for each request it writes and tells the
	// reader; the reader frees it once the answer is read.
	slots, sent := make(chan struct{}, max(depth, 1)), make(chan uint64, max(depth, 1))
	quit := make(chan struct{}) // the reader is done
	var werr error              // the writer's, read once sent is closed
	go func() {
		defer close(sent)
		for {
			select {
			case <-stop:
				return
			case <-quit:
				return
			case slots <- struct{}{}:
			}
			c.n++
			putHex(c.req.raw[c.req.keyAt:c.req.keyAt+16], c.n)
			if newKeys {
				putHex(c.req.raw[c.req.clientAt:c.req.clientAt+16], c.n)
			}
			if _, err := c.conn.Write(c.req.raw); err != nil {
				werr = fmt.Errorf("request %d: %w", c.n, err)
				return
			}
			select {
			case <-quit:
				return
			case sent <- c.n:
			}
		}
	}()
	defer func() {
		close(quit)
		if closed || err != nil {
			c.conn.Close() // ends a write the server no longer reads
		}
		for range sent {
			rep.Dropped++
		}
		if closed {
			werr = nil // a write to the connection closed
		}
		if err == nil {
			err = werr
		}
	}()
	body := make([]byte, 0, 1024)
	for n := range sent {
		res, err := http.ReadResponse(c.r, nil)
		if err != nil {
			return false, fmt.Errorf("request %d: reading the answer: %w", n, err)
		}
		body, err = readSome(body[:0], res.Body)
		res.Body.Close()
		if err != nil {
			return false, fmt.Errorf("request %d: reading the answer's body: %w", n, err)
		}
		rep.Sent++
		switch {
		case res.StatusCode == http.StatusCreated:
			rep.Created++
		case res.StatusCode == http.StatusTooManyRequests && bytes.Contains(body, []byte("IDEMPOTENCY_CLIENT_QUOTA")):
			rep.Refused++ // past its address's share: expected
		case res.StatusCode == http.StatusTooManyRequests && res.Header.Get("Retry-After") != "" && res.Header.Get("RateLimit") != "" && bytes.Contains(body, []byte(`"policy"`)):
			rep.Limited++ // its X-Client's bucket is empty: expected when one key is sent many times
		default:
			return false, fmt.Errorf("request %d: got %d %.200s, want 201, or 429 IDEMPOTENCY_CLIENT_QUOTA past its share, or 429 from the rate limit", n, res.StatusCode, body)
		}
		if res.Close {
			return true, nil
		}
		// Freed only now: freed before the answer's Connection: close
		// was seen, the writer could write the next request on the
		// closing connection even with depth 1, which then counted as
		// dropped.
		<-slots
	}
	return false, nil
}

// readSome reads r into b, up to b's capacity, and drops the rest.
func readSome(b []byte, r io.Reader) ([]byte, error) {
	for len(b) < cap(b) {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	_, err := io.Copy(io.Discard, r)
	return b, err
}

// serveFloodCommands is the flood client's side of the protocol above.
func serveFloodCommands(fl *flooder, in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	var (
		stop chan struct{}
		done chan floodReport
	)
	for sc.Scan() {
		switch cmd := sc.Text(); cmd {
		case "new", "one":
			if stop != nil {
				return errors.New("a flood is already running")
			}
			stop, done = make(chan struct{}), make(chan floodReport, 1)
			go func() { done <- fl.flood(cmd == "new", stop) }()
			fmt.Fprintln(out, floodReplyPrefix+"flooding")
		case "stop":
			if stop == nil {
				return errors.New("stop: no flood is running")
			}
			close(stop)
			b, _ := json.Marshal(<-done)
			stop = nil
			fmt.Fprintln(out, floodReplyPrefix+string(b))
		default:
			return fmt.Errorf("unknown command %q", cmd)
		}
	}
	return sc.Err()
}

// floodProcess is the parent's handle on a process of the benchmark: the
// flood client, or the server (floodserver_test.go).
type floodProcess struct {
	name string
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Scanner
}

// startFloodProcess runs the flood client of f in a process of its own:
// the test binary again, as TestJunkFloodClient with floodClientEnv set,
// bound to CPU cpu unless it is negative. It ends when the test does.
func startFloodProcess(tb testing.TB, f junkFlood, cpu int) *floodProcess {
	tb.Helper()
	return startTestProcess(tb, "the flood client", "TestJunkFloodClient", cpu,
		floodClientEnv+"="+f.addr,
		floodSourcesEnv+"="+strings.Join(f.sources, ","),
		floodConnsEnv+"="+strconv.Itoa(max(f.conns, 1)),
		floodDepthEnv+"="+strconv.Itoa(max(f.depth, 1)),
		floodHeaderBytesEnv+"="+strconv.Itoa(f.headerBytes))
}

// startTestProcess runs the test binary again as the test named test,
// with env added to this process's environment, bound to CPU cpu unless
// it is negative; it speaks the protocol of serveFloodCommands' kind on
// its stdin and stdout, and ends when its stdin closes, at the end of the
// test.
func startTestProcess(tb testing.TB, name, test string, cpu int, env ...string) *floodProcess {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if cpu >= 0 {
		err = startOnCPU(cmd, cpu)
	} else {
		err = cmd.Start()
	}
	if err != nil {
		tb.Fatalf("starting %s: %v", name, err)
	}
	p := &floodProcess{name: name, cmd: cmd, in: in, out: bufio.NewScanner(out)}
	tb.Cleanup(func() {
		in.Close()
		if err := cmd.Wait(); err != nil {
			tb.Errorf("%s: %v", name, err)
		}
	})
	return p
}

// command sends cmd and returns the reply. The child's other output (its
// test's failure, say) is kept for the failure message.
func (p *floodProcess) command(tb testing.TB, cmd string) string {
	tb.Helper()
	if _, err := fmt.Fprintln(p.in, cmd); err != nil {
		tb.Fatalf("%s: %s: %v", p.name, cmd, err)
	}
	var other strings.Builder
	for p.out.Scan() {
		if reply, ok := strings.CutPrefix(p.out.Text(), floodReplyPrefix); ok {
			return reply
		}
		fmt.Fprintln(&other, p.out.Text())
	}
	tb.Fatalf("%s ended without answering %s: %v\n%s", p.name, cmd, p.out.Err(), other.String())
	return ""
}

// stop ends the running flood and returns its report.
func (p *floodProcess) stop(tb testing.TB) floodReport {
	tb.Helper()
	var rep floodReport
	if reply := p.command(tb, "stop"); json.Unmarshal([]byte(reply), &rep) != nil {
		tb.Fatalf("%s's report: %q is not JSON", p.name, reply)
	}
	return rep
}

// TestJunkFloodClient checks the flood client of BenchmarkJunkKeyFlood:
// its header blocks take exactly config.DefaultMaxHeaderBytes and parse,
// each request has a new Idempotency-Key, and a new X-Client value each
// with "new" and one per connection with "one". Run by the benchmark with
// floodClientEnv set, it is that client.
func TestJunkFloodClient(t *testing.T) {
	if addr := os.Getenv(floodClientEnv); addr != "" {
		runFloodChild(t, addr)
		return
	}
	t.Parallel()
	var (
		mu      sync.Mutex
		clients map[string]map[string]bool // X-Client values by connection (the order the server accepted it in)
		counts  map[string]int             // requests by connection
		sources map[string]bool            // the connections' source addresses
		keys    map[string]bool            // Idempotency-Keys
		wrong   []string                   // X-Client values whose length fills no header block of f.headerBytes
		closing bool                       // every fifth request on a connection answers Connection: close
	)
	seen := make(chan struct{}, 1000)
	// Connections are told apart by the order they were accepted in, not
	// their addresses: a port is dialled again once its connection closed.
	type connKey struct{}
	var accepted atomic.Int64
	srv := &http.Server{MaxHeaderBytes: config.DefaultMaxHeaderBytes, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		src, port, _ := net.SplitHostPort(r.RemoteAddr)
		conn := fmt.Sprintf("connection %d (%s)", r.Context().Value(connKey{}), r.RemoteAddr)
		mu.Lock()
		if clients[conn] == nil {
			clients[conn] = map[string]bool{}
		}
		clients[conn][r.Header.Get("X-Client")] = true
		counts[conn]++
		sources[src] = true
		keys[r.Header.Get("Idempotency-Key")] = true
		// The connection's requests are built for its local address
		// and port: their header block takes f.headerBytes.
		if want := junkValueLen(t, r.Host, src+"-"+port); len(r.Header.Get("X-Client")) != want {
			wrong = append(wrong, fmt.Sprintf("%s: %d bytes, want %d", conn, len(r.Header.Get("X-Client")), want))
		}
		if closing && counts[conn]%5 == 0 {
			w.Header().Set("Connection", "close")
		}
		mu.Unlock()
		if string(body) != floodBody {
			http.Error(w, "body "+string(body), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusCreated)
		select {
		case seen <- struct{}{}:
		default: // the test has seen enough; the flood goes on until it stops
		}
	})}
	srv.ConnContext = func(ctx context.Context, _ net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, accepted.Add(1))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	f := junkFlood{addr: ln.Addr().String(), sources: []string{"127.0.0.2", "127.0.0.3"}, conns: 2, headerBytes: config.DefaultMaxHeaderBytes}

	req, err := newJunkRequest(f.addr, "127.0.0.2", f.headerBytes)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Index(req.raw, []byte("\r\n\r\n")) + 4; n != f.headerBytes {
		t.Errorf("the header block takes %d bytes, want %d", n, f.headerBytes)
	}

	const perConn = 20
	nconns := len(f.sources) * f.conns
	for _, c := range []struct {
		newKeys bool
		depth   int
		closing bool // the server closes connections: the flood dials again
	}{{false, 1, false}, {true, 1, false}, {false, 4, false}, {true, 4, false}, {true, 1, true}, {false, 4, true}} {
		cmd := map[bool]string{false: "one", true: "new"}[c.newKeys]
		newKeys := c.newKeys
		t.Run(fmt.Sprintf("%s/depth=%d/closing=%v", cmd, c.depth, c.closing), func(t *testing.T) {
			f := f
			f.depth = c.depth
			fl, err := newFlooder(f)
			if err != nil {
				t.Fatal(err)
			}
			defer fl.close()
			for len(seen) > 0 {
				<-seen // answered after the previous flood's count was reached
			}
			mu.Lock()
			clients, counts, sources, keys, wrong, closing = map[string]map[string]bool{}, map[string]int{}, map[string]bool{}, map[string]bool{}, nil, c.closing
			mu.Unlock()
			var out syncbuf.Buffer
			in, commands := io.Pipe()
			done := make(chan error, 1)
			go func() { done <- serveFloodCommands(fl, in, &out) }()
			fmt.Fprintln(commands, cmd)
			for range perConn * nconns {
				<-seen
			}
			fmt.Fprintln(commands, "stop")
			commands.Close()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			replies := strings.Split(strings.TrimSpace(out.String()), "\n")
			var rep floodReport
			if len(replies) != 2 || replies[0] != floodReplyPrefix+"flooding" ||
				json.Unmarshal([]byte(strings.TrimPrefix(replies[1], floodReplyPrefix)), &rep) != nil {
				t.Fatalf("replies %q, want flooding, then a JSON report", replies)
			}
			mu.Lock()
			defer mu.Unlock()
			total := 0
			for _, n := range counts {
				total += n
			}
			if rep.Error != "" || rep.Sent != int64(total) || rep.Created != rep.Sent || total < perConn*nconns {
				t.Errorf("report %+v; the server answered %d requests, want them all sent and created, no error", rep, total)
			}
			if c.closing {
				// Each connection closed after its fifth answer, and the
				// flood dialled again (the last ones may have been dialled
				// as it stopped); what it had written after that answer,
				// at most depth-1 requests, was dropped, and counted.
				if rep.Closed == 0 || len(clients) <= nconns || len(clients) > nconns+int(rep.Closed) || rep.Dropped > int64(c.depth-1)*rep.Closed {
					t.Errorf("%d connections, report %+v; want more than the %d the flood dialled, at most one more for each closed, at most %d requests dropped with each", len(clients), rep, nconns, c.depth-1)
				}
			} else if len(clients) != nconns {
				t.Errorf("requests on %d connections, want %d", len(clients), nconns)
			}
			if len(sources) != len(f.sources) {
				t.Errorf("requests from %d addresses, want %d", len(sources), len(f.sources))
			}
			for conn, values := range clients {
				if want := map[bool]int{false: 1, true: counts[conn]}[newKeys]; len(values) != want {
					t.Errorf("%s sent %d X-Client values in %d requests, want %d", conn, len(values), counts[conn], want)
				}
			}
			if len(keys) != total {
				t.Errorf("%d Idempotency-Keys in %d requests, want one each", len(keys), total)
			}
			if len(wrong) > 0 {
				t.Errorf("%d X-Client values of the wrong length; the first: %s", len(wrong), wrong[0])
			}
		})
	}
}

// junkValueLen is the length of the X-Client value in the requests of
// newJunkRequest(addr, source, config.DefaultMaxHeaderBytes).
func junkValueLen(t *testing.T, addr, source string) int {
	req, err := newJunkRequest(addr, source, config.DefaultMaxHeaderBytes)
	if err != nil {
		t.Error(err)
		return 0
	}
	at := bytes.Index(req.raw, []byte("X-Client: ")) + len("X-Client: ")
	return bytes.Index(req.raw[at:], []byte("\r\n"))
}

// runFloodChild is TestJunkFloodClient run as the benchmark's flood
// client.
func runFloodChild(t *testing.T, addr string) {
	headerBytes, err1 := strconv.Atoi(os.Getenv(floodHeaderBytesEnv))
	conns, err2 := strconv.Atoi(os.Getenv(floodConnsEnv))
	depth, err3 := strconv.Atoi(os.Getenv(floodDepthEnv))
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatalf("the flood client's settings: %v", err)
	}
	fl, err := newFlooder(junkFlood{addr: addr, sources: strings.Split(os.Getenv(floodSourcesEnv), ","), conns: conns, depth: depth, headerBytes: headerBytes})
	if err != nil {
		t.Fatal(err)
	}
	defer fl.close()
	if err := serveFloodCommands(fl, os.Stdin, os.Stdout); err != nil {
		t.Fatal(err)
	}
}
