//go:build !wasip1

package endpoints_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/poll"
)

// TestWasmGuestNamesAGoroutineLeftSleeping: a call that leaves a
// goroutine sleeping on a timer is warned of it, and the warning names
// the goroutine, what it waits for and the go statement that started it,
// so that the author of a bundle of many routes finds it. The goroutine
// cannot be stopped: it runs in the first later call of the instance
// after its time (settle yields at the end of each call while other
// goroutines exist), and what it logs is that call's, as the SDK's doc
// says.
func TestWasmGuestNamesAGoroutineLeftSleeping(t *testing.T) {
	h := &testHost{}
	mod := h.instantiate(t, buildGuest(t, "strays"))
	call := func(query string) string {
		t.Helper()
		envelope := `{"kind":"endpoint","method":"GET","route":"/api/strays","path":"/api/strays","query":` + query + `,"headers":{}}`
		if rc := h.serve(t, mod, envelope); rc != 0 || h.status != 200 {
			t.Fatalf("GET /api/strays %s: rc %d, status %d; logs %q", query, rc, h.status, h.logs)
		}
		return strings.Join(h.logs, "\n")
	}
	logs := call(`{"start":true}`)
	want := regexp.MustCompile(`left 1 goroutine\(s\) it started running \(goroutine \d+ \[sleep\], started at \S*testdata/strays/main\.go:27 \(main\.init\.0\.func1\)\)`)
	if !want.MatchString(logs) {
		t.Errorf("the starting call's log:\n%s\nwant a warning matching %s", logs, want)
	}
	if strings.Contains(logs, "the sleeper woke") {
		t.Fatalf("the sleeper woke within the call that started it, before its time:\n%s", logs)
	}
	calls := 0
	if !poll.Until(10*time.Second, func() bool {
		calls++
		return strings.Contains(call(`{}`), "the sleeper woke")
	}) {
		t.Fatalf("the sleeper never woke in %d later calls", calls)
	}
	if logs := strings.Join(h.logs, "\n"); strings.Contains(logs, "left") {
		t.Errorf("the call the sleeper woke in is warned of a goroutine it did not start:\n%s", logs)
	}
}
