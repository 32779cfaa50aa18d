package cell

import (
	"sync"
	"testing"
)

// TestPointer checks Load, Store and Swap of the build the test runs in.
// The wasip1 form is run by every WebAssembly test of the SDK
// (wasm_test.go), whose guests' caches use it.
func TestPointer(t *testing.T) {
	a, b := new(int), new(int)
	for _, tc := range []struct {
		name string
		op   func(c *Pointer[int]) *int // its result, nil when none
		want *int                       // what the cell holds after
		ret  *int
	}{
		{"zero holds nil", func(c *Pointer[int]) *int { return c.Load() }, nil, nil},
		{"store then load", func(c *Pointer[int]) *int { c.Store(a); return c.Load() }, a, a},
		{"swap into empty", func(c *Pointer[int]) *int { return c.Swap(a) }, a, nil},
		{"swap out", func(c *Pointer[int]) *int { c.Store(a); return c.Swap(b) }, b, a},
		{"swap nil takes", func(c *Pointer[int]) *int { c.Store(b); return c.Swap(nil) }, nil, b},
		{"store nil", func(c *Pointer[int]) *int { c.Store(a); c.Store(nil); return c.Load() }, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Pointer[int]
			if got := tc.op(&c); got != tc.ret {
				t.Errorf("returned %p, want %p", got, tc.ret)
			}
			if got := c.Load(); got != tc.want {
				t.Errorf("holds %p, want %p", got, tc.want)
			}
		})
	}
}

// TestPointerSwapIsExclusive takes a value out with Swap(nil) and puts it
// back from several goroutines, as the SDK's scratch row is: no two
// goroutines hold it at once.
func TestPointerSwapIsExclusive(t *testing.T) {
	var c Pointer[int]
	c.Store(new(int))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 2000 {
				p := c.Swap(nil)
				if p == nil {
					continue
				}
				*p++
				if *p != 1 {
					t.Errorf("value held by two goroutines: %d", *p)
				}
				*p--
				c.Store(p)
			}
		})
	}
	wg.Wait()
	if c.Load() == nil {
		t.Error("the value was lost")
	}
}
