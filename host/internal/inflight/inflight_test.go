package inflight

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

func TestGate(t *testing.T) {
	for _, tc := range []struct {
		name       string
		inFlight   int  // requests admitted before Close, left after Wait began
		cancel     bool // Wait's context has ended
		wantWait   bool
		wantClosed bool
	}{
		{"none in flight", 0, false, true, true},
		{"none in flight, context ended", 0, true, true, true},
		{"one in flight, context ended", 1, true, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var g Gate
			if g.Closed() {
				t.Fatal("a zero Gate is closed")
			}
			for range tc.inFlight {
				if !g.Enter() {
					t.Fatal("an open gate refused a request")
				}
			}
			g.Close()
			if g.Enter() {
				t.Error("a closed gate admitted a request")
			}
			ctx, cancel := context.WithCancel(context.Background())
			if tc.cancel {
				cancel()
			}
			defer cancel()
			if got := g.Wait(ctx); got != tc.wantWait {
				t.Errorf("Wait = %v, want %v", got, tc.wantWait)
			}
			if g.Closed() != tc.wantClosed {
				t.Errorf("Closed = %v, want %v", g.Closed(), tc.wantClosed)
			}
		})
	}
}

// TestGateHammer: requests entering and leaving from many goroutines while
// the gate closes; Wait returns once every admitted request has left, and
// none is admitted after Close.
func TestGateHammer(t *testing.T) {
	var g Gate
	const n = 64
	start, admitted := make(chan struct{}), make(chan struct{}, n)
	release := make(chan struct{})
	var entered, left atomic.Int64
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if !g.Enter() {
				return
			}
			entered.Add(1)
			admitted <- struct{}{}
			<-release
			left.Add(1)
			g.Leave()
		}()
	}
	close(start)
	<-admitted // at least one is in flight
	g.Close()
	waited := make(chan bool)
	go func() { waited <- g.Wait(context.Background()) }()
	close(release)
	if !<-waited {
		t.Error("Wait = false without a context that ends")
	}
	if e, l := entered.Load(), left.Load(); e != l {
		t.Errorf("Wait returned with %d of %d admitted requests in flight", e-l, e)
	}
	wg.Wait()
	if g.Enter() {
		t.Error("a closed gate admitted a request")
	}
}
