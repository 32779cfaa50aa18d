// Package logwriter moves the writing of log output off the goroutines
// that log: a [Writer] queues each write and a goroutine of its own writes
// what has queued, often many lines to a system call.
//
// slog's handlers write each record under a mutex, so a line written to a
// file or a pipe costs every logging goroutine a system call in turn:
// writing an access log line to a file cost about as much CPU as
// formatting it, 3-5 µs each on 2 cores (BenchmarkObservers, README
// "Operating"). Behind a Writer the handler's write is a copy.
//
//	out := logwriter.New(os.Stderr)
//	defer out.Close() // writes what is queued
//	logger := slog.New(slog.NewTextHandler(out, nil))
//
// # Notes
//
//   - Writes keep their order. A line reaches out within about [Delay] of
//     being logged; what is queued when the process dies without Close is
//     lost.
//   - At most [MaxQueued] bytes wait: past that, Write waits for the
//     goroutine, so a slow out slows the loggers rather than filling
//     memory.
//   - Errors of out are dropped: log output has nowhere to report them.
package logwriter

import (
	"io"
	"sync"
	"time"
)

// MaxQueued is the most bytes a Writer holds before Write waits.
const MaxQueued = 1 << 20

// Delay is how long the goroutine lets writes queue after the first one
// before it writes them all: under load, one system call and one wake-up
// for all the lines of a millisecond instead of one per line.
const Delay = 10 * time.Millisecond

// Writer queues writes for out. It is safe for concurrent use.
type Writer struct {
	out  io.Writer
	mu   sync.Mutex
	room sync.Cond // signalled when the queue was taken
	// queue holds what waits; spare is the buffer the goroutine wrote
	// last, reused for the next queue.
	queue, spare []byte
	closed       bool
	wake         chan struct{} // a write is queued; capacity 1
	stop         chan struct{} // closed by Close
	done         chan struct{} // closed when the goroutine wrote its last
}

// New returns a Writer to out and starts its goroutine, which Close ends.
func New(out io.Writer) *Writer {
	w := &Writer{out: out, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	w.room.L = &w.mu
	go w.run()
	return w
}

// Write queues a copy of p and returns at once, unless MaxQueued bytes are
// already queued. After Close it writes to out directly.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	for len(w.queue) >= MaxQueued && !w.closed {
		w.room.Wait()
	}
	if w.closed {
		w.mu.Unlock()
		<-w.done // what was queued goes first
		return w.out.Write(p)
	}
	w.queue = append(w.queue, p...)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default: // the goroutine is already told
	}
	return len(p), nil
}

// Close writes what is queued, ends the goroutine and returns once it has.
// It may be called more than once.
func (w *Writer) Close() error {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.stop)
	}
	w.room.Broadcast()
	w.mu.Unlock()
	<-w.done
	return nil
}

func (w *Writer) run() {
	defer close(w.done)
	delay := time.NewTimer(Delay)
	delay.Stop()
	for {
		select {
		case <-w.wake:
		case <-w.stop:
			w.drain()
			return
		}
		delay.Reset(Delay)
		select {
		case <-delay.C:
		case <-w.stop:
			w.drain()
			return
		}
		select {
		case <-w.wake: // what it announced is drained now
		default:
		}
		w.drain()
	}
}

// drain writes the queue until it is empty.
func (w *Writer) drain() {
	for {
		w.mu.Lock()
		batch := w.queue
		w.queue, w.spare = w.spare[:0], nil
		w.room.Broadcast()
		w.mu.Unlock()
		if len(batch) == 0 {
			w.mu.Lock()
			w.spare = batch
			w.mu.Unlock()
			return
		}
		_, _ = w.out.Write(batch)
		w.mu.Lock()
		if cap(batch) <= 2*MaxQueued {
			w.spare = batch[:0]
		}
		w.mu.Unlock()
	}
}
