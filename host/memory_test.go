package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// The memory test runs in a child process (this test binary run again),
// so that no other test's memory counts in its measurements.
const (
	memoryChildEnv = "ENDPOINTS_MEMORY_TEST_APP"  // the app the child serves
	memoryOutEnv   = "ENDPOINTS_MEMORY_TEST_OUT"  // where it writes its measurements
	goHeapEnv      = "ENDPOINTS_MEMORY_TEST_HEAP" // "go": wazero's default memory, to check the bound fails it
)

const (
	memoryCap       = 32 << 20
	memoryInstances = 4
	memoryRounds    = 200
	// memorySlack is what the bound allows beyond the instances at the
	// cap: the Go heap's per-request garbage and the runtime's own
	// variations, measured at 2-6 MiB (-race included).
	memorySlack = 16 << 20
)

// memoryReport is what the child measured, in bytes.
type memoryReport struct {
	Baseline int64 // resident before the first request
	Peak     int64 // the most ever resident (VmHWM)
	After    int64 // resident after the last request
}

// TestMemoryStaysBounded grows instances to the memory cap and discards
// them, 200 times, 4 at once, and holds the process to
//
//	peak  ≤ baseline + instances × cap + 16 MiB
//	after ≤ baseline + 16 MiB
//
// Each request grows its instance from 256 KiB to the 32 MiB cap, writes
// every page and traps, so its instance is discarded. With wazero's
// default memory (a Go slice grown by append, freed by the GC) the peak
// was 2-3 times the instances' memory over baseline and stayed there; set
// ENDPOINTS_MEMORY_TEST_HEAP=go to see it fail.
func TestMemoryStaysBounded(t *testing.T) {
	t.Parallel()
	if app := os.Getenv(memoryChildEnv); app != "" {
		serveMemoryRounds(t, app)
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/status")
	}
	pages := memoryCap / 65536
	handle := fmt.Sprintf(`(if (i32.eq (memory.grow (i32.const %d)) (i32.const -1)) (then (unreachable)))
    (loop $touch
      (i32.store8 (local.get $n) (i32.const 1))
      (local.set $n (i32.add (local.get $n) (i32.const 4096)))
      (br_if $touch (i32.lt_u (local.get $n) (i32.const %d))))
    (unreachable)`, pages-4, memoryCap)
	a := newApp(t).wat("server/api/grow.get.wasm", watModule{contract: `{"summary":"grows to the cap and traps"}`, handle: handle})
	out := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryStaysBounded$", "-test.count=1")
	cmd.Env = append(os.Environ(), memoryChildEnv+"="+a.dir, memoryOutEnv+"="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r memoryReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	mib := func(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
	t.Logf("baseline %s, peak %s (+%s), after %s (+%s)", mib(r.Baseline), mib(r.Peak), mib(r.Peak-r.Baseline), mib(r.After), mib(r.After-r.Baseline))
	if limit := r.Baseline + memoryInstances*memoryCap + memorySlack; r.Peak > limit {
		t.Errorf("peak RSS %s, want at most %s: baseline + %d instances × %s + %s", mib(r.Peak), mib(limit), memoryInstances, mib(memoryCap), mib(memorySlack))
	}
	if limit := r.Baseline + memorySlack; r.After > limit {
		t.Errorf("RSS after every instance was discarded %s, want at most %s: baseline + %s", mib(r.After), mib(limit), mib(memorySlack))
	}
}

// serveMemoryRounds is the child's side: it serves the app and writes what
// it measured.
func serveMemoryRounds(t *testing.T, app string) {
	if os.Getenv(goHeapEnv) == "go" {
		host.UseGoHeapMemory()
	}
	h, err := host.New(context.Background(), app, host.Options{
		CacheDir: "off",
		Logger:   discardLogger(),
		Limits:   config.Limits{MemoryBytes: memoryCap, Instances: memoryInstances},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	r := memoryReport{Baseline: procStatus(t, "VmRSS")}
	var wg sync.WaitGroup
	errs := make(chan error, memoryRounds)
	for w := range memoryInstances {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < memoryRounds; i += memoryInstances {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/grow", nil))
				if rec.Code != 500 {
					errs <- fmt.Errorf("request %d: got %d %s, want 500 (the guest traps)", i, rec.Code, rec.Body)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	r.Peak, r.After = procStatus(t, "VmHWM"), procStatus(t, "VmRSS")
	b, _ := json.Marshal(r)
	if err := os.WriteFile(os.Getenv(memoryOutEnv), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// procStatus reads a size in kB from /proc/self/status, in bytes.
func procStatus(t testing.TB, field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}
