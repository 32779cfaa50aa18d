package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host/internal/abihost"
)

// waitingCall is a Call that is a Waiter: it records what Get waited for
// it, and signals when Get asks for its Stopped channel, which it does
// only when it is about to wait.
type waitingCall struct {
	context.Context
	waiting              chan struct{} // gets a value each time Get is about to wait
	mu                   sync.Mutex
	codeWaits, instWaits int
}

func (c *waitingCall) Expired() bool                 { return false }
func (c *waitingCall) Loading() bool                 { return false }
func (c *waitingCall) LoadTimeout() time.Duration    { return 0 }
func (c *waitingCall) GuestOutput([]byte)            {}
func (c *waitingCall) SetMemory(ctx context.Context) {}
func (c *waitingCall) ClearMemory()                  {}
func (c *waitingCall) Stopped() <-chan struct{} {
	select {
	case c.waiting <- struct{}{}:
	default:
	}
	return nil
}
func (c *waitingCall) WaitedForCode(time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.codeWaits++
}
func (c *waitingCall) WaitedForInstance(time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.instWaits++
}
func (c *waitingCall) Value(key any) any {
	if _, ok := key.(abihost.CallKey); ok {
		return c
	}
	return c.Context.Value(key)
}

// deferredPool is a pool of one parked instance whose deferred code is
// loading, as far as Get can tell, until the test closes done.
func deferredPool(size int) (*Pool, chan struct{}) {
	p := newPool(&Engine{}, nil, "server/api/late.get.wasm", size)
	p.deferred = &deferredCode{done: make(chan struct{})}
	p.deferred.start.Do(func() {}) // its load is under way elsewhere
	p.Park(&Instance{sys: &guestSys{}})
	return p, p.deferred.done
}

// TestGetWaitsForCodeWithinTheDeadline: a request that finds its module's
// code still loading waits for it at most until its deadline, then fails
// saying so (the load goes on): it waited past its deadline, for as long
// as the load took, and the handler was then stopped at once, read as a
// slow handler. Code that loads while it waits is reported to the call
// (Waiter.WaitedForCode), which gives that wait back to the handler; so is
// a wait for a free instance, which the failure's reason then names.
func TestGetWaitsForCodeWithinTheDeadline(t *testing.T) {
	t.Run("code that does not load by the deadline", func(t *testing.T) {
		p, _ := deferredPool(1)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		// Done is the request's (its client's), not the deadline's: Get
		// must watch the deadline itself, as the host's call asks.
		c := &waitingCall{Context: noDone{ctx}, waiting: make(chan struct{}, 1)}
		got := make(chan error, 1)
		go func() {
			_, err := p.Get(c)
			got <- err
		}()
		select {
		case err := <-got:
			if loading := (*CodeLoadingError)(nil); !errors.As(err, &loading) || !strings.Contains(err.Error(), "did not load within the request's deadline") {
				t.Errorf("Get = %v, want the deadline's *CodeLoadingError", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Get still waits for the code 10s after its 30ms deadline")
		}
	})
	t.Run("code that loads while it waits", func(t *testing.T) {
		p, done := deferredPool(1)
		c := &waitingCall{Context: context.Background(), waiting: make(chan struct{}, 1)}
		go func() {
			<-c.waiting
			close(done)
		}()
		in, err := p.Get(c)
		if err != nil {
			t.Fatal(err)
		}
		p.Put(context.Background(), in, true)
		if c.codeWaits != 1 || c.instWaits != 0 {
			t.Errorf("waits reported: code %d, instance %d; want 1, 0", c.codeWaits, c.instWaits)
		}
	})
	t.Run("a wait for a free instance", func(t *testing.T) {
		p, done := deferredPool(1)
		close(done)
		p.slots <- struct{}{} // the only slot is taken
		c := &waitingCall{Context: context.Background(), waiting: make(chan struct{}, 1)}
		go func() {
			<-c.waiting
			<-p.slots
		}()
		in, err := p.Get(c)
		if err != nil {
			t.Fatal(err)
		}
		p.Put(context.Background(), in, true)
		if c.codeWaits != 0 || c.instWaits != 1 {
			t.Errorf("waits reported: code %d, instance %d; want 0, 1", c.codeWaits, c.instWaits)
		}
	})
}

// noDone is a context whose Done never fires, with its deadline: the
// host's call, whose Done is its client's and whose deadline its clock's.
type noDone struct{ context.Context }

func (noDone) Done() <-chan struct{} { return nil }
func (noDone) Err() error            { return nil }
