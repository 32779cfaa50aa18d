package database

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestFuncsStop: the host's trim, search and REGEXP stop when the
// statement's interrupt is done, over arguments whose work is too much
// to finish first (billions of steps): the paths a statement past its
// deadline takes.
func TestFuncsStop(t *testing.T) {
	done, cancel := context.WithCancel(t.Context())
	cancel()
	// A set of characters of one lead byte, the one that matches last:
	// each character of the string costs the whole set.
	var set []byte
	for k := 300; k >= 1; k-- {
		set = append(set, 0xc3)
		set = append(set, bytes.Repeat([]byte{0x80}, k)...)
	}
	in := bytes.Repeat([]byte{0xc3, 0x80}, 1<<20)
	for _, sides := range []int{trimLeft, trimRight, trimLeft | trimRight} {
		if _, _, stopped := trimSpan(in, set, sides, &work{stop: done}); !stopped {
			t.Errorf("trim of sides %d: not stopped", sides)
		}
		// The same with the interrupt not done: it answers.
		if lo, hi, stopped := trimSpan(in[:2000], set, sides, &work{stop: t.Context()}); stopped || hi-lo != 0 {
			t.Errorf("trim of sides %d: %d bytes left, stopped %v; want none left", sides, hi-lo, stopped)
		}
	}

	p, err := reCompile([]byte(strings.Repeat("a?", 7000)+"b"), reMaxOps(50000), false)
	if err != "" {
		t.Fatal(err)
	}
	s := bytes.Repeat([]byte("a"), 1<<20)
	if _, stopped := p.match(s, &work{stop: done}); !stopped {
		t.Error("REGEXP: not stopped")
	}
	if matched, stopped := p.match(s[:100], &work{stop: t.Context()}); matched || stopped {
		t.Errorf("REGEXP over 100 bytes: matched %v, stopped %v; want neither", matched, stopped)
	}

	if _, stopped := index(done, s, []byte("b"), 0); !stopped {
		t.Error("a search of 1 MiB: not stopped")
	}
	if i, stopped := index(t.Context(), append(s, 'b'), []byte("ab"), 0); stopped || i != len(s)-1 {
		t.Errorf("a search of 1 MiB: at %d, stopped %v; want at %d", i, stopped, len(s)-1)
	}
}
