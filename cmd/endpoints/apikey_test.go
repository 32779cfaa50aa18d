package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/apikeys"
	"github.com/wasmendpoints/endpoints/storage/redis"
	"github.com/wasmendpoints/endpoints/storage/storagetest"
)

// TestAPIKey stores a key with `endpoints apikey` in a real Redis server,
// where the host looks it up (the app's host namespace, not the guests'
// key-value data), then deletes it.
func TestAPIKey(t *testing.T) {
	t.Parallel()
	url, _, _ := storagetest.StartRedis(t)
	app := t.TempDir()
	cfg := fmt.Sprintf(`{"storage":{"driver":"redis","url":%q,"namespace":"shop"},"security":{"partners":{"apiKey":{"store":true}}}}`, url)
	if err := os.WriteFile(filepath.Join(app, "endpoints.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("apikey", app, "--subject", "ci", "--scope", "orders:write", "--scope", "orders:read")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	key := strings.TrimSpace(out)
	sum := apikeys.Sum(key)
	if !strings.HasPrefix(key, "ek_") || !strings.Contains(errOut, sum) || strings.Contains(errOut, key) {
		t.Errorf("stdout %q, stderr %q: want the key on stdout only, its SHA-256 on stderr", out, errOut)
	}
	store, err := redis.New(url, "shop")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	rec, ok, err := apikeys.Lookup(ctx, store, "shop", sum)
	if err != nil || !ok || string(rec) != `{"subject":"ci","scopes":["orders:write","orders:read"]}` {
		t.Errorf("the stored record = %s, %v, %v", rec, ok, err)
	}
	if _, ok, _ := store.Get(ctx, "shop", apikeys.Prefix+sum); ok {
		t.Error("the record is in the guests' namespace")
	}

	mine := apikeys.Sum("a key I made")
	if code, _, errOut := runCLI("apikey", app, "--subject", "ops", "--sha256", mine, "--ttl", "1h"); code != exitOK || !strings.Contains(errOut, "accepted until 20") {
		t.Errorf("--sha256: exit %d, stderr %q", code, errOut)
	}
	if _, ok, _ := apikeys.Lookup(ctx, store, "shop", mine); !ok {
		t.Error("the key given by its SHA-256 is not stored")
	}

	if code, _, errOut := runCLI("apikey", app, "--delete", sum); code != exitOK {
		t.Errorf("--delete: exit %d: %s", code, errOut)
	}
	if _, ok, _ := apikeys.Lookup(ctx, store, "shop", sum); ok {
		t.Error("the deleted key is still stored")
	}
	if code, _, errOut := runCLI("apikey", app, "--delete", sum); code != exitError || !strings.Contains(errOut, "no key with SHA-256") {
		t.Errorf("deleting it again: exit %d, stderr %q; want a failure", code, errOut)
	}
}

func TestAPIKeyErrors(t *testing.T) {
	t.Parallel()
	memory := t.TempDir()
	os.WriteFile(filepath.Join(memory, "endpoints.json"), []byte(`{"security":{"partners":{"apiKey":{"store":true}}}}`), 0o644)
	noStore := t.TempDir()
	os.WriteFile(filepath.Join(noStore, "endpoints.json"), []byte(`{"storage":{"driver":"redis","url":"redis://127.0.0.1:1/0"}}`), 0o644)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{"no subject", []string{"apikey", memory}, exitUsage, "--subject is required"},
		{"the memory store", []string{"apikey", memory, "--subject", "ci"}, exitError, "the memory store lives inside each serving process"},
		{"a bad SHA-256", []string{"apikey", noStore, "--subject", "ci", "--sha256", "abc"}, exitError, `"abc" is not a SHA-256 in hex`},
		{"no scheme reads the store, and Redis is down", []string{"apikey", noStore, "--subject", "ci"}, exitError, "no apiKey scheme has \"store\": true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(tt.args...)
			if code != tt.wantCode || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d saying %q", code, errOut, tt.wantCode, tt.want)
			}
		})
	}
}
