package host_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestColdStartReleasesInterpreterCode: at a cold start (an empty
// compilation cache), a module is run in the interpreter to read its
// contract only when it lacks the contract sections; either way New
// returns with no interpreter code open, and the background loader then
// holds at most one module's interpreter code per compile slot. The
// interpreter's code is about twenty times a module's bytes (some 90 MB
// for a 4 MB Go module): kept from the load of every module until the
// compiler replaced it, 50 Go routes without sections rested at 10 GB
// where the same routes with sections rested at 2.5 GB.
func TestColdStartReleasesInterpreterCode(t *testing.T) {
	slots := runtime.GOMAXPROCS(0)
	n := 2*slots + 3
	for _, tc := range []struct {
		name     string
		sections bool
	}{
		{"without sections", false},
		{"with sections", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newApp(t)
			file := func(i int) string { return fmt.Sprintf("server/api/r%02d.get.wasm", i) }
			for i := range n {
				// Distinct bytes: each module compiles on its own.
				a.wat(file(i), watModule{contract: fmt.Sprintf(`{"responses":{"200":{"description":"route %02d"}}}`, i), handle: plainOK, extra: okData})
				if tc.sections {
					a.embedSections(file(i))
				}
			}
			release := make(chan struct{})
			h, _ := a.heldHost(release)
			use := h.InterpreterUse()
			if use.Codes != 0 || use.Instances != 0 {
				t.Errorf("after New: %d modules' interpreter code and %d interpreted instances open, want none until a request or the background loader needs them", use.Codes, use.Instances)
			}
			if use.PeakCodes > slots {
				t.Errorf("New held %d modules' interpreter code at once, want at most %d (one per load in parallel)", use.PeakCodes, slots)
			}
			doc := get(h, "/_endpoints/schema").Body.String()
			for i := range n {
				if want := fmt.Sprintf("route %02d", i); !strings.Contains(doc, want) {
					t.Errorf("the document lacks the contract of %s (%q)", file(i), want)
				}
			}
			// A request before the compiler: the route's code loads in the
			// interpreter, and only that route's.
			if rec := get(h, "/api/r00"); rec.Code != 200 || rec.Body.String() != "ok" {
				t.Fatalf("GET /api/r00 before compiling = %d %s", rec.Code, rec.Body)
			}
			if !h.Interpreted(file(0)) {
				t.Errorf("%s: a request before the compiler should run it in the interpreter", file(0))
			}
			if use := h.InterpreterUse(); use.Codes != 1 || use.Instances != 1 {
				t.Errorf("after one request: %d modules' interpreter code and %d interpreted instances open, want 1 and 1", use.Codes, use.Instances)
			}
			close(release)
			if err := h.WaitCompiled(t.Context()); err != nil {
				t.Fatal(err)
			}
			use = h.InterpreterUse()
			if use.Codes != 0 || use.Instances != 0 {
				t.Errorf("after WaitCompiled: %d modules' interpreter code and %d interpreted instances still open, want none", use.Codes, use.Instances)
			}
			if use.PeakCodes > slots+1 {
				t.Errorf("%d modules' interpreter code were open at once, want at most %d (the request's and one per compile slot)", use.PeakCodes, slots+1)
			}
			for i := range n {
				if rec := get(h, fmt.Sprintf("/api/r%02d", i)); rec.Code != 200 || rec.Body.String() != "ok" || h.Interpreted(file(i)) {
					t.Errorf("GET /api/r%02d once compiled = %d %s (interpreted: %v)", i, rec.Code, rec.Body, h.Interpreted(file(i)))
				}
			}
		})
	}
}
