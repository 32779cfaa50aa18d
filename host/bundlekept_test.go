package host_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// TestBundleKeptVersionPools: in development, a bundle whose new version
// refuses one of its routes keeps its previous version serving that route,
// and its file then holds two modules, each with its pool. Everything that
// reaches "the module of a file" must reach both: the janitor trims the
// old one's idle instances, Pools reports the module once with both
// pools' numbers, the host's Close closes both; and a later reload that
// serves every route anew retires the old one (neither leaked nor closed
// under a request that still uses it). Only the first route's pool was
// reached, and the previous version's idle instances were never trimmed,
// counted nor closed.
func TestBundleKeptVersionPools(t *testing.T) {
	t.Parallel()
	const file = "server/bundles/w.wasm"
	// Each route answers with its index in its version's declaration:
	// /api/c answers 0 from v1, 1 from v3 (v2 refuses it, v4 too).
	const (
		v1 = `{"routes": [{"route": "GET /api/c", "contract": {"summary": "C"}}, {"route": "GET /api/a", "contract": {"summary": "A"}}]}`
		v2 = `{"routes": [{"route": "GET /api/a", "contract": {"summary": "A"}}, {"route": "GET /api/c", "contract": {"summary": 7}}]}`
		v3 = `{"routes": [{"route": "GET /api/a", "contract": {"summary": "A"}}, {"route": "GET /api/c", "contract": {"summary": "C"}}]}`
		v4 = `{"routes": [{"route": "GET /api/c", "contract": {"summary": 8}}, {"route": "GET /api/a", "contract": {"summary": "A again"}}]}`
	)
	const instances = 3
	a := newApp(t).watSource(file, bundleWAT(v1, false))
	h, _ := a.host(host.Options{Mode: host.Development, Limits: config.Limits{Instances: instances}})
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx := t.Context()
	answers := func(when string, want map[string]string) {
		t.Helper()
		for path, body := range want {
			if got := do(t, srv, "GET", path, ""); got.status != 200 || got.body != body {
				t.Errorf("%s, GET %s = %d %q, want 200 %q", when, path, got.status, got.body, body)
			}
		}
	}
	// partialReload writes a version of the bundle that refuses /api/c
	// and reloads it: /api/c keeps the version that served it.
	partialReload := func(decl string) {
		t.Helper()
		a.watSource(file, bundleWAT(decl, false))
		rep := h.Reload(ctx)
		if rep.Refused || !strings.Contains(fmt.Sprint(rep.Problems), "(GET /api/c)") {
			t.Fatalf("reload of a bundle refusing GET /api/c = %v %v, want that route's problem and the rest served", rep, rep.Problems)
		}
	}

	v1Pools := h.ModulePools(file)
	if len(v1Pools) != 1 {
		t.Fatalf("v1: %d pools, want 1", len(v1Pools))
	}
	partialReload(v2)
	answers("v2 refusing /api/c", map[string]string{"/api/a": "0", "/api/c": "0"})
	pools := h.ModulePools(file)
	if len(pools) != 2 || pools[1] != v1Pools[0] {
		t.Fatalf("v2: %d pools, want v2's and v1's, which serves /api/c", len(pools))
	}
	if v1Pools[0].Retired() {
		t.Fatal("v1's pool was retired while it serves /api/c")
	}

	t.Run("the janitor trims both versions", func(t *testing.T) {
		for i, p := range pools {
			if err := p.Fill(ctx, instances); err != nil {
				t.Fatal(err)
			}
			if p.Idle() != instances {
				t.Fatalf("pool %d: %d idle instances after Fill, want %d", i, p.Idle(), instances)
			}
		}
		if n := h.Sweep(time.Now().Add(24 * time.Hour)); n < 2*(instances-1) {
			t.Errorf("the sweep closed %d instances, want at least %d", n, 2*(instances-1))
		}
		for i, p := range pools {
			if p.Idle() != 1 {
				t.Errorf("pool %d: %d idle instances after a sweep, want 1", i, p.Idle())
			}
		}
	})

	t.Run("Pools reports the module once, both pools added up", func(t *testing.T) {
		if err := pools[1].Fill(ctx, 2); err != nil {
			t.Fatal(err)
		}
		var want host.PoolStats
		for _, p := range pools {
			s := p.Stats()
			want.Module, want.Route = s.Module, s.Route
			want.Max += s.Max
			want.InUse += s.InUse
			want.Idle += s.Idle
			want.MemoryBytes += s.MemoryBytes
		}
		var got []host.PoolStats
		for _, s := range h.Pools() {
			if s.Module == file {
				got = append(got, s)
			}
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("Pools() of %s = %+v, want one %+v", file, got, want)
		}
	})

	t.Run("a full reload retires the kept version, no request failing", func(t *testing.T) {
		var stop atomic.Bool
		var wg sync.WaitGroup
		var mu sync.Mutex
		got := map[string]int{} // "path status body" → count
		seen := func(answer string) bool {
			mu.Lock()
			defer mu.Unlock()
			return got[answer] > 0
		}
		for _, path := range []string{"/api/c", "/api/a", "/api/c"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stop.Load() {
					res, err := srv.Client().Get(srv.URL + path)
					if err != nil {
						t.Error(err)
						return
					}
					body, err := io.ReadAll(res.Body)
					res.Body.Close()
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					got[fmt.Sprintf("%s %d %s", path, res.StatusCode, body)]++
					mu.Unlock()
				}
			}()
		}
		if !waitFor(t, 10*time.Second, func() bool { return seen("/api/c 200 0") && seen("/api/a 200 0") }) {
			t.Error("the clients got no answer within 10 s")
		}
		a.watSource(file, bundleWAT(v3, false))
		rep := h.Reload(ctx)
		if len(rep.Problems) > 0 || rep.Refused {
			t.Errorf("reload of a bundle serving every route = %v %v, want no problem", rep, rep.Problems)
		}
		if !waitFor(t, 10*time.Second, func() bool { return seen("/api/c 200 1") }) {
			t.Error("v3's /api/c was not served within 10 s of its reload")
		}
		stop.Store(true)
		wg.Wait()
		for answer, n := range got {
			if !strings.Contains(answer, " 200 ") {
				t.Errorf("%d answers %q during the reload, want none failed", n, answer)
			}
		}
		// The last request on v2 may release it just after its answer.
		for i, p := range pools {
			if !waitFor(t, 10*time.Second, p.Retired) {
				t.Errorf("pool %d of v2's table was not retired once v3 served", i)
			}
			if p.Idle() != 0 {
				t.Errorf("pool %d of v2's table holds %d idle instances once retired, want 0", i, p.Idle())
			}
		}
		if now := h.ModulePools(file); len(now) != 1 || now[0] == pools[0] || now[0] == pools[1] {
			t.Errorf("v3: %d pools, want v3's alone", len(now))
		}
		answers("v3", map[string]string{"/api/a": "0", "/api/c": "1"})
	})

	t.Run("Close closes both versions", func(t *testing.T) {
		v3Pools := h.ModulePools(file)
		partialReload(v4)
		answers("v4 refusing /api/c", map[string]string{"/api/a": "1", "/api/c": "1"})
		pools := h.ModulePools(file)
		if len(pools) != 2 || pools[1] != v3Pools[0] {
			t.Fatalf("v4: %d pools, want v4's and v3's, which serves /api/c", len(pools))
		}
		for i, p := range pools {
			if p.Idle() == 0 {
				t.Fatalf("pool %d: no idle instance before Close: nothing to check", i)
			}
		}
		if err := h.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		for i, p := range pools {
			if p.Idle() != 0 {
				t.Errorf("pool %d: %d idle instances after Close, want 0", i, p.Idle())
			}
		}
	})
}
