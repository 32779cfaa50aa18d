package host_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
)

// TestWatchLogsReloadProblemsWithOnReload: under Watch with an onReload
// that only counts reloads (as an embedder's metrics would), a reload's
// problem or warning is still in the host's log, once: a callback does
// not silence the log unless Watch is told that it tells them itself.
func TestWatchLogsReloadProblemsWithOnReload(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(a *app)
		change func(a *app)
		// logged is the text the log must hold at WARN or ERROR once.
		logged string
		// found says the report of the change has its problem or warning.
		found func(host.ReloadReport) bool
	}{
		{
			name:   "a module that does not load",
			change: func(a *app) { a.put("server/api/bad.get.wasm", []byte("not a module")) },
			logged: "server/api/bad.get.wasm",
			found:  func(r host.ReloadReport) bool { return len(r.Problems) > 0 },
		},
		{
			name: "a routes.config.json entry left behind",
			setup: func(a *app) {
				a.file("server/api/gone.get.wasm", assemble(t, versionModule(4, false)))
				a.file(host.RoutesConfigFile, []byte(`{"routes":{"/api/gone":{"responses":{"503":{"description":"Busy"}}}}}`))
			},
			change: func(a *app) { a.remove("server/api/gone.get.wasm") },
			logged: `pattern \"/api/gone\"`,
			found:  func(r host.ReloadReport) bool { return len(r.Warnings) > 0 },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t).file("server/api/v.get.wasm", assemble(t, versionModule(1, false)))
			if tt.setup != nil {
				tt.setup(a)
			}
			h, logs := a.host(host.Options{Mode: host.Development})
			reports := make(chan host.ReloadReport, 16)
			ctx, cancel := context.WithCancel(context.Background())
			done := startWatch(t, ctx, h, func(r host.ReloadReport) { reports <- r })
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("Watch: %v", err)
				}
			}()
			tt.change(a)
			for found := false; !found; {
				select {
				case r := <-reports:
					found = tt.found(r)
				case <-time.After(10 * time.Second):
					t.Fatalf("no reload reported the change within 10 s\nLOGS:\n%s", logs)
				}
			}
			if n := linesAtWarn(logs.String(), tt.logged); n != 1 {
				t.Errorf("the log holds %q at WARN or ERROR on %d lines, want 1:\n%s", tt.logged, n, logs)
			}
		})
	}
}

// linesAtWarn counts the lines of log at level WARN or ERROR that hold s.
func linesAtWarn(log, s string) int {
	n := 0
	for line := range strings.Lines(log) {
		if (strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR")) && strings.Contains(line, s) {
			n++
		}
	}
	return n
}

// TestWatchRefusesUnloggedWithoutOnReload: Unlogged without OnReload
// would hide every reload's problems; Watch says so and returns.
func TestWatchRefusesUnloggedWithoutOnReload(t *testing.T) {
	h, _ := newApp(t).file("server/api/v.get.wasm", assemble(t, versionModule(1, false))).host(host.Options{Mode: host.Development})
	err := h.Watch(context.Background(), host.WatchOptions{Unlogged: true})
	if err == nil || !strings.Contains(err.Error(), "set OnReload") {
		t.Errorf("Watch(Unlogged without OnReload) = %v, want an error saying to set OnReload", err)
	}
}
