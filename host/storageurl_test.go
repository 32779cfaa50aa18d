package host_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// TestStorageURLGoMisreadsFailsLoad: a Redis url whose password holds a
// '#' Go's URL parser reads as a host and port ("u", 4321) and a fragment
// fails the load, saying where and what to percent-encode, and neither
// the error nor the log holds any part of the user info. It loaded
// before, and the host dialled u:4321, naming it in its warnings.
func TestStorageURLGoMisreadsFailsLoad(t *testing.T) {
	t.Parallel()
	a := newApp(t).wat("server/routes/plain.get.wasm", watModule{handle: plainOK, extra: okData}).
		file("endpoints.json", []byte(`{"storage":{"driver":"redis","url":"redis://u:4321#zz@127.0.0.1:6379/0"}}`))
	logs := &logBuffer{}
	h, err := host.New(context.Background(), a.dir, host.Options{
		CacheDir: testCacheDir(t),
		Logger:   slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err == nil {
		h.Close(context.Background())
		t.Fatalf("host.New: no error, want the storage url refused\nlog:\n%s", logs)
	}
	for _, want := range []string{"/storage", "percent-encode its password (# is %23)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("host.New: %v, want it to say %q", err, want)
		}
	}
	for _, secret := range []string{"4321", "zz", "u:"} {
		if strings.Contains(err.Error(), secret) || strings.Contains(logs.String(), secret) {
			t.Errorf("the error %q or the log holds %q, part of the password:\n%s", err, secret, logs)
		}
	}
}
