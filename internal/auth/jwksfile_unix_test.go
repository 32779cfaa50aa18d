//go:build unix

package auth_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/auth"
)

// TestJWKSFileRefusesAFIFO: a key set file (jwt.jwks) is read as an
// app's other files are: a FIFO there (or a device) fails the load naming
// the member, where opening it waited for a writer, and the start, reload
// or shutdown with it, for good (and /dev/zero filled the memory).
func TestJWKSFileRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "auth", "jwks.json")
	if err := os.MkdirAll(filepath.Dir(fifo), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := auth.New(bearer, auth.Config{JWT: &auth.JWTConfig{JWKS: "auth/jwks.json"}}, auth.Env{AppDir: dir})
		done <- err
	}()
	select {
	case err := <-done:
		if want := "security.bearer.jwt.jwks: auth/jwks.json: not a regular file (a FIFO)"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New error = %v\nwant one saying %s", err, want)
		}
	case <-time.After(30 * time.Second):
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("New still waits on the FIFO after 30 s")
	}
}
