package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

// TestConcurrentWrites: writers and a reader at once (run with -race);
// every byte written is there, whole lines never interleaved.
func TestConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("line\n"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if b.Len() != 8*100*5 || strings.Count(b.String(), "line\n") != 800 {
		t.Errorf("Len = %d, %d lines; want 4000 bytes, 800 lines", b.Len(), strings.Count(b.String(), "line\n"))
	}
}
