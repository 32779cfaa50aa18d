package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestPoolWaitEndsAtTheDeadline: when every instance is taken (here by a
// holder that outlives its own deadline, as a plain route blocked writing to
// a slow client can), a waiter gives up at its deadline instead of waiting
// forever.
func TestPoolWaitEndsAtTheDeadline(t *testing.T) {
	p := newPool(&Engine{}, nil, "server/api/busy.get.wasm", 1)
	p.slots <- struct{}{} // the only slot is held
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := p.Get(ctx)
	if err == nil || !strings.Contains(err.Error(), "server/api/busy.get.wasm") {
		t.Fatalf("get with every slot taken = %v, want an error naming the module", err)
	}
	if waited := time.Since(start); waited < 25*time.Millisecond {
		t.Errorf("gave up after %s, before the deadline", waited)
	}
}

// TestPoolNeverExceedsItsSize hammers get and put from many goroutines and
// checks that no more instances than the pool's size are out at once.
func TestPoolNeverExceedsItsSize(t *testing.T) {
	p := newPool(&Engine{}, nil, "m.wasm", 3)
	for i := 0; i < 3; i++ {
		p.Park(&Instance{sys: &guestSys{}})
	}
	var out, peak int64
	done := make(chan struct{})
	start := make(chan struct{})
	var mu = make(chan struct{}, 1)
	for g := 0; g < 32; g++ {
		go func() {
			<-start
			for i := 0; i < 200; i++ {
				in, err := p.Get(context.Background())
				if err != nil {
					t.Error(err)
					break
				}
				mu <- struct{}{}
				out++
				peak = max(peak, out)
				<-mu
				mu <- struct{}{}
				out--
				<-mu
				p.Put(context.Background(), in, true)
			}
			done <- struct{}{}
		}()
	}
	close(start)
	for g := 0; g < 32; g++ {
		<-done
	}
	if peak > 3 {
		t.Errorf("%d instances out at once, pool size 3", peak)
	}
	if p.IdleCount() != 3 || len(p.slots) != 0 || p.engine.life.out.Load() != 0 {
		t.Errorf("after the hammer: %d idle, %d slots taken, %d counted out; want 3, 0 and 0", p.IdleCount(), len(p.slots), p.engine.life.out.Load())
	}
}

// TestLanesWaitOnlyForThemselves: a lane whose slots are all taken makes
// its own callers wait, and no one else: another lane and the pool itself
// still hand out instances, and the lanes count in the pool's stats.
func TestLanesWaitOnlyForThemselves(t *testing.T) {
	p := newPool(&Engine{}, nil, "server/middleware/10-mw.wasm", 1)
	for i := 0; i < 3; i++ {
		p.Park(&Instance{sys: &guestSys{}})
	}
	busy := p.Lane("server/api/slow.get.wasm", "")
	held, err := busy.Get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := busy.Get(ctx); err == nil {
		t.Fatal("a second get from a lane of one slot succeeded; want it to wait until its deadline")
	}
	other, err := p.Lane("server/api/other.get.wasm", "").Get(context.Background())
	if err != nil {
		t.Fatalf("get from another lane while the first is full: %v", err)
	}
	own, err := p.Get(context.Background())
	if err != nil {
		t.Fatalf("get from the pool while a lane is full: %v", err)
	}
	if s := p.Stats(); s.Max != 3 || s.InUse != 3 {
		t.Errorf("stats with two lanes: max %d, in use %d; want 3 and 3", s.Max, s.InUse)
	}
	busy.Put(context.Background(), held, true)
	p.Lane("server/api/other.get.wasm", "").Put(context.Background(), other, true)
	p.Put(context.Background(), own, true)
	if s := p.Stats(); s.InUse != 0 || s.Idle != 3 {
		t.Errorf("stats once given back: in use %d, idle %d; want 0 and 3", s.InUse, s.Idle)
	}
}

// TestLanesNeverExceedTheirSize hammers the lanes of one pool from many
// goroutines at once: no lane has more instances out than its size, and
// every slot and instance comes back.
func TestLanesNeverExceedTheirSize(t *testing.T) {
	const size, lanes, workers = 2, 4, 32
	p := newPool(&Engine{}, nil, "server/middleware/10-mw.wasm", size)
	for i := 0; i < size*lanes; i++ {
		p.Park(&Instance{sys: &guestSys{}})
	}
	var out, peak [lanes]atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := 0; i < 200; i++ {
				n := (g + i) % lanes
				l := p.Lane(fmt.Sprintf("route-%d", n), "")
				in, err := l.Get(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				now := out[n].Add(1)
				for {
					was := peak[n].Load()
					if now <= was || peak[n].CompareAndSwap(was, now) {
						break
					}
				}
				out[n].Add(-1)
				l.Put(context.Background(), in, true)
			}
		}()
	}
	close(start)
	wg.Wait()
	for n := range lanes {
		if got := peak[n].Load(); got > size {
			t.Errorf("lane %d had %d instances out at once, size %d", n, got, size)
		}
	}
	if s := p.Stats(); s.InUse != 0 || s.Idle != size*lanes || p.engine.life.out.Load() != 0 {
		t.Errorf("after the hammer: %d in use, %d idle, %d counted out; want 0, %d and 0", s.InUse, s.Idle, p.engine.life.out.Load(), size*lanes)
	}
}
