// Package inflight counts the requests a host serves and closes its door
// when it shuts down: once a Gate is closed it admits no request, and
// Wait returns when the last one in flight has left, as net/http's
// Server.Shutdown waits for its connections.
package inflight

import (
	"context"
	"sync/atomic"
)

// Gate admits requests until it is closed, and counts those in flight.
// The zero value is an open gate; a Gate must not be copied. Enter and
// Leave are safe for concurrent use with each other and with Close; Close
// and Wait are the shutdown's, called by one goroutine.
//
//	if !g.Enter() {
//		return // shutting down: answer 503
//	}
//	defer g.Leave()
type Gate struct {
	closed atomic.Bool
	active atomic.Int64
	// idle is signalled by the last request out of a closed gate; made
	// by Close, before closed is set.
	idle chan struct{}
}

// Enter admits a request, unless the gate is closed (false); an admitted
// request calls Leave when it ends.
func (g *Gate) Enter() bool {
	g.active.Add(1)
	if g.closed.Load() {
		g.Leave()
		return false
	}
	return true
}

// Leave ends a request Enter admitted.
func (g *Gate) Leave() {
	if g.active.Add(-1) == 0 && g.closed.Load() {
		select {
		case g.idle <- struct{}{}:
		default:
		}
	}
}

// Close closes the gate: Enter admits no request from now on. Call it
// once.
func (g *Gate) Close() {
	g.idle = make(chan struct{}, 1)
	g.closed.Store(true)
}

// Closed reports whether Close was called.
func (g *Gate) Closed() bool { return g.closed.Load() }

// Wait waits, after Close, until no request is in flight, or ctx ends:
// then it reports whether none was still.
func (g *Gate) Wait(ctx context.Context) bool {
	for g.active.Load() > 0 {
		select {
		case <-g.idle:
		case <-ctx.Done():
			return g.active.Load() == 0
		}
	}
	return true
}
