package engine

import (
	"runtime/debug"
	"sync"
	"time"
)

// RestAfter is how long the engine waits, once the background work of a
// reload has ended and no other has begun, before it gives the heap that
// work freed back to the system. Compiling a saved Go bundle of 5.6 MB
// allocates some 300 MB that is garbage once the compiler's code serves;
// the Go runtime keeps it, free, for the next compilation (endpoints dev
// rested at 400-500 MB after a few saves, 120 MB after its start), and
// gives it back only minutes later. A save within RestAfter of the
// previous one's compilation keeps it, and its load takes no page faults
// (about 180 ms of a save's reload when it must take that memory from the
// system again); a developer who pauses longer finds the process back at
// its start's footprint.
const RestAfter = 30 * time.Second

// heapRest gives the heap back RestAfter after background work ends,
// unless more begins first. Its methods are safe for concurrent use.
type heapRest struct {
	mu sync.Mutex
	// after is how long it waits (RestAfter, or a test's).
	after time.Duration
	// release gives the memory back (releaseHeap).
	release func()
	// timer is the release pending, nil when none; gen names it, so that
	// one that fires after busy or another rest cancelled it does
	// nothing.
	timer   *time.Timer
	gen     uint64
	stopped bool
}

// rest schedules a release after h.after, replacing a pending one; idle,
// asked when it is due, must still report true.
func (h *heapRest) rest(idle func() bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return
	}
	h.cancelLocked()
	gen := h.gen
	h.timer = time.AfterFunc(h.after, func() { h.due(gen, idle) })
}

// due releases the heap, when the release scheduled as gen was not
// cancelled meanwhile and idle still reports true.
func (h *heapRest) due(gen uint64, idle func() bool) {
	h.mu.Lock()
	due := h.gen == gen && !h.stopped
	if due {
		h.timer = nil
	}
	h.mu.Unlock()
	if due && idle() {
		h.release()
	}
}

// busy cancels the pending release: new work takes the memory again.
func (h *heapRest) busy() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cancelLocked()
}

// stop cancels the pending release for good (the engine shuts down).
func (h *heapRest) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopped = true
	h.cancelLocked()
}

func (h *heapRest) cancelLocked() {
	h.gen++
	if h.timer != nil {
		h.timer.Stop()
		h.timer = nil
	}
}

// releaseHeap gives the memory the Go heap holds free back to the system,
// and tells a test's hook (testhook.WithHeapReleased).
func (e *Engine) releaseHeap() {
	debug.FreeOSMemory()
	if e.releasedHook != nil {
		e.releasedHook()
	}
}

// idleNow reports whether the engine has no background work and was not
// stopped.
func (e *Engine) idleNow() bool {
	return !e.stopped() && isClosed(e.background.idle()) && isClosed(e.compilers.idle())
}
