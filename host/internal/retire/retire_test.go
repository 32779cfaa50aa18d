package retire

import (
	"slices"
	"sync"
	"testing"

	"github.com/wasmendpoints/endpoints/host/internal/engine"
)

func TestExclusive(t *testing.T) {
	a, b, c := &engine.Pool{}, &engine.Pool{}, &engine.Pool{}
	name := map[*engine.Pool]string{a: "a", b: "b", c: "c", nil: "nil"}
	names := func(ps []*engine.Pool) []string {
		var out []string
		for _, p := range ps {
			out = append(out, name[p])
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		mine, other []*engine.Pool
		want        []string
	}{
		{"nothing", nil, nil, nil},
		{"all mine", []*engine.Pool{a, b}, nil, []string{"a", "b"}},
		{"all shared", []*engine.Pool{a, b}, []*engine.Pool{b, a}, nil},
		{"some shared", []*engine.Pool{a, b, c}, []*engine.Pool{b}, []string{"a", "c"}},
		{"a pool twice comes once", []*engine.Pool{a, b, a, b}, []*engine.Pool{c}, []string{"a", "b"}},
		{"nil pools skipped", []*engine.Pool{nil, a, nil}, []*engine.Pool{nil}, []string{"a"}},
		{"other's alone are not mine", nil, []*engine.Pool{a}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(Exclusive(tc.mine, tc.other)); !slices.Equal(got, tc.want) {
				t.Errorf("Exclusive = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRefsDrainOnce: of the Release and Retire calls of a version, the
// one that leaves it retired and unheld reports the drain, and no other.
func TestRefsDrainOnce(t *testing.T) {
	type step struct {
		op   string // "hold", "release", "retire"
		want bool   // what release and retire report
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"retired unheld drains at once", []step{{"retire", true}, {"retire", false}}},
		{"retired held drains at the last release", []step{{"hold", false}, {"hold", false}, {"retire", false}, {"release", false}, {"release", true}}},
		{"releases before the retirement do not drain", []step{{"hold", false}, {"release", false}, {"hold", false}, {"release", false}, {"retire", true}}},
		{"a late hold and release drain no more", []step{{"retire", true}, {"hold", false}, {"release", false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r Refs
			for i, s := range tc.steps {
				var got bool
				switch s.op {
				case "hold":
					r.Hold()
					continue
				case "release":
					got = r.Release()
				case "retire":
					got = r.Retire()
				}
				if got != s.want {
					t.Fatalf("step %d (%s) reported drain %v, want %v", i, s.op, got, s.want)
				}
			}
		})
	}
}

// TestRefsRetiredOnlyAfterRetire: a version in service is not retired.
func TestRefsRetiredOnlyAfterRetire(t *testing.T) {
	var r Refs
	if r.Retired() {
		t.Fatal("a new version is retired")
	}
	r.Hold()
	r.Retire()
	if !r.Retired() {
		t.Fatal("a retired version is not")
	}
}

// TestRefsHammer: requests that take and drop a version the way the host
// does (hold; if retired, release and give up; else release at the end),
// many at once while it is retired, see it drained exactly once, and
// never after one of them took it for good.
func TestRefsHammer(t *testing.T) {
	for range 50 {
		var r Refs
		var drains sync.WaitGroup
		var mu sync.Mutex
		drained, usedAfter := 0, false
		drain := func() {
			mu.Lock()
			drained++
			mu.Unlock()
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for range 100 {
					r.Hold()
					if r.Retired() {
						if r.Release() {
							drain()
						}
						return
					}
					mu.Lock()
					if drained > 0 {
						usedAfter = true
					}
					mu.Unlock()
					if r.Release() {
						drain()
					}
				}
			}()
		}
		drains.Add(1)
		go func() {
			defer drains.Done()
			<-start
			if r.Retire() {
				drain()
			}
		}()
		close(start)
		wg.Wait()
		drains.Wait()
		if drained != 1 || usedAfter {
			t.Fatalf("drained %d times (want 1), used after the drain: %v", drained, usedAfter)
		}
	}
}
