package appfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	// write makes a file of size bytes, sparse: the large ones cost no
	// disk.
	write := func(name string, size int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, int64(size)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo.wasm")
	if runtime.GOOS != "windows" {
		if err := mkfifo(fifo); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link.wasm")
	if err := os.Symlink(write("target.wasm", 10), link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, as string
		size           int    // of what it reads
		err            error  // errors.Is
		msg            string // in the error
	}{
		{name: "a regular file", path: write("a.wasm", 100), as: "server/api/a.get.wasm", size: 100},
		{name: "a configuration file at its limit", path: write("routes.config.json", MaxConfigBytes), as: "routes.config.json", size: MaxConfigBytes},
		{name: "a module past its limit", path: write("bigger.wasm", MaxModuleBytes+1), as: "server/api/bigger.get.wasm", err: ErrTooLarge,
			msg: "server/api/bigger.get.wasm: file too large: more than the 268435456 bytes (256 MiB) the host reads of it"},
		{name: "a configuration file past its limit", path: write("endpoints.json", MaxConfigBytes+1), as: "endpoints.json", err: ErrTooLarge, msg: "endpoints.json: file too large"},
		{name: "a symbolic link to a regular file", path: link, as: "server/api/link.get.wasm", size: 10},
		{name: "a device", path: "/dev/zero", as: "server/runtime.wasm", err: ErrNotRegular, msg: "server/runtime.wasm: not a regular file (a character device)"},
		{name: "a FIFO without a writer", path: fifo, as: "server/runtime.wasm", err: ErrNotRegular, msg: "(a FIFO)"},
		{name: "a directory", path: dir, as: "routes.config.json", err: ErrNotRegular, msg: "(a directory)"},
		{name: "a missing file", path: filepath.Join(dir, "none.json"), as: "none.json", err: fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if runtime.GOOS == "windows" && (tt.path == fifo || tt.path == "/dev/zero") {
				t.Skip("no FIFOs or /dev/zero")
			}
			data, err := Read(tt.path, tt.as)
			if tt.err != nil {
				if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.msg) {
					t.Fatalf("Read = %d bytes, %v; want %v containing %q", len(data), err, tt.err, tt.msg)
				}
				return
			}
			if err != nil || len(data) != tt.size {
				t.Errorf("Read = %d bytes, %v; want %d bytes", len(data), err, tt.size)
			}
		})
	}
}
