//go:build unix

package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
)

// TestReadCAFileRefusesAFIFO: outbound.caFile is read as an app's other
// files are: a FIFO there (or a device) fails the load naming the
// setting, where opening it waited for a writer, and the start, reload
// or shutdown with it, for good (and /dev/zero filled the memory).
func TestReadCAFileRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "ca.pem"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := config.Outbound{CAFile: "ca.pem"}.ReadCAFile(dir)
		done <- err
	}()
	select {
	case err := <-done:
		if want := "endpoints.json: /outbound/caFile: ca.pem: not a regular file (a FIFO)"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error = %v\nwant one saying %s", err, want)
		}
	case <-time.After(30 * time.Second):
		if f, err := os.OpenFile(filepath.Join(dir, "ca.pem"), os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("ReadCAFile still waits on the FIFO after 30 s")
	}
}
