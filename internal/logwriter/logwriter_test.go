package logwriter_test

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/logwriter"
)

// recorder is an out that keeps what it was given, and each write's size.
type recorder struct {
	mu      sync.Mutex
	b       bytes.Buffer
	largest int
	wrote   chan struct{} // receives after each write, when not nil
	hold    chan struct{} // each write waits for a receive, when not nil
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.hold != nil {
		<-r.hold
	}
	r.mu.Lock()
	r.b.Write(p)
	r.largest = max(r.largest, len(p))
	r.mu.Unlock()
	if r.wrote != nil {
		r.wrote <- struct{}{}
	}
	return len(p), nil
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.b.String()
}

// TestOrderUnderHammer: 32 goroutines released at once each write 500
// numbered lines; after Close every line is there, whole, and each
// goroutine's in its order.
func TestOrderUnderHammer(t *testing.T) {
	out := &recorder{}
	w := logwriter.New(out)
	const goroutines, lines = 32, 500
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			<-start
			for i := range lines {
				fmt.Fprintf(w, "g%02d line %03d\n", g, i)
			}
		})
	}
	close(start)
	wg.Wait()
	w.Close()
	next := make([]int, goroutines)
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != goroutines*lines {
		t.Fatalf("%d lines, want %d", len(got), goroutines*lines)
	}
	for _, l := range got {
		var g, i int
		if _, err := fmt.Sscanf(l, "g%02d line %03d", &g, &i); err != nil {
			t.Fatalf("line %q is not whole: %v", l, err)
		}
		if i != next[g] {
			t.Fatalf("goroutine %d: line %d came when %d was due", g, i, next[g])
		}
		next[g]++
	}
}

// TestALineGoesOutSoon: a lone line reaches out without Close, after Delay.
func TestALineGoesOutSoon(t *testing.T) {
	out := &recorder{wrote: make(chan struct{}, 1)}
	w := logwriter.New(out)
	defer w.Close()
	w.Write([]byte("hello\n"))
	select {
	case <-out.wrote:
	case <-time.After(10 * time.Second):
		t.Fatal("the line was not written within 10 s")
	}
	if got := out.String(); got != "hello\n" {
		t.Errorf("out holds %q, want the line", got)
	}
}

// TestQueueIsBounded: with an out that takes one write at a time, writes
// of 64 KiB queue at most MaxQueued bytes (plus the write that passed it)
// before the writer waits.
func TestQueueIsBounded(t *testing.T) {
	out := &recorder{hold: make(chan struct{})}
	w := logwriter.New(out)
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	const total = 8 * logwriter.MaxQueued
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range total / len(chunk) {
			w.Write(chunk)
		}
		w.Close()
	}()
	for {
		select {
		case out.hold <- struct{}{}:
			continue
		case <-done:
		}
		break
	}
	if n := len(out.String()); n != total {
		t.Errorf("out got %d bytes, want %d", n, total)
	}
	if out.largest > logwriter.MaxQueued+len(chunk) {
		t.Errorf("a write of %d bytes: more than MaxQueued (%d) plus one chunk was queued", out.largest, logwriter.MaxQueued)
	}
}

// TestWriteAfterClose goes straight to out, after what was queued.
func TestWriteAfterClose(t *testing.T) {
	out := &recorder{}
	w := logwriter.New(out)
	w.Write([]byte("queued\n"))
	w.Close()
	w.Close()
	w.Write([]byte("direct\n"))
	if got := out.String(); got != "queued\ndirect\n" {
		t.Errorf("out holds %q, want the queued line, then the direct one", got)
	}
}
