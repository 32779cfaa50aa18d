package host_test

import (
	"bytes"
	"io"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/storage"
)

// holdInstances serves n requests to a readOneByte route at once and
// returns once every one of them is inside its guest; release ends them.
func holdInstances(t *testing.T, h *host.Host, path string, n int) (release func()) {
	t.Helper()
	var wg sync.WaitGroup
	writers := make([]*io.PipeWriter, n)
	for i := range n {
		pr, pw := io.Pipe()
		writers[i] = pw
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", path, pr))
		}()
	}
	for _, pw := range writers {
		// An io.Pipe write returns once the guest's body_read took the
		// byte: that call holds an instance until its body ends.
		if _, err := pw.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		for _, pw := range writers {
			pw.Close()
		}
		wg.Wait()
	}
}

// TestIdleInstancesBeyondOneAreClosed: after a burst filled the pool, a
// sweep closes the instances idle for longer than the idle timeout, keeps
// the most recently used one, and leaves younger ones alone.
func TestIdleInstancesBeyondOneAreClosed(t *testing.T) {
	const file = "server/routes/hold.post.wasm"
	h, _ := newApp(t).
		wat(file, watModule{handle: readOneByte}).
		host(host.Options{Limits: config.Limits{Instances: 4, InstanceIdleTimeout: config.Duration(time.Minute)}})

	holdInstances(t, h, "/hold", 4)()
	if got := h.IdleInstances(file); got != 4 {
		t.Fatalf("after a burst of 4: %d idle instances, want 4", got)
	}
	if n := h.Sweep(time.Now()); n != 0 || h.IdleInstances(file) != 4 {
		t.Fatalf("a sweep before the idle timeout closed %d, left %d idle; want 0 and 4", n, h.IdleInstances(file))
	}
	if n := h.Sweep(time.Now().Add(2 * time.Minute)); n != 3 || h.IdleInstances(file) != 1 {
		t.Fatalf("a sweep past the idle timeout closed %d, left %d idle; want 3 and 1", n, h.IdleInstances(file))
	}
	if n := h.Sweep(time.Now().Add(time.Hour)); n != 0 || h.IdleInstances(file) != 1 {
		t.Fatalf("the warm instance: a later sweep closed %d, left %d idle; want 0 and 1", n, h.IdleInstances(file))
	}
	if res := serveBody(h, "/hold", "y"); res.Code != 200 {
		t.Fatalf("after the sweeps: got %d, want 200", res.Code)
	}
}

// TestJanitorSweepsAtEachTick drives the janitor's loop with a clock of
// the test's own.
func TestJanitorSweepsAtEachTick(t *testing.T) {
	const file = "server/routes/hold.post.wasm"
	h, _ := newApp(t).
		wat(file, watModule{handle: readOneByte}).
		host(host.Options{Limits: config.Limits{Instances: 3}})
	holdInstances(t, h, "/hold", 3)()
	tick := make(chan time.Time)
	stop := h.RunJanitor(tick)
	tick <- time.Now().Add(config.DefaultInstanceIdleTimeout + time.Second)
	stop() // returns once the sweep of that tick ended
	if got := h.IdleInstances(file); got != 1 {
		t.Errorf("after a tick past the default idle timeout: %d idle instances, want 1", got)
	}
}

func serveBody(h *host.Host, path, body string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", path, bytes.NewReader([]byte(body))))
	return rec
}

// sweptStore counts the janitor's sweeps of a memory store.
type sweptStore struct {
	*storage.Memory
	sweeps atomic.Int64
}

func (s *sweptStore) Sweep() { s.sweeps.Add(1); s.Memory.Sweep() }

// TestJanitorSweepsTheStore: the janitor's sweep drops the store's expired
// entries too, so an idle memory store gives them back without traffic.
func TestJanitorSweepsTheStore(t *testing.T) {
	store := &sweptStore{Memory: storage.NewMemory(storage.MemoryOptions{})}
	t.Cleanup(func() { store.Close() })
	h, _ := newApp(t).wat("server/api/ok.get.wasm", watModule{handle: plainOK, extra: okData}).host(host.Options{Store: store})
	h.Sweep(time.Now())
	h.Sweep(time.Now())
	if got := store.sweeps.Load(); got != 2 {
		t.Errorf("two janitor sweeps swept the store %d times, want 2", got)
	}
}
