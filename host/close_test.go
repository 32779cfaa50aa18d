package host_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// readOneByte is a plain route that reads its body with a 16-byte buffer
// and answers 200: it stays in body_read until the body ends, which lets a
// test hold an instance for as long as it likes.
const readOneByte = `(drop (call $body_read (i32.const 65536) (i32.const 16))) (i32.const 0)`

// signalWriter closes seen the first time a line containing want is
// written to it.
type signalWriter struct {
	want string
	seen chan struct{}
	once sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// TestCloseStopsRunningGuests closes the host while guests spin: Close
// stops them and waits for their calls before it closes the runtime, which
// unmaps their memory; they are answered 503, and nothing crashes.
func TestCloseStopsRunningGuests(t *testing.T) {
	data, _ := watWrite(2048, "spinning")
	spin := `(call $log (i32.const 1) (i32.const 2048) (i32.const 8))
    (loop $forever (i32.store (i32.const 4096) (i32.const 1)) (br $forever)) (i32.const 0)`
	const guests = 3
	seen := &signalWriter{want: "spinning", seen: make(chan struct{})}
	a := newApp(t).wat("server/api/spin.get.wasm", watModule{contract: `{"summary":"spins"}`, handle: spin, extra: data})
	h, err := host.New(context.Background(), a.dir, host.Options{
		CacheDir: testCacheDir(t),
		Logger:   slog.New(slog.NewTextHandler(seen, nil)),
		Limits:   config.Limits{Instances: guests, Timeout: config.Duration(time.Hour)},
	})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	codes := make(chan int, guests)
	for range guests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/spin", nil))
			codes <- rec.Code
		}()
	}
	<-seen.seen // at least one guest spins; the others are on their way
	if err := h.Close(context.Background()); err != nil {
		t.Errorf("Close = %v, want nil: spinning guests stop at their next interrupt check", err)
	}
	wg.Wait()
	close(codes)
	for code := range codes {
		if code != 503 && code != 404 {
			t.Errorf("a request in flight at Close got %d, want 503 (stopped, or refused an instance) or 404 (routed after Close)", code)
		}
	}
	if report := h.Reload(context.Background()); len(report.Problems) != 1 || !strings.Contains(report.Problems[0].Error(), "closed") {
		t.Errorf("Reload after Close = %+v, want one problem saying the host is closed", report)
	}
}

// TestCloseLeavesCallsInHostFunctionsTheRuntime: a call blocked in a host
// function (reading a body that does not come) cannot be stopped by the
// interrupt check. Close returns when its context ends, saying so, and the
// runtime is closed when that call gives its instance back.
func TestCloseLeavesCallsInHostFunctionsTheRuntime(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t).
		wat("server/routes/hold.post.wasm", watModule{handle: readOneByte}).
		host(host.Options{})
	pr, pw := io.Pipe()
	done := make(chan int)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/hold", pr))
		done <- rec.Code
	}()
	if _, err := pw.Write([]byte("x")); err != nil { // the guest is in body_read
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := h.Close(ctx)
	if err == nil || !strings.Contains(err.Error(), "1 call(s) still in host functions") {
		t.Errorf("Close with a call in body_read = %v, want an error saying one call is still in a host function", err)
	}
	select {
	case <-h.Drained():
		t.Fatal("drained while a call still holds its instance")
	default:
	}
	pw.Close()
	if code := <-done; code != 200 && code != 503 {
		t.Errorf("the call blocked at Close got %d, want 200 (it finished) or 503", code)
	}
	<-h.Drained()
	if err := h.Close(context.Background()); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("a second Close = %v, want nil", err)
	}
}
