package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/storage/storagetest"
)

// orderWAT is POST /api/orders: it logs "order handler ran", counts down
// from spins (orderSpins: a few milliseconds, so that concurrent requests
// overlap) and answers 201.
func orderWAT(spins int) string {
	return fmt.Sprintf(`(module
  (import "endpoints" "response_set_status" (func $set_status (param i32) (result i32)))
  (import "endpoints" "response_write" (func $write (param i32 i32) (result i32)))
  (import "endpoints" "log" (func $log (param i32 i32 i32)))
  (memory (export "memory") 2)
  (data (i32.const 1024) "{\"request\":{\"body\":{\"schema\":{\"type\":\"object\"}}},\"responses\":{\"201\":{\"schema\":{\"type\":\"object\"}}},\"idempotency\":{\"required\":true}}")
  (data (i32.const 2048) "order handler ran")
  (data (i32.const 2100) "{\"created\":true}")
  (func (export "endpoints_abi_version") (result i32) (i32.const 1))
  (func (export "endpoints_contract") (result i64) (i64.const 0x0000040000000082))
  (func (export "endpoints_handle") (result i32) (local $n i32)
    (call $log (i32.const 1) (i32.const 2048) (i32.const 17))
    (local.set $n (i32.const %d))
    (block $done (loop $spin
      (br_if $done (i32.eqz (local.get $n)))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br $spin)))
    (drop (call $set_status (i32.const 201)))
    (drop (call $write (i32.const 2100) (i32.const 16)))
    (i32.const 0)))
`, spins)
}

// orderSpins is how long orderWAT spins when requests must overlap: some
// milliseconds compiled; in the interpreter a host serves with while it
// compiles, past the 10 s deadline under the race detector.
const orderSpins = 20000000

// process is one `endpoints serve` process of the test.
type process struct {
	url    string
	logs   *syncBuffer // standard error
	stdout *syncBuffer
}

// startServe runs the endpoints binary on app and waits until it listens.
func startServe(t *testing.T, bin, app string) *process {
	t.Helper()
	return startServeWith(t, bin, app, nil, "--cache-dir", filepath.Join(t.TempDir(), "cache"))
}

// startServeWith runs `endpoints serve app` with more environment
// variables and arguments, and waits until it listens.
func startServeWith(t *testing.T, bin, app string, env []string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", app, "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	logs, stdout := &syncBuffer{}, &syncBuffer{}
	cmd.Stderr = logs
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		re := regexp.MustCompile(`listening on (http://\S+)`)
		for sc.Scan() {
			stdout.Write(append(sc.Bytes(), '\n'))
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case url := <-found:
		return &process{url: url, logs: logs, stdout: stdout}
	case <-time.After(30 * time.Second):
		t.Fatalf("endpoints serve did not start:\n%s", logs.String())
		return nil
	}
}

// ordersApp writes an app whose one route is orderWAT's POST /api/orders,
// and builds the endpoints binary beside it.
func ordersApp(t *testing.T) (app, bin string) {
	t.Helper()
	needTool(t, "wat2wasm")
	dir := t.TempDir()
	app = filepath.Join(dir, "app")
	src := filepath.Join(dir, "orders.wat")
	if err := os.WriteFile(src, []byte(orderWAT(orderSpins)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := guestbuild.WAT(context.Background(), src, filepath.Join(app, "server/api/orders.post.wasm")); err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(dir, "endpoints")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return app, bin
}

// postOrder sends POST /api/orders with an Idempotency-Key.
func postOrder(t *testing.T, url, key string) (int, string, http.Header) {
	req, err := http.NewRequest("POST", url+"/api/orders", strings.NewReader(`{"item":"pen"}`))
	if err != nil {
		t.Error(err)
		return 0, "", nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, "", nil
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body), res.Header
}

// TestTwoHostsShareOneRedis runs two `endpoints serve` processes of one app
// on one real redis-server: a key sent 200 times at once, spread over both,
// runs its handler exactly once; while Redis is down both answer 503 and
// nothing runs; when it returns they serve again.
func TestTwoHostsShareOneRedis(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts redis-server and two endpoints processes")
	}
	redisURL, stopRedis, restartRedis := storagetest.StartRedis(t)
	needTool(t, "wat2wasm")

	app, bin := ordersApp(t)
	config := fmt.Sprintf(`{"storage": {"driver": "redis", "url": %q}}`, redisURL)
	if err := os.WriteFile(filepath.Join(app, "endpoints.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	hosts := []*process{startServe(t, bin, app), startServe(t, bin, app)}
	// ran counts the handler's runs from the processes' logs, which reach
	// us through pipes, later than the answers. Call it once every request
	// sent so far was answered: it sends each process one more request
	// and waits for that request's log line, which the process writes
	// after it answered it, so after the line of every run of the requests
	// answered before (a pipe keeps the order). The count is then final: a
	// run too many shows, and no run can come later, since handlers run
	// only for requests.
	marks := 0
	ran := func(t *testing.T) int {
		t.Helper()
		marks++
		for _, h := range hosts {
			path := fmt.Sprintf("/mark-%d", marks)
			res, err := http.Get(h.url + path)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if !waitUntil(t, 10*time.Second, func() bool { return strings.Contains(h.logs.String(), `msg="GET `+path+`"`) }) {
				t.Fatalf("the log of %s does not show GET %s after 10 s:\n%s", h.url, path, h.logs.String())
			}
		}
		n := 0
		for _, h := range hosts {
			n += strings.Count(h.logs.String(), `msg="order handler ran"`)
		}
		return n
	}

	t.Run("200 concurrent requests with one key run the handler once", func(t *testing.T) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		answers := map[string]int{}
		for i := range 200 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				status, body, h := postOrder(t, hosts[i%2].url, "order-1")
				key := fmt.Sprintf("%d %s replayed=%s", status, body, h.Get("Idempotent-Replayed"))
				if status == 409 {
					var p struct{ Code string }
					_ = json.Unmarshal([]byte(body), &p)
					key = "409 " + p.Code
				}
				mu.Lock()
				answers[key]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		t.Logf("answers: %v", answers)
		if n := ran(t); n != 1 {
			t.Errorf("the handler ran %d times, want 1; answers %v", n, answers)
		}
		for a, n := range answers {
			switch a {
			case `201 {"created":true} replayed=`:
				if n != 1 {
					t.Errorf("%d first answers, want 1 (answers %v)", n, answers)
				}
			case `201 {"created":true} replayed=true`, "409 IDEMPOTENCY_REQUEST_IN_FLIGHT":
			default:
				t.Errorf("unexpected answer %q ×%d", a, n)
			}
		}
		// Both hosts now replay the one answer.
		for _, h := range hosts {
			if status, body, hdr := postOrder(t, h.url, "order-1"); status != 201 || body != `{"created":true}` || hdr.Get("Idempotent-Replayed") != "true" {
				t.Errorf("retry on %s = %d %s replayed=%q, want the replay", h.url, status, body, hdr.Get("Idempotent-Replayed"))
			}
		}
		if n := ran(t); n != 1 {
			t.Errorf("the handler ran %d times, want 1", n)
		}
	})

	t.Run("Redis down: 503, nothing runs; back: served again", func(t *testing.T) {
		before := ran(t)
		stopRedis()
		for _, h := range hosts {
			status, body, hdr := postOrder(t, h.url, "order-2")
			if status != 503 || hdr.Get("Retry-After") == "" || !strings.Contains(body, "IDEMPOTENCY_STORE_UNAVAILABLE") {
				t.Errorf("with Redis down: %d %s, want 503 IDEMPOTENCY_STORE_UNAVAILABLE with Retry-After", status, body)
			}
			// The child's log reaches us through a pipe, later than the answer.
			if !waitUntil(t, 5*time.Second, func() bool { return strings.Contains(h.logs.String(), "the idempotency store failed") }) {
				t.Errorf("the log does not say why:\n%s", h.logs.String())
			}
		}
		if n := ran(t); n != before {
			t.Errorf("the handler ran %d times while Redis was down", n-before)
		}
		restartRedis()
		status, _, _ := postOrder(t, hosts[0].url, "order-2")
		again, _, hdr := postOrder(t, hosts[1].url, "order-2")
		if status != 201 || again != 201 || hdr.Get("Idempotent-Replayed") != "true" {
			t.Errorf("after Redis returned: %d, then %d replayed=%q; want 201, then the replay", status, again, hdr.Get("Idempotent-Replayed"))
		}
		if n := ran(t); n != before+1 {
			t.Errorf("the handler ran %d times after Redis returned, want 1", n-before)
		}
	})
}

// needTool skips the test when a tool is missing, or fails it in CI, which
// installs it.
func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is required in CI", name)
		}
		t.Skipf("%s not installed", name)
	}
}
