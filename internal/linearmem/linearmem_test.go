package linearmem

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
)

const page = 65536

func TestGrowthKeepsTheAddressAndTheContents(t *testing.T) {
	m := Allocate(page, 16*page)
	defer m.Free()
	buf := m.Reallocate(page)
	if len(buf) != page {
		t.Fatalf("Reallocate(%d) has length %d", page, len(buf))
	}
	buf[0], buf[page-1] = 1, 2
	base := unsafe.SliceData(buf)
	for size := uint64(2 * page); size <= 16*page; size += 3 * page {
		grown := m.Reallocate(size)
		if uint64(len(grown)) != size {
			t.Fatalf("Reallocate(%d) has length %d", size, len(grown))
		}
		if unsafe.SliceData(grown) != base {
			t.Fatalf("Reallocate(%d) moved the memory", size)
		}
		if grown[0] != 1 || grown[page-1] != 2 {
			t.Fatalf("Reallocate(%d) lost the contents: %d %d, want 1 2", size, grown[0], grown[page-1])
		}
		grown[size-1] = 3
	}
}

func TestNewPagesAreZero(t *testing.T) {
	m := Allocate(page, 8*page)
	defer m.Free()
	buf := m.Reallocate(8 * page)
	if i := bytes.IndexFunc(buf, func(r rune) bool { return r != 0 }); i >= 0 {
		t.Fatalf("byte %d of a fresh memory is not zero", i)
	}
}

func TestReallocateRefuses(t *testing.T) {
	tests := []struct {
		name     string
		cap, max uint64
		size     uint64
	}{
		{"past the maximum", page, 4 * page, 5 * page},
		{"any page when the maximum is zero", 0, 0, page},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Allocate(tt.cap, tt.max)
			defer m.Free()
			if got := m.Reallocate(tt.size); got != nil {
				t.Errorf("Reallocate(%d) with max %d = %d bytes, want nil", tt.size, tt.max, len(got))
			}
		})
	}
}

func TestZeroMaximumIsAnEmptyMemory(t *testing.T) {
	m := Allocate(0, 0)
	defer m.Free()
	if got := m.Reallocate(0); got == nil || len(got) != 0 {
		t.Errorf("Reallocate(0) with max 0 = %v, want an empty, non-nil slice", got)
	}
}

func TestFreeTwiceAndReallocateAfterFree(t *testing.T) {
	m := Allocate(page, 2*page)
	m.Reallocate(page)[0] = 1
	m.Free()
	m.Free()
	if got := m.Reallocate(page); got != nil {
		t.Errorf("Reallocate after Free = %d bytes, want nil", len(got))
	}
}

// rss reads the resident set size of the process from /proc/self/statm.
func rss(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

func TestFreeReturnsThePagesAtOnce(t *testing.T) {
	if !Supported || runtime.GOOS != "linux" {
		t.Skip("reads /proc; memories are mapped on unix only")
	}
	const size = 64 << 20
	before := rss(t)
	m := Allocate(page, size)
	buf := m.Reallocate(size)
	for i := 0; i < len(buf); i += os.Getpagesize() {
		buf[i] = 1
	}
	touched := rss(t)
	buf = nil
	m.Free()
	after := rss(t)
	if grew := touched - before; grew < size*9/10 {
		t.Fatalf("touching %d MiB grew RSS by %d MiB only", size>>20, grew>>20)
	}
	if left := after - before; left > 8<<20 {
		t.Errorf("after Free RSS is %d MiB above where it started, want under 8 MiB (it was %d MiB above while touched)", left>>20, (touched-before)>>20)
	}
}

func TestUntouchedPagesCostNothing(t *testing.T) {
	if !Supported || runtime.GOOS != "linux" {
		t.Skip("reads /proc; memories are mapped on unix only")
	}
	before := rss(t)
	m := Allocate(page, 256<<20)
	defer m.Free()
	m.Reallocate(256 << 20)[0] = 1
	if grew := rss(t) - before; grew > 8<<20 {
		t.Errorf("growing to 256 MiB and touching one page grew RSS by %d MiB, want under 8 MiB", grew>>20)
	}
}

func TestRecorderFreesWhatItAllocated(t *testing.T) {
	var r Recorder
	m := r.Allocate(page, 2*page)
	m.Reallocate(page)[0] = 1
	r.Free()
	if got := m.Reallocate(page); got != nil {
		t.Errorf("Reallocate after the recorder's Free = %d bytes, want nil", len(got))
	}
	r.Free() // nothing left
}

// TestManyMemoriesAtOnce allocates, grows, fills, checks and frees memories
// from many goroutines released at once.
func TestManyMemoriesAtOnce(t *testing.T) {
	const goroutines, rounds, pages = 16, 10, 16
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for r := 0; r < rounds; r++ {
				m := Allocate(page, pages*page)
				var buf []byte
				for size := uint64(page); size <= pages*page; size *= 2 {
					buf = m.Reallocate(size)
					for i := int(size / 2); i < len(buf); i += 4096 {
						buf[i] = byte(g)
					}
				}
				for i := pages * page / 2; i < len(buf); i += 4096 {
					if buf[i] != byte(g) {
						errs <- fmt.Errorf("goroutine %d round %d: byte %d is %d, want %d", g, r, i, buf[i], byte(g))
						break
					}
				}
				m.Free()
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// growWasm is the module below, as built by `wat2wasm grow.wat`:
//
//	(module
//	  (memory (export "memory") 1 4)
//	  (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
//	  (func (export "store") (param i32 i32) (i32.store8 (local.get 0) (local.get 1))))
var growWasm = []byte{
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x0b, 0x02, 0x60, 0x01, 0x7f, 0x01, 0x7f,
	0x60, 0x02, 0x7f, 0x7f, 0x00, 0x03, 0x03, 0x02, 0x00, 0x01, 0x05, 0x04, 0x01, 0x01, 0x01, 0x04,
	0x07, 0x19, 0x03, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00, 0x04, 0x67, 0x72, 0x6f,
	0x77, 0x00, 0x00, 0x05, 0x73, 0x74, 0x6f, 0x72, 0x65, 0x00, 0x01, 0x0a, 0x12, 0x02, 0x06, 0x00,
	0x20, 0x00, 0x40, 0x00, 0x0b, 0x09, 0x00, 0x20, 0x00, 0x20, 0x01, 0x3a, 0x00, 0x00, 0x0b,
}

// TestWazeroUsesTheAllocator runs a guest on a mapped memory: it grows to
// its maximum and no further, its stores are seen by the host, and closing
// the module frees the memory.
func TestWazeroUsesTheAllocator(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
	defer rt.Close(ctx)
	var r Recorder
	mod, err := rt.InstantiateWithConfig(experimental.WithMemoryAllocator(ctx, &r), growWasm, wazero.NewModuleConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.mems) != 1 {
		t.Fatalf("the allocator made %d memories, want 1", len(r.mems))
	}
	grow, store := mod.ExportedFunction("grow"), mod.ExportedFunction("store")
	if res, err := grow.Call(ctx, 3); err != nil || int32(res[0]) != 1 {
		t.Fatalf("growing by 3 pages to the maximum = %v, %v; want 1 (the old size)", res, err)
	}
	if res, err := grow.Call(ctx, 1); err != nil || int32(res[0]) != -1 {
		t.Fatalf("growing past the maximum = %v, %v; want -1", res, err)
	}
	if _, err := store.Call(ctx, 4*page-1, 42); err != nil {
		t.Fatal(err)
	}
	if b, ok := mod.Memory().ReadByte(4*page - 1); !ok || b != 42 {
		t.Fatalf("the host reads %d, %v at the last byte; want 42", b, ok)
	}
	if err := mod.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if Supported {
		if got := r.mems[0].Reallocate(page); got != nil {
			t.Error("closing the module did not free its memory")
		}
	}
}

func TestLargeMemoriesStartOnAHugePage(t *testing.T) {
	if !Supported {
		t.Skip("not mapped here")
	}
	m := Allocate(page, 32<<20)
	defer m.Free()
	if base := uintptr(unsafe.Pointer(unsafe.SliceData(m.Reallocate(page)))); base%hugePageSize != 0 {
		t.Errorf("a 32 MiB memory starts at %#x, not on a %d KiB boundary", base, hugePageSize>>10)
	}
}

// BenchmarkWriteAndFree is what a discarded instance that had grown to
// 32 MiB costs: make the pages writable, write each, unmap them. With
// small pages on a virtual machine it took ~90 ms, with huge pages ~3 ms.
func BenchmarkWriteAndFree(b *testing.B) {
	for b.Loop() {
		m := Allocate(page, 32<<20)
		buf := m.Reallocate(32 << 20)
		for i := 0; i < len(buf); i += 4096 {
			buf[i] = 1
		}
		m.Free()
	}
}
