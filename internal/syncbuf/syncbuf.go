// Package syncbuf is a bytes.Buffer that one goroutine may write while
// another reads it: where the tests and tools collect a process's or a
// host's log output and look into it while it runs.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer is safe for concurrent Write, String and Len. The zero value is
// an empty buffer ready to use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Len returns how many bytes were written so far.
func (b *Buffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}
