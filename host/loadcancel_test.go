package host_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// TestLoadCanceledIsNotADeadline: a load that its caller cancels (Ctrl-C
// during `serve`'s start) stops a guest looping at load, and the error
// says the load was canceled, not that the module ran past the load
// deadline and may loop forever: the deadline, a minute, is far off.
func TestLoadCanceledIsNotADeadline(t *testing.T) {
	t.Parallel()
	a := newApp(t).wat("server/api/slow.get.wasm", watModule{
		extra: `  (data (i32.const 8192) "loading")` + "\n" +
			`  (func (export "_initialize") (call $log (i32.const 1) (i32.const 8192) (i32.const 7)) (loop $l (br $l)))` + "\n",
		handle: `(i32.const 0)`,
	})
	logs := &logBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	failed := make(chan error, 1)
	go func() {
		h, err := host.New(ctx, a.dir, host.Options{Mode: host.Production, CacheDir: testCacheDir(t),
			Limits: config.Limits{LoadTimeout: config.Duration(time.Minute)},
			Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
		if err == nil {
			h.Close(context.Background())
		}
		failed <- err
	}()
	if !waitFor(t, 30*time.Second, func() bool { return strings.Contains(logs.String(), "loading") }) {
		t.Fatalf("the guest did not start loading:\n%s", logs)
	}
	cancel()
	err := <-failed
	if err == nil {
		t.Fatal("host.New returned a host though its load was canceled")
	}
	if msg := err.Error(); strings.Contains(msg, "deadline") || strings.Contains(msg, "loop forever") || !strings.Contains(msg, "load was canceled") {
		t.Errorf("host.New = %v\nwant the load named as canceled, not a deadline", err)
	}
}
